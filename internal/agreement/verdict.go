package agreement

import (
	"errors"
	"fmt"
)

// Status is the trust gate's decision on a taxonomy version.
type Status string

// The trust gate's outcomes.
const (
	// StatusTrusted: alpha, the interval and the sample all clear the bar.
	StatusTrusted Status = "trusted"
	// StatusTentative: usable for exploration, not as a gate.
	StatusTentative Status = "tentative"
	// StatusUntrusted: raters do not agree enough to rely on the labels.
	StatusUntrusted Status = "untrusted"
	// StatusInsufficient: too little data to say.
	StatusInsufficient Status = "insufficient"
)

// Thresholds are the trust gate's bars. Krippendorff's own guidance is to
// rely on data with alpha ≥ .800 and draw tentative conclusions only for
// .667 ≤ alpha < .800; the defaults follow it.
type Thresholds struct {
	// Trusted is the alpha needed for "trusted" (default 0.800).
	Trusted float64 `json:"trusted"`
	// Tentative is the alpha needed for "tentative" (default 0.667).
	Tentative float64 `json:"tentative"`
	// MinUnits is how many units must carry two or more ratings (20).
	MinUnits int `json:"min_units"`
	// MinCILower is the lowest acceptable interval lower bound (0.667).
	MinCILower float64 `json:"min_ci_lower"`
}

// DefaultThresholds returns the defaults of issue 5.
func DefaultThresholds() Thresholds {
	return Thresholds{Trusted: 0.800, Tentative: 0.667, MinUnits: 20, MinCILower: 0.667}
}

// Validate refuses thresholds that would make the gate meaningless.
func (t Thresholds) Validate() error {
	switch {
	case t.Trusted > 1 || t.Trusted < -1 || t.Tentative > 1 || t.Tentative < -1 || t.MinCILower > 1 || t.MinCILower < -1:
		return errors.New("agreement thresholds: alpha bars must lie in [-1, 1]")
	case t.Tentative > t.Trusted:
		return fmt.Errorf("agreement thresholds: tentative %.3f is above trusted %.3f", t.Tentative, t.Trusted)
	case t.MinUnits < 2:
		return fmt.Errorf("agreement thresholds: min units %d is below 2", t.MinUnits)
	}
	return nil
}

// Trust is the verdict with the reasons a reader needs to act on it.
type Trust struct {
	// Status is the decision.
	Status Status `json:"status"`
	// Reasons explain it, one sentence each.
	Reasons []string `json:"reasons"`
	// Thresholds are the bars applied, stored with the verdict.
	Thresholds Thresholds `json:"thresholds"`
}

// Verdict applies the trust gate: trusted when alpha ≥ th.Trusted, at
// least th.MinUnits units carry two or more ratings and the interval's
// lower bound is at least th.MinCILower; tentative from th.Tentative;
// untrusted below; insufficient with too few units or alpha undefined.
func Verdict(alpha Value, ci Interval, pairableUnits int, th Thresholds) Trust {
	v := Trust{Thresholds: th}
	if pairableUnits < th.MinUnits {
		v.Status = StatusInsufficient
		v.Reasons = append(v.Reasons, fmt.Sprintf(
			"only %d units carry two or more ratings; at least %d are needed", pairableUnits, th.MinUnits))
		if alpha.OK {
			v.Reasons = append(v.Reasons, fmt.Sprintf("alpha %.3f on so few units is not evidence either way", alpha.V))
		}
		return v
	}
	if !alpha.OK {
		v.Status = StatusInsufficient
		v.Reasons = append(v.Reasons, "alpha is undefined: "+alpha.Why)
		return v
	}
	units := fmt.Sprintf("%d units carry two or more ratings (≥ %d)", pairableUnits, th.MinUnits)
	switch {
	case alpha.V >= th.Trusted:
		v.Reasons = append(v.Reasons, fmt.Sprintf("alpha %.3f ≥ %.3f", alpha.V, th.Trusted), units)
		switch {
		case !ci.Lo.OK:
			v.Status = StatusTentative
			v.Reasons = append(v.Reasons, "the bootstrap interval is undefined ("+ci.Lo.Why+"), so alpha's precision is unknown")
		case ci.Lo.V < th.MinCILower:
			v.Status = StatusTentative
			v.Reasons = append(v.Reasons, fmt.Sprintf(
				"but the 95%% interval's lower bound %.3f is below %.3f: label more units", ci.Lo.V, th.MinCILower))
		default:
			v.Status = StatusTrusted
			v.Reasons = append(v.Reasons, fmt.Sprintf("the 95%% interval's lower bound %.3f ≥ %.3f", ci.Lo.V, th.MinCILower))
		}
	case alpha.V >= th.Tentative:
		v.Status = StatusTentative
		v.Reasons = append(v.Reasons, fmt.Sprintf(
			"alpha %.3f is in [%.3f, %.3f): good for tentative conclusions only", alpha.V, th.Tentative, th.Trusted), units)
	default:
		v.Status = StatusUntrusted
		v.Reasons = append(v.Reasons, fmt.Sprintf(
			"alpha %.3f is below %.3f: the raters do not apply the taxonomy alike; read the most confused pairs",
			alpha.V, th.Tentative), units)
	}
	return v
}
