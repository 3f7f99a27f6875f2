package agreement

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ruleItems is a small set checked by hand:
//
//	unit fired  primary final
//	u1   A      A       A     A: TP
//	u2   A,B    A       B     A: FP, B: TP, primary wrong
//	u3   B      B       B     B: TP
//	u4   -      -       C     C: FN, primary wrong
//	u5   A,A    A       A     A: TP (a repeated class counts once)
//	u6   B      B       A     B: FP, A: FN, primary wrong
//
// A: fired 3, TP 2, FP 1, FN 1, support 3 → P 2/3, R 2/3.
// B: fired 3, TP 2, FP 1, FN 0, support 2 → P 2/3, R 1.
// C: fired 0, FN 1, support 1 → P undefined, R 0.
// Primary: 3 of 6 agree → 0.5.
func ruleItems() []RuleItem {
	return []RuleItem{
		{Unit: "u1", Fired: []string{"A"}, RulePrimary: "A", Final: "A"},
		{Unit: "u2", Fired: []string{"A", "B"}, RulePrimary: "A", Final: "B"},
		{Unit: "u3", Fired: []string{"B"}, RulePrimary: "B", Final: "B"},
		{Unit: "u4", Final: "C"},
		{Unit: "u5", Fired: []string{"A", "A", ""}, RulePrimary: "A", Final: "A"},
		{Unit: "u6", Fired: []string{"B"}, RulePrimary: "B", Final: "A"},
	}
}

func statsOf(t *testing.T, rc *RuleCheck, class string) RuleStats {
	t.Helper()
	for _, s := range rc.Rules {
		if s.Class == class {
			return s
		}
	}
	t.Fatalf("no row for class %s", class)
	return RuleStats{}
}

func TestCheckRulesHandComputed(t *testing.T) {
	t.Parallel()
	rc, err := CheckRules(ruleItems(), RuleCheckOptions{})
	require.NoError(t, err)
	require.Equal(t, 6, rc.NItems)
	require.Equal(t, 3, rc.PrimaryAgree)
	require.True(t, rc.PrimaryAccuracy.OK)
	require.InDelta(t, 0.5, rc.PrimaryAccuracy.V, 1e-12)
	require.Equal(t, DefaultMinPrecision, rc.MinPrecision)
	require.Equal(t, DefaultMinFired, rc.MinFired)

	tests := []struct {
		class                   string
		fired, tp, fp, fn, supp int
		prec, rec               float64 // NaN: undefined
	}{
		{"A", 3, 2, 1, 1, 3, 2.0 / 3, 2.0 / 3},
		{"B", 3, 2, 1, 0, 2, 2.0 / 3, 1},
		{"C", 0, 0, 0, 1, 1, math.NaN(), 0},
	}
	for _, tc := range tests {
		s := statsOf(t, rc, tc.class)
		require.Equal(t, []int{tc.fired, tc.tp, tc.fp, tc.fn, tc.supp},
			[]int{s.Fired, s.TruePositives, s.FalsePositives, s.FalseNegatives, s.Support}, tc.class)
		if math.IsNaN(tc.prec) {
			require.False(t, s.Precision.OK, tc.class)
			require.Equal(t, "the rule never fired on a checked item", s.Precision.Why)
		} else {
			require.True(t, s.Precision.OK, tc.class)
			require.InDelta(t, tc.prec, s.Precision.V, 1e-12, tc.class)
		}
		require.True(t, s.Recall.OK, tc.class)
		require.InDelta(t, tc.rec, s.Recall.V, 1e-12, tc.class)
		require.Equal(t, RecommendPeople, s.Recommendation, "default bar: 10 items")
	}
	require.Equal(t, "fired on only 3 items; needs at least 10 to judge", statsOf(t, rc, "A").Reason)
	require.Equal(t, "never fired on a checked item; needs at least 10", statsOf(t, rc, "C").Reason)
	require.Equal(t, []RuleDisagreement{
		{Unit: "u2", RulePrimary: "A", Final: "B"},
		{Unit: "u4", RulePrimary: "", Final: "C"},
		{Unit: "u6", RulePrimary: "B", Final: "A"},
	}, rc.Disagreements)
	require.Equal(t, map[string]string{"rules.C.precision": "the rule never fired on a checked item"}, rc.Undefined)
}

func TestCheckRulesOrderDeclaredThenByName(t *testing.T) {
	t.Parallel()
	items := ruleItems()
	// Reversed input must not change the row order of undeclared classes.
	rev := make([]RuleItem, len(items))
	for i, it := range items {
		rev[len(items)-1-i] = it
	}
	for _, in := range [][]RuleItem{items, rev} {
		rc, err := CheckRules(in, RuleCheckOptions{Classes: []string{"D", "B"}})
		require.NoError(t, err)
		var order []string
		for _, s := range rc.Rules {
			order = append(order, s.Class)
		}
		require.Equal(t, []string{"D", "B", "A", "C"}, order)
		d := statsOf(t, rc, "D")
		require.False(t, d.Precision.OK)
		require.False(t, d.Recall.OK)
		require.Equal(t, "no checked item has this final label", d.Recall.Why)
		require.Contains(t, rc.Undefined, "rules.D.recall")
	}
}

