package agreement

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func rt(unit, rater, label string) Rating { return Rating{Unit: unit, Rater: rater, Label: label} }

func TestUndefinedValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		ratings  []Rating
		opt      Options
		check    func(t *testing.T, r *Report)
		nullKeys []string
	}{
		{
			name:    "one class throughout",
			ratings: []Rating{rt("1", "a", "X"), rt("1", "b", "X"), rt("2", "a", "X"), rt("2", "b", "X"), rt("3", "a", "X"), rt("3", "b", "X")},
			check: func(t *testing.T, r *Report) {
				require.True(t, r.PercentAgreement.OK)
				require.Equal(t, 1.0, r.PercentAgreement.V)
				require.False(t, r.KrippendorffAlpha.OK)
				require.Contains(t, r.KrippendorffAlpha.Why, "single class")
				require.False(t, r.CohenKappa.OK)
				require.False(t, r.GwetAC1.OK, "one category seen: q-1 = 0")
				require.Equal(t, StatusInsufficient, r.Verdict.Status)
			},
			nullKeys: []string{"krippendorff_alpha", "cohen_kappa", "scott_pi", "gwet_ac1", "fleiss_kappa"},
		},
		{
			name:    "one class but a declared set makes AC1 defined",
			ratings: []Rating{rt("1", "a", "X"), rt("1", "b", "X"), rt("2", "a", "X"), rt("2", "b", "X")},
			opt:     Options{Categories: []string{"X", "Y"}},
			check: func(t *testing.T, r *Report) {
				require.True(t, r.GwetAC1.OK)
				require.InDelta(t, 1.0, r.GwetAC1.V, 1e-12)
				require.False(t, r.KrippendorffAlpha.OK)
				require.Equal(t, []string{"X", "Y"}, r.Categories)
				require.False(t, r.PerClass[1].SpecificAgreement.OK, "Y never used")
			},
			nullKeys: []string{"krippendorff_alpha"},
		},
		{
			name:    "no unit rated twice",
			ratings: []Rating{rt("1", "a", "X"), rt("2", "b", "Y"), rt("3", "c", "X")},
			check: func(t *testing.T, r *Report) {
				require.Equal(t, 0, r.NPairableUnits)
				require.False(t, r.PercentAgreement.OK)
				require.Equal(t, whyNoPairs, r.PercentAgreement.Why)
				require.Nil(t, r.CohenKappa)
				require.Equal(t, StatusInsufficient, r.Verdict.Status)
				require.Empty(t, r.MostConfused)
			},
			nullKeys: []string{"percent_agreement", "krippendorff_alpha", "gwet_ac1"},
		},
		{
			name:    "one pairable unit",
			ratings: []Rating{rt("1", "a", "X"), rt("1", "b", "Y"), rt("2", "a", "X")},
			check: func(t *testing.T, r *Report) {
				require.True(t, r.PercentAgreement.OK)
				require.Equal(t, whyFewPairs, r.KrippendorffAlpha.Why)
				require.Equal(t, whyNoShared, r.CohenKappa.Why)
				require.Equal(t, []ConfusedPair{{A: "X", B: "Y", Units: 1, Coincidence: 1, Examples: []string{"1"}}}, r.MostConfused)
			},
			nullKeys: []string{"krippendorff_alpha", "cohen_kappa", "scott_pi", "gwet_ac1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Compute(tc.ratings, tc.opt)
			require.NoError(t, err)
			tc.check(t, r)
			b, err := json.Marshal(r)
			require.NoError(t, err)
			require.NotContains(t, string(b), "NaN")
			var m map[string]any
			require.NoError(t, json.Unmarshal(b, &m))
			for _, k := range tc.nullKeys {
				if v, present := m[k]; present {
					require.Nilf(t, v, "%s should be null", k)
				}
				require.NotEmptyf(t, r.Undefined[k], "%s needs a reason", k)
			}
			var sb strings.Builder
			require.NoError(t, WriteText(&sb, r))
			require.Contains(t, sb.String(), "Verdict:")
		})
	}
}

