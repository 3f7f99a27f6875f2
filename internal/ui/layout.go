package ui

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
)

// layout is every size the views use, computed once per resize.
type layout struct {
	tooSmall  bool
	width     int
	queueRows int
	traceBody int
	agreeBody int
	// traceTop is the trace screen's first body line: under the header,
	// the reviewers' panel when the policy shows it, and the tab bar.
	traceTop int
	cols     colWidths
}

// computeLayout derives every size from the terminal size. Views never
// compute sizes; they read this. The policy decides the queue's columns
// and whether the trace screen shows the reviewers' panel.
func computeLayout(w, h int, pol *policy, natural colWidths) layout {
	l := layout{width: w, tooSmall: w < minWidth || h < minHeight}
	l.queueRows = max(0, h-queueChrome)
	l.traceBody = max(0, h-traceChrome)
	l.agreeBody = max(0, h-agreeChrome)
	l.traceTop = tabBarRow(pol) + 1
	if pol.reviewers {
		l.traceBody = max(0, l.traceBody-reviewPanelHeight)
	}
	l.cols = layoutColumns(pol.columns, w, natural)
	return l
}

// bodyHeight is the height a screen is sized to.
func (l *layout) bodyHeight(id screenID) int {
	_, h := l.body(id)
	return h
}

// resize stores the terminal size and pushes sizes down to the children.
func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.lay = computeLayout(w, h, &m.pol, m.natural)
	m.queue.setColumns(m.lay.cols)
	for id := range numScreens {
		m.screenOf(id).SetSize(w, m.lay.bodyHeight(id))
	}
	m.input.Width = max(0, w-4)
	boxW, boxH := m.modalSize()
	frameW := m.st.Picker.Box.GetHorizontalFrameSize()
	frameH := m.st.Picker.Box.GetVerticalFrameSize()
	m.note.SetWidth(max(10, boxW-frameW))
	m.note.SetHeight(max(3, boxH-frameH-2))
	m.help.Width = w
}

// modalSize is the outer size of a picker or note box.
func (m *Model) modalSize() (int, int) {
	return max(20, min(m.width-4, 72)), max(6, min(m.lay.traceBody+2, 20))
}

// growColumns widens the label columns to an item whose labels were just
// read back (the reviewer's first label, another reviewer's), so the
// column shows whole without waiting for the next load of the queue.
func (m *Model) growColumns(it *QueueItem) {
	before := m.natural
	m.natural.grow(it)
	if m.natural != before {
		m.lay.cols = layoutColumns(m.pol.columns, m.width, m.natural)
		m.queue.setColumns(m.lay.cols)
	}
}
