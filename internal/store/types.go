package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/triage-dev/triage/internal/triage"
)

// TraceSummary is a trace's queryable columns, enough for lists and
// reports without decoding the stored row.
type TraceSummary struct {
	ID          int64
	RunID       string
	TaskID      string
	Seed        int
	Model       string
	Agent       string
	PromptID    string
	ExitCode    *int
	Outcome     triage.Outcome
	NToolCalls  int
	WallS       *float64
	Tokens      *triage.Tokens
	CostUSD     *float64
	Source      string
	ContentHash string
	// ImportID names the import that stored the trace (see ImportFiles),
	// 0 when unknown.
	ImportID int64
}

// Key is the trace's RUN/TASK#SEED name.
func (t *TraceSummary) Key() string { return triage.TraceKey(t.RunID, t.TaskID, t.Seed) }

// StoredRow is a trace's stored bytes, unpacked, for bulk decoding off
// the store's goroutine.
type StoredRow struct {
	ID     int64
	RunID  string
	Hash   string
	Source string
	Raw    []byte
	Norm   []byte
}

// QueueRow is one trace as a review queue lists it: identity and the
// rules' latest verdict (nil when the rules have not run on it; shared
// between rows with the same verdict, so read-only).
type QueueRow struct {
	ID     int64
	RunID  string
	TaskID string
	Seed   int
	Model  string
	// NToolCalls is the trace's number of tool calls (the traces
	// column): the queue says what a trace holds without decoding it.
	NToolCalls int
	Rule       *triage.Verdict
}

// Outcome of adding one trace to an import.
type AddResult int

// The ways a trace lands: new, already there with the same content, or
// already there with different content (a conflict, never overwritten).
const (
	Imported AddResult = iota
	Duplicate
	Conflict
)

