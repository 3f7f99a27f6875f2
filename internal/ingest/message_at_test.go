package ingest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// at is a message's At as tests write it.
func at(n int) *int { return &n }

// TestMessagesKeepTheirPlaceAmongCalls: a format's messages carry how
// many calls came before them (At), the stored row writes it and reading
// the row back gives it again; a bad at is rejected naming its field.
func TestMessagesKeepTheirPlaceAmongCalls(t *testing.T) {
	t.Parallel()
	tr := &triage.Trace{TaskID: "T", Source: "x"}
	addMessage(tr, "user", "fix it")
	tr.ToolCalls = append(tr.ToolCalls, triage.ToolCall{Name: "bash"}, triage.ToolCall{Name: "bash"})
	addMessage(tr, "assistant", "done")
	require.Equal(t, []triage.Message{{Role: "user", Content: "fix it", At: at(0)}, {Role: "assistant", Content: "done", At: at(2)}}, tr.Messages)
	row, err := EncodeRow(tr)
	require.NoError(t, err)
	require.Contains(t, string(row), `{"role":"assistant","content":"done","at":2}`)
	recs, err := decodeBytes(JSONL, "r.jsonl", append(row, '\n'))
	require.NoError(t, err)
	got := onlyTrace(t, recs)
	require.Equal(t, tr.Messages, got.Messages)

	recs, err = decodeBytes(JSONL, "r.jsonl", []byte(`{"task_id":"T","messages":[{"role":"user","content":"x","at":-1}]}`+"\n"))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.NotNil(t, recs[0].Reject)
	require.Contains(t, recs[0].Reject.Reason, "messages[0].at")
}

// TestContentHashIgnoresPlaces: a harness trace's content hash is the one
// it had before messages carried their place, so re-importing a log into
// an older store finds a duplicate, not a conflict (the real logs: 720 of
// 1,211 were refused as conflicts before the hash left the places out),
// and two traces that differ elsewhere still differ.
func TestContentHashIgnoresPlaces(t *testing.T) {
	t.Parallel()
	mk := func(withPlaces bool, arg string) *triage.Trace {
		tr := &triage.Trace{TaskID: "T", RunID: "r", Source: "x"}
		addMessage(tr, "user", "go")
		tr.ToolCalls = append(tr.ToolCalls, triage.ToolCall{Name: "bash", Args: []byte(`{"cmd":"ls","at":` + arg + `}`)})
		addMessage(tr, "assistant", "done")
		if !withPlaces {
			for i := range tr.Messages {
				tr.Messages[i].At = nil
			}
		}
		return tr
	}
	hash := func(tr *triage.Trace) string {
		_, err := Finish(tr)
		require.NoError(t, err)
		return tr.ContentHash
	}
	require.Equal(t, hash(mk(false, "1")), hash(mk(true, "1")))
	require.NotEqual(t, hash(mk(true, "1")), hash(mk(true, "2")), "an argument named at is content")
}
