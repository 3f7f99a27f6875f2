package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

func TestMiniRealFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		iid        string
		calls      int
		tokens     triage.Tokens
		cost       float64
		diffPrefix string
		exit       int
		failing    []string
	}{
		{iid: "django__django-16255", calls: 17, tokens: triage.Tokens{Input: 61068, Output: 2317}, cost: 0.0893484,
			diffPrefix: "diff --git a/django/contrib/sitemaps/__init__.py", exit: 0},
		{iid: "django__django-11163", calls: 13, tokens: triage.Tokens{Input: 71166, Output: 2773}, cost: 0.1066392,
			diffPrefix: "diff --git a/django/forms/models.py", exit: 0},
		{iid: "django__django-10999", calls: 18, tokens: triage.Tokens{Input: 115373, Output: 4833}, cost: 0.157567,
			diffPrefix: "diff --git a/django/utils/dateparse.py", exit: 1,
			failing: []string{"FAILED test_negative (utils_tests.test_dateparse.DurationParseTests)", "FAILED test_parse_postgresql_format"}},
		{iid: "django__django-16667", calls: 19, tokens: triage.Tokens{Input: 131141, Output: 3932}, cost: 0.1534024,
			diffPrefix: "diff --git a/django/forms/widgets.py", exit: 1,
			failing: []string{"FAILED test_value_from_datadict (forms_tests.widget_tests.test_selectdatewidget"}},
	}
	for _, tc := range tests {
		t.Run(tc.iid, func(t *testing.T) {
			t.Parallel()
			path := fixture(t, "mini-swe-agent", tc.iid+".traj.json")
			require.True(t, detectMini(path, head(t, path)))
			tr := onlyTrace(t, decodeWith(t, MiniSWEAgentFormat, path, Options{}))
			require.Equal(t, tc.iid, tr.TaskID)
			require.Equal(t, "mini-swe-agent", tr.RunID)
			require.Equal(t, "google/gemini-3-pro-preview", tr.Model)
			require.Len(t, tr.ToolCalls, tc.calls, "one bash block per API call")
			require.Equal(t, "bash", tr.ToolCalls[0].Name)
			require.Contains(t, string(tr.ToolCalls[len(tr.ToolCalls)-1].Args), "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")
			require.NotContains(t, tr.ToolCalls[0].Output, "<returncode>", "the observation is unwrapped")
			require.Equal(t, "user", tr.Messages[0].Role)
			require.Contains(t, tr.Messages[0].Content, "<pr_description>")
			require.Equal(t, tc.tokens, *tr.Tokens)
			require.InDelta(t, tc.cost, *tr.CostUSD, 1e-6)
			require.True(t, strings.HasPrefix(*tr.Diff, tc.diffPrefix))
			require.NotNil(t, tr.ExitCode, "the report beside the file gives the verdict")
			require.Equal(t, tc.exit, *tr.ExitCode)
			require.Contains(t, *tr.TestOutput, "resolved=")
			for _, f := range tc.failing {
				require.Contains(t, *tr.TestOutput, f)
			}
			if tc.exit == 0 {
				require.NotContains(t, *tr.TestOutput, "FAILED")
			}
			require.False(t, *tr.Timeout)
			want := triage.OutcomeFailed
			if tc.exit == 0 {
				want = triage.OutcomeSuccess
			}
			require.Equal(t, want, tr.Outcome, "the scorer's verdict")
		})
	}
}

// copyTraj puts a trajectory alone in a temp dir (no report beside it).
func copyTraj(t *testing.T, iid string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run7")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	p := filepath.Join(dir, iid+".traj.json")
	require.NoError(t, os.WriteFile(p, readFixture(t, "mini-swe-agent", iid+".traj.json"), 0o644))
	return p
}

