package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// colID names what a queue column shows.
type colID int

const (
	colTask colID = iota
	colRun
	colModel
	colSeed
	colRules
	colWhy
	colReviewers
	colYours
	colOthers
	colStatus
	numCols
)

// colWidths are the queue's column widths by what they show; zero hides
// a column (or the policy has none).
type colWidths [numCols]int

// markWidth is the queue's first cells: the cursor's "▸" and a mark's "*".
const markWidth = 2

// column is one column of the queue as a policy lays it out: what it
// shows and how wide it is. Widths come from what the fixed columns leave
// of the screen (the free width): first takes its tenths of it before the
// others, share its tenths of what first left, rest what the shares left;
// each at most cap (0: no cap).
type column struct {
	id     colID
	header string
	cell   func(s *session, it *QueueItem) string
	fixed  int
	first  int
	share  int
	rest   bool
	cap    int
	// from is the screen width from which the column shows (0: always).
	from int
	// fit shrinks the column to its content (identifiers are short; they
	// should not push the reason off a laptop screen).
	fit bool
	// spare takes the width that fitting saved; leftover also takes what
	// the caps left.
	spare, leftover bool
	// optional columns show only when their content is known and not
	// empty (natural above 0): no other reviewer, no "others" column. They
	// are as wide as their content, up to cap, taken before the shares.
	optional bool
}

// Column caps keep short identifiers from eating a wide screen.
const (
	maxTaskCol  = 32
	maxRunCol   = 28
	maxModelCol = 28
	// maxReviewersCol caps the adjudication queue's reviewers column, so
	// "final" stays near them on a wide screen.
	maxReviewersCol = 72
	// wideQueue is the width from which the queue shows the "why" column.
	wideQueue = 80
	// maxYoursCol is the reviewer's label column at its widest
	// (PASS_CONTRACT and a space, and a little).
	maxYoursCol = 15
	// maxOthersCol caps the other reviewers' labels column.
	maxOthersCol = 40
)

// col is the column that shows id, as the policies start from it.
func col(id colID) column {
	switch id {
	case colTask:
		return column{id: id, header: "task", cell: func(_ *session, it *QueueItem) string { return it.TaskID }, fit: true}
	case colRun:
		return column{id: id, header: "run", cell: func(_ *session, it *QueueItem) string { return it.RunID }, fit: true}
	case colModel:
		return column{id: id, header: "model", cell: func(_ *session, it *QueueItem) string { return it.Model },
			rest: true, cap: maxModelCol, fit: true}
	case colSeed:
		return column{id: id, header: "seed", cell: func(_ *session, it *QueueItem) string { return fmt.Sprint(it.Seed) }, fixed: 5}
	case colRules:
		return column{id: id, header: "rules", cell: func(_ *session, it *QueueItem) string { return it.Suggestion }, fixed: 15, fit: true}
	case colWhy:
		return column{id: id, header: "why", cell: func(s *session, it *QueueItem) string { return s.whyOf(it) },
			first: 3, from: wideQueue, spare: true, leftover: true}
	case colReviewers:
		return column{id: id, header: "reviewers", cell: func(s *session, it *QueueItem) string { return s.reviewSummary(it.TraceID) },
			rest: true, cap: maxReviewersCol, spare: true}
	case colStatus:
		return column{id: id, header: "status", cell: func(_ *session, it *QueueItem) string { return string(it.Status) }, fixed: 9}
	case colOthers:
		return column{id: id, header: "others", cell: func(_ *session, it *QueueItem) string { return othersCell(it) },
			cap: maxOthersCol, optional: true}
	}
	return yoursCol("yours")
}

// othersCell is the other reviewers' labels of an item, marked "≠" when
// one differs from the reviewer's own: a disagreement is shown, never
// hidden behind the latest word.
func othersCell(it *QueueItem) string {
	if len(it.Others) == 0 {
		return ""
	}
	if it.Disagrees() {
		return "≠ " + othersText(it.Others)
	}
	return othersText(it.Others)
}

// yoursCol is the reviewer's own label (header "yours", or "final" for an
// adjudicator); a label waiting for its primary shows as a draft. It is
// as wide as the widest label (15 at most), so an empty column leaves
// its width to the others.
func yoursCol(header string) column {
	return column{id: colYours, header: header, fixed: maxYoursCol, fit: true, cell: func(s *session, it *QueueItem) string {
		if it.Primary == "" {
			if _, ok := s.drafts[it.TraceID]; ok {
				return "(draft)"
			}
		}
		return it.Primary
	}}
}

// reviewColumns are a review's: the rules' class and reason beside the
// reviewer's label; blind, neither.
func reviewColumns(blind bool) []column {
	task, run := share(col(colTask), 4, maxTaskCol), share(col(colRun), 3, maxRunCol)
	if blind {
		return []column{task, run, col(colModel), col(colSeed), yoursCol("yours"), col(colStatus)}
	}
	return []column{task, run, col(colModel), col(colSeed), col(colRules), col(colWhy), yoursCol("yours"), col(colOthers), col(colStatus)}
}

