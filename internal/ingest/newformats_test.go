package ingest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

func callExits(t *triage.Trace) []any {
	out := make([]any, len(t.ToolCalls))
	for i, c := range t.ToolCalls {
		if c.ExitCode != nil {
			out[i] = *c.ExitCode
		}
	}
	return out
}

func diffPaths(t *triage.Trace) []string {
	if t.Diff == nil {
		return nil
	}
	var out []string
	for _, f := range triage.ParseDiff(*t.Diff) {
		out = append(out, f.Path())
	}
	return out
}

func TestGeminiSessionJSON(t *testing.T) {
	t.Parallel()
	p := fixture(t, "gemini-cli", "session-2026-03-02T10-15-4f3a9c1e.json")
	f, err := Detect(p, head(t, p))
	require.NoError(t, err)
	require.Equal(t, nameGemini, f.Name)
	tr := onlyTrace(t, decodeWith(t, GeminiFormat, p, Options{}))
	require.Equal(t, "4f3a9c1e-2b7d-4e1a-9c3f-8d2e6a1b0c55", tr.TaskID)
	require.Equal(t, "gemini-2.5-pro", tr.Model)
	require.Len(t, tr.ToolCalls, 4)
	require.Equal(t, []string{"read_file", "run_shell_command", "replace", "run_shell_command"}, []string{tr.ToolCalls[0].Name, tr.ToolCalls[1].Name, tr.ToolCalls[2].Name, tr.ToolCalls[3].Name})
	require.Equal(t, []any{nil, 1, nil, 0}, callExits(tr))
	require.Equal(t, "exit code 1", tr.ToolCalls[1].Error)
	require.JSONEq(t, `{"command":"python -m pytest -q tests/test_calc.py","description":"Run the calc tests"}`, string(tr.ToolCalls[1].Args))
	require.Equal(t, []string{"src/calc.py"}, diffPaths(tr))
	require.Equal(t, "Fixed add() to return a + b; both tests pass.", *tr.Answer)
	require.Equal(t, &triage.Tokens{Input: 7500, Output: 190}, tr.Tokens)
	require.InDelta(t, 158.78, *tr.WallS, 0.01)
	require.Nil(t, tr.ExitCode, "a session alone has no scorer")
	// The reading the rules use: the second shell call is a passing test.
	a := triage.ReadActivity(tr)
	require.Equal(t, triage.StepTest, a.Steps[3].Kind)
	require.Equal(t, triage.ResultPassed, a.Steps[3].Result)
	require.Equal(t, triage.ResultFailed, a.Steps[1].Result)
	require.Equal(t, 2, a.LastEdit)
}

func TestGeminiSessionJSONL(t *testing.T) {
	t.Parallel()
	p := fixture(t, "gemini-cli", "gemini-cli.trajectory.jsonl")
	f, err := Detect(p, head(t, p))
	require.NoError(t, err)
	require.Equal(t, nameGemini, f.Name)
	tr := onlyTrace(t, decodeWith(t, GeminiFormat, p, Options{}))
	require.Equal(t, "c07d2e91-5a44-4b0e-8f6a-1e2d3c4b5a69", tr.TaskID)
	// g2 was rewound away: its text is not the answer and not a message.
	require.Len(t, tr.ToolCalls, 3)
	require.Equal(t, []any{2, nil, nil}, callExits(tr))
	require.Equal(t, "cancelled", tr.ToolCalls[1].Error)
	require.Equal(t, []string{"missing.c"}, diffPaths(tr))
	require.Equal(t, "Added missing.c; the build should pass now.", *tr.Answer)
	for _, m := range tr.Messages {
		require.NotContains(t, m.Content, "delete the Makefile")
	}
	require.InDelta(t, 60.0, *tr.WallS, 0.001)
}

