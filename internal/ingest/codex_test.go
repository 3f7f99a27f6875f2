package ingest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

func TestCodexRollout(t *testing.T) {
	t.Parallel()
	path := fixture(t, "codex", "rollout-2025-10-01T12-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	require.True(t, detectCodex(path, head(t, path)))
	require.False(t, detectClaude(path, head(t, path)))
	tr := onlyTrace(t, decodeWith(t, CodexFormat, path, Options{}))
	require.Equal(t, "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", tr.TaskID)
	require.Equal(t, "codex", tr.RunID)
	require.Equal(t, "gpt-5-codex", tr.Model)
	require.Len(t, tr.ToolCalls, 3)
	sh := tr.ToolCalls[0]
	require.Equal(t, "shell", sh.Name)
	require.JSONEq(t, `{"command":["bash","-lc","pytest -q tests/test_math.py"],"workdir":"/work/repo"}`, string(sh.Args))
	require.Equal(t, "F\n1 failed in 0.02s\n", sh.Output)
	require.Equal(t, "exit code 1", sh.Error)
	require.InDelta(t, 1.2, *sh.WallS, 1e-9)
	require.Equal(t, "apply_patch", tr.ToolCalls[1].Name)
	require.Contains(t, string(tr.ToolCalls[1].Args), "*** Begin Patch")
	require.Empty(t, tr.ToolCalls[1].Error)
	require.Equal(t, "local_shell", tr.ToolCalls[2].Name)
	require.Equal(t, "1 passed in 0.01s", tr.ToolCalls[2].Output)
	require.Equal(t, triage.Tokens{Input: 9800, Output: 420}, *tr.Tokens, "the last running total")
	require.Nil(t, tr.CostUSD)
	require.Equal(t, "Fixed `add` in src/math.py; the test passes.", *tr.Answer)
	require.Equal(t, []triage.Message{
		{Role: "user", Content: "Make the failing test in tests/test_math.py pass.", At: at(0)},
		{Role: "assistant", Content: "Fixed `add` in src/math.py; the test passes.", At: at(3)},
	}, tr.Messages, "the injected environment context is left out")
	require.InDelta(t, 10.2, *tr.WallS, 1e-9)
}

func TestCodexBadPayload(t *testing.T) {
	t.Parallel()
	data := `{"timestamp":"2025-10-01T12:00:00Z","type":"session_meta","payload":{"id":"s"}}` + "\n" +
		`{"timestamp":"2025-10-01T12:00:01Z","type":"response_item","payload":"oops"}` + "\n"
	recs, err := decodeBytes(CodexFormat, "r.jsonl", []byte(data))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.Equal(t, 2, recs[0].Reject.Line)
	require.Contains(t, recs[0].Reject.Reason, "payload")
	require.Equal(t, "s", recs[1].Trace.TaskID)
}

// A rollout from before the {timestamp, type, payload} envelope (Codex CLI
// until about August 2025): a bare header, state markers and bare items.
// The fixture is hand-made from the format's public descriptions.
func TestCodexLegacyRollout(t *testing.T) {
	t.Parallel()
	path := "testdata/codex-legacy/rollout-2025-08-12T09-14-03-0198c7e1-5a2b-7c3d-9e4f-1a2b3c4d5e6f.jsonl"
	f, err := Detect(path, head(t, path))
	require.NoError(t, err)
	require.Equal(t, nameCodex, f.Name)
	tr := onlyTrace(t, decodeWith(t, CodexFormat, path, Options{}))
	require.Equal(t, "0198c7e1-5a2b-7c3d-9e4f-1a2b3c4d5e6f", tr.TaskID, "the header's id")
	require.Len(t, tr.ToolCalls, 3)
	red := tr.ToolCalls[0]
	require.Equal(t, "shell", red.Name)
	require.Equal(t, 1, *red.ExitCode)
	require.Equal(t, "exit code 1", red.Error)
	require.Contains(t, red.Output, "FAILED tests/test_ops.py::test_subtract")
	require.InDelta(t, 0.6, *red.WallS, 1e-9)
	require.Equal(t, 0, *tr.ToolCalls[2].ExitCode)
	require.NotNil(t, tr.Diff, "the apply_patch that applied makes the diff")
	require.Contains(t, *tr.Diff, "+    return a - b")
	require.Contains(t, *tr.Diff, "calc/ops.py")
	require.Equal(t, []triage.Message{
		{Role: "user", Content: "tests/test_ops.py fails on subtract; fix it", At: at(0)},
		{Role: "assistant", Content: "subtract now returns a - b; both tests pass.", At: at(3)},
	}, tr.Messages, "the environment context is left out")
	require.Nil(t, tr.WallS, "only the header is stamped: the wall-clock is unknown, not 0")
	require.Nil(t, tr.Tokens, "an older rollout records no token counts")
}

// An older rollout's bad lines are rejected one by one; the rest make the
// trace. Files that only look alike (an OpenHands event, our JSONL) are
// not taken for one.
func TestCodexLegacyBadLinesAndLookalikes(t *testing.T) {
	t.Parallel()
	data := `{"id":"s1","timestamp":"2025-07-01T10:00:00Z","instructions":null}` + "\n" +
		`{"record_type":"state"}` + "\n" +
		`{"role":"user","content":[]}` + "\n" +
		`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"` + "\n" +
		`{"type":"function_call","timestamp":"2025-07-01T10:00:05Z","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c2"}` + "\n" +
		`{"type":"function_call_output","call_id":"c2","output":"README.md"}` + "\n"
	recs, err := decodeBytes(CodexFormat, "rollout.jsonl", []byte(data))
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.Equal(t, 3, recs[0].Reject.Line)
	require.Contains(t, recs[0].Reject.Reason, "no type")
	require.Equal(t, 4, recs[1].Reject.Line)
	tr := recs[2].Trace
	require.Equal(t, "s1", tr.TaskID)
	require.Len(t, tr.ToolCalls, 1)
	require.Equal(t, "README.md", tr.ToolCalls[0].Output)
	require.InDelta(t, 5, *tr.WallS, 1e-9, "an item's own stamp gives the span")

	for _, head := range []string{
		`{"id": 0, "timestamp": "2025-01-01T00:00:00", "source": "user", "message": "hi", "action": "message"}`,
		`{"run_id":"r","task_id":"t","seed":0,"id":"x","timestamp":"2025-01-01T00:00:00Z"}`,
		`{"id":"x","timestamp":"2025-01-01T00:00:00Z"}` + "\n" + `{"id":"y","timestamp":"2025-01-01T00:00:01Z"}`,
	} {
		require.False(t, detectCodex("x.jsonl", []byte(head)), head)
	}
}
