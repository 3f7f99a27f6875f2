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