func TestMiniReportSources(t *testing.T) {
	t.Parallel()
	t.Run("no report leaves the exit code unknown", func(t *testing.T) {
		t.Parallel()
		tr := onlyTrace(t, decodeWith(t, MiniSWEAgentFormat, copyTraj(t, "django__django-10999"), Options{}))
		require.Nil(t, tr.ExitCode)
		require.Nil(t, tr.TestOutput)
		require.Equal(t, "run7", tr.RunID)
	})
	t.Run("results summary with an instances list", func(t *testing.T) {
		t.Parallel()
		tr := onlyTrace(t, decodeWith(t, MiniSWEAgentFormat, copyTraj(t, "django__django-10999"),
			Options{Results: fixture(t, "mini-swe-agent", "results_summary.json")}))
		require.Equal(t, 1, *tr.ExitCode)
		require.Contains(t, *tr.TestOutput, "results_summary.json")
	})
	t.Run("harness summary with resolved_ids", func(t *testing.T) {
		t.Parallel()
		sum := filepath.Join(t.TempDir(), "summary.json")
		require.NoError(t, os.WriteFile(sum, []byte(`{"resolved_ids":["django__django-10999"],"unresolved_ids":[]}`), 0o644))
		tr := onlyTrace(t, decodeWith(t, MiniSWEAgentFormat, copyTraj(t, "django__django-10999"), Options{Results: sum}))
		require.Equal(t, 0, *tr.ExitCode)
	})
	t.Run("report keyed by instance id", func(t *testing.T) {
		t.Parallel()
		p := copyTraj(t, "django__django-16255")
		inner := readFixture(t, "mini-swe-agent", "django__django-16667.report.json")
		keyed := `{"django__django-16255": ` + string(inner) + `}`
		require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(p), "report.json"), []byte(keyed), 0o644))
		tr := onlyTrace(t, decodeWith(t, MiniSWEAgentFormat, p, Options{}))
		require.Equal(t, 1, *tr.ExitCode)
		require.Contains(t, *tr.TestOutput, "FAILED test_value_from_datadict")
	})
	t.Run("a summary that does not name the instance", func(t *testing.T) {
		t.Parallel()
		sum := filepath.Join(t.TempDir(), "summary.json")
		require.NoError(t, os.WriteFile(sum, []byte(`{"resolved_ids":["other"],"unresolved_ids":[]}`), 0o644))
		tr := onlyTrace(t, decodeWith(t, MiniSWEAgentFormat, copyTraj(t, "django__django-10999"), Options{Results: sum}))
		require.Nil(t, tr.ExitCode)
	})
	t.Run("a broken report is a warning, and the trace still imports", func(t *testing.T) {
		t.Parallel()
		p := copyTraj(t, "django__django-10999")
		bad := filepath.Join(filepath.Dir(p), "report.json")
		require.NoError(t, os.WriteFile(bad, []byte(`{"resolved": `), 0o644))
		oc := NewOutcomes()
		tr := onlyTrace(t, decodeWith(t, MiniSWEAgentFormat, p, Options{Outcomes: oc}))
		require.Nil(t, tr.ExitCode, "no verdict from a file that does not parse")
		w := oc.Warnings()
		require.Len(t, w, 1)
		require.Contains(t, w[0], bad)
		require.Contains(t, w[0], "unexpected end of JSON")
	})
}

func TestMiniExitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status  string
		outcome triage.Outcome
		timeout *bool
	}{
		{"Submitted", triage.OutcomeUnknown, ptr(false)},
		// A budget kill is the stop reason; the outcome is the scorer's.
		{"LimitsExceeded", triage.OutcomeUnknown, ptr(true)},
		{"ExecutionTimeoutError", triage.OutcomeUnknown, ptr(true)},
		{"RetryError", triage.OutcomeFailed, ptr(false)},
		{"", triage.OutcomeUnknown, nil},
	}
	for _, tc := range tests {
		o, to := miniExitOutcome(tc.status)
		require.Equal(t, tc.outcome, o, tc.status)
		require.Equal(t, tc.timeout, to, tc.status)
	}
}

func TestMiniObservation(t *testing.T) {
	t.Parallel()
	var c triage.ToolCall
	fillMiniObservation(&c, "<returncode>2</returncode>\n<output>\nls: cannot access 'x'\n</output>")
	require.Equal(t, "ls: cannot access 'x'\n", c.Output)
	require.Equal(t, "exit status 2", c.Error)
	c = triage.ToolCall{}
	fillMiniObservation(&c, "<returncode>0</returncode>\n<warning>too long</warning>")
	require.Equal(t, "<warning>too long</warning>", c.Output)
	require.Empty(t, c.Error)
}
