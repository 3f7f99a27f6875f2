package diffview

import "sort"

// RowKind says what a row of a document shows.
type RowKind uint8

// The kinds of row. A Diff has file headers, hunk headers, lines and
// notes; a Timeline has message, text, call, argument, output, error and
// fold rows; a TestOutput has only output rows.
const (
	// RowFileHeader names a file of a diff, its status and +N -M counts.
	RowFileHeader RowKind = iota + 1
	// RowHunkHeader is a hunk's "@@ … @@" line.
	RowHunkHeader
	// RowLine is an added, removed or context line of a hunk.
	RowLine
	// RowNote stands for a file with no hunks (binary, pure rename).
	RowNote
	// RowMessage is a message's role header.
	RowMessage
	// RowText is one line of a message's content.
	RowText
	// RowCall is a tool call's header: number, name, timing, repeats.
	RowCall
	// RowArg is one top-level argument of a tool call.
	RowArg
	// RowOutput is one line of a tool call's output, or of test output.
	RowOutput
	// RowError is one line of a tool call's error.
	RowError
	// RowFold says how many lines are folded away below it.
	RowFold
)

// Row is one renderable row of a layout, with indices back into the input
// so a caller can act on what is under the cursor. Indices that do not
// apply to the row's kind are -1.
type Row struct {
	Kind RowKind
	// File and Hunk index the diff's files and that file's hunks.
	File, Hunk int
	// Line indexes the hunk's lines (diff), or is the 0-based line within
	// the message, output, error or test output shown by the row.
	Line int
	// Call indexes the timeline's tool calls; Message its messages.
	Call, Message int
	// Of is, for a RowFold, the kind of row folded away (RowText,
	// RowOutput or RowError).
	Of RowKind
}

// NextStart returns the first start after row, for "next file" and "next
// hunk" with FileStarts and HunkStarts; row itself when there is none.
func NextStart(starts []int, row int) int {
	i := sort.SearchInts(starts, row+1)
	if i < len(starts) {
		return starts[i]
	}
	return row
}

// PrevStart returns the last start before row, or row itself when there
// is none.
func PrevStart(starts []int, row int) int {
	i := sort.SearchInts(starts, row)
	if i > 0 {
		return starts[i-1]
	}
	return row
}
