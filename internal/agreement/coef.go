package agreement

import "fmt"

// Reasons shared by several coefficients, worded for the person reading a
// report rather than for a statistician.
const (
	whyNoPairs     = "no unit carries two or more ratings"
	whyFewPairs    = "fewer than two units carry two or more ratings"
	whyOneClass    = "a single class was used throughout, so chance agreement is total and the coefficient is 0/0"
	whyFewCats     = "fewer than two categories, so chance agreement cannot be separated from agreement"
	whyNoShared    = "fewer than two units were rated by both raters"
	nearOne        = 1e-12
	minPairedUnits = 2
)

// percentAgreement is the mean, over units with two or more ratings, of
// the share of rater pairs on the unit that agree (Fleiss' P-bar; with two
// raters, the share of units they agree on).
func percentAgreement(t *tally) Value {
	if t.pairable == 0 {
		return Undefined(whyNoPairs)
	}
	return Defined(t.paSum / float64(t.pairable))
}

// krippendorffAlpha is nominal alpha from the coincidence matrix with the
// small-sample correction: alpha = ((n-1)·Σo_kk − Σn_k(n_k−1)) /
// (n(n−1) − Σn_k(n_k−1)), where n counts pairable values.
func krippendorffAlpha(t *tally) Value {
	if t.pairable < minPairedUnits {
		return Undefined(whyFewPairs)
	}
	diag := 0.0
	for _, v := range t.oDiag {
		diag += v
	}
	return alphaFrom(diag, t.nc)
}

// alphaFrom computes nominal alpha from the coincidence diagonal total and
// the category margins; the bootstrap calls it once per resample.
func alphaFrom(diag float64, nc []float64) Value {
	n, same := 0.0, 0.0
	for _, v := range nc {
		n += v
		same += v * (v - 1)
	}
	den := n*(n-1) - same
	if den <= 0 {
		return Undefined(whyOneClass)
	}
	return Defined(((n-1)*diag - same) / den)
}

// gwetAC1 is Gwet's first-order agreement coefficient for any number of
// raters with missing ratings (Gwet 2014, as in R's irrCAC): observed
// agreement as percentAgreement; chance agreement
// Σ_k π_k(1−π_k)/(q−1), where π_k averages the share of unit u's ratings
// in class k over every rated unit and q is the number of categories.
func gwetAC1(t *tally, pa Value) Value {
	q := t.k
	switch {
	case q < 2:
		return Undefined(whyFewCats)
	case t.pairable < minPairedUnits:
		return Undefined(whyFewPairs)
	}
	pe := 0.0
	for _, s := range t.piSum {
		pi := s / float64(t.nUnits)
		pe += pi * (1 - pi)
	}
	pe /= float64(q - 1)
	return ratio(pa.V-pe, 1-pe, whyOneClass)
}

// fleissKappa applies to complete designs only: every unit carries the
// same number m ≥ 2 of ratings. ok is false (the key is then absent) with
// the reason when the design is not complete.
func fleissKappa(t *tally, pa Value) (v Value, ok bool, why string) {
	if t.nUnits == 0 || t.mMin != t.mMax || t.mMin < 2 {
		return Value{}, false, fmt.Sprintf(
			"not applicable: Fleiss' kappa needs every unit to carry the same number (≥2) of ratings; units carry %d to %d",
			t.mMin, t.mMax)
	}
	if t.pairable < minPairedUnits {
		return Undefined(whyFewPairs), true, ""
	}
	total := float64(t.nUnits * t.mMin)
	pe := 0.0
	for _, c := range t.total {
		p := float64(c) / total
		pe += p * p
	}
	if 1-pe < nearOne {
		return Undefined(whyOneClass), true, ""
	}
	return Defined((pa.V - pe) / (1 - pe)), true, ""
}

// twoRater returns Cohen's kappa and Scott's pi on the units both raters
// rated; they differ only in chance agreement (each rater's own margins
// for kappa, the pooled margins for pi).
func twoRater(t *tally) (kappa, pi Value) {
	if t.both < minPairedUnits {
		return Undefined(whyNoShared), Undefined(whyNoShared)
	}
	n := float64(t.both)
	po := 0.0
	for c := 0; c < t.k; c++ {
		po += float64(t.conf[uint64(uint32(c))<<32|uint64(uint32(c))])
	}
	po /= n
	peK, peP := 0.0, 0.0
	for c := 0; c < t.k; c++ {
		a, b := float64(t.rowTotal[c])/n, float64(t.colTotal[c])/n
		peK += a * b
		m := (a + b) / 2
		peP += m * m
	}
	kappa = Undefined(whyOneClass)
	if 1-peK >= nearOne {
		kappa = Defined((po - peK) / (1 - peK))
	}
	pi = Undefined(whyOneClass)
	if 1-peP >= nearOne {
		pi = Defined((po - peP) / (1 - peP))
	}
	return kappa, pi
}

// classStats gives, per category, specific agreement o_kk/n_k (for two
// raters 2·n_kk/(n_k.+n_.k), the positive agreement) and alpha for the
// category against all others, from the coincidence matrix.
func classStats(t *tally, cats []string) []ClassStats {
	n := t.n()
	out := make([]ClassStats, len(cats))
	for c, name := range cats {
		nk, okk := t.nc[c], t.oDiag[c]
		cs := ClassStats{Class: name, Ratings: t.total[c], PairableValues: nk}
		if nk == 0 {
			cs.SpecificAgreement = Undefined("the class was never given on a unit with two or more ratings")
			cs.AlphaVsRest = cs.SpecificAgreement
		} else {
			cs.SpecificAgreement = Defined(okk / nk)
			if t.pairable < minPairedUnits || nk >= n {
				cs.AlphaVsRest = Undefined("every pairable rating is this class, so it has no rest to be told apart from")
				if t.pairable < minPairedUnits {
					cs.AlphaVsRest = Undefined(whyFewPairs)
				}
			} else {
				cs.AlphaVsRest = Defined(1 - (n-1)*(nk-okk)/(nk*(n-nk)))
			}
		}
		out[c] = cs
	}
	return out
}
