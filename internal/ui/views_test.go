package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/agreement"
	"github.com/triage-dev/triage/internal/triage"
)

func sampleReport() *ReportView {
	return &ReportView{
		Title: "run demo · invoice-client-v3", Traces: 10,
		Mix: []MixRow{
			{Code: triage.PassContract, Count: 3}, {Code: triage.PassWeak, Count: 1}, {Code: triage.AssumeAPI, Count: 4},
			{Code: triage.ToolLoop, Count: 2}, {Code: triage.Timeout},
		},
		HeadlinePassRate: 0.4, ContractPassRate: 0.3, PassAt1: 0.4, PassHatK: 0.2, K: 2, Leftovers: 1,
		Dominant: &DominantView{Code: triage.AssumeAPI, Share: 0.4, DoNot: "raise the token budget", DoThis: "ship the spec with the task"},
		Seeds:    []int{0, 1},
		Tasks: []TaskView{
			{TaskID: "T01", Runs: 2, Solved: 2, PassAt1: 1, PassHatK: true, Cells: []CellView{{Ran: true, Solved: true}, {Ran: true, Solved: true}}},
			{TaskID: "T02", Runs: 2, PassAt1: 0, Cells: []CellView{{Ran: true, Primary: triage.AssumeAPI}, {Ran: true, Primary: triage.ToolLoop}}},
			{TaskID: "T03\x1b[2J", Runs: 1, Solved: 0, Cells: []CellView{{Ran: true, Leaked: true}, {}}},
		},
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

func TestPagerKeys(t *testing.T) {
	t.Parallel()
	var m tea.Model = NewAgreementView(newFakeAdj(t, 4).rep, "slice s1")
	m, _ = m.Update(tea.WindowSizeMsg{Width: 80, Height: 10})
	p := m.(pager)
	require.Greater(t, len(p.lines), 10)
	for _, tt := range []struct {
		key  string
		want int
	}{{"j", 1}, {"k", 0}, {"G", len(p.lines) - 9}, {"g", 0}, {"ctrl+d", 4}} {
		m, _ = m.Update(keyMsg(tt.key))
		require.Equal(t, tt.want, m.(pager).offset, tt.key)
	}
	_, cmd := m.Update(keyMsg("q"))
	require.NotNil(t, cmd)
	require.IsType(t, tea.QuitMsg{}, cmd())
	_, cmd = m.Update(keyMsg("esc"))
	require.IsType(t, tea.QuitMsg{}, cmd())
}

func TestRenderAgreementUndefined(t *testing.T) {
	t.Parallel()
	rep, err := agreement.Compute([]agreement.Rating{
		{Unit: "u1", Rater: "a", Label: "X"}, {Unit: "u1", Rater: "b", Label: "X"},
	}, agreement.Options{Resamples: -1})
	require.NoError(t, err)
	out := strings.Join(renderAgreement(DefaultStyles(), rep, "", 60), "\n")
	require.Contains(t, out, "undefined")
	require.NotContains(t, out, "NaN")
	require.Nil(t, renderAgreement(DefaultStyles(), rep, "", 0))
}

func TestClassAbbrev(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"ASSUME_API": "AA", "TIMEOUT": "TI", "": "??", "x": "X ", "scope-slip": "SS"} {
		require.Equal(t, want, classAbbrev(in), in)
	}
}
