package card

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/stretchr/testify/require"
)

// A grid wider than the terminal shows the seed columns that fit, says
// how many it left out, and keeps every line within the width.
func TestTextGridFitsTheWidth(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces = nil
	for s := range 300 {
		in.Traces = append(in.Traces, row("T01", s, "PASS_CONTRACT", true), row("T02", s, "TOOL_LOOP", false))
	}
	var b strings.Builder
	require.NoError(t, WriteText(&b, Report(in), 80, false))
	out := b.String()
	require.Contains(t, out, "… 277 more seeds: --format md or html shows them")
	for _, l := range strings.Split(out, "\n") {
		require.LessOrEqual(t, lipgloss.Width(l), 80, "line %q", l)
	}
	b.Reset()
	require.NoError(t, WriteText(&b, Report(seedMix()), 80, false))
	require.NotContains(t, b.String(), "more seeds", "a grid that fits is shown whole")
}
