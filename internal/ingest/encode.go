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
	norm, err = EncodeRow(t)
	if err != nil {
		return nil, err
	}
	if t.ContentHash == "" {
		src := t.Raw
		if src == nil {
			src = norm
		}
		sum := sha256.Sum256(src)
		t.ContentHash = hex.EncodeToString(sum[:])
	}
	return norm, nil
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
