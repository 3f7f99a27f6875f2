package agreement

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Rules against people (issue 5, item 5). The rules label traces
// unattended only where people have shown them right: on items with a
// final human label, each rule (one per class) is scored like a
// classifier, and a rule that clears a precision bar on enough items may
// label on its own. Everything else keeps a person in the loop.

// Default bars for a rule to label unattended.
const (
	// DefaultMinPrecision is the precision a rule needs (0.95): at most
	// one wrong label in twenty.
	DefaultMinPrecision = 0.95
	// DefaultMinFired is how many checked items the rule must have fired
	// on (10): a perfect score on three items proves little.
	DefaultMinFired = 10
)

// Recommendation says whether a rule may label without a person.
type Recommendation string

// The recommendations of a rule check.
const (
	// RecommendUnattended: precision cleared the bar on enough items.
	RecommendUnattended Recommendation = "may label unattended"
	// RecommendPeople: too imprecise, or too few items to tell.
	RecommendPeople Recommendation = "keep people in the loop"
)

// RuleItem is one checked item: what the rules said and what people
// finally decided.
type RuleItem struct {
	// Unit names the item (a trace key); it must be unique.
	Unit string
	// Fired lists every class whose rule fired, in any order.
	Fired []string
	// RulePrimary is the rules' primary class ("" when none fitted).
	RulePrimary string
	// Final is the final human label (adjudicated, else agreed); required.
	Final string
}

// RuleCheckOptions set the bars of the recommendation; zero fields take
// the defaults.
type RuleCheckOptions struct {
	// MinPrecision is the precision needed, in (0, 1].
	MinPrecision float64
	// MinFired is how many items the rule must have fired on, at least 1.
	MinFired int
	// Classes fixes the order of the per-rule rows (the taxonomy's
	// order); classes only seen in the items follow in name order. A
	// declared class that never fired and was never final is still
	// reported, so a silent rule shows as such.
	Classes []string
}

// RuleCheck is the comparison of the rules with people on a set of items.
// JSON keys are snake_case; an undefined figure is null with its reason
// under "undefined", keyed "primary_accuracy" or "rules.CLASS.precision".
type RuleCheck struct {
	// NItems counts the checked items.
	NItems int `json:"n_items"`
	// PrimaryAgree counts items whose rules' primary equals the final.
	PrimaryAgree int `json:"primary_agree"`
	// PrimaryAccuracy is PrimaryAgree / NItems.
	PrimaryAccuracy Value `json:"primary_accuracy"`
	// MinPrecision and MinFired are the bars applied.
	MinPrecision float64 `json:"min_precision"`
	MinFired     int     `json:"min_fired"`
	// Rules holds one row per class, in Options.Classes order first.
	Rules []RuleStats `json:"rules"`
	// Disagreements lists the items whose primary differs from the final,
	// in input order: the regression fixtures for the rules' tests.
	Disagreements []RuleDisagreement `json:"disagreements"`
	// Undefined maps a null figure's JSON path to why it is null.
	Undefined map[string]string `json:"undefined,omitempty"`
}

// RuleStats scores one class's rule as a classifier against the final
// labels: it "predicts" the class on every item where it fired.
type RuleStats struct {
	// Class is the class code (one rule per class).
	Class string `json:"class"`
	// Fired counts items where the rule fired (TP + FP).
	Fired int `json:"fired"`
	// TruePositives: fired and the final label is the class.
	TruePositives int `json:"true_positives"`
	// FalsePositives: fired but the final label is another class.
	FalsePositives int `json:"false_positives"`
	// FalseNegatives: did not fire but the final label is the class.
	FalseNegatives int `json:"false_negatives"`
	// Support counts items whose final label is the class (TP + FN).
	Support int `json:"support"`
	// Precision is TP / (TP + FP); undefined when the rule never fired.
	Precision Value `json:"precision"`
	// Recall is TP / (TP + FN); undefined when no item is of the class.
	Recall Value `json:"recall"`
	// Recommendation says whether the rule may label unattended.
	Recommendation Recommendation `json:"recommendation"`
	// Reason explains the recommendation with the figures behind it.
	Reason string `json:"reason"`
}

