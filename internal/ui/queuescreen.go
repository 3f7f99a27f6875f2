package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// queueRowsTop is the screen line of the queue's first row, under the
// title and the column header.
const queueRowsTop = 2

// queueScreenDef is the review queue's entry in the registry: offered
// wherever there is a store to read it from.
func queueScreenDef() screenDef {
	return screenDef{
		name:    "review",
		of:      func(m *Model, _ screenID) screen { return &m.queue },
		body:    func(l *layout) (int, int) { return queueRowsTop, l.queueRows },
		offered: func(m *Model, _ screenID) bool { return m.store != nil },
	}
}

// queueScreen is the review queue as a screen: the queue (items, filter,
// order, cursor, marks) and the column widths the root's layout gave it.
type queueScreen struct {
	queueModel
	width int
	cols  colWidths
}

// SetSize implements screen: h is the rows under the title and header.
func (q *queueScreen) SetSize(w, h int) {
	q.width = w
	q.setHeight(h)
}

// setColumns takes the column widths of the layout.
func (q *queueScreen) setColumns(c colWidths) { q.cols = c }

// HandleKey implements screen: movement, sort, clearing marks and the
// filter; opening a trace, the filter line or leaving a drill-down are
// the root's.
func (q *queueScreen) HandleKey(msg tea.KeyMsg, s *session) Action {
	return q.handleKey(msg, s.keys, s.pol.blind, s.drilled)
}

// HandleMouse implements screen: the wheel moves the cursor; a click on
// a row puts the cursor there, a click on the cursor's row opens it.
func (q *queueScreen) HandleMouse(msg tea.MouseMsg, _ *session) Action {
	// As with a key, the whole queue must not move the cursor the
	// reviewer moved on the first page.
	q.moved = q.moved || q.partial
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		q.move(-wheelLines)
	case tea.MouseButtonWheelDown:
		q.move(wheelLines)
	case tea.MouseButtonLeft:
		i := q.offset + msg.Y - queueRowsTop
		if msg.Y < queueRowsTop || i < 0 || i >= len(q.view) || i >= q.offset+q.height {
			return Action{}
		}
		if i == q.cursor {
			return Action{kind: actOpen, id: q.current().TraceID}
		}
		q.moveTo(i)
	}
	return Action{}
}

// View implements screen: the title, the column header and the visible
// rows, as the policy lays them out.
func (q *queueScreen) View(s *session) string {
	st, cols := s.st, s.pol.columns
	var b strings.Builder
	b.WriteString(q.title(s))
	b.WriteByte('\n')
	b.WriteString(st.Queue.Header.Render(row(q.cols, cols, "", func(c *column) string { return c.header })))
	rows := 0
	note := func(text string) {
		b.WriteString("\n" + st.App.Muted.Render(ansi.Truncate(text, q.width, "…")))
		rows = 1
	}
	switch {
	case !q.loaded:
		note("Loading queue…")
	case len(q.all) == 0:
		empty := s.pol.empty
		if s.pol.agreement && !s.showAll {
			empty += " (a shows every doubly-labelled item)"
		}
		note(empty)
	case len(q.view) == 0:
		note("No item matches the filter (esc clears it).")
	}
	for i := q.offset; i < min(len(q.view), q.offset+q.height); i++ {
		it := &q.all[q.view[i]]
		mark := "  "
		if i == q.cursor {
			mark = "▸ "
		}
		marked := q.isMarked(i)
		if marked {
			// A mark, visible without colour: "*" beside the cursor's "▸".
			mark = mark[:len(mark)-1] + "*"
		}
		line := row(q.cols, cols, mark, func(c *column) string { return c.cell(s, it) })
		switch {
		case i == q.cursor:
			line = st.Queue.Cursor.Render(line)
		case marked:
			line = st.Queue.Marked.Render(line)
		case it.Status == StatusLabelled:
			line = st.Queue.Labelled.Render(line)
		case it.Status == StatusSkipped:
			line = st.Queue.Skipped.Render(line)
		}
		b.WriteString("\n" + line)
		rows++
	}
	b.WriteString(strings.Repeat("\n", max(0, q.height-rows)))
	return b.String()
}

