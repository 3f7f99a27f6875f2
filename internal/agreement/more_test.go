package agreement

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVerdict(t *testing.T) {
	t.Parallel()
	th := DefaultThresholds()
	ci := func(lo float64) Interval { return Interval{Lo: Defined(lo), Hi: Defined(1)} }
	tests := []struct {
		name   string
		alpha  Value
		ci     Interval
		units  int
		want   Status
		reason string
	}{
		{"trusted", Defined(0.85), ci(0.70), 20, StatusTrusted, "lower bound 0.700 ≥ 0.667"},
		{"trusted at the bars", Defined(0.800), ci(0.667), 20, StatusTrusted, "alpha 0.800 ≥ 0.800"},
		{"high alpha, wide interval", Defined(0.85), ci(0.60), 50, StatusTentative, "lower bound 0.600 is below 0.667"},
		{"high alpha, no interval", Defined(0.9), Interval{Lo: Undefined("bootstrap skipped")}, 50, StatusTentative, "bootstrap skipped"},
		{"tentative", Defined(0.70), ci(0.5), 100, StatusTentative, "tentative conclusions only"},
		{"untrusted", Defined(0.5), ci(0.3), 100, StatusUntrusted, "below 0.667"},
		{"too few units", Defined(0.95), ci(0.9), 19, StatusInsufficient, "only 19 units"},
		{"alpha undefined", Undefined(whyOneClass), Interval{}, 40, StatusInsufficient, "alpha is undefined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := Verdict(tc.alpha, tc.ci, tc.units, th)
			require.Equal(t, tc.want, v.Status)
			require.Contains(t, strings.Join(v.Reasons, "\n"), tc.reason)
			require.Equal(t, th, v.Thresholds)
		})
	}
	custom := Thresholds{Trusted: 0.6, Tentative: 0.5, MinUnits: 5, MinCILower: 0.4}
	require.Equal(t, StatusTrusted, Verdict(Defined(0.65), ci(0.45), 5, custom).Status)
	require.Error(t, Thresholds{Trusted: 1.5, Tentative: 0.5, MinUnits: 5}.Validate())
	require.Error(t, Thresholds{Trusted: 0.8, Tentative: 0.5, MinUnits: 1}.Validate())
}

func TestVerdictInReport(t *testing.T) {
	t.Parallel()
	r, err := Compute(synthetic(200, 2, 4, 0.95, 2), Options{Seed: 1})
	require.NoError(t, err)
	require.Equal(t, StatusTrusted, r.Verdict.Status, r.Verdict.Reasons)
	r, err = Compute(synthetic(200, 2, 4, 0.3, 2), Options{Seed: 1})
	require.NoError(t, err)
	require.Equal(t, StatusUntrusted, r.Verdict.Status, r.Verdict.Reasons)
}

type item struct{ id, task string }

func TestSample(t *testing.T) {
	t.Parallel()
	var items []item
	for i := range 100 {
		task := "a"
		switch {
		case i >= 80:
			task = "c"
		case i >= 50:
			task = "b"
		}
		items = append(items, item{id: fmt.Sprintf("t%03d", i), task: task})
	}
	key := func(it item) string { return it.id }
	stratum := func(it item) string { return it.task }
	shuffled := append([]item(nil), items...)
	rand.New(rand.NewPCG(3, 3)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

	s1, err := Sample(items, 10, 7, key, nil)
	require.NoError(t, err)
	s2, err := Sample(shuffled, 10, 7, key, nil)
	require.NoError(t, err)
	require.Len(t, s1, 10)
	require.Equal(t, s1, s2, "input order must not matter")
	s3, err := Sample(items, 10, 8, key, nil)
	require.NoError(t, err)
	require.NotEqual(t, s1, s3, "the seed must matter")
	require.IsIncreasing(t, ids(s1))

	for _, tc := range []struct {
		size int
		want map[string]int
	}{
		{10, map[string]int{"a": 5, "b": 3, "c": 2}},
		{7, map[string]int{"a": 4, "b": 2, "c": 1}}, // 3.5, 2.1, 1.4: "a" has the largest remainder.
		{1, map[string]int{"a": 1}},
		{100, map[string]int{"a": 50, "b": 30, "c": 20}},
	} {
		got, err := Sample(shuffled, tc.size, 1, key, stratum)
		require.NoError(t, err)
		require.Len(t, got, tc.size)
		counts := map[string]int{}
		for _, it := range got {
			counts[it.task]++
		}
		require.Equal(t, tc.want, counts, "size %d", tc.size)
		again, err := Sample(items, tc.size, 1, key, stratum)
		require.NoError(t, err)
		require.Equal(t, got, again)
	}

	all, err := Sample(shuffled, 500, 1, key, nil)
	require.NoError(t, err)
	require.Equal(t, items, all)
	none, err := Sample(items, 0, 1, key, stratum)
	require.NoError(t, err)
	require.Empty(t, none)
	_, err = Sample(items, -1, 1, key, nil)
	require.ErrorContains(t, err, "negative size")
	_, err = Sample(append(items, items[0]), 3, 1, key, nil)
	require.ErrorContains(t, err, `duplicate key "t000"`)
	_, err = Sample(items, 3, 1, nil, nil)
	require.Error(t, err)
}

func ids(items []item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.id
	}
	return out
}

