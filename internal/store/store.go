// Package store is the triage store as its callers see it: per-entity
// interfaces (traces, imports, runs, labels, verdicts, slices), the
// domain values they take and return, the sentinel errors, and the parts
// every backend shares (the row and verdict codecs, folding label events
// into states). It holds no SQL: the SQLite store is package
// store/sqlite and the PostgreSQL store package store/postgres, and cmd
// picks one by the --db URL.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/triage-dev/triage/internal/triage"
)

// Sentinel errors the callers map to messages and exit codes.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	// ErrFrozen refuses a change that would alter what labels or traces
	// already rest on (a run's controls, a slice's items).
	ErrFrozen = errors.New("frozen")
	// ErrBusy says another process held the store's write lock for
	// longer than a write would wait (SetWaitLimit; by default writes
	// wait as long as it takes): nothing was written, and the same write
	// can be tried again.
	ErrBusy error = busyError{}
	// ErrNewerStore refuses a store whose schema is newer than this
	// binary's.
	ErrNewerStore = errors.New("the store was written by a newer triage")
)

// busyError is ErrBusy's type: a write can be tried again.
type busyError struct{}

func (busyError) Error() string {
	return "the store is busy: another triage process (an import or rules run) is writing to it; try again when it is done"
}

// Temporary reports that the same write can be tried again, for callers
// that do not import this package (the review screen retries on it).
func (busyError) Temporary() bool { return true }

// Frozen is an ErrFrozen with a message fit for a user.
func Frozen(msg string) error { return &frozenError{msg} }

type frozenError struct{ msg string }

func (e *frozenError) Error() string        { return e.msg }
func (e *frozenError) Is(target error) bool { return target == ErrFrozen }

// Decoder turns a stored row back into a trace; the store keeps rows
// verbatim and leaves their format to package ingest (wired by cmd).
type Decoder func(row []byte, runID string) (*triage.Trace, error)

// WaitFunc is told, once, that a write has waited a second for another
// writer: holder is what that writer said it is ("the import of
// runs/a.jsonl (pid 123)"), or empty.
type WaitFunc func(holder string)

// Store is a whole triage store, whatever holds it.
type Store interface {
	Traces
	Imports
	Runs
	Labels
	Verdicts
	Slices
	// Name is the store as a user named it (a file, or a URL without
	// its password), for messages.
	Name() string
	// Check reports what is wrong with the store, nil when nothing is.
	Check(ctx context.Context) ([]string, error)
	// OnWait sets what is told when a write has waited for another
	// writer for a second (nil: nothing).
	OnWait(f WaitFunc)
	// SetActivity names this process's long writes for the writers
	// that wait for them: "the import of runs/a.jsonl".
	SetActivity(what string)
	// AllowConcurrentReads lets up to n calls use the store at once.
	AllowConcurrentReads(n int)
	Close() error
}

