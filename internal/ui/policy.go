package ui

import "github.com/triage-dev/triage/internal/triage"

// policy is what kind of session the app runs: a review of the leftovers,
// a blind slice or an adjudication. What differs between them (the
// title, the queue's columns, the label kind, what is hidden, the help's
// words, which keys work) is data here, read where it matters, rather
// than a question of which session this is asked in every view.
type policy struct {
	// title is the queue's first word ("triage review").
	title string
	// label is the kind of event a label writes.
	label triage.LabelKind
	// labelWord and noteWord are how help names a label and a note;
	// noteTitle heads the note box, yours the trace header's own label.
	labelWord, noteWord, noteTitle, yours string
	// empty is what an empty queue says; done what a finished item is
	// ("labelled", "settled").
	empty, done string
	// columns are the queue's, in order (the rules' are not there when
	// blind; the reviewers' are when adjudicating).
	columns []column
	// blind hides the rules' verdict, evidence highlights and other
	// reviewers' labels; they are not even fetched. No report, no other
	// run: the switcher offers only the screens and slices.
	blind bool
	// reviewers shows every reviewer's label: a column in the queue and a
	// panel on the trace screen (adjudication).
	reviewers bool
	// reason: a label needs a reason in the note box.
	reason bool
	// noBulk says why bulk decisions are off ("" when they work).
	noBulk string
	// slice reviews (or adjudicates) a slice, not a run.
	slice bool
	// agreement: A opens the slice's agreement and a toggles the queue
	// between disagreements and every doubly-labelled item.
	agreement bool
}

// reviewPolicy reviews a run's leftovers (or every trace, with All).
func reviewPolicy() policy {
	return policy{title: "triage review", label: triage.KindHuman, labelWord: "label", noteWord: "note",
		noteTitle: "Note", yours: "yours ", empty: "Nothing to review: no leftovers here.", done: "labelled",
		columns: reviewColumns(false)}
}

// blindPolicy reviews a held-out slice blind.
func blindPolicy() policy {
	p := reviewPolicy()
	p.blind, p.slice = true, true
	p.columns = reviewColumns(true)
	p.noBulk = "bulk decisions are off in blind review: every trace is read and labelled on its own"
	return p
}

// adjudicatePolicy settles a slice's disagreements.
func adjudicatePolicy() policy {
	return policy{title: "triage adjudicate", label: triage.KindAdjudication, labelWord: "final label", noteWord: "reason",
		noteTitle: "Reason", yours: "final ", empty: "No disagreements on this slice: nothing to settle.", done: "settled",
		columns: adjudicateColumns(), reviewers: true, reason: true, slice: true, agreement: true,
		noBulk: "bulk decisions are off in adjudication: each settlement needs its own reason"}
}

// policyFor is the policy of a review session's settings.
func policyFor(cfg Config) policy {
	if cfg.Blind {
		return blindPolicy()
	}
	return reviewPolicy()
}