func TestReportJSONKeys(t *testing.T) {
	t.Parallel()
	two := synthetic(40, 2, 3, 0.9, 3)
	three := synthetic(40, 3, 3, 0.9, 3)
	tests := []struct {
		name   string
		in     []Rating
		absent []string
	}{
		{"two raters complete", two, nil},
		{"three raters complete", three, []string{"cohen_kappa", "scott_pi"}},
		{"three raters incomplete", three[1:], []string{"cohen_kappa", "scott_pi", "fleiss_kappa"}},
	}
	required := []string{"n_units", "n_raters", "percent_agreement", "krippendorff_alpha", "gwet_ac1",
		"alpha_ci95", "per_class", "confusion", "verdict"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Compute(tc.in, Options{Resamples: 200})
			require.NoError(t, err)
			b, err := json.Marshal(r)
			require.NoError(t, err)
			var m map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(b, &m))
			for _, k := range required {
				require.Containsf(t, m, k, "key %s", k)
			}
			for _, k := range []string{"cohen_kappa", "scott_pi", "fleiss_kappa"} {
				if containsStr(tc.absent, k) {
					require.NotContainsf(t, m, k, "key %s must be absent", k)
					require.Contains(t, r.Undefined[k], "not applicable")
				} else {
					require.Containsf(t, m, k, "key %s", k)
				}
			}
			var back Report
			require.NoError(t, json.Unmarshal(b, &back))
			require.Equal(t, r.KrippendorffAlpha.V, back.KrippendorffAlpha.V)
		})
	}
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestComputeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      []Rating
		opt     Options
		wantErr string
	}{
		{"empty", nil, Options{}, "no ratings"},
		{"conflict", []Rating{rt("u", "a", "X"), rt("u", "a", "Y")}, Options{}, `rater "a" gave unit "u" two labels`},
		{"undeclared label", []Rating{rt("u", "a", "Z")}, Options{Categories: []string{"X", "Y"}}, `label "Z" is not one of the declared categories`},
		{"empty rater", []Rating{rt("u", "", "X")}, Options{}, "empty rater"},
		{"bad thresholds", []Rating{rt("u", "a", "X")}, Options{Thresholds: Thresholds{Trusted: 0.5, Tentative: 0.7, MinUnits: 20}}, "tentative 0.700 is above trusted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compute(tc.in, tc.opt)
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

func TestExactDuplicateIgnored(t *testing.T) {
	t.Parallel()
	base := []Rating{rt("1", "a", "X"), rt("1", "b", "Y"), rt("2", "a", "X"), rt("2", "b", "X"), rt("3", "a", "Y"), rt("3", "b", "Y")}
	r1, err := Compute(base, Options{Resamples: -1})
	require.NoError(t, err)
	r2, err := Compute(append(base, rt("2", "b", "X")), Options{Resamples: -1})
	require.NoError(t, err)
	require.Equal(t, r1.KrippendorffAlpha, r2.KrippendorffAlpha)
	require.Equal(t, 6, r2.NRatings)
}

func TestValueJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Defined(0.25), "0.25"}, {Undefined("x"), "null"}, {Defined(math.NaN()), "null"},
		{Value{V: math.Inf(1), OK: true}, "null"}, {Defined(-1), "-1"},
	} {
		b, err := json.Marshal(tc.v)
		require.NoError(t, err)
		require.Equal(t, tc.want, string(b))
	}
	var v Value
	require.NoError(t, json.Unmarshal([]byte("null"), &v))
	require.False(t, v.OK)
	require.Error(t, json.Unmarshal([]byte(`"x"`), &v))
}