// Traces reads stored traces.
type Traces interface {
	// Summaries lists the traces of a run (every run when runID is
	// empty) in run, task, seed order.
	Summaries(ctx context.Context, runID string) ([]TraceSummary, error)
	// Summary returns one trace's summary.
	Summary(ctx context.Context, id int64) (TraceSummary, error)
	// FindTrace resolves RUN/TASK#SEED to a trace id.
	FindTrace(ctx context.Context, run, task string, seed int) (int64, error)
	// TraceFinder prepares a finder for many look-ups; Close it.
	TraceFinder(ctx context.Context) (TraceFinder, error)
	// Row returns the stored row of a trace: the normalised row when
	// the source was another format, else the original verbatim.
	Row(ctx context.Context, id int64) (row []byte, raw []byte, err error)
	// Trace loads and decodes one trace.
	Trace(ctx context.Context, id int64) (*triage.Trace, error)
	// Decode turns a stored row into a trace with the store's decoder.
	Decode(r StoredRow) (*triage.Trace, error)
	// ImportFiles maps each import's id to the file it read.
	ImportFiles(ctx context.Context) (map[int64]string, error)
	// Each streams every trace of a run (all runs when runID is empty)
	// in id order with its folded label state (nil when nothing was
	// said about it).
	Each(ctx context.Context, runID string, fn func(TraceSummary, *triage.LabelState) error) error
	// QueueRows lists a run's traces for a review queue, in run, task,
	// seed order; see the SQLite store for leftoversOnly and limit.
	QueueRows(ctx context.Context, runID string, leftoversOnly bool, limit int) ([]QueueRow, error)
	// EachTrace streams the given traces decoded, each with the rules'
	// full verdict (nil when the rules have not run on it), in id order,
	// a batch at a time: memory holds one batch, never the whole list.
	EachTrace(ctx context.Context, refs []TraceRef, fn func(*triage.Trace, *triage.Verdict) error) error
	// EachRow streams the stored rows of the given traces in id order, a
	// batch at a time (a few queries a batch, not one a trace): ID and
	// RunID as the refs give them, Raw the record as read and Norm its
	// normalised copy (nil when the record is it). Hash and Source are
	// left empty; the summary has them. store copy reads through it.
	EachRow(ctx context.Context, refs []TraceRef, fn func(StoredRow) error) error
	// EachStored streams every trace in id order, each with its summary
	// and its stored row (Hash and Source set, Raw and Norm as EachRow
	// gives them), a batch at a time: a query for a batch's summaries
	// and a few for its bodies, and memory holds one batch, never the
	// store's list of summaries. store copy reads through it.
	EachStored(ctx context.Context, fn func(TraceSummary, StoredRow) error) error
}

// TraceRef names a stored trace for EachTrace: its id and its run (which
// a stored row that carries no run_id decodes under).
type TraceRef struct {
	ID    int64
	RunID string
}

// TraceFinder looks traces up by run, task and seed, for callers
// resolving many keys (labels import).
type TraceFinder interface {
	// Find returns a trace's id and content hash, or an error wrapping
	// ErrNotFound that names the key.
	Find(ctx context.Context, run, task string, seed int) (int64, string, error)
	Close() error
}

// Imports writes traces and rejects.
type Imports interface {
	// BeginImport starts an import; onResult receives every added
	// trace with its result.
	BeginImport(ctx context.Context, onResult func(Added) error) (Import, error)
	// Rejects lists filed rejects, oldest first; file filters when set.
	Rejects(ctx context.Context, file string) ([]Reject, error)
	// EachReject calls fn with every filed reject in turn; r.Raw is
	// valid only during the call.
	EachReject(ctx context.Context, file string, fn func(r Reject) error) error
}

// Import is one import transaction (or, when nobody asks for Whole, a
// few in steps) over many traces: callers add traces and rejects, then
// Commit (or Rollback). Results arrive through the callback given to
// BeginImport, in the order added, at the latest on Flush or Commit. It
// is not safe for concurrent use.
type Import interface {
	// Add queues t; norm is the normalised row to keep beside t.Raw
	// when the source was not our JSONL (nil otherwise).
	Add(ctx context.Context, t *triage.Trace, norm []byte, file string, line int) error
	// Reject files a line that could not be imported.
	Reject(ctx context.Context, r Reject) error
	// Flush writes every queued trace and reports their results.
	Flush(ctx context.Context) error
	// Commit writes what is queued and makes the import durable.
	Commit(ctx context.Context) error
	// Rollback discards the import; it is safe after Commit.
	Rollback() error
	// Whole keeps the import in one transaction (--strict).
	Whole()
	// LabelWith makes the import label each trace it stores with the
	// rules, in the same transaction. Call it before the first Add.
	LabelWith(taxonomyVersion, rulesVersion string, label ImportLabel)
}