// adjudicateColumns are an adjudication's: the reviewers' labels take the
// rules' and the reason's place, the model goes, the status says
// "settled".
func adjudicateColumns() []column {
	status := col(colStatus)
	status.cell = func(_ *session, it *QueueItem) string { return adjStatus(it.Status) }
	return []column{share(col(colTask), 3, maxTaskCol), share(col(colRun), 2, maxRunCol), col(colSeed), col(colReviewers), yoursCol("final"), status}
}

// share is c taking tenths of the free width, at most limit.
func share(c column, tenths, limit int) column {
	c.share, c.cap = tenths, limit
	return c
}

// layoutColumns sizes the columns for a screen w wide; natural is the
// content's width per column (zero: unknown, the queue is not loaded).
func layoutColumns(cols []column, w int, natural colWidths) colWidths {
	var out colWidths
	shown := func(c *column) bool { return (c.from == 0 || w >= c.from) && (!c.optional || natural[c.id] > 0) }
	capped := func(n, limit int) int {
		if limit > 0 {
			return min(n, limit)
		}
		return n
	}
	free := max(0, w-markWidth)
	for i := range cols {
		if c := &cols[i]; shown(c) {
			width := c.fixed
			if c.optional {
				width = capped(natural[c.id]+1, c.cap)
			}
			free = max(0, free-width)
			out[c.id] = width
		}
	}
	for i := range cols {
		if c := &cols[i]; shown(c) && c.first > 0 {
			out[c.id] = capped(free*c.first/10, c.cap)
		}
	}
	for i := range cols {
		if c := &cols[i]; shown(c) && c.first > 0 {
			free -= out[c.id]
		}
	}
	used := 0
	for i := range cols {
		if c := &cols[i]; shown(c) && c.share > 0 {
			out[c.id] = capped(free*c.share/10, c.cap)
			used += out[c.id]
		}
	}
	for i := range cols {
		if c := &cols[i]; shown(c) && c.rest {
			out[c.id] = capped(max(0, free-used), c.cap)
			used += out[c.id]
		}
	}
	// What the caps left, then what fitting to the content saves.
	left, saved := free-used, 0
	for i := range cols {
		if c := &cols[i]; shown(c) && c.fit && natural[c.id] > 0 && natural[c.id]+1 < out[c.id] {
			saved += out[c.id] - (natural[c.id] + 1)
			out[c.id] = natural[c.id] + 1
		}
	}
	for i := range cols {
		c := &cols[i]
		if !shown(c) || out[c.id] <= 0 {
			continue
		}
		if c.leftover {
			out[c.id] += left
		}
		if c.spare {
			out[c.id] += saved
		}
	}
	return out
}

// naturalCols measures the widest task, run and model of the items
// (headers included), for the columns that fit their content.
func naturalCols(items []QueueItem) colWidths {
	var n colWidths
	n[colTask], n[colRun], n[colModel] = len("task"), len("run"), len("model")
	n[colYours] = len("(draft)")
	n[colRules] = len("rules")
	for i := range items {
		it := &items[i]
		n[colRules] = max(n[colRules], ansi.StringWidth(sanitizeLine(it.Suggestion)))
		n[colTask] = max(n[colTask], ansi.StringWidth(sanitizeLine(it.TaskID)))
		n[colRun] = max(n[colRun], ansi.StringWidth(sanitizeLine(it.RunID)))
		n[colModel] = max(n[colModel], ansi.StringWidth(sanitizeLine(it.Model)))
		n.grow(it)
	}
	return n
}

// grow widens the label columns to an item's labels: called for every
// item on a load and for one item when a write reads its labels back.
func (n *colWidths) grow(it *QueueItem) {
	n[colYours] = max(n[colYours], len("(draft)"), ansi.StringWidth(sanitizeLine(it.Primary)))
	if len(it.Others) > 0 {
		n[colOthers] = max(n[colOthers], len("others"), ansi.StringWidth(sanitizeLine(othersCell(it))))
	}
}

// row lays out one queue row: the mark, then each column's text
// (untrusted: sanitized, cut and padded) in its width.
func row(w colWidths, cols []column, mark string, text func(c *column) string) string {
	var b strings.Builder
	b.WriteString(mark)
	b.WriteString(strings.Repeat(" ", max(0, markWidth-ansi.StringWidth(mark))))
	for i := range cols {
		c := &cols[i]
		cw := w[c.id]
		if cw <= 0 {
			continue
		}
		s := ansi.Truncate(sanitizeLine(text(c)), cw-1, "…")
		b.WriteString(s)
		b.WriteString(strings.Repeat(" ", max(0, cw-ansi.StringWidth(s))))
	}
	return b.String()
}