// Reject is a line that could not become a trace, kept with its bytes.
type Reject struct {
	ID        int64  `json:"id"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Reason    string `json:"reason"`
	Raw       []byte `json:"-"`
	CreatedAt string `json:"created_at"`
}

// Added is one trace handed to Import.Add and what became of it.
type Added struct {
	Trace  *triage.Trace
	Norm   []byte
	File   string
	Line   int
	Result AddResult
	// ID is the stored trace's id in the target: the new row when
	// Imported, the row stored already when Duplicate (0 on a Conflict),
	// so a caller that must refer to the traces after the import (store
	// copy's verdicts, slices and labels) need not look each key up.
	ID int64
	// ImportID is File's imports row.
	ImportID int64
}

// MaxRejectRaw bounds the bytes a reject keeps of its line: a longer line
// keeps its first MaxRejectRaw bytes, and its reason says how long it was
// (a line of 256 MB kept whole made `rejects --json` need 7.4 GB).
const MaxRejectRaw = 1 << 20

// Slice is a held-out sample of traces that reviewers label blind.
type Slice struct {
	Name      string
	RunID     string
	Size      int
	Seed      uint64
	Stratify  string
	Source    string
	CreatedAt string
	// Items are trace ids in sample order.
	Items []int64
	// Labelled is the number of human label events on its items; a slice
	// with any is frozen.
	Labelled int
	// Replaces, given to CreateSlice, is the CreatedAt of the slice of
	// this name its creator read before drawing, "" when it saw none. A
	// slice created meanwhile by another process is not replaced: two
	// simultaneous `slice create` of one name both said they succeeded,
	// and one silently replaced the other.
	Replaces string
}

// SameDraw says whether two slices hold the same draw: the same items,
// in the same order, from the same parameters (times aside).
func (sl *Slice) SameDraw(o *Slice) bool {
	return sl.Name == o.Name && sl.RunID == o.RunID && sl.Size == o.Size && sl.Seed == o.Seed && sl.Stratify == o.Stratify &&
		sl.Source == o.Source && slices.Equal(sl.Items, o.Items)
}

// SliceRaced is the refusal of a slice created by someone else between
// a creator's read and its write.
func SliceRaced(name, createdAt string) error {
	return fmt.Errorf("slice %q was created by another process at %s, after this one looked: not replaced (run slice create again to replace it): %w", name, createdAt, ErrConflict)
}

// Trust is a stored trust verdict.
type Trust struct {
	TaxonomyVersion string
	Slice           string
	Status          string
	Alpha           *float64
	CILo, CIHi      *float64
	Units           int
	Reasons         string
	CreatedAt       string
}

// RunInfo is a run with its trace count, for listings.
type RunInfo struct {
	Controls triage.Controls
	// ControlsSet says `card init` froze the controls (a run created by
	// import alone has none).
	ControlsSet bool
	Traces      int
}

// SameControls reports whether two runs' controls are the same.
func SameControls(a, b triage.Controls) bool {
	eqF := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqI := func(x, y *int64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqB := func(x, y *bool) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.DatasetID == b.DatasetID && a.DatasetSHA256 == b.DatasetSHA256 && a.Scorer == b.Scorer &&
		eqF(a.WallS, b.WallS) && eqI(a.MaxOutputTokens, b.MaxOutputTokens) && eqI(a.MaxToolCalls, b.MaxToolCalls) &&
		a.ImageDigest == b.ImageDigest && eqB(a.Network, b.Network) && a.PromptID == b.PromptID
}

// ExtKey identifies a human event across stores: the same event exported
// and imported twice is stored once.
func ExtKey(contentHash string, e *triage.LabelEvent) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s", contentHash, e.Actor, e.Kind, e.Primary,
		strings.Join(e.Secondary, ","), e.Note, e.Slice, e.CreatedAt.UTC().Format(time.RFC3339Nano))
	return hex.EncodeToString(h.Sum(nil))
}

// ExportedEvent is a human-side label event with its trace's identity,
// for moving labels between stores.
type ExportedEvent struct {
	Event       triage.LabelEvent
	RunID       string
	TaskID      string
	Seed        int
	ContentHash string
}

// ImportLabel classifies a batch of traces being imported: verdicts[i]
// is batch[i]'s. It runs on a goroutine of its own while the store
// writes the batch before, and must not call the store.
type ImportLabel func(batch []Added) ([]*triage.Verdict, error)

// RuleBatch is one batch of stored rows for the rules to label. It runs
// on its own goroutine while the store writes the previous batch, and
// must not call the store. The rows carry ID, RunID, Raw and Norm, all
// the rules read; Hash and Source are left empty.
type RuleBatch func(rows []StoredRow) ([]triage.LabelEvent, error)

// StateFolder folds one trace's events into its state. People's events
// are ordered by triage.EventBefore (their time), not by arrival; a rule
// verdict is the latest added (id order).
type StateFolder struct {
	st       *triage.LabelState
	perActor map[string][]triage.LabelEvent
}

func (f *StateFolder) Reset(traceID int64) {
	f.st = &triage.LabelState{TraceID: traceID}
	if f.perActor == nil {
		f.perActor = map[string][]triage.LabelEvent{}
	}
	clear(f.perActor)
}

func (f *StateFolder) Add(e triage.LabelEvent) {
	if e.Kind == triage.KindRule {
		f.st.Rule = &e
		return
	}
	// Adjudications share the actor's history so that undo can take one
	// back, as it takes back a human label.
	f.perActor[e.Actor] = append(f.perActor[e.Actor], e)
}

// done returns the folded state, or nil when the trace has no events.
func (f *StateFolder) Done() *triage.LabelState {
	st := f.st
	for actor, evs := range f.perActor {
		human, adj := triage.LiveEvents(evs)
		if human != nil {
			if st.Humans == nil {
				st.Humans = map[string]*triage.LabelEvent{}
			}
			st.Humans[actor] = human
		}
		// The latest live adjudication, by anyone, settles the trace.
		if adj != nil && (st.Adjudication == nil || triage.EventBefore(st.Adjudication, adj)) {
			st.Adjudication = adj
		}
	}
	if st.Rule == nil && len(f.perActor) == 0 {
		return nil
	}
	return st
}

// BatchBytes bounds the bodies a batch reader holds at once (LabelPending,
// EachTrace, EachRow, on both backends): a batch ends at its row bound or
// once its rows' bodies, as read (decompressed), pass BatchBytes, and it
// always holds at least one row. Small rows leave the row bound in charge;
// ten rows of 64 MiB were held at once before (issue 30).
const BatchBytes = 64 << 20

// Stored rows and verdict bodies are compressed with S2 behind a one-byte
// header, so that large tool outputs cost little disk and I/O. The header
// byte 0xFF cannot start a JSON row; bytes without it read back as they
// are.
const PackedRow = 0xFF

// PackRow compresses a row for storage; nil stays nil.
func PackRow(b []byte) []byte {
	if b == nil {
		return nil
	}
	dst := make([]byte, 1+s2.MaxEncodedLen(len(b)))
	dst[0] = PackedRow
	enc := s2.Encode(dst[1:], b)
	return dst[:1+len(enc)]
}

// RowLen is how many bytes a stored row takes once read (unpacked): for a
// packed row the length its S2 header declares, which head, the row's
// first bytes (11 suffice), holds; else its stored length, stored. A
// batch reader weighs rows by it before reading them.
func RowLen(head []byte, stored int) int {
	if len(head) == 0 || head[0] != PackedRow {
		return stored
	}
	n, err := s2.DecodedLen(head[1:])
	if err != nil {
		return stored
	}
	return n
}

// UnpackRow reverses PackRow.
func UnpackRow(b []byte) ([]byte, error) {
	if len(b) == 0 || b[0] != PackedRow {
		return b, nil
	}
	out, err := s2.Decode(nil, b[1:])
	if err != nil {
		return nil, fmt.Errorf("stored row is corrupt: %w", err)
	}
	return out, nil
}