// Runs keeps runs and their frozen controls.
type Runs interface {
	// SetControls freezes a run's controls; once it has traces a
	// change is refused with ErrFrozen.
	SetControls(ctx context.Context, c triage.Controls) error
	// Controls returns a run's controls and whether card init set them.
	Controls(ctx context.Context, runID string) (triage.Controls, bool, error)
	// Runs lists every run with its trace count.
	Runs(ctx context.Context) ([]RunInfo, error)
	// RunControls lists every run's controls without counting traces.
	RunControls(ctx context.Context) ([]triage.Controls, error)
}

// Labels keeps the append-only label events and folds them.
type Labels interface {
	// AppendLabel stores one label event and returns it with its id
	// and time.
	AppendLabel(ctx context.Context, e triage.LabelEvent) (triage.LabelEvent, error)
	// AppendLabels stores many events in one transaction and reports
	// how many were new (same external key: skipped).
	AppendLabels(ctx context.Context, events []triage.LabelEvent) (int, error)
	// History returns a trace's events in time order; actor filters.
	History(ctx context.Context, traceID int64, actor string) ([]triage.LabelEvent, error)
	// HumanEvents lists every non-rule event in time order; reviewer
	// and slice filter when set.
	HumanEvents(ctx context.Context, reviewer, slice string) ([]ExportedEvent, error)
	// EachHumanEvent is HumanEvents one event at a time, for callers
	// that must not hold them all (store copy).
	EachHumanEvent(ctx context.Context, reviewer, slice string, fn func(ExportedEvent) error) error
	// LabelStates folds every event of a run's traces into states.
	LabelStates(ctx context.Context, runID string) (map[int64]*triage.LabelState, error)
	// LabelStatesOf is LabelStates for the given traces only.
	LabelStatesOf(ctx context.Context, traceIDs []int64) (map[int64]*triage.LabelState, error)
	// SliceStates folds the people's events given in a slice's blind
	// session; Rule is never set.
	SliceStates(ctx context.Context, slice string) (map[int64]*triage.LabelState, error)
}

// Verdicts keeps the rules' verdicts.
type Verdicts interface {
	// Verdict returns the rules' latest full verdict on a trace, or
	// ErrNotFound.
	Verdict(ctx context.Context, traceID int64) (*triage.Verdict, error)
	// Verdicts returns the latest full verdict of each trace that has
	// one.
	Verdicts(ctx context.Context, traceIDs []int64) (map[int64]*triage.Verdict, error)
	// LabelPending runs label over every trace of a run (all runs when
	// runID is empty) with no verdict under these versions, and stores
	// the verdicts; it returns how many it stored.
	LabelPending(ctx context.Context, runID, taxonomyVersion, rulesVersion string, label RuleBatch) (int, error)
}

// Slices keeps held-out slices and trust verdicts.
type Slices interface {
	// CreateSlice stores a slice; re-creating one is refused with
	// ErrFrozen once a label has landed on it.
	CreateSlice(ctx context.Context, sl Slice) error
	// Slice returns one slice with its items.
	Slice(ctx context.Context, name string) (Slice, error)
	// Slices lists every slice (without items).
	Slices(ctx context.Context) ([]Slice, error)
	// HeldOut returns the ids of every trace in any slice.
	HeldOut(ctx context.Context) (map[int64]bool, error)
	// SaveTrust records a trust verdict of a taxonomy version.
	SaveTrust(ctx context.Context, taxonomyVersion, slice, status string, alpha, lo, hi *float64, units int, reasons string) error
	// LatestTrust returns the newest trust verdict of a version.
	LatestTrust(ctx context.Context, taxonomyVersion string) (Trust, error)
	// Trusts lists every trust verdict, oldest first (store copy).
	Trusts(ctx context.Context) ([]Trust, error)
}

// Stamp is how every backend writes a time: RFC 3339 with nanoseconds,
// in UTC, so that times sort as text and read back exactly.
func Stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// ParseStamp reads a Stamp; a value that does not parse is the zero time.
func ParseStamp(v string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, v)
	return t
}