func tagged(unit, rater, label string, tags ...string) Rating {
	return Rating{Unit: unit, Rater: rater, Label: label, Tags: tags, HasTags: true}
}

func TestSecondaryHandComputed(t *testing.T) {
	t.Parallel()
	r, err := Compute([]Rating{
		tagged("1", "A", "X", "a"), tagged("1", "B", "X", "a", "b"),
		tagged("2", "A", "X", "b"), tagged("2", "B", "X", "b"),
		tagged("3", "A", "X", "c"), tagged("3", "B", "X", "c"),
	}, Options{Resamples: -1})
	require.NoError(t, err)
	s := r.Secondary
	require.NotNil(t, s)
	require.Equal(t, 3, s.NPairableUnits)
	want := map[string]float64{"masi": 13.0 / 18, "jaccard": 18.0 / 23}
	for _, a := range s.SetAlpha {
		requireValue(t, want[a.Distance], a.Alpha, a.Distance)
	}
	require.Len(t, s.Tags, 3)
	require.Equal(t, "b", s.Tags[1].Tag)
	require.Equal(t, 3, s.Tags[1].Given)
	requireValue(t, 0.4, *s.Tags[1].CohenKappa, "kappa b")
	requireValue(t, 8.0/18, s.Tags[1].Alpha, "alpha b")
	requireValue(t, 1, s.Tags[0].Alpha, "alpha a")
}

func TestSecondarySingletonsMatchNominal(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../../testdata/agreement/krippendorff2011_nominal.csv")
	require.NoError(t, err)
	defer f.Close()
	ratings, err := ParseRatings(f, "k")
	require.NoError(t, err)
	for i := range ratings {
		ratings[i].Tags, ratings[i].HasTags = []string{ratings[i].Label}, true
	}
	r, err := Compute(ratings, Options{Resamples: -1})
	require.NoError(t, err)
	// With one tag each, MASI and Jaccard are the nominal distance.
	for _, a := range r.Secondary.SetAlpha {
		requireValue(t, 0.743, a.Alpha, a.Distance)
	}
	for i, tg := range r.Secondary.Tags {
		require.Nil(t, tg.CohenKappa, "four raters")
		require.Equal(t, r.PerClass[i].Class, tg.Tag)
		require.InDelta(t, r.PerClass[i].AlphaVsRest.V, tg.Alpha.V, 1e-12, "tag %s", tg.Tag)
	}
}

func TestSecondaryAbsentWithoutTags(t *testing.T) {
	t.Parallel()
	r, err := Compute([]Rating{rt("1", "a", "X"), rt("1", "b", "X")}, Options{Resamples: -1})
	require.NoError(t, err)
	require.Nil(t, r.Secondary)
}

