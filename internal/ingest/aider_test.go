package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// Each "# aider chat started at" session is one trace: the user's
// commands and the model's SEARCH/REPLACE edits are its calls, settled by
// aider's own reports, and the diff holds the edits it applied.
func TestAiderSample(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "aider", "sample.aider.chat.history.md")
	require.True(t, detectAider(path, head(t, path)))
	recs := decodeWith(t, AiderFormat, path, Options{})
	require.Len(t, recs, 2)
	a, b := recs[0].Trace, recs[1].Trace
	require.Equal(t, "aider/2025-01-02T10:00:00#0", a.Key())
	require.Equal(t, 2, recs[0].Line, "the session's header line")
	require.Equal(t, "claude-3-5-sonnet-20241022", a.Model)
	require.Equal(t, []string{"edit", "edit", "test"}, callNames(a))
	require.JSONEq(t, `{"path":"src/calc.py","search":"def add(a, b):\n    return a - b","replace":"def add(a, b):\n    return a + b"}`, string(a.ToolCalls[0].Args))
	require.Equal(t, "Applied edit to src/calc.py", a.ToolCalls[0].Output)
	require.Contains(t, a.ToolCalls[1].Error, "SearchReplaceNoExactMatch")
	require.JSONEq(t, `{"command":"pytest -q"}`, string(a.ToolCalls[2].Args))
	require.Equal(t, "F\n=================================== FAILURES ===================================\nE   assert 1 == 2\n1 failed in 0.01s\nAdded 4 lines of output to the chat.", a.ToolCalls[2].Output)
	require.Nil(t, a.ToolCalls[2].ExitCode, "the history records no exit code")
	require.Equal(t, "diff --git a/src/calc.py b/src/calc.py\n--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n", *a.Diff)
	require.Equal(t, int64(2400+1200), a.Tokens.Input)
	require.Equal(t, int64(85), a.Tokens.Output)
	require.InDelta(t, 0.02, *a.CostUSD, 1e-9)
	require.Equal(t, "fix add: it subtracts", a.Messages[0].Content)
	require.Equal(t, "user", a.Messages[len(a.Messages)-1].Role, "/drop is the user steering aider, not a tool")
	require.Equal(t, []string{"run"}, callNames(b))
	require.Equal(t, "calc.py", b.ToolCalls[0].Output)
	require.Nil(t, b.Diff)
}

// The real history (aider's own fixture, 4.1 MB, 1133 sessions and the
// tail of one whose header is cut off) imports whole: every session a
// trace, the edits and commands found, none of the SEARCH blocks quoted
// in aider's failure reports or pasted by the user taken as edits.
func TestAiderRealHistory(t *testing.T) {
	t.Parallel()
	path := realLog(t, "aider", "chat-history.md")
	require.True(t, detectAider(path, head(t, path)))
	recs := decodeReal(t, path)
	require.Len(t, recs, 1134)
	byName := map[string]int{}
	failed, diffs := 0, 0
	for _, r := range recs {
		require.NotNil(t, r.Trace, "%v", r.Reject)
		for _, c := range r.Trace.ToolCalls {
			byName[c.Name]++
			if c.Name == "edit" && c.Error != "" {
				failed++
			}
		}
		if r.Trace.Diff != nil {
			diffs++
		}
	}
	require.Equal(t, map[string]int{"edit": 666, "run": 39, "test": 12, "lint": 55}, byName)
	require.Equal(t, 51, failed)
	require.Equal(t, 155, diffs)
	first := recs[0].Trace
	require.Equal(t, "chat-history", first.TaskID, "the headless tail before the first session")
	s := recs[2].Trace
	require.Equal(t, "aider/2024-08-05T19:33:32#0", s.Key())
	require.Equal(t, []string{"aider/utils.py"}, diffFiles(*s.Diff))
	require.Equal(t, "claude-3-5-sonnet-20240620", s.Model)
}

