package ui

import (
	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// queueLoadedMsg carries the queue; gen drops a stale reload.
type queueLoadedMsg struct {
	gen   int
	items []QueueItem
	// partial marks the first page, shown while the whole queue loads.
	partial bool
	// reviews are the reviewers' labels per trace (adjudication only).
	reviews map[int64][]triage.LabelEvent
	// natural is naturalCols(items), measured by the command: a whole
	// queue of 600k items takes 0.2 s, which Update must not spend.
	natural colWidths
}

// agreementLoadedMsg carries the slice's agreement; gen drops a stale one.
// pending marks agree --tui's completion (Config.LoadAgreement), which
// may fail (err) with its figures still shown.
type agreementLoadedMsg struct {
	gen     int
	view    *AgreementView
	err     error
	pending bool
}

// reportLoadedMsg carries the report computed for the report screen
// (Config.LoadReport), or why it could not be; it comes once.
type reportLoadedMsg struct {
	view *reportview.Report
	err  error
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
	// steps is the trace's reading (DESIGN §8), made in the command: a
	// trace of 10,000 calls takes a while to read, and never in Update.
	steps []triage.Step
	// err is set when the load failed; like the rest it is dropped when
	// stale, so an old trace's failure never shows on a new one.
	err error
}

// labelSavedMsg ends one label write: the reviewer's history of the
// trace as the store holds it (reloaded even when the write failed), and
// the failure, if any.
type labelSavedMsg struct {
	traceID int64
	kind    triage.LabelKind
	events  []triage.LabelEvent
	// others are the other reviewers' live labels as read back (never
	// in blind review).
	others   []OtherLabel
	reloaded bool
	err      *errMsg
}

// acceptLoadedMsg carries the labels that accept the rules' verdicts
// of a bulk decision (batch); without counts traces with no verdict.
type acceptLoadedMsg struct {
	batch   int
	labels  []acceptedLabel
	without int
}

// acceptedLabel is one trace's label taken from its verdict.
type acceptedLabel struct {
	id      int64
	primary string
	tags    []string
	note    string
}

// clustersLoadedMsg carries the session's clusters, or why there are
// none; gen drops a computation for a queue the session has left.
type clustersLoadedMsg struct {
	gen  int
	list *ClusterList
	err  error
}

// errMsg is any failure of a command; it shows in the status bar. what is
// the user-facing part ("save label"), err the detail.
type errMsg struct {
	what string
	err  error
}

func (e errMsg) Error() string { return e.what + ": " + e.err.Error() }
