package card

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// A breakdown's group reads its figures from gridAcc.figures, which must
// give exactly what the whole Grid's build gives (the float pass@1 summed
// in the same order), on grids with uneven seeds, unknown outcomes,
// fractional pass@1 and tasks run by two models (bracketed ids).
func TestFiguresEqualBuild(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		rnd := rand.New(rand.NewPCG(seed, 7))
		tl := NewTally()
		for i := range 300 + rnd.IntN(300) {
			r := row(fmt.Sprintf("T%d", rnd.IntN(40)), i%(1+rnd.IntN(5)), "", rnd.IntN(3) == 0)
			r.Model = []string{"m1", "m2", ""}[rnd.IntN(3)]
			if rnd.IntN(7) == 0 {
				r.Outcome, r.ExitCode = "", nil
			}
			tl.Add(&r)
		}
		g := tl.grid.build()
		f := tl.grid.figures()
		require.NotZero(t, g.PassAt1, "seed %d: a grid with no pass rate checks nothing", seed)
		require.Equal(t, gridFigures{NTasks: g.NTasks, UnknownTasks: g.UnknownTasks, Solved: g.Solved, Unknown: g.Unknown,
			PassAt1: g.PassAt1, PassHatK: g.PassHatK}, f, "seed %d", seed)
	}
}
