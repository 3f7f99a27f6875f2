// Package reportview is the report's view-model: its sections as plain
// data. Report holds them all: the headline figures and caveats, the
// failure mix, the dominant class, the per-task × seed grid, and the
// further sections (breakdowns, trends, the dumbbell, the heatmap) as
// Section values, a title, notes in words and a table. Package card
// builds a Report from its figures (card.View) and renders it as text,
// Markdown and HTML; the report screen in package ui renders the same
// Report, so that a section is built once. Section has one text
// renderer here (Text), which the text report and the screen share.
//
// It is a leaf: it knows nothing of stores or the card, and its renderer
// owns its Styles, which the callers fill in.
package reportview

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/triage-dev/triage/internal/triage"
)

// Section is one part of a report as plain data. Cells and notes are raw,
// untrusted text: each renderer escapes every string its own way.
type Section struct {
	Title string
	Notes []string
	// List says the notes are the items of a list (the definitions,
	// the runs' notes) rather than paragraphs.
	List bool
	Head []string
	Rows [][]string
	// Wide marks columns (by index) a narrow terminal drops, Medium
	// those a terminal narrower than WideWidth drops.
	Wide, Medium []int
}

// Styles are the text renderer's styles; the caller fills them from its
// own theme.
type Styles struct {
	Heading, Muted, Label lipgloss.Style
}

// The widths Text lays a table out for.
const (
	// NarrowWidth and WideWidth are the breakpoints below which a
	// section's Wide and Medium columns are dropped.
	NarrowWidth = 100
	WideWidth   = 120
	// MaxCell bounds a cell, in terminal cells.
	MaxCell = 32
	// minWrap is the narrowest a note is wrapped to.
	minWrap = 10
)

// oneLine shows line breaks and tabs as one-cell stand-ins: a cell or a
// note is one line.
var oneLine = strings.NewReplacer("\n", "␊", "\t", " ")

// Clean makes untrusted text safe for a terminal, on one line.
func Clean(s string) string { return oneLine.Replace(triage.Sanitize(s)) }

// Text renders a section for a terminal of the given width: a blank line,
// the title, the notes wrapped with a hanging indent (each after "- " in a
// list), then the table with
// the columns the width cannot hold dropped. Every line is at most width
// cells when the table fits; it is pure.
func Text(sec Section, width int, st Styles) []string {
	out := []string{"", st.Heading.Render(Clean(sec.Title))}
	for _, n := range sec.Notes {
		if sec.List {
			n = "- " + n
		}
		for i, l := range strings.Split(WrapHang(Clean(n), width-2, 4), "\n") {
			if i == 0 {
				l = "  " + l
			}
			out = append(out, st.Muted.Render(l))
		}
	}
	if sec.Head == nil {
		return out
	}
	head, rows := cells(sec.Head), make([][]string, len(sec.Rows))
	for i, row := range sec.Rows {
		rows[i] = cells(row)
	}
	switch {
	case width < NarrowWidth && sec.Wide != nil:
		head, rows = DropColumns(head, rows, sec.Wide...)
	case width < WideWidth && sec.Medium != nil:
		head, rows = DropColumns(head, rows, sec.Medium...)
	}
	return append(out, Table(head, rows, st)...)
}

func cells(cs []string) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = ansi.Truncate(Clean(c), MaxCell, "…")
	}
	return out
}

// Table lays out a table of already clean cells: the first column left
// aligned, the others right aligned, the header in the Label style.
func Table(head []string, rows [][]string, st Styles) []string {
	widths := make([]int, len(head))
	for i, h := range head {
		widths[i] = lipgloss.Width(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], lipgloss.Width(c))
		}
	}
	render := func(cells []string) string {
		parts := make([]string, len(cells))
		for i, c := range cells {
			pad := strings.Repeat(" ", max(0, widths[i]-lipgloss.Width(c)))
			if i == 0 {
				parts[i] = c + pad
			} else {
				parts[i] = pad + c
			}
		}
		return strings.TrimRight("  "+strings.Join(parts, "  "), " ")
	}
	out := []string{st.Label.Render(render(head))}
	for _, r := range rows {
		out = append(out, render(r))
	}
	return out
}

// DropColumns removes the columns cols (by index) from a table's head and
// rows, for a table too wide for its screen.
func DropColumns(head []string, rows [][]string, cols ...int) ([]string, [][]string) {
	keep := func(v []string) []string {
		out := make([]string, 0, len(v))
		for i, s := range v {
			drop := false
			for _, c := range cols {
				drop = drop || c == i
			}
			if !drop {
				out = append(out, s)
			}
		}
		return out
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = keep(r)
	}
	return keep(head), out
}

// WrapHang wraps s so that no line, continuation indent included, is
// wider than w cells; continuation lines are indented by indent.
func WrapHang(s string, w, indent int) string {
	return strings.ReplaceAll(ansi.Wrap(s, max(minWrap, w-indent), ""), "\n", "\n"+strings.Repeat(" ", indent))
}
