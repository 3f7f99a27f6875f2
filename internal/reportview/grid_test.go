package reportview

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// seedSymbolOracle looks one seed up the slow, obvious way.
func seedSymbolOracle(cells []Cell, seed int) (string, CellState) {
	n, ok, unknown, leaked := 0, 0, 0, false
	for _, c := range cells {
		if c.Seed == seed {
			n++
			if c.Unknown {
				unknown++
			} else if c.Solved {
				ok++
			}
			leaked = leaked || c.Leaked
		}
	}
	switch {
	case n == 0:
		return "·", CellMissing
	case leaked:
		return "!", CellLeaked
	case unknown == n:
		return "?", CellUnknown
	case ok == n:
		return "●", CellSolved
	case ok == 0:
		return "○", CellFailed
	}
	return "◐", CellMixed
}

// Columns, one merge pass, agrees with looking every seed up, for
// missing, solved, failed, mixed and leaked cells and seeds no task ran.
func TestColumnsMatchLookup(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	for range 200 {
		var cells []Cell
		seedSet := map[int]bool{}
		for range rng.IntN(30) {
			s := rng.IntN(12) - 2
			unknown := rng.IntN(6) == 0
			cells = append(cells, Cell{Seed: s, Solved: !unknown && rng.IntN(2) == 0, Unknown: unknown, Leaked: rng.IntN(9) == 0})
			seedSet[s] = true
		}
		for range rng.IntN(4) {
			seedSet[rng.IntN(20)-5] = true // columns other tasks ran
		}
		slices.SortStableFunc(cells, func(a, b Cell) int { return cmp.Compare(a.Seed, b.Seed) })
		var seeds []int
		for s := range seedSet {
			seeds = append(seeds, s)
		}
		slices.Sort(seeds)
		got := Columns(cells, seeds)
		for j, s := range seeds {
			sym, st := seedSymbolOracle(cells, s)
			require.Equal(t, sym, got[j].Symbol(), "seed %d of %v", s, cells)
			require.Equal(t, st, got[j].State(), "seed %d of %v", s, cells)
			for _, c := range got[j].Attempts {
				require.Equal(t, s, c.Seed)
			}
		}
	}
}