func TestACPTrajectory(t *testing.T) {
	t.Parallel()
	p := fixture(t, "acp", "acp_trajectory.jsonl")
	f, err := Detect(p, head(t, p))
	require.NoError(t, err)
	require.Equal(t, nameACP, f.Name)
	tr := onlyTrace(t, decodeWith(t, ACPFormat, p, Options{}))
	require.Len(t, tr.ToolCalls, 5)
	require.Equal(t, []string{"bash", "read", "edit", "write", "bash"}, []string{tr.ToolCalls[0].Name, tr.ToolCalls[1].Name, tr.ToolCalls[2].Name, tr.ToolCalls[3].Name, tr.ToolCalls[4].Name})
	require.Equal(t, []any{1, nil, nil, nil, 0}, callExits(tr))
	require.Equal(t, "exit code 1", tr.ToolCalls[0].Error)
	require.Equal(t, "Error: permission denied: /etc/words.conf", tr.ToolCalls[3].Error)
	require.JSONEq(t, `{"command":"pytest -q tests/test_words.py","description":"Run the word-count tests"}`, string(tr.ToolCalls[0].Args))
	require.Equal(t, []string{"app/words.py"}, diffPaths(tr), "only the edit that completed")
	require.Equal(t, "count() now splits on any whitespace; the suite passes.", *tr.Answer)
	require.InDelta(t, 13.0, *tr.WallS, 0.001)
	require.Empty(t, tr.StopReason)
	a := triage.ReadActivity(tr)
	require.Equal(t, triage.StepTest, a.Steps[0].Kind)
	require.Equal(t, triage.ResultFailed, a.Steps[0].Result)
	require.Equal(t, triage.ResultPassed, a.Steps[4].Result)
}

func TestACPTimeout(t *testing.T) {
	t.Parallel()
	tr := onlyTrace(t, decodeWith(t, ACPFormat, fixture(t, "acp", "timeout", "acp_trajectory.jsonl"), Options{}))
	require.Equal(t, "wall_clock_timeout", tr.StopReason)
	require.Equal(t, ptr(true), tr.Timeout)
	require.Equal(t, ptr(900.0), tr.WallCap)
	require.Equal(t, triage.OutcomeUnknown, tr.Outcome, "a budget kill is the stop reason, not the outcome")
	require.Len(t, tr.ToolCalls, 1)
	require.JSONEq(t, `{"command":"xz -9e big.log"}`, string(tr.ToolCalls[0].Args))
	require.Equal(t, "did not finish (in_progress)", tr.ToolCalls[0].Error)
}

// decodeTrialDir imports a trial folder the way the command line does.
func decodeTrialDir(t *testing.T, dir string) []Record {
	t.Helper()
	in, err := Open(dir, nil, nil)
	require.NoError(t, err)
	defer in.Close()
	var recs []Record
	require.NoError(t, Decode(t.Context(), in, "", Options{}, func(r Record) error {
		recs = append(recs, r)
		return nil
	}))
	return recs
}

