package ingest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// FuzzDecodeStored feeds arbitrary rows to the stored-row decoder the
// store reads back with: no input may panic; every row the strict import
// decoder accepts decodes the same way from the store; and a stored row
// written out again (EncodeRow, as export and harness imports do) decodes
// strictly to the same trace.
func FuzzDecodeStored(f *testing.F) {
	f.Add([]byte(`{"task_id":"T04","exit_code":0,"tool_calls":[{"name":"read","args":{"path":"README.md"}}],"written_tests":false,"wall_s":41}`), "run1")
	f.Add([]byte(`{"task_id":"x","run_id":"r","seed":3,"outcome":"blocked","diff":"diff --git a/x b/x\n","answer":"\u001b]0;t\u0007","tokens":{"input":1,"output":2}}`), "")
	f.Add([]byte(`{"task_id":"x","tool_calls":[],"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"assumed_api":true}`), "r")
	f.Add([]byte(`{"task_id":"x","tool_calls":[{"name":"http","args":"{\"a\" : [1, 2.50]}","wall_s":1e-3}],"cost_usd":0.5}`), "r")
	f.Add([]byte("{\"task_id\":\"\xff\"}"), "r")
	f.Add([]byte(`{"task_id":1}`), "r")
	f.Fuzz(func(t *testing.T, raw []byte, run string) {
		stored, serr := DecodeStored(raw, run)
		strict, err := DecodeRow(raw, run)
		if err != nil {
			return
		}
		require.NoError(t, serr, "the strict decoder accepted the row")
		require.Equal(t, storedShape(strict), storedShape(stored))

		enc, err := EncodeRow(stored)
		require.NoError(t, err)
		back, err := DecodeRow(enc, run)
		require.NoError(t, err, "a stored row written out must import again: %s", enc)
		require.Equal(t, storedShape(stored), storedShape(back), "after EncodeRow: %s", enc)
	})
}

// storedShape drops what legitimately differs between two decodes of one
// trace (its bytes, hash and origin) and canonicalises tool arguments,
// which EncodeRow compacts.
func storedShape(t *triage.Trace) triage.Trace {
	c := *t
	c.Raw, c.ContentHash, c.Source = nil, "", ""
	c.ToolCalls = append([]triage.ToolCall(nil), t.ToolCalls...)
	for i := range c.ToolCalls {
		if s, err := triage.CanonicalJSON(c.ToolCalls[i].Args); err == nil {
			c.ToolCalls[i].Args = []byte(s)
		}
	}
	return c
}
