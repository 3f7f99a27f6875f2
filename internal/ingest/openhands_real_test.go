package ingest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// The eval output.jsonl of a real Multi-SWE-bench run: shell exit codes
// from extras.metadata, and the run's error as its stop reason.
func TestOpenHandsRealEvalOutput(t *testing.T) {
	t.Parallel()
	recs := decodeReal(t, realLog(t, "openhands", "multi-swe-bench", "output.jsonl"))
	require.Len(t, recs, 3)
	want := []struct {
		task             string
		calls, codes, nz int
		stop             string
	}{
		{"ponylang__ponyc-4595", 22, 13, 5, "finish"},
		{"ponylang__ponyc-4593", 33, 12, 2, "finish"},
		{"ponylang__ponyc-4588", 48, 24, 12, "RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 50, max iteration: 50"},
	}
	for i, w := range want {
		tr := recs[i].Trace
		require.NotNil(t, tr, "record %d: %v", i, recs[i].Reject)
		require.Equal(t, w.task, tr.TaskID)
		require.Len(t, tr.ToolCalls, w.calls)
		n, nz := exitCodes(tr)
		require.Equal(t, [2]int{w.codes, w.nz}, [2]int{n, nz}, tr.TaskID)
		require.Equal(t, w.stop, tr.StopReason)
	}
	last := recs[2].Trace
	require.True(t, *last.Timeout, "the iteration cap is a budget kill")
	// The last command: apt-get could not find the package.
	var code int
	for _, c := range last.ToolCalls {
		if c.ExitCode != nil {
			code = *c.ExitCode
		}
	}
	require.Equal(t, 100, code)
}

// The resolver's output.jsonl (issue, git_patch, flat pre-2025 history):
// read, not rejected for a missing instance_id; the LLM-judged success
// stays out of the exit code.
func TestOpenHandsRealResolverOutput(t *testing.T) {
	t.Parallel()
	path := realLog(t, "openhands", "resolver", "output.jsonl")
	require.True(t, detectOpenHands(path, head(t, path)))
	recs := decodeReal(t, path)
	require.Len(t, recs, 2)
	a, b := recs[0].Trace, recs[1].Trace
	require.NotNil(t, a, "%v", recs[0].Reject)
	require.NotNil(t, b, "%v", recs[1].Reject)
	require.Equal(t, "resolver/neubig__pr-viewer-5#0", a.Key())
	require.Equal(t, "resolver/neubig__pr-viewer-1#0", b.Key())
	require.Len(t, a.ToolCalls, 4)
	require.Len(t, b.ToolCalls, 22)
	require.Equal(t, []string{"run", "run_ipython", "run", "finish"}, callNames(a))
	require.JSONEq(t, `{"command":"touch LICENSE"}`, string(a.ToolCalls[0].Args))
	require.Equal(t, 0, *a.ToolCalls[0].ExitCode)
	require.Nil(t, a.ToolCalls[1].ExitCode, "IPython cells record no exit code")
	n, _ := exitCodes(a)
	require.Equal(t, 2, n)
	n, _ = exitCodes(b)
	require.Equal(t, 1, n)
	require.Equal(t, []string{"LICENSE"}, diffFiles(*a.Diff))
	require.Equal(t, []string{"src/App.css", "src/PullRequestViewer.tsx"}, diffFiles(*b.Diff))
	require.NotContains(t, *a.Diff, "\r\n", "the terminal's CRLF is undone")
	for _, tr := range []*triageTrace{a, b} {
		require.Nil(t, tr.ExitCode, "success is the resolver's LLM judge, not a test run")
		require.Equal(t, "finish", tr.StopReason)
		require.Equal(t, "user", tr.Messages[0].Role)
		require.Regexp(t, `^Please fix the following issue`, tr.Messages[0].Content, "the twice-encoded instruction is decoded")
		require.NotEqual(t, "user", tr.Messages[1].Role, "the opening message is not repeated")
	}
	require.InDelta(t, 0.070713, *a.CostUSD, 1e-9)
	require.InDelta(t, 1.152933, *b.CostUSD, 1e-9, "metrics given as a JSON string")
}

// A session's events folder (one event per numbered file) is one input
// of a directory walk and imports as one trace, events in numeric order.
func TestOpenHandsRealSessionEvents(t *testing.T) {
	t.Parallel()
	root := realLog(t, "openhands")
	dir := filepath.Join(root, "session-63b4315947a049e2b7a51249b3d4fcc3", "events")
	files, err := expandFiles([]string{root})
	require.NoError(t, err)
	require.Contains(t, files, dir)
	for _, f := range files {
		require.NotEqual(t, dir, filepath.Dir(f), "no event file is an input of its own")
	}
	tr := onlyTrace(t, decodeReal(t, dir))
	require.Equal(t, "openhands/session-63b4315947a049e2b7a51249b3d4fcc3#0", tr.Key())
	require.Equal(t, []string{"execute_ipython_cell", "execute_ipython_cell", "finish"}, callNames(tr))
	require.Equal(t, "finished", tr.StopReason)
	require.Equal(t, "The coin flip result is: Heads", *tr.Answer)
	require.Equal(t, "Flip a coin!", tr.Messages[0].Content)
	require.Equal(t, "claude-3-7-sonnet-20250219", tr.Model)
}