// title is the session line: who, what, progress, filter, drill-down,
// order and marks.
func (q *queueScreen) title(s *session) string {
	done, total := q.progress()
	who := s.shown(s.cfg.Reviewer)
	if who == "" {
		// report --tui and agree --tui open traces with no reviewer:
		// nothing can be labelled, and the title says so.
		who = "read-only (no --reviewer)"
	}
	parts := []string{s.pol.title, who}
	switch {
	case s.cfg.Slice != "":
		parts = append(parts, "slice "+s.shown(s.cfg.Slice))
	case s.cfg.RunID != "":
		parts = append(parts, "run "+s.shown(s.cfg.RunID))
	}
	if s.pol.blind {
		parts = append(parts, "BLIND")
	}
	if q.partial {
		parts = append(parts, fmt.Sprintf("loading the queue: its first %d shown", total))
	} else {
		parts = append(parts, fmt.Sprintf("%d of %d %s", done, total, s.pol.done))
	}
	if s.pol.agreement {
		if s.showAll {
			parts = append(parts, "every doubly-labelled item")
		} else {
			parts = append(parts, "disagreements")
		}
	}
	if q.filter != "" {
		parts = append(parts, fmt.Sprintf("filter %q: %d shown", q.filter, len(q.view)))
	}
	if s.drilled {
		parts = append(parts, fmt.Sprintf("%s: %d shown (esc: back to the %s)", q.onlyTitle, len(q.view), screenName(s.drillFrom)))
	}
	if q.sortBy != sortQueue {
		parts = append(parts, "by "+q.sortBy.String())
	} else if len(q.ahead.novel) > 0 {
		parts = append(parts, "novel clusters first")
	}
	if n := len(q.markedIDs()); n > 0 || q.rangeOpen() {
		m := fmt.Sprintf("%d marked", n)
		if q.rangeOpen() {
			m += " (range)"
		}
		parts = append(parts, m)
	}
	return s.st.App.Title.Render(ansi.Truncate(sanitizeLine(strings.Join(parts, " · ")), q.width, "…"))
}

// ShortHelp implements screen: the footer's keys, only those that can
// fire now.
func (q *queueScreen) ShortHelp(s *session) []key.Binding {
	km := s.keys
	if s.pol.agreement {
		b := []key.Binding{withHelp(s.labelHelp(), "final label")}
		if len(q.view) > 0 {
			b = append(b, km.Open)
		}
		return append(b, withHelp(km.Note, "reason"), km.Undo, km.Agreement, s.showAllHelp(), km.Help, km.Quit)
	}
	b := []key.Binding{s.labelHelp()}
	if n := len(q.markedIDs()); n > 0 {
		b = []key.Binding{withHelp(s.labelHelp(), fmt.Sprintf("label the %d marked", n)), s.writes(km.Accept), withHelp(km.Back, "clear marks")}
	}
	if len(q.view) > 0 {
		b = append(b, km.Open)
	}
	b = append(b, s.clusterShortHelp()...)
	b = append(b, km.Filter)
	if q.filter != "" {
		b = append(b, withHelp(km.Back, "clear filter"))
	}
	return append(b, s.writes(km.Skip), s.writes(km.Undo), km.Help, km.Quit)
}

// FullHelp implements screen: every key of the queue, in columns.
func (q *queueScreen) FullHelp(s *session) [][]key.Binding {
	km := s.keys
	label, global := s.labelKeys(), s.sessionKeys()
	if s.pol.agreement {
		global = append(global, s.showAllHelp())
	}
	move := []key.Binding{km.Down, km.Up, km.Top, km.Bottom, km.HalfDown, km.HalfUp}
	keys := []key.Binding{km.Open, km.Filter, km.Sort, km.NextTrace, km.PrevTrace, km.Refresh}
	if q.filter != "" {
		keys = append(keys, withHelp(km.Back, "clear filter"))
	}
	if s.pol.noBulk != "" {
		return [][]key.Binding{move, keys, label, global}
	}
	bulk := []key.Binding{km.Mark, km.Range, km.MarkAll, withHelp(s.labelHelp(), "label the marked"), s.writes(km.Accept)}
	if len(q.markedIDs()) > 0 {
		bulk = append(bulk, withHelp(km.Back, "clear marks"))
	}
	return [][]key.Binding{move, keys, label, bulk, s.clusterHelp(true), global}
}