func TestCheckRulesRecommendation(t *testing.T) {
	t.Parallel()
	// n items where the rule X fired, wrong of which have final Y.
	build := func(n, wrong int) []RuleItem {
		out := make([]RuleItem, n)
		for i := range out {
			final := "X"
			if i < wrong {
				final = "Y"
			}
			out[i] = RuleItem{Unit: fmt.Sprint("u", i), Fired: []string{"X"}, RulePrimary: "X", Final: final}
		}
		return out
	}
	tests := []struct {
		name   string
		n, bad int
		opt    RuleCheckOptions
		want   Recommendation
		reason string
	}{
		{"exactly at the bar", 20, 1, RuleCheckOptions{}, RecommendUnattended, "precision 0.950 ≥ 0.950 on 20 items"},
		{"just below the bar", 19, 1, RuleCheckOptions{}, RecommendPeople, "precision 0.947 < 0.950 on 19 items (1 wrong)"},
		{"perfect but too few", 9, 0, RuleCheckOptions{}, RecommendPeople, "fired on only 9 items; needs at least 10 to judge"},
		{"perfect on exactly enough", 10, 0, RuleCheckOptions{}, RecommendUnattended, "precision 1.000 ≥ 0.950 on 10 items"},
		{"custom bars", 3, 1, RuleCheckOptions{MinPrecision: 0.6, MinFired: 3}, RecommendUnattended, "precision 0.667 ≥ 0.600 on 3 items"},
		{"one item", 1, 0, RuleCheckOptions{MinFired: 2}, RecommendPeople, "fired on only 1 item; needs at least 2 to judge"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc, err := CheckRules(build(tc.n, tc.bad), tc.opt)
			require.NoError(t, err)
			x := statsOf(t, rc, "X")
			require.Equal(t, tc.want, x.Recommendation)
			require.Equal(t, tc.reason, x.Reason)
			require.Len(t, rc.Disagreements, tc.bad)
		})
	}
}

func TestCheckRulesRefusesBadInput(t *testing.T) {
	t.Parallel()
	ok := RuleItem{Unit: "u", Final: "A"}
	tests := []struct {
		name  string
		items []RuleItem
		opt   RuleCheckOptions
		want  string
	}{
		{"no unit", []RuleItem{{Final: "A"}}, RuleCheckOptions{}, "item 1: no unit"},
		{"repeated unit", []RuleItem{ok, ok}, RuleCheckOptions{}, `item 2: unit "u" appears twice`},
		{"no final", []RuleItem{{Unit: "v"}}, RuleCheckOptions{}, "item 1 (v): no final label"},
		{"precision above 1", []RuleItem{ok}, RuleCheckOptions{MinPrecision: 1.5}, "want a number in (0, 1]"},
		{"negative precision", []RuleItem{ok}, RuleCheckOptions{MinPrecision: -0.1}, "want a number in (0, 1]"},
		{"NaN precision", []RuleItem{ok}, RuleCheckOptions{MinPrecision: math.NaN()}, "want a number in (0, 1]"},
		{"negative min fired", []RuleItem{ok}, RuleCheckOptions{MinFired: -1}, "want at least 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc, err := CheckRules(tc.items, tc.opt)
			require.Nil(t, rc)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestCheckRulesEmptyIsUndefinedNotNaN(t *testing.T) {
	t.Parallel()
	rc, err := CheckRules(nil, RuleCheckOptions{Classes: []string{"A"}})
	require.NoError(t, err)
	require.False(t, rc.PrimaryAccuracy.OK)
	b, err := json.Marshal(rc)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	require.Nil(t, m["primary_accuracy"])
	require.Equal(t, []any{}, m["disagreements"])
	require.Equal(t, "no item has a final human label", m["undefined"].(map[string]any)["primary_accuracy"])
	rules := m["rules"].([]any)
	require.Len(t, rules, 1)
	a := rules[0].(map[string]any)
	for _, k := range []string{"class", "fired", "true_positives", "false_positives", "false_negatives", "support", "precision", "recall", "recommendation", "reason"} {
		require.Contains(t, a, k)
	}
	require.Nil(t, a["precision"])
	var sb strings.Builder
	require.NoError(t, WriteRuleCheckText(&sb, rc))
	require.Contains(t, sb.String(), "Primary accuracy undefined: no item has a final human label")
}

func TestWriteRuleCheckText(t *testing.T) {
	t.Parallel()
	items := append(ruleItems(), RuleItem{Unit: "run/T\x1b[31m9#0", Fired: []string{"\x1b]0;evil\x07Z"}, RulePrimary: "Z", Final: "A"})
	rc, err := CheckRules(items, RuleCheckOptions{MinFired: 3, MinPrecision: 0.6})
	require.NoError(t, err)
	var sb strings.Builder
	require.NoError(t, WriteRuleCheckText(&sb, rc))
	out := sb.String()
	require.NotContains(t, out, "\x1b", "escape sequences from labels are stripped")
	require.NotContains(t, out, "\x07")
	require.Contains(t, out, "Rules against people on 7 items with a final human label\n")
	require.Contains(t, out, "Primary agrees with people on 3 of 7 (accuracy 0.429); 4 disagreements\n")
	lines := strings.Split(out, "\n")
	var header, rowA string
	for _, l := range lines {
		if strings.HasPrefix(l, "  rule ") {
			header = l
		}
		if strings.HasPrefix(l, "  A ") && rowA == "" {
			rowA = l
		}
	}
	require.NotEmpty(t, header)
	require.Equal(t, strings.Index(header, "precision"), strings.Index(rowA, "0.667"), "columns are aligned")
	require.Contains(t, rowA, "may label unattended")
	require.Contains(t, out, "A rule may label unattended with precision ≥ 0.600 on at least 3 items.")
	require.Contains(t, out, "Where the primary differs from people (4):")
	require.Regexp(t, `(?m)^  u4 +rules \(none\) +people C$`, out)
	require.Contains(t, out, "run/T?[31m9#0", "the unit's escape is shown inert, no character of the key lost")
	require.Error(t, WriteRuleCheckText(&sb, nil))
}
