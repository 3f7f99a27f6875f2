package sqlite

import (
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// The backend-free vocabulary of package store, under the names this
// package's code has always used.
type (
	TraceSummary  = store.TraceSummary
	StoredRow     = store.StoredRow
	QueueRow      = store.QueueRow
	Reject        = store.Reject
	Added         = store.Added
	AddResult     = store.AddResult
	Slice         = store.Slice
	Trust         = store.Trust
	RunInfo       = store.RunInfo
	ExportedEvent = store.ExportedEvent
	ImportLabel   = store.ImportLabel
	RuleBatch     = store.RuleBatch
	Decoder       = store.Decoder
	WaitFunc      = store.WaitFunc
	verdictRest   = store.VerdictRest
	stateFolder   = store.StateFolder
)

// The results of Import.Add, and the sentinels.
const (
	Imported  = store.Imported
	Duplicate = store.Duplicate
	Conflict  = store.Conflict
	// MaxRejectRaw bounds the bytes a reject keeps of its line.
	MaxRejectRaw = store.MaxRejectRaw
	packedRow    = store.PackedRow
)

var (
	ErrNotFound   = store.ErrNotFound
	ErrConflict   = store.ErrConflict
	ErrFrozen     = store.ErrFrozen
	ErrBusy       = store.ErrBusy
	ErrNewerStore = store.ErrNewerStore
)

var (
	packRow           = store.PackRow
	unpackRow         = store.UnpackRow
	appendVerdictRest = store.AppendVerdictRest
	decodeVerdictRest = store.DecodeVerdictRest
	appendStrings     = store.AppendStrings
	sameControls      = store.SameControls
	parseStamp        = store.ParseStamp
)

// ExtKey identifies a human event across stores (store.ExtKey).
func ExtKey(contentHash string, e *triage.LabelEvent) string { return store.ExtKey(contentHash, e) }

func frozen(msg string) error { return store.Frozen(msg) }

// Interfaces the DB and its import implement.
var (
	_ store.Store       = (*DB)(nil)
	_ store.Import      = (*Import)(nil)
	_ store.TraceFinder = (*TraceFinder)(nil)
)
