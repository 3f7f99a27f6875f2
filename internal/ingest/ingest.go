// Package ingest decodes trace files (our JSONL and the logs of real agent
// harnesses) into triage.Trace values, streaming, with every bad record
// reported by file and line instead of being dropped.
package ingest

import (
	"context"
	"fmt"
	"io"

	"github.com/triage-dev/triage/internal/triage"
)

// Reject is an input record that could not become a trace. It keeps the
// raw bytes so nothing is lost: the store files it with its reason.
type Reject struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
	Raw    []byte `json:"-"`
}

// Error implements error as "file:line: reason".
func (r *Reject) Error() string { return fmt.Sprintf("%s:%d: %s", r.File, r.Line, r.Reason) }

// Record is one decoded unit of input: exactly one of Trace, Reject is
// set, or Blank.
type Record struct {
	// Line is the 1-based line (or record position) in the file.
	Line   int
	Trace  *triage.Trace
	Reject *Reject
	// Blank marks a JSONL line of nothing but JSON white space (space,
	// tab, CR): skipped, and counted as skipped, so that every line of a
	// file ends in some count.
	Blank bool
}

// Options carry what the command line knows and the file may not say.
type Options struct {
	// RunID is the run for rows that do not name one (--run); when empty,
	// the file's stem is used.
	RunID string
	// Model fills traces whose source does not record the model.
	Model string
	// Results is a SWE-bench report.json or results summary given with
	// --results, for trajectories that do not sit next to one.
	Results string
	// Outcomes finds verdicts beside the logs; one serves a whole import
	// so run-level results files are read once. Nil reads them afresh.
	Outcomes *Outcomes
	// Lite asks the JSONL decoder for what import stores beside the
	// verbatim row (identity, outcome, costs, tool call names), with
	// every field still type-checked; outputs, messages and diffs are
	// left empty. Import sets it; anything that reads traces does not.
	Lite bool
	// MaxRatio and MaxInflate bound what compressed input may expand to
	// (inflate.go): 0 is the default, a negative value no bound.
	MaxRatio   int
	MaxInflate int64
	// slowOnly turns the decoders' fast paths off, so tests can hold
	// them to the encoding/json reading.
	slowOnly bool
}

// Source is one input to decode.
type Source struct {
	// Name is the file name shown in errors ("-" or "<stdin>" for stdin).
	Name string
	// Path is the file's path on disk, or "" when reading a stream; format
	// adapters use it to find files written next to a trace (report.json).
	Path string
	// R is the decompressed content.
	R    io.Reader
	Opts Options
	// gzipped says the file at Path is compressed, so its bytes are not
	// R's: an adapter that goes back to the file (to count a reject's
	// line, or to open a zip at random) must decompress or use R.
	gzipped bool
	// dirFiles are a claimed directory's event files, in order (R is
	// their JSON array); a decoder may read them one by one instead.
	dirFiles []string
	// trial says Path is a claimed trial folder (see isTrialDir).
	trial bool
}

// Format is one trace format triage can read.
type Format struct {
	// Name is the --format value, e.g. "jsonl", "swe-agent".
	Name string
	// Detect reports whether the file looks like this format, from its name
	// and its first bytes (up to DetectBytes). Content decides; the name
	// only breaks ties.
	Detect func(name string, head []byte) bool
	// Wants says, for a file no format reads, what this one looks for.
	Wants string
	// Decode streams the records of src to emit, in input order. It returns
	// an error only when the whole input is unreadable (emit's error is
	// returned as is); a bad record is emitted as a Reject.
	Decode func(ctx context.Context, src Source, emit func(Record) error) error
}

// DetectBytes is how much of a file Detect sees.
const DetectBytes = 64 << 10
