package agreement

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// fromTable expands a two-rater contingency table (rows rater A, columns
// rater B) into long-form ratings.
func fromTable(cats []string, table [][]int) []Rating {
	var out []Rating
	unit := 0
	for i, row := range table {
		for j, n := range row {
			for range n {
				unit++
				u := fmt.Sprintf("u%04d", unit)
				out = append(out,
					Rating{Unit: u, Rater: "A", Label: cats[i]},
					Rating{Unit: u, Rater: "B", Label: cats[j]})
			}
		}
	}
	return out
}

// fromCounts expands per-subject category counts (Fleiss layout) into
// long-form ratings with raters r01, r02, … per subject.
func fromCounts(cats []string, counts [][]int) []Rating {
	var out []Rating
	for s, row := range counts {
		r := 0
		for c, n := range row {
			for range n {
				r++
				out = append(out, Rating{Unit: fmt.Sprintf("s%02d", s+1), Rater: fmt.Sprintf("r%02d", r), Label: cats[c]})
			}
		}
	}
	return out
}

func requireValue(t *testing.T, want float64, got Value, what string) {
	t.Helper()
	require.Truef(t, got.OK, "%s undefined: %s", what, got.Why)
	require.InDeltaf(t, want, got.V, 0.0005, "%s = %.6f, want %.3f", what, got.V, want)
}

func TestKrippendorff2011Nominal(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../../testdata/agreement/krippendorff2011_nominal.csv")
	require.NoError(t, err)
	defer f.Close()
	ratings, err := ParseRatings(f, "krippendorff2011_nominal.csv")
	require.NoError(t, err)
	require.Len(t, ratings, 41)

	r, err := Compute(ratings, Options{Resamples: -1})
	require.NoError(t, err)
	require.Equal(t, 12, r.NUnits)
	require.Equal(t, 4, r.NRaters)
	require.Equal(t, 11, r.NPairableUnits)
	requireValue(t, 0.743, r.KrippendorffAlpha, "alpha") // Krippendorff 2011, section C.
	requireValue(t, 0.775, r.GwetAC1, "AC1")             // irrCAC gwet.ac1.raw(cac.raw4raters).
	requireValue(t, 0.818, r.PercentAgreement, "percent agreement")
	require.Nil(t, r.CohenKappa, "four raters: Cohen's kappa does not apply")
	require.Nil(t, r.ScottPi)
	require.Nil(t, r.FleissKappa, "units carry 1 to 4 ratings")
	require.Contains(t, r.Undefined["fleiss_kappa"], "not applicable")
	require.Equal(t, "coincidence", r.Confusion.Kind)
	// Krippendorff's coincidence matrix: o_11 = 7, o_12 = 4/3, n_1 = 9, n = 40.
	require.InDelta(t, 7.0, r.Confusion.Cells[0][0], 1e-9)
	require.InDelta(t, 4.0/3, r.Confusion.Cells[0][1], 1e-9)
	require.InDelta(t, 9.0, r.PerClass[0].PairableValues, 1e-9)
}

func TestFleissWikipedia(t *testing.T) {
	t.Parallel()
	// Wikipedia "Fleiss' kappa", worked example: 10 subjects, 14 raters.
	counts := [][]int{
		{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7},
	}
	r, err := Compute(fromCounts([]string{"1", "2", "3", "4", "5"}, counts), Options{Resamples: -1})
	require.NoError(t, err)
	require.NotNil(t, r.FleissKappa)
	requireValue(t, 0.210, *r.FleissKappa, "Fleiss' kappa")
	requireValue(t, 0.378, r.PercentAgreement, "P-bar") // Wikipedia: P̄ = 0.378.
	require.Nil(t, r.CohenKappa)
}

func TestTwoRaterPublished(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                             string
		cats                             []string
		table                            [][]int
		kappa, pi, alpha, ac1, agreement float64
	}{
		{
			// Wikipedia "Cohen's kappa": 50 grant proposals, yes/no.
			// kappa = 0.4; pi and alpha follow from p_o = 0.7 and the
			// pooled margins (0.55, 0.45).
			name: "wikipedia-proposals", cats: []string{"Yes", "No"},
			table: [][]int{{20, 5}, {10, 15}},
			kappa: 0.400, pi: 0.394, alpha: 0.400, ac1: 0.406, agreement: 0.700,
		},
		{
			// R irrCAC overview vignette, cont3x3abstractors (100 women).
			name: "irrcac-abstractors", cats: []string{"Ectopic", "AIU", "NIU"},
			table: [][]int{{13, 0, 0}, {0, 20, 7}, {0, 4, 56}},
			kappa: 0.796, pi: 0.796, alpha: 0.797, ac1: 0.849, agreement: 0.890,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Compute(fromTable(tc.cats, tc.table), Options{Categories: tc.cats, Resamples: -1})
			require.NoError(t, err)
			require.NotNil(t, r.CohenKappa)
			require.NotNil(t, r.ScottPi)
			requireValue(t, tc.kappa, *r.CohenKappa, "kappa")
			requireValue(t, tc.pi, *r.ScottPi, "pi")
			requireValue(t, tc.alpha, r.KrippendorffAlpha, "alpha")
			requireValue(t, tc.ac1, r.GwetAC1, "AC1")
			requireValue(t, tc.agreement, r.PercentAgreement, "agreement")
			require.NotNil(t, r.FleissKappa, "two raters on every unit is a complete design")
			require.Equal(t, "confusion", r.Confusion.Kind)
			require.Equal(t, "A", r.Confusion.RowRater)
			require.Equal(t, float64(tc.table[0][1]), r.Confusion.Cells[0][1], "rows are rater A")
		})
	}
}
