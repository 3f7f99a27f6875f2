package ui

import (
	"github.com/triage-dev/triage/internal/agreement"
	"github.com/triage-dev/triage/internal/triage"
)

// queueLoadedMsg carries the queue; gen drops a stale reload.
type queueLoadedMsg struct {
	gen   int
	items []QueueItem
	// reviews are the reviewers' labels per trace (adjudication only).
	reviews map[int64][]triage.LabelEvent
}

// agreementLoadedMsg carries the slice's agreement; gen drops a stale one.
type agreementLoadedMsg struct {
	gen int
	rep *agreement.Report
}

// traceLoadedMsg carries everything one trace screen shows. id and gen
// identify the request: a fast L L L only ever shows the last trace.
type traceLoadedMsg struct {
	id      int64
	gen     int
	trace   *triage.Trace
	verdict *triage.Verdict
	tctx    TraceContext
	history []triage.LabelEvent // everyone's, or only the reviewer's when blind
}

// labelSavedMsg reports one stored label event with the reviewer's
// refreshed history of that trace.
type labelSavedMsg struct {
	traceID int64
	events  []triage.LabelEvent
}

// errMsg is any failure of a command; it shows in the status bar. what is
// the user-facing part ("save label"), err the detail.
type errMsg struct {
	what string
	err  error
	// write marks a failed label write, so the write queue can move on.
	write bool
	// agree marks a failed agreement computation.
	agree bool
}

func (e errMsg) Error() string { return e.what + ": " + e.err.Error() }
