package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// sh is a shell call as harness decoders write one.
func sh(cmd, out string, exit ...int) triage.ToolCall {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	c := triage.ToolCall{Name: "bash", Args: args, Output: out}
	if len(exit) > 0 {
		c.ExitCode = ptr(exit[0])
	}
	return c
}

// harnessRun is a SWE-bench-style run with no pack: a prompt, the given
// calls, a diff, and a scorer verdict (red unless green).
func harnessRun(green bool, diff string, calls ...triage.ToolCall) *triage.Trace {
	code := 1
	if green {
		code = 0
	}
	tr := &triage.Trace{RunID: "r", TaskID: "django__django-1", ExitCode: ptr(code), HasToolLog: true, ToolCalls: calls,
		Messages:   []triage.Message{{Role: "user", Content: "Fix the bug in utils."}},
		Scorer:     &triage.ScorerReport{Source: "logs/django__django-1/report.json"},
		StopReason: "submitted"}
	if diff != "" {
		tr.Diff = &diff
	}
	return tr
}

const srcDiff = "diff --git a/django/utils/html.py b/django/utils/html.py\n--- a/django/utils/html.py\n+++ b/django/utils/html.py\n@@ -1 +1 @@\n-a\n+b\n"

func evidenceText(v triage.Verdict) string {
	var b strings.Builder
	for _, e := range v.Evidence {
		b.WriteString(e.Rule + ": " + e.Message + "\n")
	}
	return b.String()
}