// RuleDisagreement is one item where the rules' primary is not the final
// label.
type RuleDisagreement struct {
	Unit        string `json:"unit"`
	RulePrimary string `json:"rule_primary"`
	Final       string `json:"final"`
}

// CheckRules compares the rules with the final human labels. It refuses
// items without a unit or a final label, repeated units, and bars out of
// range, so a typo cannot turn into a flattering figure.
func CheckRules(items []RuleItem, opt RuleCheckOptions) (*RuleCheck, error) {
	if opt.MinPrecision == 0 {
		opt.MinPrecision = DefaultMinPrecision
	}
	if opt.MinFired == 0 {
		opt.MinFired = DefaultMinFired
	}
	if !(opt.MinPrecision > 0 && opt.MinPrecision <= 1) {
		return nil, fmt.Errorf("minimum precision %v: want a number in (0, 1]", opt.MinPrecision)
	}
	if opt.MinFired < 1 {
		return nil, fmt.Errorf("minimum fired items %d: want at least 1", opt.MinFired)
	}
	rc := &RuleCheck{NItems: len(items), MinPrecision: opt.MinPrecision, MinFired: opt.MinFired,
		Rules: []RuleStats{}, Disagreements: []RuleDisagreement{}}
	index := map[string]int{}
	row := func(class string) *RuleStats {
		i, ok := index[class]
		if !ok {
			i = len(rc.Rules)
			index[class] = i
			rc.Rules = append(rc.Rules, RuleStats{Class: class})
		}
		return &rc.Rules[i]
	}
	for _, c := range opt.Classes {
		if c != "" {
			row(c)
		}
	}
	declared := len(rc.Rules)
	seen := make(map[string]bool, len(items))
	for i, it := range items {
		switch {
		case it.Unit == "":
			return nil, fmt.Errorf("item %d: no unit", i+1)
		case seen[it.Unit]:
			return nil, fmt.Errorf("item %d: unit %q appears twice", i+1, it.Unit)
		case it.Final == "":
			return nil, fmt.Errorf("item %d (%s): no final label", i+1, it.Unit)
		}
		seen[it.Unit] = true
		fired := false
		for j, c := range it.Fired {
			if c == "" || slices.Contains(it.Fired[:j], c) {
				continue
			}
			s := row(c)
			s.Fired++
			if c == it.Final {
				s.TruePositives++
				fired = true
			} else {
				s.FalsePositives++
			}
		}
		s := row(it.Final)
		s.Support++
		if !fired {
			s.FalseNegatives++
		}
		if it.RulePrimary == it.Final {
			rc.PrimaryAgree++
		} else {
			rc.Disagreements = append(rc.Disagreements, RuleDisagreement{Unit: it.Unit, RulePrimary: it.RulePrimary, Final: it.Final})
		}
	}
	// Classes met only in the items follow the declared ones by name, so
	// the output does not depend on item order.
	slices.SortFunc(rc.Rules[declared:], func(a, b RuleStats) int {
		switch {
		case a.Class < b.Class:
			return -1
		case a.Class > b.Class:
			return 1
		}
		return 0
	})
	rc.PrimaryAccuracy = ratio(float64(rc.PrimaryAgree), float64(rc.NItems), "no item has a final human label")
	rc.Undefined = map[string]string{}
	if !rc.PrimaryAccuracy.OK {
		rc.Undefined["primary_accuracy"] = rc.PrimaryAccuracy.Why
	}
	for i := range rc.Rules {
		s := &rc.Rules[i]
		s.Precision = ratio(float64(s.TruePositives), float64(s.Fired), "the rule never fired on a checked item")
		s.Recall = ratio(float64(s.TruePositives), float64(s.Support), "no checked item has this final label")
		if !s.Precision.OK {
			rc.Undefined["rules."+s.Class+".precision"] = s.Precision.Why
		}
		if !s.Recall.OK {
			rc.Undefined["rules."+s.Class+".recall"] = s.Recall.Why
		}
		s.Recommendation, s.Reason = recommend(s, opt)
	}
	if len(rc.Undefined) == 0 {
		rc.Undefined = nil
	}
	return rc, nil
}

