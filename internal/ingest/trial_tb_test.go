package ingest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

const tbRun = "2025-06-01__12-00-00"

// decodeTrialWith imports a trial folder as the command line does, with
// an Outcomes to collect the warnings.
func decodeTrialWith(t *testing.T, dir string, o *Outcomes) []Record {
	t.Helper()
	in, err := Open(dir, nil, nil)
	require.NoError(t, err)
	defer in.Close()
	var recs []Record
	require.NoError(t, Decode(t.Context(), in, "", Options{Outcomes: o}, func(r Record) error {
		recs = append(recs, r)
		return nil
	}))
	return recs
}

// The output of `tb run` (built from Terminal-Bench's documented layout:
// runs/<run>/<task>/<trial>/ with results.json, commands.txt, sessions/,
// panes/ and agent-logs/) imports one trace a trial, whether or not the
// trial kept an agent-logs/ folder, with the harness's verdict.
func TestTerminalBenchRun(t *testing.T) {
	t.Parallel()
	run := fixture(t, "terminal-bench", tbRun)
	w, err := ExpandWalk([]string{run})
	require.NoError(t, err)
	var names []string
	for _, f := range w.Files {
		names = append(names, filepath.Base(f))
	}
	require.Equal(t, []string{
		"count-lines.1-of-1." + tbRun, "fix-git.1-of-1." + tbRun, "hello-world.1-of-1." + tbRun, "sort-csv.1-of-1." + tbRun,
	}, names, "every trial folder is claimed whole; none is walked into")
	for _, s := range w.Skipped {
		require.Contains(t, []string{"results.json", "run_metadata.json"}, filepath.Base(s.Path), s.Reason)
	}

	trial := func(task string) string { return filepath.Join(run, task, task+".1-of-1."+tbRun) }
	t.Run("resolved, a terminal capture kept as text", func(t *testing.T) {
		tr := onlyTrace(t, decodeTrialWith(t, trial("hello-world"), NewOutcomes()))
		require.Equal(t, "hello-world", tr.TaskID)
		require.Equal(t, tbRun, tr.RunID)
		require.Equal(t, "openai/gpt-4.1", tr.Model, "from the run's run_metadata.json")
		require.Equal(t, "terminus", tr.Agent)
		require.Equal(t, ptr(0), tr.ExitCode)
		require.Equal(t, triage.OutcomeSuccess, tr.Outcome)
		require.Equal(t, &triage.Tokens{Input: 1200, Output: 90}, tr.Tokens)
		require.Equal(t, ptr(480.0), tr.WallS)
		require.False(t, tr.HasToolLog, "a capture is text, not steps")
		require.Len(t, tr.Messages, 2)
		term := tr.Messages[0]
		require.Equal(t, "terminal", term.Role)
		require.Contains(t, term.Content, "root@box:/app# echo Hello > hello.txt\n")
		require.Contains(t, term.Content, "progress 10%\nprogress 100%\n", "a redrawn line is shown as the lines it was")
		require.NotContains(t, term.Content, "\x1b", "no escape sequence is kept, so none is replayed")
		require.NotContains(t, term.Content, "cm0gLXJmIC8K", "an OSC 52 clipboard write is dropped whole")
		require.NotContains(t, term.Content, "\r")
		require.Equal(t, "harness", tr.Messages[1].Role)
		require.Contains(t, tr.Messages[1].Content, "echo Hello > hello.txt")
		require.Contains(t, *tr.TestOutput, "--- sessions/tests.log ---\n============ 2 passed in 0.02s ============\n")
		require.NotContains(t, *tr.TestOutput, "\x1b")
		require.Equal(t, []string{"test_hello_file_content", "test_hello_file_exists"}, tr.Scorer.FailToPass.Passed)
	})
	t.Run("terminus episodes, agent timeout, unresolved", func(t *testing.T) {
		tr := onlyTrace(t, decodeTrialWith(t, trial("fix-git"), NewOutcomes()))
		require.Equal(t, ptr(1), tr.ExitCode)
		require.Equal(t, triage.OutcomeFailed, tr.Outcome, "the scorer's verdict; the kill is the stop reason")
		require.Equal(t, ptr(true), tr.Timeout)
		require.Equal(t, "agent_timeout", tr.StopReason)
		require.Equal(t, []string{"test_branch_merged"}, tr.Scorer.FailToPass.Failed)
		require.Len(t, tr.ToolCalls, 3)
		require.JSONEq(t, `{"command":"git merge feature\n","is_blocking":true,"timeout_sec":600}`, string(tr.ToolCalls[2].Args))
		require.Equal(t, "root@box:/app# git log --oneline\nabc123 init\n", tr.ToolCalls[1].Output, "the next turn's terminal, stripped")
		require.Contains(t, *tr.TestOutput, "AssertionError: feature not merged")
	})
	t.Run("a corrupt results.json: the reject names it, the run's record decides", func(t *testing.T) {
		o := NewOutcomes()
		recs := decodeTrialWith(t, trial("count-lines"), o)
		require.Len(t, recs, 2)
		require.Equal(t, filepath.Join(trial("count-lines"), "results.json"), recs[0].Reject.File)
		require.Equal(t, 4, recs[0].Reject.Line)
		tr := recs[1].Trace
		require.Equal(t, "count-lines", tr.TaskID)
		require.Equal(t, ptr(0), tr.ExitCode, "is_resolved from the run's results.json")
		require.Len(t, o.Warnings(), 1)
		require.Contains(t, o.Warnings()[0], filepath.Join(run, "results.json"))
	})
	t.Run("no results.json anywhere: unknown, with a warning naming the folder", func(t *testing.T) {
		o := NewOutcomes()
		tr := onlyTrace(t, decodeTrialWith(t, trial("sort-csv"), o))
		require.Equal(t, "sort-csv", tr.TaskID)
		require.Equal(t, tbRun, tr.RunID)
		require.Nil(t, tr.ExitCode)
		require.Equal(t, triage.OutcomeUnknown, tr.Outcome)
		require.Nil(t, tr.Timeout)
		require.Len(t, o.Warnings(), 1)
		require.True(t, strings.HasPrefix(o.Warnings()[0], trial("sort-csv")+": no result.json or results.json"), o.Warnings()[0])
	})
}