// TestExplainedReds: a red run is certain SCORER_RED when the log says why
// it failed, each reason pointing at its step; a red nothing explains goes
// to people.
func TestExplainedReds(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		tr   *triage.Trace
		want string
		step int
	}{
		"nothing submitted": {harnessRun(false, "diff --git a/sklearn/x.py.bak b/sklearn/x.py.bak\n--- /dev/null\n+++ b/sklearn/x.py.bak\n@@ -0,0 +1 @@\n+x\n",
			sh("ls", "a", 0), sh("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff", "")),
			"no fix was submitted: the final diff holds no source file, only sklearn/x.py.bak", 1},
		"submitted on red": {harnessRun(false, srcDiff,
			sh("sed -i 's/a/b/' django/utils/html.py", "", 0), sh("./tests/runtests.py utils_tests", "Ran 3 tests in 0.1s\n\nFAILED (errors=1)\n", 1),
			sh("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "")),
			"submitted after the project's tests errored at step 2: FAILED (errors=1)", 1},
		"edited after a red run, ran nothing after": {harnessRun(false, srcDiff,
			sh("python -m pytest tests", "1 failed in 0.1s", 1), sh("sed -i 's/b/c/' django/utils/html.py", "", 0),
			sh("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "")),
			"nothing was run after the last edit at step 2, and the last check before it (step 1) failed: 1 failed", 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := Classify(nil, Budgets{}, nil, c.tr)
			require.Equal(t, triage.ScorerRed, v.Primary)
			require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
			require.Contains(t, evidenceText(v), c.want)
			for _, e := range v.Evidence {
				if strings.Contains(e.Message, c.want) {
					require.Equal(t, c.step, e.ToolCall, "evidence points at the step")
				}
			}
		})
	}
	t.Run("a regression and a fix that fell short, from the scorer's report", func(t *testing.T) {
		t.Parallel()
		tr := harnessRun(false, srcDiff, sh("python -m pytest tests", "3 passed in 0.1s", 0))
		tr.Scorer.PassToPass.Failed = []string{"tests/test_x.py::test_old"}
		tr.Scorer.FailToPass = triage.TestResults{Passed: []string{"a"}, Failed: []string{"b"}}
		v := Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
		ev := evidenceText(v)
		require.Contains(t, ev, "a regression: 1 existing test (PASS_TO_PASS) now fails: tests/test_x.py::test_old (report.json)")
		require.Contains(t, ev, "the fix fell short: 1 of 2 FAIL_TO_PASS tests still fail: b")
	})
	t.Run("when the harness ran the tests after each try, the agent's own runs explain nothing", func(t *testing.T) {
		t.Parallel()
		// aider's benchmark: edits only, the harness's tests after each.
		tr := harnessRun(false, srcDiff, triage.ToolCall{Name: "edit", Args: json.RawMessage(`{"path":"django/utils/html.py"}`), Output: "Applied edit to django/utils/html.py"})
		tr.Scorer = &triage.ScorerReport{Source: ".aider.results.json", HarnessTests: true, FailToPass: triage.TestResults{Failed: []string{"t.py::T::test_a"}}}
		v := Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.ScorerRed, v.Primary)
		require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
		ev := evidenceText(v)
		require.Contains(t, ev, "the tests still failed after the last try: t.py::T::test_a (.aider.results.json)")
		require.NotContains(t, ev, "nothing was run after the last edit")
		// With no failing test named, nothing explains it: people.
		tr.Scorer.FailToPass.Failed = nil
		v = Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.DecisionLeftover, v.Decision)
		require.Contains(t, v.Reason, "names no failing test")
		require.NotContains(t, evidenceText(v), "nothing was run after the last edit")
	})
	t.Run("a red run with a normal stop and no other class is SCORER_RED by elimination", func(t *testing.T) {
		t.Parallel()
		tr := harnessRun(false, srcDiff, sh("sed -i 's/a/b/' django/utils/html.py", "", 0), sh("python -m pytest tests", "3 passed in 0.1s", 0))
		tr.Scorer = nil
		v := Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.ScorerRed, v.Primary)
		require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
		require.Contains(t, evidenceText(v), "SCORER_RED by elimination (a red run, a normal stop, no other class): the agent's last check passed (step 2: 3 passed)")
		// Its last check failing is the evidence then.
		tr = harnessRun(false, srcDiff, sh("sed -i 's/a/b/' django/utils/html.py", "", 0), sh("python repro.py", "Traceback (most recent call last):\n  File \"repro.py\", line 1\nKeyError: 'x'", 1),
			sh("sed -i 's/a/c/' README", "", 0))
		tr.Scorer = nil
		v = Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
		// README is not in the submitted diff: editing it is not the last
		// edit of the work, so the failing check is the evidence.
		require.Contains(t, evidenceText(v), "SCORER_RED by elimination (a red run, a normal stop, no other class): the last failing check is step 2: KeyError: 'x'")
		tr.ToolCalls[2] = sh("sed -i 's/a/c/' django/utils/html.py", "", 0)
		v = Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
		require.Contains(t, evidenceText(v), "nothing was run after the last edit at step 3, and the last check before it (step 2) error: KeyError: 'x'")
	})
	t.Run("an abnormal stop stays with people, naming the stop", func(t *testing.T) {
		t.Parallel()
		tr := harnessRun(false, srcDiff, sh("python -m pytest tests", "3 passed in 0.1s", 0))
		tr.Scorer, tr.StopReason = nil, "exit_format"
		v := Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.ScorerRed, v.Primary)
		require.Equal(t, triage.DecisionLeftover, v.Decision)
		require.Contains(t, v.Reason, "stopped the run abnormally (exit_format)")
		// SWE-agent's early_exit is abnormal too, though it has no "exit_".
		tr.StopReason = "early_exit"
		v = Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.DecisionLeftover, v.Decision, v.Reason)
		require.Contains(t, v.Reason, "stopped the run abnormally (early_exit)")
	})
	t.Run("an empty SWE-agent patch is not SCORER_RED by elimination", func(t *testing.T) {
		t.Parallel()
		// As ingest stores an empty info.submission: no diff, no answer.
		tr := harnessRun(false, "", sh("python -m pytest tests", "3 passed in 0.1s", 0))
		tr.Scorer, tr.StopReason, tr.Source = nil, "submitted", "swe-agent"
		v := Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.DecisionLeftover, v.Decision, v.Reason)
		require.Contains(t, v.Reason, "empty patch")
		tr.Diff = ptrTo(srcDiff)
		v = Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.DecisionCertain, v.Decision, "with a patch the elimination stands: %s", v.Reason)
		tr.Diff, tr.Answer = nil, ptrTo("flag{x}")
		v = Classify(nil, Budgets{}, nil, tr)
		require.NotContains(t, v.Reason, "empty patch", "a CTF flag is a submission")
		tr.Answer, tr.Source = nil, "claude-code"
		v = Classify(nil, Budgets{}, nil, tr)
		require.NotContains(t, v.Reason, "empty patch", "a harness that records no diff submitted nothing only as far as we know")
	})
}

func ptrTo[T any](v T) *T { return &v }

