package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/triage-dev/triage/internal/triage"
)

// maxNoteEvidence is how many evidence items an accepted suggestion's
// note names; the rest are counted.
const maxNoteEvidence = 5

// marks are the queue's marked traces, for bulk decisions: items marked
// one by one (space) and the range being marked (v, from anchor to the
// cursor).
type marks struct {
	ids    map[int64]bool
	anchor int // view index where v started; -1 when no range is open
}

// rangeOpen reports whether v is marking a range.
func (q *queueModel) rangeOpen() bool { return q.marks.ids != nil && q.marks.anchor >= 0 }

// isMarked reports whether view row i is marked, by hand or in the range.
func (q *queueModel) isMarked(i int) bool {
	if i < 0 || i >= len(q.view) {
		return false
	}
	if q.rangeOpen() && i >= min(q.marks.anchor, q.cursor) && i <= max(q.marks.anchor, q.cursor) {
		return true
	}
	return q.marks.ids[q.all[q.view[i]].TraceID]
}

// markedIDs are the marked traces in view order. The title and the help
// ask on every frame, so with nothing marked it answers at once rather
// than walk a view of 100k rows.
func (q *queueModel) markedIDs() []int64 {
	if len(q.marks.ids) == 0 && !q.rangeOpen() {
		return nil
	}
	var out []int64
	for i, idx := range q.view {
		if q.isMarked(i) {
			out = append(out, q.all[idx].TraceID)
		}
	}
	return out
}

func (q *queueModel) toggleMark() {
	it := q.current()
	if it == nil {
		return
	}
	if q.marks.ids == nil {
		q.marks = marks{ids: map[int64]bool{}, anchor: -1}
	}
	q.marks.ids[it.TraceID] = !q.marks.ids[it.TraceID]
	if !q.marks.ids[it.TraceID] {
		delete(q.marks.ids, it.TraceID)
	}
}

// toggleRange opens a range at the cursor, or closes the open one,
// keeping what it marked.
func (q *queueModel) toggleRange() {
	if q.marks.ids == nil {
		q.marks = marks{ids: map[int64]bool{}, anchor: -1}
	}
	if q.rangeOpen() {
		for _, id := range q.markedIDs() {
			q.marks.ids[id] = true
		}
		q.marks.anchor = -1
		return
	}
	q.marks.anchor = q.cursor
}

// markAll marks every item the view shows (the filter's matches).
func (q *queueModel) markAll() {
	q.marks = marks{ids: make(map[int64]bool, len(q.view)), anchor: -1}
	for _, idx := range q.view {
		q.marks.ids[q.all[idx].TraceID] = true
	}
}

func (q *queueModel) clearMarks() { q.marks = marks{} }

// bulkRefusal says why bulk decisions are off in this session, or "".
func (m *Model) bulkRefusal() string { return m.pol.noBulk }

// handleBulkKey runs the marking keys and the bulk decisions on the
// queue (accept works on the trace screen too, for the open trace) and
// reports whether the key was one of them.
func (m *Model) handleBulkKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	km, q := m.keys, &m.queue
	marking := key.Matches(msg, km.Mark) || key.Matches(msg, km.Range) || key.Matches(msg, km.MarkAll)
	accept := key.Matches(msg, km.Accept)
	if m.screen == screenTrace && !accept {
		return nil, false
	}
	label := -1
	for i := range km.Label {
		if key.Matches(msg, km.Label[i]) {
			label = i
		}
	}
	if !marking && !accept && (label < 0 || len(q.markedIDs()) == 0) {
		return nil, false
	}
	if why := m.bulkRefusal(); why != "" {
		if accept && m.pol.agreement {
			return nil, false // a is the scope toggle there.
		}
		m.status = why
		return nil, true
	}
	switch {
	case key.Matches(msg, km.Mark):
		q.toggleMark()
	case key.Matches(msg, km.Range):
		q.toggleRange()
		if q.rangeOpen() {
			m.status = "marking a range: move, then a digit or a labels it (v ends the range)"
		}
	case key.Matches(msg, km.MarkAll):
		q.markAll()
	case accept:
		return m.acceptSuggestions(), true
	default:
		return m.bulkLabel(label), true
	}
	if n := len(q.markedIDs()); n > 0 && m.status == "" {
		m.status = fmt.Sprintf("%d marked: a digit labels them, a accepts the rules' suggestion, esc clears", n) + m.splitHint()
	}
	return nil, true
}

