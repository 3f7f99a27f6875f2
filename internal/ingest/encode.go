package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// EncodeRow writes t as a row of our JSONL format, so traces from any
// harness are stored, exported and re-decoded one way. An empty but
// recorded tool log stays an empty array (not "no tool log").
func EncodeRow(t *triage.Trace) ([]byte, error) {
	if b, ok := appendRow(make([]byte, 0, rowSizeHint(t)), t); ok {
		return b, nil
	}
	return encodeRowReflect(t)
}

// encodeRowReflect is EncodeRow through json.Marshal: the definition
// appendRow is held to, and the path for traces it refuses.
func encodeRowReflect(t *triage.Trace) ([]byte, error) {
	type row triage.Trace
	type withLog struct {
		*row
		ToolCalls []triage.ToolCall `json:"tool_calls"`
	}
	if t.HasToolLog {
		calls := t.ToolCalls
		if calls == nil {
			calls = []triage.ToolCall{}
		}
		return json.Marshal(withLog{row: (*row)(t), ToolCalls: calls})
	}
	return json.Marshal((*row)(t))
}

// Finish prepares a decoded trace for storage: for traces not read from
// our JSONL it returns the normalised row to store beside the original,
// and it fills the content hash when the adapter left it empty.
func Finish(t *triage.Trace) (norm []byte, err error) {
	if t.Source == "jsonl" && t.Raw != nil {
		return nil, nil
	}
	// A harness's run id may come from a directory name, which need not be
	// UTF-8: keep the column and the stored row (JSON) the same.
	t.RunID = strings.ToValidUTF8(t.RunID, "\uFFFD")
	var places [][2]int
	norm, ok := appendRowPlaces(make([]byte, 0, rowSizeHint(t)), t, &places)
	if !ok {
		if norm, err = encodeRowReflect(t); err != nil {
			return nil, err
		}
		places = nil
	}
	if t.ContentHash == "" {
		var sum [sha256.Size]byte
		switch {
		case t.Raw != nil:
			sum = sha256.Sum256(t.Raw)
		case !ok:
			sum, err = hashReflectWithoutPlaces(t)
			if err != nil {
				return nil, err
			}
		default:
			sum = hashWithoutPlaces(norm, places)
		}
		t.ContentHash = hex.EncodeToString(sum[:])
	}
	return norm, nil
}

// hashWithoutPlaces is the SHA-256 of a normalised row as it was written
// before messages carried their place among the calls (triage.Message.At):
// the row without its messages' ,"at":N members (places, as appendRow
// wrote them), so a log imported before then is a duplicate of itself
// now, not a conflict, and hashing costs no second encoding.
func hashWithoutPlaces(norm []byte, places [][2]int) [sha256.Size]byte {
	if len(places) == 0 {
		return sha256.Sum256(norm)
	}
	h := sha256.New()
	from := 0
	for _, p := range places {
		h.Write(norm[from:p[0]])
		from = p[1]
	}
	h.Write(norm[from:])
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// hashReflectWithoutPlaces is hashWithoutPlaces for a trace only
// json.Marshal encodes: the row of a copy whose messages have no place.
func hashReflectWithoutPlaces(t *triage.Trace) ([sha256.Size]byte, error) {
	c := *t
	c.Messages = make([]triage.Message, len(t.Messages))
	for i, m := range t.Messages {
		m.At = nil
		c.Messages[i] = m
	}
	row, err := encodeRowReflect(&c)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(row), nil
}

// rowSizeHint guesses the size of t's row from its longest texts, so
// the buffer is allocated about once.
func rowSizeHint(t *triage.Trace) int {
	n := 256 + len(t.RunID) + len(t.TaskID)
	for _, p := range []*string{t.Answer, t.Diff, t.TestOutput} {
		if p != nil {
			n += len(*p) + len(*p)/16
		}
	}
	for i := range t.Messages {
		n += 32 + len(t.Messages[i].Content) + len(t.Messages[i].Content)/16
	}
	for i := range t.ToolCalls {
		c := &t.ToolCalls[i]
		n += 64 + len(c.Name) + len(c.Args) + len(c.Output) + len(c.Output)/16 + len(c.Error)
	}
	return n
}