// recommend applies the bars: enough items first, since a precision on a
// handful of items is noise whatever its value.
func recommend(s *RuleStats, opt RuleCheckOptions) (Recommendation, string) {
	bar := strconv.FormatFloat(opt.MinPrecision, 'f', 3, 64)
	switch {
	case s.Fired == 0:
		return RecommendPeople, fmt.Sprintf("never fired on a checked item; needs at least %d", opt.MinFired)
	case s.Fired < opt.MinFired:
		return RecommendPeople, fmt.Sprintf("fired on only %s; needs at least %d to judge", plural(s.Fired, "item"), opt.MinFired)
	case s.Precision.V < opt.MinPrecision:
		return RecommendPeople, fmt.Sprintf("precision %s < %s on %s (%d wrong)", s.Precision, bar, plural(s.Fired, "item"), s.FalsePositives)
	}
	return RecommendUnattended, fmt.Sprintf("precision %s ≥ %s on %s", s.Precision, bar, plural(s.Fired, "item"))
}

// WriteRuleCheckText renders rc as aligned text: the primary's accuracy,
// one row per rule with its counts, precision, recall and recommendation,
// and the reasons. Class names are sanitised (they may come from a
// hand-written taxonomy or an imported label file).
func WriteRuleCheckText(w io.Writer, rc *RuleCheck) error {
	if rc == nil {
		return errors.New("no rule check to write")
	}
	ew := &errWriter{w: w}
	ew.printf("Rules against people on %s with a final human label\n", plural(rc.NItems, "item"))
	if rc.PrimaryAccuracy.OK {
		ew.printf("Primary agrees with people on %d of %d (accuracy %s); %s\n\n", rc.PrimaryAgree, rc.NItems,
			rc.PrimaryAccuracy, plural(len(rc.Disagreements), "disagreement"))
	} else {
		ew.printf("Primary accuracy undefined: %s\n\n", rc.PrimaryAccuracy.Why)
	}
	rows := [][]string{{"rule", "fired", "TP", "FP", "FN", "support", "precision", "recall", "recommendation"}}
	for _, s := range rc.Rules {
		rows = append(rows, []string{clean(s.Class), strconv.Itoa(s.Fired), strconv.Itoa(s.TruePositives),
			strconv.Itoa(s.FalsePositives), strconv.Itoa(s.FalseNegatives), strconv.Itoa(s.Support),
			s.Precision.String(), s.Recall.String(), string(s.Recommendation)})
	}
	ew.grid(rows, "  ", true)
	ew.printf("\nA rule may label unattended with precision ≥ %s on at least %s.\n",
		strconv.FormatFloat(rc.MinPrecision, 'f', 3, 64), plural(rc.MinFired, "item"))
	reasons := make([][]string, 0, len(rc.Rules))
	for _, s := range rc.Rules {
		reasons = append(reasons, []string{clean(s.Class), s.Reason})
	}
	ew.grid(reasons, "  ", false)
	if n := len(rc.Disagreements); n > 0 {
		ew.printf("\nWhere the primary differs from people (%d):\n", n)
		dis := make([][]string, 0, min(n, maxListed))
		for _, d := range rc.Disagreements[:min(n, maxListed)] {
			prim := d.RulePrimary
			if prim == "" {
				prim = "(none)"
			}
			dis = append(dis, []string{cleanUnit(d.Unit), "rules " + clean(prim), "people " + clean(d.Final)})
		}
		ew.grid(dis, "  ", false)
		if n > maxListed {
			ew.printf("  … and %d more (--json lists all)\n", n-maxListed)
		}
	}
	return ew.err
}

// cleanUnit makes a unit name safe for a terminal and allows trace keys
// (RUN/TASK#SEED) their usual length. Unlike clean it does not strip
// escape sequences, which could swallow real characters of the key (ESC
// '#' '0' is a sequence): every control or format character becomes '?',
// which leaves any sequence inert and shows a reader that one was there.
func cleanUnit(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar {
			return '?'
		}
		return r
	}, s)
	if ansi.StringWidth(s) > maxUnit {
		s = ansi.Truncate(s, maxUnit, "…")
	}
	return s
}

// maxUnit bounds a unit name's width in the text report.
const maxUnit = 72

// maxListed bounds the disagreements listed in the text report.
const maxListed = 20
