package ui

import (
	"context"

	"github.com/triage-dev/triage/internal/triage"
)

// Store is everything the review screens need from storage. It is defined
// here, by its consumer, so the UI can be tested with a fake and never
// imports the SQLite package. Every method is called from a tea.Cmd, off
// the UI goroutine, and must be safe for concurrent use.
type Store interface {
	// Queue returns the items to review, in the order the reviewer should
	// meet them: a run's leftovers, or a slice's items when q.Slice is
	// set. When q.Blind is set the adapter must leave Suggestion, Reason
	// and Rules empty; the UI also ignores them.
	Queue(ctx context.Context, q QueueQuery) ([]QueueItem, error)
	// Trace returns the full trace with the given id.
	Trace(ctx context.Context, id int64) (*triage.Trace, error)
	// Verdict returns the latest rule verdict of a trace, or nil when the
	// rules never ran on it. Never called in blind mode.
	Verdict(ctx context.Context, id int64) (*triage.Verdict, error)
	// Context returns what the header and evidence need beyond the trace:
	// the trace's task (allowlist, spec) and its run's frozen controls
	// (budgets). Either may be nil when unknown.
	Context(ctx context.Context, runID, taskID string) (TraceContext, error)
	// AppendLabel stores one label event at once and returns it as
	// stored (with its id and time).
	AppendLabel(ctx context.Context, e triage.LabelEvent) (triage.LabelEvent, error)
	// History returns a trace's label events in time order: only actor's
	// when actor is set, everyone's when it is empty. In blind mode the
	// UI always passes the reviewer's own name.
	History(ctx context.Context, traceID int64, actor string) ([]triage.LabelEvent, error)
}

// QueueQuery says which items a review session covers.
type QueueQuery struct {
	Reviewer string
	RunID    string // empty: every run
	Slice    string // set: the slice's items instead of the leftovers
	Blind    bool   // set: the adapter must not send the rules' output
	// All asks for every trace of the run, decided or not, to spot-check
	// what the rules labelled on their own.
	All bool
	// Limit, when above 0, asks for the first Limit items in queue order
	// only: the screen shows them while the whole queue loads.
	Limit int
}

// Status is where one item stands for this reviewer.
type Status string

// The statuses of a queue item.
const (
	StatusTodo     Status = "todo"
	StatusLabelled Status = "labelled"
	StatusSkipped  Status = "skipped"
)

// QueueItem is one row of the review queue.
type QueueItem struct {
	TraceID int64
	RunID   string
	TaskID  string
	Seed    int
	Model   string
	// Suggestion is the rules' primary, Reason why the trace came to
	// people, Rules the rules that fired. All empty in blind mode.
	Suggestion string
	Reason     string
	Rules      []string
	// Primary, Secondary and Note are this reviewer's current label.
	Primary   string
	Secondary []string
	Note      string
	Status    Status
	// Others are the other reviewers' live labels, in reviewer order;
	// never set in blind review.
	Others []OtherLabel
	// Empty says the trace recorded nothing to read (EmptyTrace): the
	// adapter puts such items last and the filter empty:yes finds them.
	Empty bool
	// Holds says in a few words what the trace recorded ("14 calls",
	// "38 messages, no tool call"): the why column leads with it, since
	// most leftovers share one reason and differ only in this.
	Holds string
}

// OtherLabel is another reviewer's live label on a queue item.
type OtherLabel struct {
	Reviewer string
	Primary  string
}

// Disagrees reports whether another reviewer's live label differs from
// this reviewer's (both set): a disagreement the queue shows and only an
// adjudication settles.
func (q *QueueItem) Disagrees() bool {
	if q.Primary == "" {
		return false
	}
	for _, o := range q.Others {
		if o.Primary != q.Primary {
			return true
		}
	}
	return false
}

// TraceHolds is Holds for a trace: its tool calls, or when it has none
// its messages, and whether it gave an answer.
func TraceHolds(tr *triage.Trace) string {
	switch {
	case EmptyTrace(tr):
		return "nothing recorded"
	case len(tr.ToolCalls) > 0:
		return CallsHeld(len(tr.ToolCalls))
	}
	s := plural(len(tr.Messages), "message") + ", no call"
	if tr.Answer != nil {
		s += ", an answer"
	}
	return s
}

// CallsHeld is Holds for a trace known only by its number of tool calls.
func CallsHeld(n int) string { return plural(n, "call") }

// EmptyTrace reports whether a trace recorded nothing a reviewer could
// read: no message, no tool call, no answer and no diff (an aider
// session that ended before its first message).
func EmptyTrace(tr *triage.Trace) bool {
	return len(tr.Messages) == 0 && len(tr.ToolCalls) == 0 && tr.Answer == nil && (tr.Diff == nil || *tr.Diff == "")
}

// Key names the item as RUN/TASK#SEED.
func (q *QueueItem) Key() string { return triage.TraceKey(q.RunID, q.TaskID, q.Seed) }

// TraceContext is the task and run controls that frame one trace.
type TraceContext struct {
	Task     *triage.Task
	Controls *triage.Controls
}