// A directory walk finds aider histories by name, or a Markdown file by a
// session header in its head; other Markdown stays out.
func TestExpandFindsAiderHistory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		"a/.aider.chat.history.md": "",
		"b/chat-history.md":        "-*- mode: fundamental -*-\n> tail  \n\n# aider chat started at 2025-01-01 00:00:00\n",
		"c/README.md":              "# A readme\n",
	} {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	got, err := expandFiles([]string{root})
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(root, "a", ".aider.chat.history.md"), filepath.Join(root, "b", "chat-history.md")}, got)
}

// aider's benchmark: each exercise's history takes its outcome, cost,
// tokens and duration from .aider.results.json beside it, is named
// <language>/<exercise> in the benchmark run's folder, and the harness's
// test runs (bare fenced blocks it appends) are the scorer's output, not
// the model's messages. The fixtures follow benchmark/benchmark.py.
func TestAiderBenchmarkResults(t *testing.T) {
	t.Parallel()
	root := filepath.Join("testdata", "aider-benchmark", "2025-01-10-12-00-00--demo-run", "python", "exercises", "practice")
	o := NewOutcomes()
	bowling := onlyTrace(t, decodeWith(t, AiderFormat, filepath.Join(root, "bowling", aiderHistorySuffix), Options{Outcomes: o}))
	require.Equal(t, "python/bowling", bowling.TaskID)
	require.Equal(t, "2025-01-10-12-00-00--demo-run", bowling.RunID)
	require.Equal(t, 0, *bowling.ExitCode, "the last try passed")
	require.Equal(t, "openai/gpt-4o", bowling.Model)
	require.InDelta(t, 0.0201, *bowling.CostUSD, 1e-12)
	require.Equal(t, triage.Tokens{Input: 6700, Output: 390}, *bowling.Tokens)
	require.InDelta(t, 21.4, *bowling.WallS, 1e-12)
	require.Contains(t, *bowling.TestOutput, "passed on try 2 of 2")
	require.True(t, bowling.Scorer.HarnessTests)
	for _, m := range bowling.Messages {
		require.False(t, strings.HasPrefix(m.Content, "```\n"), "a harness test run is not a message: %q", m.Content)
	}

	zipper := onlyTrace(t, decodeWith(t, AiderFormat, filepath.Join(root, "zipper", aiderHistorySuffix), Options{Outcomes: o}))
	require.Equal(t, 1, *zipper.ExitCode)
	require.Contains(t, *zipper.TestOutput, "failed on each of 2 tries")
	require.Contains(t, *zipper.TestOutput, "'Zipper' object has no attribute 'set_value'", "the last run's output")
	require.Equal(t, []string{"zipper_test.py::ZipperTest::test_set_value"}, zipper.Scorer.FailToPass.Failed)
	require.Empty(t, o.Warnings())
}

