package agreement

import (
	"cmp"
	"fmt"
	"slices"
)

// Report is the agreement on one set of ratings. JSON keys are a contract
// (DESIGN §4, issue 5): a coefficient that does not apply to the design is
// absent (nil pointer), one that applies but cannot be computed is null,
// and the reason for either is under "undefined".
type Report struct {
	// NUnits counts units with at least one rating.
	NUnits int `json:"n_units"`
	// NRaters counts distinct raters.
	NRaters int `json:"n_raters"`
	// NRatings counts ratings after exact duplicates are dropped.
	NRatings int `json:"n_ratings"`
	// NPairableUnits counts units with two or more ratings: only these
	// carry information about agreement.
	NPairableUnits int `json:"n_pairable_units"`
	// Raters lists the raters in name order.
	Raters []string `json:"raters"`
	// Categories is the category set: declared, else the labels seen.
	Categories []string `json:"categories"`
	// CategoriesDeclared tells whether Categories was declared by the
	// caller; Gwet's AC1 depends on the number of categories.
	CategoriesDeclared bool `json:"categories_declared"`

	// PercentAgreement is the mean share of agreeing rater pairs per unit.
	PercentAgreement Value `json:"percent_agreement"`
	// CohenKappa is present only with exactly two raters.
	CohenKappa *Value `json:"cohen_kappa,omitempty"`
	// ScottPi is present only with exactly two raters.
	ScottPi *Value `json:"scott_pi,omitempty"`
	// FleissKappa is present only for complete designs.
	FleissKappa *Value `json:"fleiss_kappa,omitempty"`
	// KrippendorffAlpha is nominal alpha with missing data.
	KrippendorffAlpha Value `json:"krippendorff_alpha"`
	// GwetAC1 is Gwet's AC1 with q = len(Categories).
	GwetAC1 Value `json:"gwet_ac1"`
	// AlphaCI95 is the percentile bootstrap interval for alpha.
	AlphaCI95 *Interval `json:"alpha_ci95"`

	// PerClass holds per-category figures in category order.
	PerClass []ClassStats `json:"per_class"`
	// Confusion is the confusion matrix (two raters) or the coincidence
	// matrix (more raters); nil when there are too many categories to draw.
	Confusion *Matrix `json:"confusion"`
	// MostConfused lists the class pairs raters split on most often.
	MostConfused []ConfusedPair `json:"most_confused"`
	// Secondary is agreement on the secondary tags, when tags were given.
	Secondary *Secondary `json:"secondary,omitempty"`
	// Verdict is the trust gate's decision.
	Verdict Trust `json:"verdict"`
	// Undefined maps a figure's JSON path to why it is null or absent.
	Undefined map[string]string `json:"undefined,omitempty"`
}

// ClassStats is agreement on one category.
type ClassStats struct {
	// Class is the category name.
	Class string `json:"class"`
	// Ratings counts every rating with this class.
	Ratings int `json:"ratings"`
	// PairableValues counts this class's ratings on pairable units (n_k).
	PairableValues float64 `json:"pairable_values"`
	// SpecificAgreement is o_kk/n_k: given one rater said this class, the
	// chance another rater on the same unit said it too.
	SpecificAgreement Value `json:"specific_agreement"`
	// AlphaVsRest is nominal alpha with this class against all others.
	AlphaVsRest Value `json:"alpha_vs_rest"`
}

// Matrix is a square table over Labels. Kind "confusion" counts units
// (rows: RowRater, columns: ColRater); kind "coincidence" holds
// Krippendorff's coincidences, which may be fractional.
type Matrix struct {
	// Kind is "confusion" or "coincidence".
	Kind string `json:"kind"`
	// RowRater names the rater on the rows (confusion only).
	RowRater string `json:"row_rater,omitempty"`
	// ColRater names the rater on the columns (confusion only).
	ColRater string `json:"col_rater,omitempty"`
	// Labels names rows and columns.
	Labels []string `json:"labels"`
	// Cells is indexed [row][column].
	Cells [][]float64 `json:"cells"`
}

