package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/agreement"
	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

func sampleReport() *reportview.Report {
	cell := func(seed int, c reportview.Cell) reportview.Cell {
		c.RunID, c.Seed = "r1", seed
		return c
	}
	return &reportview.Report{
		Title: "run demo · invoice-client-v3", Traces: 10,
		Mix: []reportview.MixRow{
			{Code: triage.PassContract, Count: 3}, {Code: triage.PassWeak, Count: 1}, {Code: triage.AssumeAPI, Count: 4},
			{Code: triage.ToolLoop, Count: 2}, {Code: triage.Timeout},
		},
		Rates:     reportview.Rates{HeadlinePassRate: 0.4, ContractPassRate: 0.3, PassAt1: 0.4, PassHatK: 0.2, K: 2},
		Leftovers: 1,
		Caveats:   "1 of 10 traces are unlabelled leftovers (counted by a provisional label) · 1 have an unknown outcome (left out of pass@1 and pass^k) · taxonomy trust: unmeasured (nobody has measured agreement on a blind slice)",
		Dominant:  &reportview.Dominant{Code: triage.AssumeAPI, Share: 0.4, DoNot: "raise the token budget", DoThis: "ship the spec with the task"},
		Grid: reportview.Grid{Seeds: []int{0, 1}, Tasks: []reportview.TaskRow{
			{TaskID: "T01", Runs: 2, Solved: 2, PassAt1: 1, PassHatK: true, Cells: []reportview.Cell{
				cell(0, reportview.Cell{Solved: true, Primary: triage.PassContract}), cell(1, reportview.Cell{Solved: true, Primary: triage.PassContract})}},
			{TaskID: "T02", Runs: 2, PassAt1: 0, Cells: []reportview.Cell{
				cell(0, reportview.Cell{Primary: triage.AssumeAPI}), cell(1, reportview.Cell{Primary: triage.ToolLoop})}},
			{TaskID: "T03\x1b[2J", Runs: 1, Solved: 0, Cells: []reportview.Cell{cell(0, reportview.Cell{Leaked: true, Primary: triage.AssumeAPI})}},
		}},
		NobodyClears: []string{"T02", "T03"},
	}
}

// TestReportViewGolden pins the report screen at two widths.
func TestReportViewGolden(t *testing.T) {
	t.Parallel()
	for _, w := range []int{80, 140} {
		t.Run(itoa(w), func(t *testing.T) {
			t.Parallel()
			var m tea.Model = NewReportView(sampleReport())
			m, _ = m.Update(tea.WindowSizeMsg{Width: w, Height: 30})
			v := m.View()
			require.NotContains(t, v, "\x1b[2J", "task ids are sanitized")
			for _, l := range strings.Split(v, "\n") {
				require.LessOrEqual(t, ansi.StringWidth(l), w)
			}
			golden.RequireEqual(t, []byte(v))
		})
	}
}

func TestRenderAgreementUndefined(t *testing.T) {
	t.Parallel()
	rep, err := agreement.Compute([]agreement.Rating{
		{Unit: "u1", Rater: "a", Label: "X"}, {Unit: "u1", Rater: "b", Label: "X"},
	}, agreement.Options{Resamples: -1})
	require.NoError(t, err)
	out := strings.Join(renderAgreement(DefaultStyles(), &AgreementView{Report: rep}, 60).lines, "\n")
	require.Contains(t, out, "undefined")
	require.NotContains(t, out, "NaN")
	require.Nil(t, renderAgreement(DefaultStyles(), &AgreementView{Report: rep}, 0).lines)
}

func TestClassAbbrev(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"ASSUME_API": "AA", "TIMEOUT": "TI", "": "??", "x": "X ", "scope-slip": "SS"} {
		require.Equal(t, want, classAbbrev(in), in)
	}
}

// TestGridNeverShowsAPassInAFailedCell: a pass label on an attempt whose
// outcome was not solved (a person's PASS over a red scorer) is drawn as
// a disagreement, named in the legend, never as "PC" in a failed cell.
func TestGridNeverShowsAPassInAFailedCell(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	r.Grid.Tasks[1].Cells[0].Primary = triage.PassContract // not solved, labelled a pass
	out := strings.Join(renderGrid(DefaultStyles(), r, 100).lines, "\n")
	require.NotRegexp(t, `T02\s+PC`, out)
	require.Contains(t, out, "P?")
	require.Contains(t, out, "P?=labelled a pass, scored not solved")
	require.Contains(t, out, "T01      ok  ok", "solved cells are unchanged")
}