func TestPerClassTwoRaters(t *testing.T) {
	t.Parallel()
	// Wikipedia proposals: Yes row 20|5, No row 10|15.
	r, err := Compute(fromTable([]string{"Yes", "No"}, [][]int{{20, 5}, {10, 15}}), Options{Resamples: -1})
	require.NoError(t, err)
	require.Equal(t, []string{"No", "Yes"}, r.Categories, "labels seen sort by name")
	byClass := map[string]ClassStats{}
	for _, c := range r.PerClass {
		byClass[c.Class] = c
	}
	// Positive agreement 2·n_kk/(n_k.+n_.k): Yes 40/55, No 30/45.
	requireValue(t, 40.0/55, byClass["Yes"].SpecificAgreement, "Yes")
	requireValue(t, 30.0/45, byClass["No"].SpecificAgreement, "No")
	// With two classes, each class against the rest is the whole alpha.
	requireValue(t, r.KrippendorffAlpha.V, byClass["Yes"].AlphaVsRest, "Yes vs rest")
	require.Equal(t, 55, byClass["Yes"].Ratings)
	require.Equal(t, 45, byClass["No"].Ratings)
	require.Len(t, r.MostConfused, 1)
	require.Equal(t, ConfusedPair{A: "No", B: "Yes", Units: 15, Coincidence: 15,
		Examples: []string{"u0021", "u0022", "u0023"}}, r.MostConfused[0])
	// Rows rater A, columns rater B, in category order (No, Yes).
	require.Equal(t, [][]float64{{15, 10}, {5, 20}}, r.Confusion.Cells)
}

func TestWriteText(t *testing.T) {
	t.Parallel()
	ratings := fromTable([]string{"PASS", "BUG\x1b[31m"}, [][]int{{20, 5}, {10, 15}})
	r, err := Compute(ratings, Options{Seed: 3})
	require.NoError(t, err)
	var sb strings.Builder
	require.NoError(t, WriteText(&sb, r))
	out := sb.String()
	for _, want := range []string{
		"Agreement on 50 units (50 with two or more ratings), 2 raters, 100 ratings, 2 categories (labels seen)",
		"Cohen's kappa         0.400", "Krippendorff's alpha  0.400  95% CI [",
		"Verdict: UNTRUSTED", "Confusion matrix (rows: A, columns: B; units)",
		"Most confused pairs", "BUG / PASS  15 units  e.g. u0021, u0022, u0023",
	} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "\x1b", "labels must be sanitised")
	// The grid is aligned: every matrix row has the same width.
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Confusion matrix") {
			require.Len(t, lines[i+2], len(lines[i+3]))
		}
	}
	// Fleiss' kappa with two raters on every unit is Scott's pi.
	require.Contains(t, out, "Fleiss' kappa         0.394")

	multi, err := Compute(synthetic(30, 3, 3, 0.9, 4)[1:], Options{Seed: 3})
	require.NoError(t, err)
	sb.Reset()
	require.NoError(t, WriteText(&sb, multi))
	require.Contains(t, sb.String(), "Cohen's kappa         n/a    not applicable: needs exactly two raters, there are 3")
	require.Contains(t, sb.String(), "Coincidence matrix")
}

func TestSecondaryConflict(t *testing.T) {
	t.Parallel()
	_, err := Compute([]Rating{tagged("1", "A", "X", "a"), tagged("1", "A", "X", "b")}, Options{})
	require.ErrorContains(t, err, `rater "A" gave unit "1" two tag sets: [a] and [b]`)
}

func TestTwoReviewersFile(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../../testdata/agreement/two_reviewers.jsonl")
	require.NoError(t, err)
	defer f.Close()
	ratings, err := ParseRatings(f, "two_reviewers.jsonl")
	require.NoError(t, err)
	r, err := Compute(ratings, Options{Seed: 1})
	require.NoError(t, err)
	require.Equal(t, 7, r.NUnits)
	require.Equal(t, 5, r.NPairableUnits)
	require.Equal(t, []string{"ann", "bob"}, r.Raters)
	requireValue(t, 0.8, r.PercentAgreement, "agreement")
	require.Equal(t, StatusInsufficient, r.Verdict.Status)
	require.NotNil(t, r.Secondary)
	require.Equal(t, 5, r.Secondary.NPairableUnits)
	require.Equal(t, []string{"mock-only-test", "repeated-call", "spec-unread"},
		[]string{r.Secondary.Tags[0].Tag, r.Secondary.Tags[1].Tag, r.Secondary.Tags[2].Tag})
	requireValue(t, 1, *r.Secondary.Tags[1].CohenKappa, "repeated-call kappa")
	var sb strings.Builder
	require.NoError(t, WriteText(&sb, r))
	require.Contains(t, sb.String(), "alpha (MASI distance)")
	require.Contains(t, sb.String(), "alpha (Jaccard distance)")
}
