package ui

import "github.com/charmbracelet/x/ansi"

// Breakpoints and fixed heights of the screen.
const (
	minWidth  = 60
	minHeight = 15
	// traceChrome is the trace screen's lines outside its body: three
	// header lines, the tab bar, the status line and the footer.
	traceChrome = 6
	// queueChrome is the queue's title, column header, status and footer.
	queueChrome = 4
	// agreeChrome is a document screen's title, status and footer.
	agreeChrome = 3
	// wideQueue is the width from which the queue shows the "why" column.
	wideQueue = 110
	// Column caps keep short identifiers from eating a wide screen.
	maxTaskCol  = 32
	maxRunCol   = 28
	maxModelCol = 28
	// maxReviewersCol caps the adjudication queue's reviewers column.
	maxReviewersCol = 72
)

// layout is every size the views use, computed once per resize.
type layout struct {
	tooSmall  bool
	width     int
	queueRows int
	traceBody int
	agreeBody int
	cols      queueCols
}

// queueCols are the queue's column widths; zero hides a column.
type queueCols struct {
	mark, task, run, model, seed, rules, why, yours, status int
}

// computeLayout derives every size from the terminal size. Views never
// compute sizes; they read this. An adjudication session shows the
// reviewers' panel on the trace screen and their labels in the queue.
func computeLayout(w, h int, pol policy, natural queueCols) layout {
	blind, adjudicate := pol.blind, pol.reviewers
	l := layout{width: w, tooSmall: w < minWidth || h < minHeight}
	l.queueRows = max(0, h-queueChrome)
	l.traceBody = max(0, h-traceChrome)
	l.agreeBody = max(0, h-agreeChrome)
	if adjudicate {
		l.traceBody = max(0, l.traceBody-reviewPanelHeight)
		l.cols = fitCols(adjudicateCols(w), natural)
		return l
	}
	c := queueCols{mark: 2, seed: 5, status: 9, yours: 15}
	if !blind {
		c.rules = 15
	}
	rest := max(0, w-c.mark-c.seed-c.status-c.yours-c.rules)
	if !blind && w >= wideQueue {
		c.why = rest * 3 / 10
		rest -= c.why
	}
	c.task = min(rest*4/10, maxTaskCol)
	c.run = min(rest*3/10, maxRunCol)
	c.model = min(max(0, rest-c.task-c.run), maxModelCol)
	if c.why > 0 {
		// Spare width goes to the reason, the longest text.
		c.why += rest - c.task - c.run - c.model
	}
	l.cols = fitCols(c, natural)
	return l
}

// fitCols shrinks the task, run and model columns to their content (plus
// a gap) when it is narrower, and gives the width saved to the "why"
// column when it is shown: short identifiers should not push the
// reason, the longest text, off a laptop screen. A zero natural width
// means unknown (queue not loaded) and changes nothing.
func fitCols(c, natural queueCols) queueCols {
	spare := 0
	shrink := func(col *int, nat int) {
		if nat > 0 && nat+1 < *col {
			spare += *col - (nat + 1)
			*col = nat + 1
		}
	}
	shrink(&c.task, natural.task)
	shrink(&c.run, natural.run)
	shrink(&c.model, natural.model)
	if c.why > 0 {
		c.why += spare
	}
	return c
}

// naturalCols measures the widest task, run and model of the items
// (headers included), for fitCols.
func naturalCols(items []QueueItem) queueCols {
	n := queueCols{task: len("task"), run: len("run"), model: len("model")}
	for i := range items {
		it := &items[i]
		n.task = max(n.task, ansi.StringWidth(sanitizeLine(it.TaskID)))
		n.run = max(n.run, ansi.StringWidth(sanitizeLine(it.RunID)))
		n.model = max(n.model, ansi.StringWidth(sanitizeLine(it.Model)))
	}
	return n
}

// adjudicateCols lays out the adjudication queue: the reviewers' labels
// take the rules' and reason's place, the model column goes.
func adjudicateCols(w int) queueCols {
	c := queueCols{mark: 2, seed: 5, status: 9, yours: 15}
	rest := max(0, w-c.mark-c.seed-c.status-c.yours)
	c.task = min(rest*3/10, maxTaskCol)
	c.run = min(rest*2/10, maxRunCol)
	// The reviewers' labels, capped so "final" stays near them on a wide
	// screen.
	c.why = min(max(0, rest-c.task-c.run), maxReviewersCol)
	return c
}

// resize stores the terminal size and pushes sizes down to the children.
func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.lay = computeLayout(w, h, m.pol, m.natural)
	m.queue.setHeight(m.lay.queueRows)
	m.clusters.setHeight(m.lay.queueRows)
	m.trace.setSize(w, m.lay.traceBody)
	m.input.Width = max(0, w-4)
	boxW, boxH := m.modalSize()
	frameW := m.st.Picker.Box.GetHorizontalFrameSize()
	frameH := m.st.Picker.Box.GetVerticalFrameSize()
	m.note.SetWidth(max(10, boxW-frameW))
	m.note.SetHeight(max(3, boxH-frameH-2))
	m.help.Width = w
	for i := range m.docs {
		m.docs[i].SetSize(w, m.lay.agreeBody)
	}
}

// modalSize is the outer size of a picker or note box.
func (m *Model) modalSize() (int, int) {
	return max(20, min(m.width-4, 72)), max(6, min(m.lay.traceBody+2, 20))
}