// pass@1 over the run's traces equals the harness's own resolved rate
// (n_resolved over the trials it lists) on the same trials.
func TestTerminalBenchResolvedRate(t *testing.T) {
	t.Parallel()
	run := fixture(t, "terminal-bench", tbRun)
	w, err := ExpandWalk([]string{run})
	require.NoError(t, err)
	resolved, scored := 0, 0
	for _, f := range w.Files {
		for _, r := range decodeTrialWith(t, f, NewOutcomes()) {
			if r.Trace == nil || r.Trace.ExitCode == nil {
				continue
			}
			scored++
			if r.Trace.Outcome == triage.OutcomeSuccess {
				resolved++
			}
		}
	}
	require.Equal(t, 3, scored, "the three trials the run's results.json lists")
	require.Equal(t, 2, resolved, "n_resolved in the run's results.json")
}

// A Harbor trial with verifier/ctrf.json and no result.json imports: its
// Claude Code stream (agent/claude-code.txt) is read, the test report is
// the verdict, and a log that ends in a tool_use with no tool_result is a
// budget kill.
func TestHarborTrialWithoutResult(t *testing.T) {
	t.Parallel()
	job := fixture(t, "harbor", "job-7")
	w, err := ExpandWalk([]string{job})
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(job, "fix-json__Kk2Jd9x")}, w.Files)
	require.Empty(t, w.Skipped, "nothing in the trial is said to be skipped or 'read for the outcomes'")
	o := NewOutcomes()
	tr := onlyTrace(t, decodeTrialWith(t, w.Files[0], o))
	require.Equal(t, "fix-json", tr.TaskID)
	require.Equal(t, "job-7", tr.RunID)
	require.Equal(t, "claude-sonnet-4-5", tr.Model)
	require.Len(t, tr.ToolCalls, 2)
	require.Equal(t, ptr(1), tr.ExitCode)
	require.Equal(t, triage.OutcomeFailed, tr.Outcome)
	require.Equal(t, ptr(true), tr.Timeout)
	require.Contains(t, tr.StopReason, "ends inside a tool call")
	require.Equal(t, []string{"test_outputs.py::test_roundtrip"}, tr.Scorer.FailToPass.Failed)
	require.Contains(t, *tr.TestOutput, "the test report (verifier/ctrf.json) is the verdict")
	require.Len(t, o.Warnings(), 1)
}

// A harness timeout record that the log contradicts (the agent closed
// its session normally, with an answer) is not a budget kill: the log
// decides. Without the closing record the same trial is one.
func TestTrialTimeoutContradictedByLog(t *testing.T) {
	t.Parallel()
	stream := `{"type":"system","subtype":"init","session_id":"s1","uuid":"u0"}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make test"}}]},"session_id":"s1","uuid":"u1"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"session_id":"s1","uuid":"u2"}
`
	result := `{"type":"result","subtype":"success","result":"Done: the tests pass.","session_id":"s1","uuid":"u3"}` + "\n"
	rec := `{"trial_name":"hello__abc1234","task_name":"hello","exception_info":{"exception_type":"AgentTimeoutError","exception_message":"Agent execution timed out after 900.0 seconds"},"verifier_result":{"rewards":{"reward":1}}}`

	dir := writeTrial(t, map[string]string{"result.json": rec, "agent/claude-code.txt": stream + result})
	tr := onlyTrace(t, decodeTrialDir(t, dir))
	require.Nil(t, tr.Timeout, "the log ends in a normal submit")
	require.Contains(t, tr.StopReason, "the harness recorded AgentTimeoutError")
	require.Equal(t, triage.OutcomeSuccess, tr.Outcome)

	dir = writeTrial(t, map[string]string{"result.json": rec, "agent/claude-code.txt": stream})
	tr = onlyTrace(t, decodeTrialDir(t, dir))
	require.Equal(t, ptr(true), tr.Timeout)
	require.Equal(t, "AgentTimeoutError", tr.StopReason)
	require.Equal(t, triage.OutcomeSuccess, tr.Outcome, "resolved after a budget kill: the outcome is the scorer's")
}