// An exercise's earlier session (a run the harness started again) keeps
// an unknown outcome; results that do not parse are a warning; a harness
// crash is a failed run with its exception as the stop reason.
func TestAiderBenchmarkResultsEdges(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "run1", "go", "exercises", "practice")
	write := func(ex, name, body string) string {
		p := filepath.Join(base, ex, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	two := "# aider chat started at 2025-01-10 12:00:00\n\n#### go\n\n# aider chat started at 2025-01-10 12:05:00\n\n#### go again\n\nok\n\n> Applied edit to a.go  \n```\n--- FAIL: TestA (0.00s)\nFAIL\n```\n"
	h := write("alpha", aiderHistorySuffix, two)
	write("alpha", AiderResultsName, `{"testcase": "alpha", "tests_outcomes": [false]}`)
	o := NewOutcomes()
	recs := decodeWith(t, AiderFormat, h, Options{Outcomes: o})
	require.Len(t, recs, 2)
	require.Nil(t, recs[0].Trace.ExitCode, "the interrupted first session")
	require.Equal(t, []string{"go/alpha", "go/alpha"}, []string{recs[0].Trace.TaskID, recs[1].Trace.TaskID}, "both attempts at the exercise")
	require.Equal(t, []int{0, 1}, []int{recs[0].Trace.Seed, recs[1].Trace.Seed}, "in file order, the scored one last")
	require.Equal(t, "run1", recs[0].Trace.RunID)
	require.Equal(t, 1, *recs[1].Trace.ExitCode)
	require.Equal(t, []string{"TestA"}, recs[1].Trace.Scorer.FailToPass.Failed)

	h = write("beta", aiderHistorySuffix, "# aider chat started at 2025-01-10 13:00:00\n\n#### go\n")
	bad := write("beta", AiderResultsName, `{"tests_outcomes": [tru`)
	tr := onlyTrace(t, decodeWith(t, AiderFormat, h, Options{Outcomes: o}))
	require.Nil(t, tr.ExitCode)
	require.Contains(t, strings.Join(o.Warnings(), "\n"), bad+": ")
	require.Equal(t, "go/beta", tr.TaskID, "named by its place without results too")
	require.Equal(t, "run1", tr.RunID)

	h = write("delta", aiderHistorySuffix, "# aider chat started at 2025-01-10 13:30:00\n\n#### go\n")
	write("delta", AiderResultsName, `{"tests_outcomes": [0, 1]}`)
	require.Equal(t, 0, *onlyTrace(t, decodeWith(t, AiderFormat, h, Options{Outcomes: o})).ExitCode, "1 and 0 as a fork writes them")
	odd := write("delta", AiderResultsName, `{"tests_outcomes": ["maybe"]}`)
	require.Nil(t, onlyTrace(t, decodeWith(t, AiderFormat, h, Options{Outcomes: o})).ExitCode)
	require.Contains(t, strings.Join(o.Warnings(), "\n"), odd+": ")

	h = write("gamma", aiderHistorySuffix, "# aider chat started at 2025-01-10 14:00:00\n\n#### go\n\nok\n\n> Applied edit to a.go  \n```\nFAIL\n```\n")
	write("gamma", AiderResultsName, `{"exception": "Traceback (most recent call last):\n  File \"x\"\nValueError: No config file found"}`)
	tr = onlyTrace(t, decodeWith(t, AiderFormat, h, Options{Outcomes: o}))
	require.Equal(t, triage.OutcomeFailed, tr.Outcome)
	require.Equal(t, "the benchmark harness raised: ValueError: No config file found", tr.StopReason)
	require.Nil(t, tr.ExitCode, "nothing was scored")
	for _, m := range tr.Messages {
		require.NotEqual(t, "```\nFAIL\n```", m.Content, "a harness run is not the model's words")
	}

	// The older flat layout, <run>/<exercise>/.
	flat := filepath.Join(t.TempDir(), "2024-06-01--old-run", "anagram")
	require.NoError(t, os.MkdirAll(flat, 0o755))
	h = filepath.Join(flat, aiderHistorySuffix)
	require.NoError(t, os.WriteFile(h, []byte("# aider chat started at 2024-06-01 10:00:00\n\n#### go\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(flat, AiderResultsName), []byte(`{"testcase": "anagram", "tests_outcomes": [true]}`), 0o644))
	tr = onlyTrace(t, decodeWith(t, AiderFormat, h, Options{Outcomes: o}))
	require.Equal(t, []string{"2024-06-01--old-run", "anagram"}, []string{tr.RunID, tr.TaskID})
	require.Equal(t, 0, *tr.ExitCode)

	w, err := ExpandWalk([]string{base})
	require.NoError(t, err)
	require.Len(t, w.Files, 4, "the histories, not the results")
	require.Contains(t, fmt.Sprint(w.Skipped), "aider's benchmark results")
}

func TestFailingTestsOfEachRunner(t *testing.T) {
	t.Parallel()
	out := "FAILED t.py::T::test_a - assert 1 == 2\nERROR t.py::T::test_b - KeyError\n--- FAIL: TestC (0.00s)\n" +
		"test tests::d ... FAILED\nBowlingTest > testE() FAILED\n  ✕ f is scored (3 ms)\nFAILED t.py::T::test_a\nok\n"
	require.Equal(t, []string{"t.py::T::test_a", "t.py::T::test_b", "TestC", "tests::d", "BowlingTest > testE()", "f is scored"}, failingTests(out))
	require.Empty(t, failingTests("2 passed\n"))
}
