package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// A hand-made `codex exec --json` stream (the shape of
// codex-rs/exec/src/exec_events.rs).
func TestCodexExecStream(t *testing.T) {
	t.Parallel()
	p := filepath.Join("testdata", "codex-exec", "fix-tests.jsonl")
	f, err := Detect(p, head(t, p))
	require.NoError(t, err)
	require.Equal(t, nameCodexExec, f.Name)
	tr := onlyTrace(t, decodeWith(t, CodexExecFormat, p, Options{}))
	require.Equal(t, "fix-tests", tr.TaskID)
	require.Equal(t, "codex-exec", tr.Source)
	require.Equal(t, "turn.completed", tr.StopReason)
	require.Equal(t, triage.Tokens{Input: 24763, Output: 122}, *tr.Tokens)
	require.Nil(t, tr.CostUSD)
	require.Empty(t, tr.Model, "the stream names no model")
	require.Nil(t, tr.Diff, "a file_change names files, not their diff")
	require.Len(t, tr.ToolCalls, 5)

	c := tr.ToolCalls[0]
	require.Equal(t, "shell", c.Name)
	require.JSONEq(t, `{"command":"bash -lc 'pytest -q'"}`, string(c.Args))
	require.Equal(t, "F\n1 failed\n", c.Output, "the completed event replaces the started one")
	require.Equal(t, ptr(1), c.ExitCode)
	require.Equal(t, "exit status 1", c.Error)

	require.Equal(t, "apply_patch", tr.ToolCalls[1].Name)
	require.JSONEq(t, `{"changes":[{"path":"/work/calc.py","kind":"update"}]}`, string(tr.ToolCalls[1].Args))
	require.Equal(t, ptr(0), tr.ToolCalls[2].ExitCode)
	require.Equal(t, "search", tr.ToolCalls[3].Name)
	require.Equal(t, "no hits", tr.ToolCalls[3].Output)
	// Still running when the stream ended: no exit code.
	require.JSONEq(t, `{"command":"bash -lc 'sleep 600'"}`, string(tr.ToolCalls[4].Args))
	require.Nil(t, tr.ToolCalls[4].ExitCode)
	require.Equal(t, "Fixed the sign in calc.py; the test passes.", *tr.Answer)
}

func TestCodexExecFailedAndBadLines(t *testing.T) {
	t.Parallel()
	data := "{\"type\":\"thread.started\",\"thread_id\":\"th-1\"}\n" +
		"{\"type\":\"item.completed\",\"item\":{\"id\":\"i\",\"type\":\"command_execution\",\"command\":\"ls\",\"aggregated_output\":\"\",\"exit_code\":\"x\",\"status\":\"declined\"}}\n" +
		"not json\n" +
		"{\"type\":\"turn.failed\",\"error\":{\"message\":\"stream disconnected\"}}\n"
	recs, err := decodeBytes(CodexExecFormat, "", []byte(data))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.Equal(t, 3, recs[0].Reject.Line)
	tr := recs[1].Trace
	require.Equal(t, "th-1", tr.TaskID, "no file name: the thread id")
	require.Equal(t, "turn.failed: stream disconnected", tr.StopReason)
	require.Nil(t, tr.ToolCalls[0].ExitCode)
	require.Equal(t, "declined", tr.ToolCalls[0].Error)
}

// A cut stream keeps what came before and rejects its last line with the
// file, line and reason.
func TestCodexExecTruncated(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "codex-exec", "fix-tests.jsonl"))
	require.NoError(t, err)
	for _, frac := range truncations[1:] {
		cut := int(float64(len(data)) * frac)
		if data[cut-1] == '\n' {
			cut--
		}
		t.Run(strconv.Itoa(cut), func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "fix-tests.jsonl")
			require.NoError(t, os.WriteFile(p, data[:cut], 0o644))
			recs := decodeWith(t, CodexExecFormat, p, Options{})
			require.Len(t, recs, 2)
			r := recs[0].Reject
			require.NotNil(t, r)
			require.Equal(t, p, r.File)
			require.Equal(t, bytes.Count(data[:cut], []byte{'\n'})+1, r.Line)
			require.Contains(t, r.Reason, "truncated")
			require.NotNil(t, recs[1].Trace)
		})
	}
}