// TestThrashingGoesToPeople: one command with one output again and again,
// not in a row, is not the seed's loop, but it is not an honest fail a
// rule can call either.
func TestThrashingGoesToPeople(t *testing.T) {
	t.Parallel()
	var calls []triage.ToolCall
	for i := range thrashAt {
		calls = append(calls, sh("cat django/utils/html.py", "same"), sh("sed -i 's/x/y/' django/utils/html.py", "", 0), sh("ls", strings.Repeat("x", i)))
	}
	tr := harnessRun(false, srcDiff, calls...)
	tr.Scorer.FailToPass.Failed = []string{"t"}
	v := Classify(nil, Budgets{}, nil, tr)
	require.Equal(t, triage.ScorerRed, v.Primary)
	require.NotContains(t, v.Fired, triage.ToolLoop)
	require.Equal(t, triage.DecisionLeftover, v.Decision)
	require.Contains(t, v.Reason, "thrashing: bash ran 8 times with the same arguments and output, not in a row")
}

// TestInventedIdentifiers: a runtime error on an identifier the agent
// wrote itself tags ASSUME_API (secondary, not the primary); one the task
// asked for is no invention; one the submitted diff still uses, on which
// the last run failed, may be the primary and goes to people.
func TestInventedIdentifiers(t *testing.T) {
	t.Parallel()
	edit := triage.ToolCall{Name: "str_replace_editor", Args: json.RawMessage(`{"command":"str_replace","path":"django/utils/html.py","new_str":"html.escape_fast(x)"}`)}
	boom := sh("python reproduce.py", "Traceback (most recent call last):\nAttributeError: module 'html' has no attribute 'escape_fast'", 1)
	fixed := sh("python -m pytest tests", "1 failed in 0.1s", 1)

	tr := harnessRun(false, srcDiff, edit, boom, fixed)
	v := Classify(nil, Budgets{}, nil, tr)
	require.Equal(t, triage.ScorerRed, v.Primary)
	require.Contains(t, v.Secondary, triage.AssumeAPI)
	require.Contains(t, evidenceText(v), "AttributeError at step 2 on 'escape_fast', which the agent wrote at step 1")

	asked := harnessRun(false, srcDiff, edit, boom, fixed)
	asked.Messages[0].Content = "Add escape_fast to html."
	require.NotContains(t, Classify(nil, Budgets{}, nil, asked).Secondary, triage.AssumeAPI, "the task named it")

	still := harnessRun(false, "diff --git a/django/utils/html.py b/django/utils/html.py\n--- a/django/utils/html.py\n+++ b/django/utils/html.py\n@@ -1 +1 @@\n-a\n+html.escape_fast(x)\n", edit, boom)
	v = Classify(nil, Budgets{}, nil, still)
	require.Equal(t, triage.DecisionLeftover, v.Decision)
	require.Contains(t, v.Reason, "ASSUME_API may be the primary: the submitted diff still uses 'escape_fast'")
}

// TestPassWeakOnABenchmarkScore: a benchmark's own tests scored the run,
// so the agent's test files count only where those tests live; with no
// pack and no report, a green run whose agent edited files goes to people.
func TestPassWeakOnABenchmarkScore(t *testing.T) {
	t.Parallel()
	scratch := srcDiff + "diff --git a/tests/test_mine.py b/tests/test_mine.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_mine.py\n@@ -0,0 +1 @@\n+def test(): pass\n"
	tr := harnessRun(true, scratch, sh("sed -i 's/a/b/' django/utils/html.py", "", 0))
	tr.Scorer.FailToPass.Passed = []string{"test_x (utils_tests.test_html.T)"}
	v := Classify(nil, Budgets{}, nil, tr)
	require.Equal(t, triage.PassContract, v.Primary, "the scorer did not run tests/test_mine.py")
	require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)

	own := harnessRun(true, srcDiff+"diff --git a/tests/utils_tests/test_html.py b/tests/utils_tests/test_html.py\n--- a/tests/utils_tests/test_html.py\n+++ b/tests/utils_tests/test_html.py\n@@ -1 +1 @@\n-a\n+b\n",
		sh("sed -i 's/a/b/' django/utils/html.py", "", 0))
	own.Scorer.FailToPass.Passed = []string{"test_x (utils_tests.test_html.T)"}
	require.Equal(t, triage.PassWeak, Classify(nil, Budgets{}, nil, own).Primary, "the agent changed the file the scorer's tests live in")

	bare := harnessRun(true, srcDiff, sh("sed -i 's/a/b/' django/utils/html.py", "", 0))
	bare.Scorer = nil
	v = Classify(nil, Budgets{}, nil, bare)
	require.Equal(t, triage.PassContract, v.Primary)
	require.Equal(t, triage.DecisionLeftover, v.Decision)
	require.Contains(t, v.Reason, "no task pack and no benchmark report say which tests scored the run")
}

