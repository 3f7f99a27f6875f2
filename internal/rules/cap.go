package rules

import "github.com/triage-dev/triage/internal/triage"

// The codebook's reading of a cap (DESIGN §7, issue 28): the outcome is
// the scorer's verdict, always, and the harness's budget kill is how the
// run stopped. So:
//
//   - a cap that ended an unresolved run makes TIMEOUT the primary, the
//     loop or any other class that held a secondary tag (TIMEOUT comes
//     first in the seed's order already);
//   - a resolved run is PASS_* with TIMEOUT a secondary tag: the kill did
//     not decide the outcome, the scorer passed what was submitted;
//   - a capped run the scorer never scored has an unknown outcome, not a
//     derived "incomplete" that pass@1 would count as not solved.
//
// A harness timeout record contradicted by a normal submit in the log is
// settled where both are read, at import (the log decides: the trace
// carries no timeout flag then).

// capPrimary is the primary class given the rules that fired and the
// first of them in the seed's order: a pass the scorer gave outranks the
// TIMEOUT that stopped the agent, which did not decide the outcome. Any
// other class keeps the seed's order (a pass fires only when no class
// the seed ranks above it did, TIMEOUT aside: firedBeforePass).
func (r *run) capPrimary(fired ruleSet, first int) int {
	if first != rTimeout {
		return first
	}
	for _, pass := range []int{rPassWeak, rPassContract} {
		if fired.has(pass) {
			return pass
		}
	}
	return first
}

// capPolicyCount is how many classes fired for the leftover policy's
// "more than one class fired": the TIMEOUT beside a pass the scorer gave
// is the codebook's own reading (PASS_*, TIMEOUT secondary), not two
// classes a person must choose between, so it is not counted. Without
// this, a resolved capped run, a certain TIMEOUT before, became a
// leftover.
func capPolicyCount(fired ruleSet, primary, n int) int {
	if (primary == rPassWeak || primary == rPassContract) && fired.has(rTimeout) {
		return n - 1
	}
	return n
}

// firedBeforePass is anyFiredBefore for a pass class: a TIMEOUT before it
// does not keep the scorer's pass from firing (capPrimary makes it the
// primary).
func (r *run) firedBeforePass(rule int) bool {
	return r.fired&r.c.enabledMask&before(rule)&^bit(rTimeout) != 0
}

// cappedOutcome is the outcome of a run TIMEOUT fired on and whose row
// gave none: the scorer's verdict when it recorded one, else unknown.
func (r *run) cappedOutcome() triage.Outcome {
	switch {
	case r.tr.Green():
		return triage.OutcomeSuccess
	case r.tr.ExitCode != nil:
		return triage.OutcomeFailed
	}
	return triage.OutcomeUnknown
}