func TestTrialFolders(t *testing.T) {
	t.Parallel()
	job := fixture(t, "trials", "tb2-sonnet")
	w, err := ExpandWalk([]string{job})
	require.NoError(t, err)
	var names []string
	for _, f := range w.Files {
		names = append(names, filepath.Base(f))
	}
	require.Equal(t, []string{"build-cache__Q4r5S6t", "count-words__1a2b3c4d", "fix-regex__A1b2C3d", "fix-regex__Z9y8X7w"}, names, "each trial is one input")
	require.Len(t, w.Skipped, 1)
	require.Equal(t, filepath.Join(job, "result.json"), w.Skipped[0].Path)

	t.Run("harbor claude-code, full reward", func(t *testing.T) {
		tr := onlyTrace(t, decodeTrialDir(t, filepath.Join(job, "fix-regex__A1b2C3d")))
		require.Equal(t, "tb2-sonnet", tr.RunID)
		require.Equal(t, "fix-regex", tr.TaskID)
		require.Equal(t, 0, tr.Seed)
		require.Equal(t, nameTrial, tr.Source)
		require.Equal(t, "claude-code", tr.Agent)
		require.Len(t, tr.ToolCalls, 3)
		require.Equal(t, []string{"Bash", "Edit", "Bash"}, []string{tr.ToolCalls[0].Name, tr.ToolCalls[1].Name, tr.ToolCalls[2].Name})
		require.Equal(t, ptr(0), tr.ExitCode)
		require.Equal(t, "success", tr.StopReason, "claude -p's own closing subtype")
		require.Nil(t, tr.Timeout)
		require.InDelta(t, 150.5, *tr.WallS, 0.001)
		require.Equal(t, []string{"test_outputs.py::test_dates", "test_outputs.py::test_times"}, tr.Scorer.FailToPass.Passed)
		require.Contains(t, *tr.TestOutput, "2 passed in 0.02s")
	})
	t.Run("harbor gemini, partial reward is red", func(t *testing.T) {
		tr := onlyTrace(t, decodeTrialDir(t, filepath.Join(job, "fix-regex__Z9y8X7w")))
		require.Equal(t, "fix-regex", tr.TaskID)
		require.Equal(t, 1, tr.Seed, "the second trial of the task")
		require.Equal(t, ptr(1), tr.ExitCode)
		require.Contains(t, *tr.TestOutput, "reward=0.55 (result.json): not a full score")
		require.Equal(t, []string{"test_outputs.py::test_leap_years"}, tr.Scorer.FailToPass.Failed)
		require.Len(t, tr.ToolCalls, 4)
		require.Equal(t, []any{nil, 1, nil, 0}, callExits(tr))
		require.Equal(t, []string{"src/calc.py"}, diffPaths(tr))
		require.Equal(t, "gemini-2.5-pro", tr.Model)
	})
	t.Run("harbor codex, agent timeout", func(t *testing.T) {
		tr := onlyTrace(t, decodeTrialDir(t, filepath.Join(job, "build-cache__Q4r5S6t")))
		require.Equal(t, "build-cache", tr.TaskID)
		require.Equal(t, "AgentTimeoutError", tr.StopReason)
		require.Equal(t, ptr(true), tr.Timeout)
		require.Equal(t, ptr(900.0), tr.WallCap)
		require.Equal(t, triage.OutcomeFailed, tr.Outcome, "the verifier's verdict; the kill is the stop reason")
		require.Equal(t, ptr(1), tr.ExitCode, "reward 0 from verifier/reward.json")
		require.Equal(t, []any{2, nil}, callExits(tr))
		require.Equal(t, "gpt-5-codex", tr.Model)
	})
	t.Run("benchflow acp, full reward", func(t *testing.T) {
		tr := onlyTrace(t, decodeTrialDir(t, filepath.Join(job, "count-words__1a2b3c4d")))
		require.Equal(t, "count-words", tr.TaskID)
		require.Len(t, tr.ToolCalls, 5)
		require.Equal(t, ptr(0), tr.ExitCode)
		require.Equal(t, []string{"app/words.py"}, diffPaths(tr))
	})
}

// writeTrial makes a trial folder from name → content.
func writeTrial(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "job", "hello__abc1234")
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

func TestTrialRewardSources(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		exit  *int
	}{
		{"reward.txt full", map[string]string{"result.json": `{"trial_name":"hello__abc1234","task_name":"hello"}`, "verifier/reward.txt": "1\n"}, ptr(0)},
		{"reward.txt partial", map[string]string{"result.json": `{"trial_name":"hello__abc1234","task_name":"hello"}`, "verifier/reward.txt": "0.55"}, ptr(1)},
		{"reward.json, every key must be full", map[string]string{"result.json": `{"trial_name":"hello__abc1234","task_name":"hello"}`, "verifier/reward.json": `{"accuracy": 1.0, "style": 0.5, "note": "x"}`}, ptr(1)},
		{"rewards.jsonl, last line", map[string]string{"result.json": `{"trial_name":"hello__abc1234","task_name":"hello"}`, "agent/x.txt": "", "rewards.jsonl": "{\"reward\": 0.2}\n{\"reward\": 1.0}\n"}, ptr(0)},
		{"never scored", map[string]string{"result.json": `{"trial_name":"hello__abc1234","task_name":"hello","verifier_result":null}`, "verifier/test-stdout.txt": "boom"}, nil},
		{"terminal-bench is_resolved", map[string]string{"results.json": `{"trial_name":"hello.2-of-3.run1","task_id":"hello","is_resolved":false,"failure_mode":"test_timeout","parser_results":{"test_a":"passed","test_b":"failed"}}`, "agent-logs/x.txt": ""}, ptr(1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := onlyTrace(t, decodeTrialDir(t, writeTrial(t, tc.files)))
			require.Equal(t, "hello", tr.TaskID)
			require.Equal(t, tc.exit, tr.ExitCode)
			require.False(t, tr.HasToolLog, "no agent log any format reads")
			if tc.name == "terminal-bench is_resolved" {
				require.Equal(t, 1, tr.Seed)
				require.Equal(t, "test_timeout", tr.StopReason)
				require.Nil(t, tr.Timeout, "the tests timed out, not the agent")
				require.Equal(t, []string{"test_b"}, tr.Scorer.FailToPass.Failed)
			}
		})
	}
}