// TestBudgetKillNamesTheHarnessWord: a harness's own stop reason is the
// TIMEOUT's evidence, at the last step.
func TestBudgetKillNamesTheHarnessWord(t *testing.T) {
	t.Parallel()
	tr := harnessRun(false, "", sh("ls", "a", 0), sh("ls", "b", 0))
	tr.ExitCode, tr.Scorer, tr.Timeout, tr.StopReason = nil, nil, ptr(true), "exit_cost"
	v := Classify(nil, Budgets{}, nil, tr)
	require.Equal(t, triage.Timeout, v.Primary)
	require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
	require.Equal(t, "the harness ended the run on a budget: exit_cost after 2 tool calls", v.Evidence[0].Message)
	require.Equal(t, 1, v.Evidence[0].ToolCall)
}

// TestPassWeakWithNoDiffReadsTheEdits: a green benchmark run with no
// recorded diff is judged by its edit steps: one that wrote the file the
// scorer's tests live in is PASS_WEAK, one whose files the log does not
// name sends the run to people (it was PASS_CONTRACT, certain), and
// edits of the source alone leave PASS_CONTRACT.
func TestPassWeakWithNoDiffReadsTheEdits(t *testing.T) {
	t.Parallel()
	run := func(calls ...triage.ToolCall) triage.Verdict {
		tr := harnessRun(true, "", calls...)
		tr.Diff = nil
		tr.Scorer.FailToPass.Passed = []string{"test_x (utils_tests.test_html.T)"}
		return Classify(nil, Budgets{}, nil, tr)
	}
	v := run(sh("sed -i 's/a/b/' tests/utils_tests/test_html.py", "", 0))
	require.Equal(t, triage.PassWeak, v.Primary, evidenceText(v))
	v = run(sh("sed -i 's/a/b/' django/utils/html.py", "", 0))
	require.Equal(t, triage.PassContract, v.Primary)
	require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
	v = run(triage.ToolCall{Name: "edit", Args: []byte(`{"text":"x"}`)})
	require.Equal(t, triage.DecisionLeftover, v.Decision, evidenceText(v))
	why := ""
	for _, e := range v.Unevaluated {
		if e.Rule == triage.PassWeak {
			why = e.Message
		}
	}
	require.Contains(t, why, "an edit step does not name its files")
}

// TestNoLoopOnUnrecordedArguments: three calls of a harness that recorded
// no arguments (an ACP shell call titled only "bash") and got the same
// empty output are not a TOOL_LOOP: nothing says they were the same call.
// A JSONL row of the seed's format keeps the seed's reading.
func TestNoLoopOnUnrecordedArguments(t *testing.T) {
	t.Parallel()
	calls := []triage.ToolCall{{Name: "bash", Output: "(no output)"}, {Name: "bash", Output: "(no output)"}, {Name: "bash", Output: "(no output)"}}
	tr := harnessRun(false, srcDiff, calls...)
	tr.Source = "acp"
	v := Classify(nil, Budgets{}, nil, tr)
	require.NotEqual(t, triage.ToolLoop, v.Primary)
	tr.Source = "jsonl"
	v = Classify(nil, Budgets{}, nil, tr)
	require.Equal(t, triage.ToolLoop, v.Primary)
}

// TestEvidencePointsAtTheDiff: the last failing check's traceback lands in
// a file of the submitted diff, and the evidence names it with its line.
func TestEvidencePointsAtTheDiff(t *testing.T) {
	t.Parallel()
	tb := "Traceback (most recent call last):\n  File \"/testbed/tests/test_html.py\", line 3, in test_escape\n    escape(x)\n  File \"/testbed/django/utils/html.py\", line 7, in escape\n    return s.replace(1)\nTypeError: replace expected 2 arguments\n\nRan 1 test in 0.01s\n\nFAILED (errors=1)\n"
	tr := harnessRun(false, srcDiff, sh("sed -i 's/a/b/' django/utils/html.py", "", 0), sh("./tests/runtests.py utils_tests", tb, 1), sh("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", ""))
	v := Classify(nil, Budgets{}, nil, tr)
	require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
	require.Contains(t, evidenceText(v), "submitted after the project's tests errored at step 2: FAILED (errors=1); it points at django/utils/html.py:7, which the diff changes")
	for _, e := range v.Evidence {
		if e.ToolCall == 1 {
			require.Equal(t, "django/utils/html.py", e.File)
			require.Equal(t, 7, e.Line)
		}
	}
}