// OpenHands writes exit code -1 for a command that had not finished (a
// server left running): no exit status, so unknown, with the reason.
func TestOpenHandsRealUnfinishedCommand(t *testing.T) {
	t.Parallel()
	tr := realTrace(t, "openhands", "trajs", "basic_gui_mode.json")
	require.Len(t, tr.ToolCalls, 4)
	require.Equal(t, 0, *tr.ToolCalls[0].ExitCode)
	require.Nil(t, tr.ToolCalls[3].ExitCode)
	require.Contains(t, tr.ToolCalls[3].Error, "had not finished")
	require.Equal(t, "awaiting_user_input", tr.StopReason)
}

// A bad event file is rejected by its own name and line; the others
// still make the trace. Only N.json files make an events folder.
func TestOpenHandsEventDirBadEvent(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "s1", "events")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("0.json", `{"id": 0, "timestamp": "2025-07-09T13:38:00", "source": "user", "message": "hi", "action": "message", "args": {"content": "hi"}}`)
	write("2.json", "{\"id\": 2, \"timestamp\": \"2025-07-09T13:38:02\",\n \"source\": \"agent\", \"action\": \"run\", \"args\": {\"command\": \"ls\"")
	write("10.json", `{"id": 10, "timestamp": "2025-07-09T13:38:03", "source": "agent", "action": "run", "args": {"command": "pwd"}}`)
	write("11.json", `{"id": 11, "timestamp": "2025-07-09T13:38:04", "source": "agent", "cause": 10, "observation": "run", "content": "/w", "extras": {"metadata": {"exit_code": 0}}}`)
	files, err := expandFiles([]string{filepath.Dir(filepath.Dir(dir))})
	require.NoError(t, err)
	require.Equal(t, []string{dir}, files)
	recs := decodeReal(t, dir)
	require.Len(t, recs, 2)
	rej := recs[0].Reject
	require.NotNil(t, rej)
	require.Equal(t, filepath.Join(dir, "2.json"), rej.File)
	require.Equal(t, 2, rej.Line)
	require.Contains(t, rej.Reason, "truncated")
	tr := recs[1].Trace
	require.Equal(t, "s1", tr.TaskID)
	require.Equal(t, []string{"run"}, callNames(tr))
	require.Equal(t, 0, *tr.ToolCalls[0].ExitCode)

	write("notes.txt", "x")
	files, err = expandFiles([]string{dir})
	require.NoError(t, err)
	require.NotContains(t, files, dir, "a folder with other files is walked, not claimed")
}

func callNames(tr *triageTrace) []string {
	var out []string
	for _, c := range tr.ToolCalls {
		out = append(out, c.Name)
	}
	return out
}

// A budget error the log contradicts is not a budget kill: ponyc-4595
// ends in the agent's finish, so the same "maximum iteration" error on
// it leaves Timeout false, with both words in the stop reason;
// ponyc-4588, whose log ends in a run, stays a budget kill.
func TestOpenHandsBudgetErrorContradictedByFinish(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(realLog(t, "openhands", "multi-swe-bench", "output.jsonl"))
	require.NoError(t, err)
	const maxIter = "RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 50, max iteration: 50"
	var out bytes.Buffer
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var row map[string]any
		require.NoError(t, json.Unmarshal(l, &row))
		if row["instance_id"] == "ponylang__ponyc-4595" {
			row["error"] = maxIter
		}
		b, err := json.Marshal(row)
		require.NoError(t, err)
		out.Write(append(b, '\n'))
	}
	path := filepath.Join(t.TempDir(), "output.jsonl")
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
	by := map[string]*triage.Trace{}
	for _, r := range decodeWith(t, OpenHandsFormat, path, Options{}) {
		require.NotNil(t, r.Trace, r.Reject)
		by[r.Trace.TaskID] = r.Trace
	}
	finished := by["ponylang__ponyc-4595"]
	require.Equal(t, ptr(false), finished.Timeout)
	require.Contains(t, finished.StopReason, "but the log ends in the agent's finish")
	killed := by["ponylang__ponyc-4588"]
	require.Equal(t, ptr(true), killed.Timeout)
	require.Equal(t, maxIter, killed.StopReason)
	require.Equal(t, triage.OutcomeUnknown, killed.Outcome, "no eval report: unknown, not incomplete")
}