func TestTrialBadResult(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, reason string }{
		{"{\n  \"trial_name\": \"hello__abc1234\",\n  \"task_name\": \"hel", "truncated input"},
		{"{\n  \"trial_name\": \"hello__abc1234\",\n  \"task_name\": 7\n}", "task_name"},
		{"{\n  \"trial_name\": \"x\",\n  oops\n}", "invalid character"},
	} {
		dir := writeTrial(t, map[string]string{"result.json": tc.body, "verifier/reward.txt": "1"})
		recs := decodeTrialDir(t, dir)
		require.Len(t, recs, 2, "the reject naming the file, then the trial without it")
		require.NotNil(t, recs[1].Trace)
		require.Equal(t, ptr(0), recs[1].Trace.ExitCode, "the verifier's reward.txt still scores it")
		r := recs[0].Reject
		require.NotNil(t, r, tc.body)
		require.Equal(t, filepath.Join(dir, "result.json"), r.File)
		require.Contains(t, r.Reason, tc.reason)
		require.Contains(t, r.Reason, "byte ")
		require.GreaterOrEqual(t, r.Line, 2)
	}
	// A bad line in the agent's log is rejected by its own file and line;
	// the trial still imports.
	dir := writeTrial(t, map[string]string{
		"result.json":                     `{"trial_name":"hello__abc1234","task_name":"hello","verifier_result":{"rewards":{"reward":1}}}`,
		"trajectory/acp_trajectory.jsonl": "{\"type\": \"user_message\", \"text\": \"hi\"}\n{\"type\": \"tool_call\", \"tool_call_id\": \"c\", \"status\": \"comp",
	})
	recs := decodeTrialDir(t, dir)
	require.Len(t, recs, 2)
	require.Equal(t, filepath.Join(dir, "trajectory", "acp_trajectory.jsonl"), recs[0].Reject.File)
	require.Equal(t, 2, recs[0].Reject.Line)
	require.True(t, strings.HasPrefix(recs[0].Reject.Reason, "truncated last line"), recs[0].Reject.Reason)
	require.Equal(t, ptr(0), recs[1].Trace.ExitCode)
}

func TestTrialResultNamedAlone(t *testing.T) {
	t.Parallel()
	p := filepath.Join(fixture(t, "trials", "tb2-sonnet", "fix-regex__A1b2C3d"), "result.json")
	f, err := Detect(p, head(t, p))
	require.NoError(t, err)
	require.Equal(t, nameTrial, f.Name)
	tr := onlyTrace(t, decodeWith(t, TrialFormat, p, Options{}))
	require.Equal(t, "fix-regex", tr.TaskID)
	require.Len(t, tr.ToolCalls, 3)
	// The job's own result.json is no trial's.
	job := fixture(t, "trials", "tb2-sonnet", "result.json")
	require.False(t, detectTrial(job, head(t, job)))
}

func TestBadGeminiAndACP(t *testing.T) {
	t.Parallel()
	recs, err := decodeBytes(GeminiFormat, "s.json", []byte("{\"sessionId\":\"s\",\"projectHash\":\"h\",\"messages\":[{\"id\":\"a\",\"type\":\"user\",\"content\":"))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.Contains(t, recs[0].Reject.Reason, "truncated input")
	recs, err = decodeBytes(GeminiFormat, "s.json", []byte(`{"sessionId":"s","projectHash":"h","messages":[{"id":"a","type":"gemini","toolCalls":{}}]}`))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.NotNil(t, recs[0].Reject)
	require.Contains(t, recs[0].Reject.Reason, "byte ")
	recs, err = decodeBytes(GeminiFormat, "s.jsonl", []byte("{\"sessionId\":\"s\",\"projectHash\":\"h\"}\nnot json\n{\"id\":\"g\",\"type\":\"gemini\",\"content\":\"ok\"}\n"))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.Equal(t, 2, recs[0].Reject.Line)
	require.Equal(t, "ok", *recs[1].Trace.Answer)
	recs, err = decodeBytes(ACPFormat, "a.jsonl", []byte("{\"type\":\"tool_call\",\"tool_call_id\":\"x\",\"status\":\"completed\",\"content\":7}\n"))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.Equal(t, 1, recs[0].Reject.Line)
}

