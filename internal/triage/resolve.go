package triage

import (
	"slices"
	"sort"
)

// LabelState is everything said about one trace: the rules' latest
// verdict, each reviewer's live label and the adjudication, if any.
type LabelState struct {
	TraceID      int64
	Rule         *LabelEvent
	Humans       map[string]*LabelEvent
	Adjudication *LabelEvent
}

// Final is a trace's current label and what it rests on.
type Final struct {
	Primary   string
	Secondary []string
	Source    LabelSource
	// Decision is the rules' decision when the label rests on them.
	Decision Decision
	// Unresolved is set when no label can be counted on a card: a rules
	// leftover nobody labelled, or reviewers who disagree unadjudicated.
	Unresolved bool
	Reason     string
}

// Resolve applies the precedence of DESIGN §4 and issue 6: adjudicated,
// then agreed human, then a single human, then the rules' verdict. For a
// report every trace counts once by its current label, certain or not;
// Unresolved tells a card which of those it may not count.
//
// A trace whose guard probe found a sentinel (LEAKED, on the rules'
// verdict or on the label) is never a pass: a guarded task has to pass
// both bars of seed 004, so a PASS_CONTRACT or PASS_WEAK label on it,
// whoever gave it, counts as SCORER_RED, with LEAKED kept as a tag.
func Resolve(st *LabelState) Final {
	f := resolve(st)
	if IsPass(f.Primary) && Leaked(st, f.Secondary) {
		f.Primary = ScorerRed
		if !slices.Contains(f.Secondary, TagLeaked) {
			f.Secondary = append(slices.Clip(f.Secondary), TagLeaked)
		}
	}
	return f
}

// IsPass reports whether a primary class is one of the seed's passes.
func IsPass(primary string) bool { return primary == PassContract || primary == PassWeak }

// Leaked reports whether a trace's guard probe found a sentinel: the
// rules' verdict or the given secondary tags carry LEAKED.
func Leaked(st *LabelState, secondary []string) bool {
	if slices.Contains(secondary, TagLeaked) {
		return true
	}
	return st != nil && st.Rule != nil && st.Rule.Verdict != nil && slices.Contains(st.Rule.Verdict.Secondary, TagLeaked)
}

func resolve(st *LabelState) Final {
	if st == nil {
		return Final{Unresolved: true, Reason: "not labelled"}
	}
	if a := st.Adjudication; a != nil {
		return Final{Primary: a.Primary, Secondary: a.Secondary, Source: SourceAdjudicated}
	}
	if len(st.Humans) > 0 {
		actors := make([]string, 0, len(st.Humans))
		for a := range st.Humans {
			actors = append(actors, a)
		}
		sort.Strings(actors)
		first := st.Humans[actors[0]]
		agree := true
		for _, a := range actors[1:] {
			if st.Humans[a].Primary != first.Primary {
				agree = false
			}
		}
		// With disagreeing reviewers the latest human word is shown, but
		// a card may not count it until someone adjudicates.
		latest := first
		for _, a := range actors {
			if EventBefore(latest, st.Humans[a]) {
				latest = st.Humans[a]
			}
		}
		f := Final{Primary: latest.Primary, Secondary: latest.Secondary, Source: SourceHuman}
		if !agree {
			f.Unresolved, f.Reason = true, "reviewers disagree; adjudicate"
		}
		return f
	}
	if r := st.Rule; r != nil {
		f := Final{Primary: r.Primary, Secondary: r.Secondary, Source: SourceRules}
		if r.Verdict != nil {
			f.Decision = r.Verdict.Decision
			if f.Decision == DecisionLeftover {
				f.Unresolved, f.Reason = true, r.Verdict.Reason
			}
		}
		return f
	}
	return Final{Unresolved: true, Reason: "not labelled"}
}
