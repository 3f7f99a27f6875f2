package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLabelsImportOrderDoesNotChangeTheReport: the same label events
// imported in file order and in reverse give the same traces, report and
// export: ann relabels and undoes, bob labels, cy adjudicates and dy's
// later adjudication wins. Before, undo applied in row id order and the
// highest id was taken as the latest, so the reversed file gave another
// current label.
func TestLabelsImportOrderDoesNotChangeTheReport(t *testing.T) {
	t.Parallel()
	rows := []string{
		`{"run_id":"run-a","task_id":"T01","seed":0,"reviewer":"ann","kind":"human","primary":"TOOL_LOOP","secondary":[],"note":"","created_at":"2026-01-02T03:04:01Z"}`,
		`{"run_id":"run-a","task_id":"T01","seed":0,"reviewer":"ann","kind":"human","primary":"TIMEOUT","secondary":[],"note":"","created_at":"2026-01-02T03:04:02Z"}`,
		`{"run_id":"run-a","task_id":"T01","seed":0,"reviewer":"ann","kind":"undo","primary":"","secondary":[],"note":"","created_at":"2026-01-02T03:04:03Z"}`,
		`{"run_id":"run-a","task_id":"T02","seed":0,"reviewer":"ann","kind":"human","primary":"TOOL_LOOP","secondary":[],"note":"","created_at":"2026-01-02T03:04:04Z"}`,
		`{"run_id":"run-a","task_id":"T02","seed":0,"reviewer":"bob","kind":"human","primary":"TIMEOUT","secondary":[],"note":"","created_at":"2026-01-02T03:04:05Z"}`,
		`{"run_id":"run-a","task_id":"T03","seed":0,"reviewer":"cy","kind":"adjudication","primary":"TOOL_LOOP","secondary":[],"note":"","created_at":"2026-01-02T03:04:06Z"}`,
		`{"run_id":"run-a","task_id":"T03","seed":0,"reviewer":"dy","kind":"adjudication","primary":"TIMEOUT","secondary":[],"note":"","created_at":"2026-01-02T03:04:07Z"}`,
	}
	reversed := slices.Clone(rows)
	slices.Reverse(reversed)
	var got []string
	for _, order := range [][]string{rows, reversed} {
		c := newCLI(t)
		f := c.file("run-a.jsonl", `{"task_id":"T01","exit_code":1}`+"\n"+`{"task_id":"T02","exit_code":1}`+"\n"+`{"task_id":"T03","exit_code":1}`+"\n")
		code, _, errOut := c.run("", "import", f)
		require.Equal(t, exitOK, code, errOut)
		code, _, errOut = c.run("", "labels", "import", c.file("l.jsonl", strings.Join(order, "\n")+"\n"))
		require.Equal(t, exitOK, code, errOut)
		_, traces, _ := c.run("", "traces", "--json")
		_, report, _ := c.run("", "report", "--json")
		got = append(got, strings.ReplaceAll(traces+report, c.dir, ""))
		require.Contains(t, traces, `"primary":"TOOL_LOOP"`)
	}
	require.Equal(t, got[0], got[1], "the reversed labels file gives another report")
	for _, want := range []string{`"task_id":"T01"`, `"task_id":"T03"`} {
		require.Contains(t, got[0], want)
	}
}
