package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/signature"
)

// TestTracesShowRootCause: `traces` has a ROOT CAUSE column and
// --json a root_cause, made from the rules' verdict and evidence; before
// the rules run it is empty.
func TestTracesShowRootCause(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	rows, _ := plantedRows("r", 3, false)
	rows += `{"run_id":"r","task_id":"L","seed":0,"exit_code":1,"tool_calls":[{"name":"bash","args":{"command":"ls"},"output":"x"},{"name":"bash","args":{"command":"ls"},"output":"x"},{"name":"bash","args":{"command":"ls"},"output":"x"}]}` + "\n"
	code, _, errOut := c.run("", "import", c.file("r.jsonl", rows))
	require.Equal(t, exitOK, code, errOut)
	code, out, _ := c.run("", "traces", "--json")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"root_cause":""`)

	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	code, out, _ = c.run("", "traces", "--json")
	require.Equal(t, exitOK, code)
	causes := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r traceRow
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		causes[r.TaskID] = r.RootCause
	}
	require.Equal(t, "TOOL_LOOP: bash called 3 times in a row with the same arguments (calls 0, 1, 2); outputs identical: no new evidence (step 1)", causes["L"])
	n := 0
	for task, rc := range causes {
		if task != "L" {
			require.True(t, strings.HasPrefix(rc, "SCORER_RED: submitted after the project's tests failed at step "), rc)
			n++
		}
	}
	require.Equal(t, 3, n)

	code, out, _ = c.run("", "traces")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "ROOT CAUSE")
	require.Contains(t, out, "TOOL_LOOP: bash called 3 times")
}

// TestReportListsRootCauses: report, in every format, lists the failing
// traces' root causes grouped with their volatile details normalised.
func TestReportListsRootCauses(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	rows, _ := plantedRows("r", 12, false)
	rows += `{"run_id":"r","task_id":"P","seed":0,"exit_code":0,"written_tests":false,"tool_calls":[{"name":"read","args":{"path":"a"}}]}` + "\n"
	code, _, errOut := c.run("", "import", c.file("r.jsonl", rows))
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)

	code, out, errOut := c.run("", "report", "--json")
	require.Equal(t, exitOK, code, errOut)
	var rep struct {
		RootCauses []struct {
			Cause  string   `json:"cause"`
			Count  int      `json:"count"`
			Traces []string `json:"traces"`
		} `json:"root_causes"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.NotEmpty(t, rep.RootCauses)
	total := 0
	for _, g := range rep.RootCauses {
		require.True(t, strings.HasPrefix(g.Cause, "SCORER_RED: submitted after the project's tests failed at step <n>"), g.Cause)
		require.LessOrEqual(t, len(g.Traces), 3)
		total += g.Count
	}
	require.Equal(t, 12, total, "every failing trace once; the pass has no root cause here")

	// The report screen's view carries every trace of a root cause, for
	// enter to open, not only the JSON's examples.
	a := &app{dbPath: c.db, stdout: &strings.Builder{}, stderr: &strings.Builder{}}
	in, _, err := a.cardInputAlone(t.Context(), "", true)
	require.NoError(t, err)
	v := card.View(card.Report(in))
	require.NotEmpty(t, v.RootCauses)
	for _, g := range v.RootCauses {
		require.Len(t, g.Keys, g.Count, g.Cause)
		require.Subset(t, g.Keys, g.Traces)
	}

	for format, want := range map[string]string{"text": "Root causes of failing traces", "md": "## Root causes of failing traces", "html": "<h2>Root causes of failing traces</h2>"} {
		code, out, errOut := c.run("", "report", "--format", format)
		require.Equal(t, exitOK, code, errOut)
		require.Contains(t, out, want, format)
		require.Contains(t, out, "submitted after the project", format)
	}
}

// TestJSONCarriesWholeRootCauses: a root cause longer than any column (a
// leftover with no recorded outcome, as 1,164 real logs are) is whole in
// traces --json and report --json; only the traces table cuts it.
func TestJSONCarriesWholeRootCauses(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	long := strings.Repeat("word ", 60)
	rows := `{"run_id":"r","task_id":"U","seed":0}` + "\n" +
		`{"run_id":"r","task_id":"F","seed":0,"exit_code":1,"tool_calls":[{"name":"bash","args":{"command":"pytest"},"output":"FAILED test_x.py::test_a - AssertionError: ` + long + `\n1 failed"}]}` + "\n"
	code, _, errOut := c.run("", "import", "--rules", c.file("r.jsonl", rows))
	require.Equal(t, exitOK, code, errOut)
	code, out, _ := c.run("", "traces", "--json")
	require.Equal(t, exitOK, code)
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r traceRow
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		require.NotContains(t, r.RootCause, "…", "%s: the JSON value is cut", r.TaskID)
		if len(r.RootCause) > 160 {
			n++
		}
	}
	require.Positive(t, n, "a root cause past the old 160-byte cut: %s", out)
	code, out, _ = c.run("", "report", "--json")
	require.Equal(t, exitOK, code)
	var rep struct {
		RootCauses []struct {
			Cause string `json:"cause"`
		} `json:"root_causes"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	for _, rc := range rep.RootCauses {
		require.NotContains(t, rc.Cause, "…", "report --json cuts a cause")
	}
}

// TestCauseTemplateIsWhole: a root cause whose template would be cut at
// 160 bytes is templated clause by clause and kept whole; a short one is
// the plain template.
func TestCauseTemplateIsWhole(t *testing.T) {
	t.Parallel()
	short := "SCORER_RED: nothing was run after the last edit at step 31"
	require.Equal(t, signature.Template(short), causeTemplate(short))
	long := "SCORER_RED: no fix was submitted: the final diff holds no source file, only " +
		"sklearn/preprocessing/_discretization.py.bak, sklearn/preprocessing/_discretization.py.bak2, " +
		"sklearn/preprocessing/tests/test_discretization.py.orig (step 17)"
	require.True(t, strings.HasSuffix(signature.Template(long), "…"), "the plain template is cut")
	got := causeTemplate(long)
	require.NotContains(t, got, "…")
	require.Contains(t, got, "test_discretization.py.orig (step <n>)")
}
