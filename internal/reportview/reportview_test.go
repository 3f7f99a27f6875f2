package reportview

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/stretchr/testify/require"
)

func TestTextDropsColumnsByWidthAndCleans(t *testing.T) {
	t.Parallel()
	sec := Section{
		Title: "By \x1b[31mtool",
		Notes: []string{"a note long enough to wrap at forty cells, with a hanging indent after the first line"},
		Head:  []string{"tool", "traces", "wide", "medium"},
		Rows:  [][]string{{"bash\x1b[2J", "3", "w", "m"}, {strings.Repeat("x", 50), "12", "w", "m"}},
		Wide:  []int{2, 3}, Medium: []int{3},
	}
	st := Styles{Heading: lipgloss.NewStyle(), Muted: lipgloss.NewStyle(), Label: lipgloss.NewStyle()}
	narrow := strings.Join(Text(sec, 40, st), "\n")
	require.NotContains(t, narrow, "\x1b")
	require.Contains(t, narrow, "By ␛[31mtool")
	require.NotContains(t, narrow, "wide")
	require.Contains(t, narrow, "\n    ", "notes wrap with a hanging indent")
	require.Contains(t, narrow, strings.Repeat("x", MaxCell-1)+"…", "a long cell is cut")
	for _, l := range Text(sec, 44, st) {
		require.LessOrEqual(t, lipgloss.Width(l), 44, "a table that fits keeps every line in the width: %q", l)
	}
	medium := strings.Join(Text(sec, 110, st), "\n")
	require.Contains(t, medium, "wide")
	require.NotContains(t, medium, "medium")
	wide := strings.Join(Text(sec, 140, st), "\n")
	require.Contains(t, wide, "medium")
	require.Equal(t, []string{"", "Empty", "  nothing to show"}, Text(Section{Title: "Empty", Notes: []string{"nothing to show"}}, 80, st))
	require.Equal(t, []string{"", "Notes", "  - one", "  - two that", "    wraps"}, Text(Section{Title: "Notes", Notes: []string{"one", "two that wraps"}, List: true}, 16, st),
		"a list's items after a dash, wrapped under their text")
}

func TestTableLeavesNoTrailingSpace(t *testing.T) {
	t.Parallel()
	st := Styles{}
	for _, l := range Table([]string{"task", "m1", "mark"}, [][]string{{"T1", "5/5", "saturated"}, {"T2", "3/5", ""}}, st) {
		require.Equal(t, strings.TrimRight(l, " "), l)
	}
}