// A directory walk reads a .txt or .log file by its content: a Claude
// Code stream saved as .txt imports, a plain log is skipped saying no
// format reads it.
func TestWalkDetectsByContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, err := os.ReadFile(fixture(t, "harbor", "job-7", "fix-json__Kk2Jd9x", "agent", "claude-code.txt"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session.txt"), src, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "build.log"), []byte("compiling…\nok\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "shot.png"), []byte("\x89PNG"), 0o644))
	w, err := ExpandWalk([]string{dir})
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, "session.txt")}, w.Files)
	require.Len(t, w.Skipped, 2)
	require.Equal(t, "not a trace file type (.log), and no format reads its content", w.Skipped[0].Reason)
	require.Equal(t, "not a trace file type (.png)", w.Skipped[1].Reason)
}

func TestStripTerminal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"\x1b[1;31mred\x1b[0m", "red"},
		{"a\x1b]0;title\x07b", "ab"},
		{"a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", "alinkb"},
		{"\x1bPq#0;2;0;0;0\x1b\\x", "x"},
		{"\x1b(Bplain\x1b7\x1b8", "plain"},
		{"one\r\ntwo\rthree\r", "one\ntwo\nthree\n"},
		{"bell\a back\bspace\x7f", "bell backspace"},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"\x1b\x1b[2Jz", "z"},
	} {
		require.Equal(t, tc.want, stripTerminal(tc.in), "%q", tc.in)
		// The same bytes a byte at a time: a sequence split across reads.
		c, err := readCaptureTail(iotest.OneByteReader(strings.NewReader(tc.in)), 1<<10)
		require.NoError(t, err)
		require.Equal(t, tc.want, c.Text, "%q one byte a read", tc.in)
	}
}

// A capture far larger than what is kept streams in bounded memory and
// keeps its last bytes, starting at a whole character.
//
// Not parallel: it measures what the process allocates while it runs.
func TestCaptureTailBounded(t *testing.T) {
	const size = 64 << 20
	line := []byte("\x1b[32mé progress line of a long run\x1b[0m\r\n")
	r := io.LimitReader(&repeatReader{b: line}, size)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := readCaptureTail(io.MultiReader(r, strings.NewReader("THE END\n")), maxCaptureText)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.LessOrEqual(t, len(c.Text), maxCaptureText)
	require.True(t, strings.HasSuffix(c.Text, "THE END\n"))
	require.Greater(t, c.Dropped, int64(size/2))
	require.NotContains(t, c.Text, "\x1b")
	require.True(t, utf8.ValidString(c.Text), "the kept text starts at a whole character")
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4*maxCaptureText+(256<<10)), "what a 64 MiB capture allocates")
}

type repeatReader struct {
	b []byte
	i int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.b[r.i:])
		n += c
		r.i = (r.i + c) % len(r.b)
	}
	return n, nil
}

// A results.json over the results-file limit (or unreadable) is rejected
// by name and the trial still imports, its outcome the verifier's files'.
func TestTrialResultOverLimit(t *testing.T) {
	t.Parallel()
	dir := writeTrial(t, map[string]string{"verifier/reward.txt": "0", "agent/claude-code.txt": ""})
	p := filepath.Join(dir, "result.json")
	f, err := os.Create(p)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxResultsBytes+1)) // sparse: no disk used
	require.NoError(t, f.Close())
	recs := decodeTrialDir(t, dir)
	require.Len(t, recs, 2)
	require.Equal(t, p, recs[0].Reject.File)
	require.Contains(t, recs[0].Reject.Reason, "limit for a results file; the trial is imported without it")
	require.Equal(t, ptr(1), recs[1].Trace.ExitCode, "reward 0 from verifier/reward.txt")
}

// FuzzStripTerminal holds the capture stripper to what a reader may
// trust: no ESC, no C0 control but newline and tab, no DEL, whatever the
// bytes; and the same text read whole or a byte at a time.
func FuzzStripTerminal(f *testing.F) {
	for _, s := range []string{"\x1b[1;31mred\x1b[0m", "a\x1b]52;c;eA==\x07b", "\x1bP+q\x1b\\x", "one\r\ntwo\rthree", "\x1b", "\x1b[", "\x1b]0;t\x1b", "é\x1b(B\x9b2J"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole := stripTerminal(string(in))
		for i := 0; i < len(whole); i++ {
			if c := whole[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				t.Fatalf("byte %#x kept at %d of %q", c, i, whole)
			}
		}
		c, err := readCaptureTail(iotest.OneByteReader(bytes.NewReader(in)), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if c.Text != whole {
			t.Fatalf("a byte at a time %q, whole %q", c.Text, whole)
		}
	})
}