// bulkLabel gives class i to every marked trace, as one change for undo.
func (m *Model) bulkLabel(i int) tea.Cmd {
	if i >= len(m.tax.Classes) {
		return nil
	}
	code := m.tax.Classes[i].Code
	ids := m.queue.markedIDs()
	m.batches++
	var cmds []tea.Cmd
	for _, id := range ids {
		if it := m.queue.item(id); it != nil {
			note := m.noteFor(it)
			cmds = append(cmds, m.writePrimary(it, code, note, m.batches))
		}
	}
	m.queue.clearMarks()
	m.status = fmt.Sprintf("%d traces → %s (u undoes them together)", len(ids), code)
	return tea.Batch(append(cmds, m.advance())...)
}

// acceptSuggestions asks for the verdicts of the marked traces (the open
// trace on the trace screen, the cursor's item with nothing marked); the
// labels are written when they arrive (acceptLoadedMsg).
func (m *Model) acceptSuggestions() tea.Cmd {
	var ids []int64
	switch {
	case m.screen == screenTrace:
		ids = []int64{m.trace.id}
	case len(m.queue.markedIDs()) > 0:
		ids = m.queue.markedIDs()
	case m.queue.current() != nil:
		ids = []int64{m.queue.current().TraceID}
	}
	if len(ids) == 0 {
		return nil
	}
	m.batches++
	m.status = fmt.Sprintf("reading the rules' verdicts of %d traces…", len(ids))
	return m.loadVerdictsCmd(ids, m.batches)
}

// loadVerdictsCmd reads each trace's verdict and turns it into the label
// accepting it: the rules' primary and tags, and a note naming the rule's
// evidence, so the label says where it came from.
func (m *Model) loadVerdictsCmd(ids []int64, batch int) tea.Cmd {
	st, ctx := m.store, m.ctx
	return func() tea.Msg {
		return readVerdicts(ctx, st, ids, batch)
	}
}

func readVerdicts(ctx context.Context, st Store, ids []int64, batch int) tea.Msg {
	msg := acceptLoadedMsg{batch: batch}
	for _, id := range ids {
		v, err := st.Verdict(ctx, id)
		if err != nil {
			return errMsg{what: "read the rules' verdict", err: err}
		}
		if v == nil || v.Primary == "" {
			msg.without++
			continue
		}
		msg.labels = append(msg.labels, acceptedLabel{id: id, primary: v.Primary, tags: slices.Clone(v.Secondary), note: acceptNote(v)})
	}
	return msg
}

// acceptNote is the note of a label that accepts the rules' verdict: it
// says so and references the evidence the rules recorded.
func acceptNote(v *triage.Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "accepted the rules' suggestion %s (%s", v.Primary, v.Decision)
	if v.RulesVersion != "" {
		fmt.Fprintf(&b, ", rules %s", v.RulesVersion)
	}
	b.WriteString(")")
	if v.Reason != "" {
		b.WriteString(": " + v.Reason)
	}
	if len(v.Evidence) > 0 {
		b.WriteString("\nevidence:")
		for i, e := range v.Evidence {
			if i == maxNoteEvidence {
				fmt.Fprintf(&b, "\n- and %d more", len(v.Evidence)-i)
				break
			}
			b.WriteString("\n- " + evidenceText(e))
		}
	}
	return b.String()
}

// applyAccepted writes the accepting labels, as one change for undo.
func (m *Model) applyAccepted(msg acceptLoadedMsg) tea.Cmd {
	var cmds []tea.Cmd
	n := 0
	for _, l := range msg.labels {
		it := m.queue.item(l.id)
		if it == nil {
			continue
		}
		delete(m.drafts, l.id)
		it.Secondary = l.tags
		cmds = append(cmds, m.writePrimary(it, l.primary, l.note, msg.batch))
		n++
	}
	m.queue.clearMarks()
	switch {
	case n == 1 && msg.without == 0:
		m.status = "accepted the rules' suggestion: " + m.status
	default:
		m.status = fmt.Sprintf("accepted the rules' suggestion for %d traces", n)
	}
	if msg.without > 0 {
		m.status += fmt.Sprintf(" · %d have no verdict and were left as they are", msg.without)
	}
	if n == 0 {
		return nil
	}
	return tea.Batch(append(cmds, m.advance())...)
}