// TestTrialAgentLogHeldToInflateLimits: a gzipped agent log inside a
// trial folder is held to the import's --max-ratio like any input (it
// was decoded past it, at the default limits).
func TestTrialAgentLogHeldToInflateLimits(t *testing.T) {
	t.Parallel()
	words := []string{"alpha", "beta", "gamma", "delta", "tool", "call", "output", "diff"}
	var body strings.Builder
	body.WriteString(`{"type": "user_message", "text": "hi"}` + "\n")
	for i := range 40000 { // past InflateFloor
		fmt.Fprintf(&body, `{"type": "agent_message", "text": "%s %s %d"}`+"\n", words[i%len(words)], words[(i*7)%len(words)], i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(body.String()))
	require.NoError(t, zw.Close())
	ratio := body.Len() / gz.Len()
	require.Greater(t, ratio, 3, "the log compresses past the limit below")
	require.Less(t, ratio, DefaultMaxRatio, "and within the default")
	dir := writeTrial(t, map[string]string{
		"result.json":         `{"trial_name":"hello__abc1234","task_name":"hello","verifier_result":{"rewards":{"reward":1}}}`,
		"agent/acp.jsonl.gz":  gz.String(),
		"verifier/reward.txt": "1",
	})
	in, err := Open(dir, nil, nil)
	require.NoError(t, err)
	defer in.Close()
	err = Decode(t.Context(), in, "", Options{MaxRatio: 2}, func(Record) error { return nil })
	_, ok := errors.AsType[*InflateError](err)
	require.True(t, ok, "want the ratio limit, got %v", err)
}

// TestACPCommandFromRawInput: opencode titles every shell call "bash" and
// keeps the command in the call's raw input (rawInput, ACP's spelling, or
// raw_input); the command is read from there, and a call with neither is
// left without a command rather than given "bash" as one, so three such
// calls are not a TOOL_LOOP on nothing.
func TestACPCommandFromRawInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "acp_trajectory.jsonl")
	lines := `{"type": "user_message", "text": "fix it"}
{"type": "tool_call", "tool_call_id": "c1", "kind": "execute", "title": "bash", "status": "completed", "rawInput": {"command": "pytest -q", "description": "run tests"}, "content": [{"type": "content", "content": {"type": "text", "text": "1 failed in 0.1s"}}]}
{"type": "tool_call", "tool_call_id": "c2", "kind": "execute", "title": "bash", "status": "completed", "raw_input": {"command": "ls src"}, "content": []}
{"type": "tool_call", "tool_call_id": "c3", "kind": "execute", "title": "bash", "status": "completed", "content": []}
{"type": "tool_call", "tool_call_id": "c4", "kind": "execute", "title": "bash", "status": "completed", "content": []}
{"type": "tool_call", "tool_call_id": "c5", "kind": "execute", "title": "bash", "status": "completed", "content": []}
{"type": "tool_call", "tool_call_id": "c6", "kind": "execute", "title": "git status", "status": "completed", "content": []}
`
	require.NoError(t, os.WriteFile(p, []byte(lines), 0o644))
	tr := onlyTrace(t, decodeWith(t, ACPFormat, p, Options{}))
	require.Len(t, tr.ToolCalls, 6)
	require.JSONEq(t, `{"command": "pytest -q", "description": "run tests"}`, string(tr.ToolCalls[0].Args))
	require.JSONEq(t, `{"command": "ls src"}`, string(tr.ToolCalls[1].Args))
	require.Nil(t, tr.ToolCalls[2].Args, "a title that only names the tool is no command")
	require.JSONEq(t, `{"command": "git status"}`, string(tr.ToolCalls[5].Args), "a title that is a command line is the command")
	a := triage.ReadActivity(tr)
	require.Equal(t, triage.StepTest, a.Steps[0].Kind)
	require.Equal(t, triage.ResultFailed, a.Steps[0].Result)
	require.Equal(t, triage.StepSearch, a.Steps[1].Kind)
}
