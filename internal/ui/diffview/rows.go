package diffview

import "sort"

// RowKind says what a row of a document shows.
type RowKind uint8

// The kinds of row. A Diff has file headers, hunk headers, lines and
// notes; a TestOutput has only output rows.
const (
	// RowFileHeader names a file of a diff, its status and +N -M counts.
	RowFileHeader RowKind = iota + 1
	// RowHunkHeader is a hunk's "@@ … @@" line.
	RowHunkHeader
	// RowLine is an added, removed or context line of a hunk.
	RowLine
	// RowNote stands for a file with no hunks (binary, pure rename).
	RowNote
	// RowOutput is one line of test output.
	RowOutput
)

// Row is one renderable row of a layout, with indices back into the input
// so a caller can act on what is under the cursor. Indices that do not
// apply to the row's kind are -1.
type Row struct {
	Kind RowKind
	// File and Hunk index the diff's files and that file's hunks.
	File, Hunk int
	// Line indexes the hunk's lines (diff), or is the 0-based line of
	// test output shown by the row.
	Line int
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
