package triage

import "sort"

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
func Resolve(st *LabelState) Final {
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
			if st.Humans[a].ID > latest.ID {
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