// ConfusedPair is two classes that raters gave to the same units.
type ConfusedPair struct {
	// A and B are the two classes, A before B in category order.
	A string `json:"a"`
	// B is the second class.
	B string `json:"b"`
	// Units counts units on which both A and B were given.
	Units int `json:"units"`
	// Coincidence is o_AB from the coincidence matrix.
	Coincidence float64 `json:"coincidence"`
	// Examples are some such units, in name order.
	Examples []string `json:"examples"`
}

// Options tunes Compute. The zero value is usable.
type Options struct {
	// Categories declares the category set (e.g. the taxonomy's classes);
	// a label outside it is an error. Empty means the labels seen.
	Categories []string
	// Resamples for the bootstrap interval: 0 means DefaultResamples, a
	// negative number skips the bootstrap.
	Resamples int
	// Seed makes the bootstrap reproducible.
	Seed uint64
	// Thresholds for the verdict; the zero value means DefaultThresholds.
	// To change one bar, start from DefaultThresholds() and edit it.
	Thresholds Thresholds
	// Examples per confused pair (default 3).
	Examples int
	// MaxConfused bounds MostConfused (default 10).
	MaxConfused int
}

// Defaults for Options.
const (
	DefaultResamples   = 1000
	DefaultExamples    = 3
	DefaultMaxConfused = 10
	// MaxGridCategories bounds the confusion grid: past it a drawn matrix
	// is unreadable and costs k² memory on untrusted input.
	MaxGridCategories = 64
)

// Compute builds the full report for ratings. It fails only on bad input
// (no ratings, a rater giving one unit two labels, a label outside the
// declared categories, bad thresholds); a figure that cannot be computed
// is reported as undefined.
func Compute(ratings []Rating, opt Options) (*Report, error) {
	th := opt.Thresholds
	if th == (Thresholds{}) {
		th = DefaultThresholds()
	}
	if err := th.Validate(); err != nil {
		return nil, err
	}
	if opt.Examples <= 0 {
		opt.Examples = DefaultExamples
	}
	if opt.MaxConfused <= 0 {
		opt.MaxConfused = DefaultMaxConfused
	}
	d, err := newDataset(ratings, opt.Categories)
	if err != nil {
		return nil, fmt.Errorf("agreement: %w", err)
	}
	t := newTally(d, opt.Examples)
	r := &Report{
		NUnits: len(d.units), NRaters: len(d.raters), NRatings: len(d.cat),
		NPairableUnits: t.pairable, Raters: d.raters, Categories: d.cats,
		CategoriesDeclared: d.declared, Undefined: map[string]string{},
	}
	r.PercentAgreement = percentAgreement(t)
	r.KrippendorffAlpha = krippendorffAlpha(t)
	r.GwetAC1 = gwetAC1(t, r.PercentAgreement)
	if t.two {
		k, p := twoRater(t)
		r.CohenKappa, r.ScottPi = &k, &p
	} else {
		why := fmt.Sprintf("not applicable: needs exactly two raters, there are %d", len(d.raters))
		r.Undefined["cohen_kappa"], r.Undefined["scott_pi"] = why, why
	}
	if fk, ok, why := fleissKappa(t, r.PercentAgreement); ok {
		r.FleissKappa = &fk
	} else {
		r.Undefined["fleiss_kappa"] = why
	}
	ci := bootstrapAlpha(d, r.KrippendorffAlpha, opt.Resamples, opt.Seed)
	r.AlphaCI95 = &ci
	r.PerClass = classStats(t, d.cats)
	r.Confusion = matrix(t, d)
	if r.Confusion == nil {
		r.Undefined["confusion"] = fmt.Sprintf("not drawn: %d categories exceed %d", len(d.cats), MaxGridCategories)
	}
	r.MostConfused = mostConfused(t, d, opt.MaxConfused)
	if t.untracked > 0 {
		r.Undefined["most_confused"] = fmt.Sprintf(
			"incomplete: %d units carry more than %d distinct classes and were left out of the pairs and the matrix's off-diagonal",
			t.untracked, maxPairClasses)
	}
	if r.Secondary, err = secondary(ratings); err != nil {
		return nil, fmt.Errorf("agreement: secondary tags: %w", err)
	}
	r.Verdict = Verdict(r.KrippendorffAlpha, ci, t.pairable, th)
	r.collectReasons()
	if len(r.Undefined) == 0 {
		r.Undefined = nil
	}
	return r, nil
}