func TestBootstrapDeterministic(t *testing.T) {
	t.Parallel()
	ratings := synthetic(300, 3, 4, 0.85, 9)
	shuffled := append([]Rating(nil), ratings...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

	a, err := Compute(ratings, Options{Seed: 5})
	require.NoError(t, err)
	b, err := Compute(shuffled, Options{Seed: 5})
	require.NoError(t, err)
	c, err := Compute(ratings, Options{Seed: 6})
	require.NoError(t, err)

	require.Equal(t, DefaultResamples, a.AlphaCI95.Resamples)
	require.Equal(t, a.AlphaCI95, b.AlphaCI95, "input order must not change the interval")
	require.NotEqual(t, a.AlphaCI95.Lo, c.AlphaCI95.Lo, "the seed must matter")
	require.True(t, a.AlphaCI95.Lo.OK)
	require.Less(t, a.AlphaCI95.Lo.V, a.KrippendorffAlpha.V)
	require.Greater(t, a.AlphaCI95.Hi.V, a.KrippendorffAlpha.V)
	require.InDelta(t, a.KrippendorffAlpha.V, b.KrippendorffAlpha.V, 1e-12)
	// With 900 values the interval is narrow: well inside ±0.15.
	require.Less(t, a.AlphaCI95.Hi.V-a.AlphaCI95.Lo.V, 0.15)
}

func TestBootstrapUndefined(t *testing.T) {
	t.Parallel()
	// Alpha is defined, but nearly every resample of these two units
	// draws one class only.
	r, err := Compute([]Rating{rt("1", "a", "X"), rt("1", "b", "X"), rt("2", "a", "Y"), rt("2", "b", "Y")}, Options{Seed: 1})
	require.NoError(t, err)
	require.True(t, r.KrippendorffAlpha.OK)
	require.Equal(t, 1.0, r.KrippendorffAlpha.V)
	require.Positive(t, r.AlphaCI95.UndefinedResamples)
	skip, err := Compute([]Rating{rt("1", "a", "X"), rt("1", "b", "Y")}, Options{Resamples: -1})
	require.NoError(t, err)
	require.False(t, skip.AlphaCI95.Lo.OK)
}

func TestQuantile(t *testing.T) {
	t.Parallel()
	vals := []float64{1, 2, 3, 4, 5}
	require.Equal(t, 1.0, quantile(vals, 0))
	require.Equal(t, 3.0, quantile(vals, 0.5))
	require.Equal(t, 5.0, quantile(vals, 1))
	require.InDelta(t, 1.1, quantile(vals, 0.025), 1e-12)
}

func TestBoundedUniform(t *testing.T) {
	t.Parallel()
	src := rand.NewPCG(1, 1)
	var hist [3]int
	for range 30000 {
		hist[bounded(src, 3)]++
	}
	for _, h := range hist {
		require.InDelta(t, 10000, h, 400)
	}
}

func TestBootstrapSameOnAnyCoreCount(t *testing.T) {
	t.Parallel()
	d, err := newDataset(synthetic(500, 3, 5, 0.8, 11), nil)
	require.NoError(t, err)
	alpha := krippendorffAlpha(newTally(d, 1))
	one := bootstrapWorkers(d, alpha, 400, 99, 1)
	three := bootstrapWorkers(d, alpha, 400, 99, 3)
	require.True(t, one.Lo.OK)
	require.Equal(t, one, three)
}

func TestHostileShapes(t *testing.T) {
	t.Parallel()
	// One unit rated by 20,000 raters with 1,000 distinct labels must stay
	// fast and be reported, not hang or crash.
	var in []Rating
	for i := range 20000 {
		in = append(in, rt("u", fmt.Sprintf("r%05d", 19999-i), fmt.Sprintf("L%03d", i%1000)))
	}
	in = append(in, rt("v", "r00000", "L000"), rt("v", "r00001", "L000"))
	r, err := Compute(in, Options{Resamples: 50})
	require.NoError(t, err)
	require.Equal(t, 2, r.NPairableUnits)
	require.Nil(t, r.Confusion, "1,000 categories are not drawn")
	require.Contains(t, r.Undefined["most_confused"], "incomplete")
	require.Contains(t, r.Undefined["confusion"], "not drawn")
	require.NoError(t, WriteText(io.Discard, r))
}
