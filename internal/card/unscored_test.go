package card

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A breakdown group none of whose outcomes is known shows "—" for every
// rate that rests on a verdict, the label-based pass rates included.
func TestUnscoredGroupShowsNoRates(t *testing.T) {
	t.Parallel()
	_, rows := groupTable("run", []Group{
		{Key: "nobody", Traces: 3, Tasks: 3, UnknownTasks: 3, Unknown: 3},
		{Key: "scored", Traces: 2, Tasks: 2, Solved: 1, PassAt1: 0.5, HeadlinePassRate: 0.5, ContractPassRate: 0.5},
	}, 20)
	require.Equal(t, []string{"0 ?3", "—", "—", "—", "—"}, rows[0][3:8])
	require.Equal(t, []string{"1", "0.50", "0.00", "50.0%", "50.0%"}, rows[1][3:8])
}
