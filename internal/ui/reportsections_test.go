package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// TestReportShowsSharedSections: the report screen draws the sections
// package card builds, through reportview, as the text report does.
func TestReportShowsSharedSections(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	r.Sections = []reportview.Section{{
		Title: "Model × task: solved seeds out of k",
		Notes: []string{"1 of 2 tasks saturated, 1 cold."},
		Head:  []string{"task", "m1", "mark"},
		Rows:  [][]string{{"T01\x1b[2J", "3/3", "saturated"}, {"T02", "0/3", "cold"}},
	}}
	out := strings.Join(renderReport(DefaultStyles(), r, 80).lines, "\n")
	require.Contains(t, out, "Model × task: solved seeds out of k")
	require.Contains(t, out, "saturated")
	require.Contains(t, out, "T01␛[2J")
	require.NotContains(t, out, "\x1b[2J")
}

// TestReportDrillOpensEveryTrace: a grid cell opens its attempts (one
// per run when runs share a column) and shows a failure among them; a
// bar opens the traces of its class, the unlabelled ones under
// Unlabelled, as the mix counts them.
func TestReportDrillOpensEveryTrace(t *testing.T) {
	t.Parallel()
	r := &reportview.Report{
		Traces: 4,
		Mix:    []reportview.MixRow{{Code: triage.PassContract, Count: 1}, {Code: triage.ToolLoop, Count: 2}, {Code: reportview.Unlabelled, Count: 1}, {Code: triage.Timeout}},
		Grid: reportview.Grid{Seeds: []int{0, 1}, Tasks: []reportview.TaskRow{
			{TaskID: "T1", Runs: 3, Solved: 2, Cells: []reportview.Cell{
				{RunID: "a", Seed: 0, Solved: true, Primary: triage.PassContract},
				{RunID: "a", Seed: 1, Primary: triage.ToolLoop},
				{RunID: "b", Seed: 1, Solved: true, Primary: triage.ToolLoop},
			}},
			{TaskID: "T2", Runs: 1, Cells: []reportview.Cell{{RunID: "a", Seed: 0, Unknown: true}}},
		}},
	}
	p := renderReport(DefaultStyles(), r, 100)
	opens := map[string][]string{}
	for _, tg := range p.targets {
		opens[tg.drill.title] = tg.drill.keys
	}
	require.Equal(t, []string{"a/T1#0"}, opens["class PASS_CONTRACT"])
	require.Equal(t, []string{"a/T1#1", "b/T1#1"}, opens["class TOOL_LOOP"])
	require.Equal(t, []string{"a/T2#0"}, opens["class UNLABELLED"])
	require.Empty(t, opens["class TIMEOUT"])
	require.Equal(t, []string{"a/T1#1", "b/T1#1"}, opens["task T1 seed 1"], "two runs in one column open both")
	require.Equal(t, []string{"a/T2#0"}, opens["task T2 seed 0"])
	require.NotContains(t, opens, "task T2 seed 1", "a seed never run opens nothing")
	out := strings.Join(p.lines, "\n")
	require.Contains(t, out, "T1    ok  TL", "a failed run is shown, not the pass beside it")
}

// TestReportGridUnknownTaskIsNoFigure: a task none of whose attempts has
// a recorded outcome is in neither rate, so its row shows no pass@1 and
// no pass^k, not 0.00 and "no"; a task with one known failure does.
func TestReportGridUnknownTaskIsNoFigure(t *testing.T) {
	t.Parallel()
	r := &reportview.Report{
		Traces: 2,
		Mix:    []reportview.MixRow{{Code: reportview.Unlabelled, Count: 1}, {Code: triage.ScorerRed, Count: 1}},
		Grid: reportview.Grid{Seeds: []int{0}, Tasks: []reportview.TaskRow{
			{TaskID: "known", Runs: 1, Cells: []reportview.Cell{{RunID: "a", Seed: 0, Primary: triage.ScorerRed}}},
			{TaskID: "unknown", Runs: 1, Unknown: 1, Cells: []reportview.Cell{{RunID: "a", Seed: 0, Unknown: true}}},
		}},
	}
	p := renderReport(DefaultStyles(), r, 100)
	rows := map[string]string{}
	for _, l := range p.lines {
		f := strings.Fields(ansi.Strip(l))
		if len(f) > 0 && (f[0] == "known" || f[0] == "unknown") {
			rows[f[0]] = strings.Join(f[1:], " ")
		}
	}
	require.Equal(t, "SR 0.00 no", rows["known"])
	require.Equal(t, "?? — —", rows["unknown"])
}