// collectReasons copies each undefined Value's reason into r.Undefined,
// since a JSON null cannot carry it.
func (r *Report) collectReasons() {
	note := func(key string, v *Value) {
		if v != nil && !v.OK {
			r.Undefined[key] = v.Why
		}
	}
	note("percent_agreement", &r.PercentAgreement)
	note("cohen_kappa", r.CohenKappa)
	note("scott_pi", r.ScottPi)
	note("fleiss_kappa", r.FleissKappa)
	note("krippendorff_alpha", &r.KrippendorffAlpha)
	note("gwet_ac1", &r.GwetAC1)
	note("alpha_ci95", &r.AlphaCI95.Lo)
	for i := range r.PerClass {
		c := &r.PerClass[i]
		note("per_class."+c.Class+".specific_agreement", &c.SpecificAgreement)
		note("per_class."+c.Class+".alpha_vs_rest", &c.AlphaVsRest)
	}
	if s := r.Secondary; s != nil {
		for i := range s.Tags {
			tg := &s.Tags[i]
			note("secondary.tags."+tg.Tag+".cohen_kappa", tg.CohenKappa)
			note("secondary.tags."+tg.Tag+".alpha", &tg.Alpha)
		}
		for i := range s.SetAlpha {
			note("secondary.set_alpha."+s.SetAlpha[i].Distance, &s.SetAlpha[i].Alpha)
		}
	}
}

// matrix builds the confusion (two raters) or coincidence matrix.
func matrix(t *tally, d *dataset) *Matrix {
	k := len(d.cats)
	if k > MaxGridCategories {
		return nil
	}
	m := &Matrix{Labels: d.cats, Cells: make([][]float64, k)}
	for i := range m.Cells {
		m.Cells[i] = make([]float64, k)
	}
	if t.two {
		m.Kind, m.RowRater, m.ColRater = "confusion", d.raters[0], d.raters[1]
		for key, n := range t.conf {
			m.Cells[key>>32][uint32(key)] = float64(n)
		}
		return m
	}
	m.Kind = "coincidence"
	for c := range k {
		m.Cells[c][c] = t.oDiag[c]
	}
	for key, v := range t.oOff {
		a, b := unpairKey(key)
		m.Cells[a][b], m.Cells[b][a] = v, v
	}
	return m
}

// mostConfused ranks class pairs by the units they were split on.
func mostConfused(t *tally, d *dataset, limit int) []ConfusedPair {
	out := make([]ConfusedPair, 0, len(t.pairs))
	for key, p := range t.pairs {
		a, b := unpairKey(key)
		out = append(out, ConfusedPair{
			A: d.cats[a], B: d.cats[b], Units: p.units,
			Coincidence: t.oOff[key], Examples: p.examples,
		})
	}
	order := make(map[string]int, len(d.cats))
	for i, c := range d.cats {
		order[c] = i
	}
	slices.SortFunc(out, func(x, y ConfusedPair) int {
		return cmp.Or(
			cmp.Compare(y.Units, x.Units),
			cmp.Compare(y.Coincidence, x.Coincidence),
			cmp.Compare(order[x.A], order[y.A]),
			cmp.Compare(order[x.B], order[y.B]),
		)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
