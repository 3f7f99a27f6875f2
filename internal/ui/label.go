package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/triage-dev/triage/internal/triage"
)

// target is the item labelling keys act on: the open trace on the trace
// screen, the item under the cursor in the queue.
func (m *Model) target() *QueueItem {
	if m.screen == screenTrace {
		return m.queue.item(m.trace.id)
	}
	return m.queue.current()
}

// labelling reports whether msg is a key that writes a label event or
// marks traces for one.
func (m *Model) labelling(msg tea.KeyMsg) bool {
	km := m.keys
	for i := range km.Label {
		if key.Matches(msg, km.Label[i]) {
			return true
		}
	}
	for _, b := range []key.Binding{km.MoreClasses, km.Picker, km.Tags, km.Note, km.Skip, km.Undo, km.Redo, km.Mark, km.Range, km.MarkAll, km.Accept} {
		if key.Matches(msg, b) {
			return true
		}
	}
	return false
}

// handleLabelKey runs the labelling keys shared by both screens and
// reports whether the key was one of them.
func (m *Model) handleLabelKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	it := m.target()
	km := m.keys
	for i := range km.Label {
		if key.Matches(msg, km.Label[i]) {
			if it == nil || i >= len(m.tax.Classes) {
				return nil, true
			}
			return m.setPrimary(it.TraceID, m.tax.Classes[i].Code), true
		}
	}
	more := len(m.tax.Classes) > len(km.Label) && key.Matches(msg, km.MoreClasses)
	if more && m.screen == screenQueue && len(m.queue.markedIDs()) > 0 {
		// The picker labels one trace: it must not look like a bulk label.
		m.status = "classes past nine label one trace at a time: esc clears the marks"
		return nil, true
	}
	switch {
	case more, key.Matches(msg, km.Picker), key.Matches(msg, km.Tags), key.Matches(msg, km.Note),
		key.Matches(msg, km.Skip), key.Matches(msg, km.Undo):
	case key.Matches(msg, km.Redo):
		return m.redo(), true
	default:
		return nil, false
	}
	if it == nil {
		return nil, true
	}
	switch {
	case more, key.Matches(msg, km.Picker):
		codes, names := m.classChoices()
		m.picker = newPicker("Primary class for "+it.Key(), codes, names, false, []string{it.Primary}, it.TraceID)
		if more {
			// The digits reach classes 1 to 9; 0 starts at the first
			// class they cannot reach.
			m.picker.cursor = len(km.Label)
		}
		m.modal = modalPicker
	case key.Matches(msg, km.Tags):
		cur := it.Secondary
		if d, ok := m.drafts[it.TraceID]; ok && d.hasTags {
			cur = d.tags
		}
		m.picker = newPicker("Secondary tags for "+it.Key(), m.tax.SecondaryTags, nil, true, cur, it.TraceID)
		m.modal = modalTags
	case key.Matches(msg, km.Note):
		cur := it.Note
		if d, ok := m.drafts[it.TraceID]; ok && d.hasNote {
			cur = d.note
		}
		m.picker.traceID = it.TraceID
		// A stored note may come from another store: the box draws its
		// value raw, so it gets the visible stand-ins first.
		m.note.SetValue(triage.Sanitize(cur))
		m.modal = modalNote
		return m.note.Focus(), true
	case key.Matches(msg, km.Skip):
		// A skip decides nothing: a note or tags drafted before it stay
		// for the label given on coming back (c, type, ctrl+s, s, k, 7
		// stored the label with no note).
		it.Status = StatusSkipped
		cmd := m.enqueue(m.event(it.TraceID, triage.KindSkip, "", nil, ""), 0)
		m.status = "skipped " + it.Key()
		return tea.Batch(cmd, m.advance()), true
	case key.Matches(msg, km.Undo):
		return m.undo(it), true
	}
	return nil, true
}

// change is one entry of the undo and redo stacks: an event the
// reviewer wrote, and the bulk decision it was part of (0: none), so a
// bulk label is undone and redone as one change.
type change struct {
	e     triage.LabelEvent
	batch int
}

// popChange takes the latest change off a stack: one event, or every
// event of the latest bulk decision.
func popChange(stack *[]change) []change {
	n := len(*stack)
	if n == 0 {
		return nil
	}
	i := n - 1
	for b := (*stack)[i].batch; b != 0 && i > 0 && (*stack)[i-1].batch == b; i-- {
	}
	out := slices.Clone((*stack)[i:])
	*stack = (*stack)[:i]
	return out
}

// undo takes back this reviewer's own last change of the session,
// wherever the cursor is now: labelling #1 moves on to #2, and undo must
// undo #1's label, not write an empty undo on #2. A bulk decision is
// undone whole. With nothing changed in the session it undoes the
// reviewer's latest event on the target item, if they have one there.
// The undone item comes back under the cursor.
func (m *Model) undo(target *QueueItem) tea.Cmd {
	var ids []int64
	if chs := popChange(&m.undoStack); len(chs) > 0 {
		m.redoStack = append(m.redoStack, chs...)
		for _, c := range chs {
			ids = append(ids, c.e.TraceID)
		}
	} else if target.Status != StatusTodo {
		ids = []int64{target.TraceID}
	}
	if len(ids) == 0 || m.queue.item(ids[0]) == nil {
		m.status = "nothing of yours to undo"
		return nil
	}
	var cmds []tea.Cmd
	for _, id := range ids {
		delete(m.drafts, id)
		cmds = append(cmds, m.enqueue(m.event(id, triage.KindUndo, "", nil, ""), 0))
	}
	id := ids[0]
	m.status = "undo " + m.queue.item(id).Key()
	if len(ids) > 1 {
		m.status = fmt.Sprintf("undo %d traces of a bulk decision", len(ids))
	}
	return tea.Batch(append(cmds, m.bringBack(id, target))...)
}

// bringBack puts a trace an undo or redo changed under the cursor, and
// opens it on the trace screen.
func (m *Model) bringBack(id int64, target *QueueItem) tea.Cmd {
	if target != nil && id == target.TraceID {
		return nil
	}
	m.queue.moveToID(id)
	if m.screen == screenTrace {
		return m.openTrace(id)
	}
	return nil
}

// redo writes again the change undo last took back, as new events (the
// store's history only grows), and brings its trace under the cursor.
func (m *Model) redo() tea.Cmd {
	chs := popChange(&m.redoStack)
	if len(chs) == 0 || m.queue.item(chs[0].e.TraceID) == nil {
		m.status = "nothing to redo"
		return nil
	}
	var cmds []tea.Cmd
	redo := m.redoStack
	for _, c := range chs {
		e := c.e
		it := m.queue.item(e.TraceID)
		if it == nil {
			continue
		}
		if e.Kind == triage.KindSkip {
			it.Status = StatusSkipped
		} else {
			it.Primary, it.Secondary, it.Note, it.Status = e.Primary, slices.Clone(e.Secondary), e.Note, StatusLabelled
		}
		e.ID, e.CreatedAt = 0, m.cfg.Now()
		cmds = append(cmds, m.enqueue(e, c.batch))
	}
	m.redoStack = redo // A redo is no new change: what is left stays redoable.
	id := chs[0].e.TraceID
	m.status = "redo " + m.queue.item(id).Key()
	if len(chs) > 1 {
		m.status = fmt.Sprintf("redo %d traces of a bulk decision", len(chs))
	}
	return tea.Batch(append(cmds, m.bringBack(id, m.target()))...)
}

// dropUndo forgets the latest change to a trace that the store refused,
// so undo never takes back an older change in its place.
func (m *Model) dropUndo(id int64) {
	for i := len(m.undoStack) - 1; i >= 0; i-- {
		if m.undoStack[i].e.TraceID == id {
			m.undoStack = slices.Delete(m.undoStack, i, i+1)
			return
		}
	}
}

// setPrimary stores the primary (with any drafted tags and note) and moves
// on to the next trace. An adjudication first asks for its reason.
func (m *Model) setPrimary(id int64, code string) tea.Cmd {
	it := m.queue.item(id)
	if it == nil {
		return nil
	}
	if m.pol.reason {
		return m.askReason(it, code)
	}
	note := m.noteFor(it)
	return m.storePrimary(it, code, note)
}

// storePrimary writes the label with any drafted tags and moves on.
func (m *Model) storePrimary(it *QueueItem, code, note string) tea.Cmd {
	cmd := m.writePrimary(it, code, note, 0)
	return tea.Batch(cmd, m.advance())
}

// writePrimary writes the label with any drafted tags, shown at once.
func (m *Model) writePrimary(it *QueueItem, code, note string, batch int) tea.Cmd {
	return m.writeLabel(it, code, note, batch, "")
}

// writeLabel is writePrimary for a label that may be given to a whole
// cluster: cluster, when set, names it on the event.
func (m *Model) writeLabel(it *QueueItem, code, note string, batch int, cluster string) tea.Cmd {
	id := it.TraceID
	tags := it.Secondary
	if d, ok := m.drafts[id]; ok && d.hasTags {
		tags = d.tags
	}
	delete(m.drafts, id)
	// Optimistic: the queue shows the label at once; the store's history
	// replaces it when the write returns.
	it.Primary, it.Secondary, it.Note, it.Status = code, tags, note, StatusLabelled
	m.status = fmt.Sprintf("%s → %s", it.Key(), code)
	e := m.event(id, m.labelKind(), code, tags, note)
	e.Cluster = cluster
	return m.enqueue(e, batch)
}

// labelKind is the kind of a label this session writes.
func (m *Model) labelKind() triage.LabelKind {
	return m.pol.label
}

// setTags stores new tags with the current primary, or keeps them as a
// draft until a primary is set.
func (m *Model) setTags(id int64, tags []string) tea.Cmd {
	it := m.queue.item(id)
	if it == nil {
		return nil
	}
	if it.Primary == "" {
		d := m.drafts[id]
		d.tags, d.hasTags = tags, true
		m.drafts[id] = d
		m.status = "tags kept: they are stored with the primary (" + m.session().labelHelp().Help().Key + ")"
		return nil
	}
	it.Secondary = tags
	m.status = "tags: " + strings.Join(tags, ", ")
	return m.enqueue(m.event(id, m.labelKind(), it.Primary, tags, it.Note), 0)
}

// setNote stores a note with the current primary, or drafts it.
func (m *Model) setNote(id int64, note string) tea.Cmd {
	it := m.queue.item(id)
	if it == nil {
		return nil
	}
	if it.Primary == "" {
		d := m.drafts[id]
		d.note, d.hasNote = note, true
		m.drafts[id] = d
		m.status = "note kept: it is stored with the primary (" + m.session().labelHelp().Help().Key + ")"
		return nil
	}
	if m.pol.reason && strings.TrimSpace(note) == "" {
		m.errText = "reason kept: an adjudication cannot drop its reason"
		return nil
	}
	it.Note = note
	m.status = "note saved"
	return m.enqueue(m.event(id, m.labelKind(), it.Primary, it.Secondary, note), 0)
}

// advance moves on after a label or a skip to the next item still to do
// (after the cursor, then from the top; a skipped one when nothing else
// is left), not merely the next row: in a partly labelled queue the next
// row may be done, and a digit there would overwrite it. The next trace
// opens on the trace screen.
func (m *Model) advance() tea.Cmd {
	next := m.queue.nextToDo()
	if next < 0 {
		if m.queue.partial {
			m.status += " · " + m.queue.lastNote()
		} else {
			m.status += " · nothing left to do in this view"
		}
		return nil
	}
	if next == m.queue.cursor {
		return nil
	}
	m.queue.moveTo(next)
	if m.screen == screenTrace {
		return m.openTrace(m.queue.current().TraceID)
	}
	return nil
}

func (m *Model) event(id int64, kind triage.LabelKind, primary string, tags []string, note string) triage.LabelEvent {
	return triage.LabelEvent{
		TraceID:         id,
		Actor:           m.cfg.Reviewer,
		Kind:            kind,
		Primary:         primary,
		Secondary:       slices.Clone(tags),
		Note:            note,
		TaxonomyVersion: m.tax.Version,
		Slice:           m.cfg.Slice,
		CreatedAt:       m.cfg.Now(),
	}
}

// enqueue adds a write; it starts at once unless one is in flight. Every
// change but an undo goes on the undo stack, with its bulk decision's
// batch (0 for a change of one trace).
func (m *Model) enqueue(e triage.LabelEvent, batch int) tea.Cmd {
	m.queue.touch(e.TraceID)
	if e.Kind != triage.KindUndo {
		m.undoStack = append(m.undoStack, change{e: e, batch: batch})
		m.redoStack = nil
	}
	m.writes = append(m.writes, e)
	return m.nextWrite()
}

func (m *Model) nextWrite() tea.Cmd {
	if m.writing || len(m.writes) == 0 {
		return nil
	}
	e := m.writes[0]
	m.writes = m.writes[1:]
	m.writing = true
	return m.writeLabelCmd(e)
}

// applyHistory folds the reviewer's stored events into the queue item:
// their live human label in a review, their live adjudication when
// adjudicating, as the store folds them for reports.
func (m *Model) applyHistory(id int64, events []triage.LabelEvent) {
	it := m.queue.item(id)
	if it == nil {
		return
	}
	it.Primary, it.Secondary, it.Note, it.Status = "", nil, "", StatusTodo
	cur, adj := triage.LiveEvents(events)
	if m.pol.label == triage.KindAdjudication {
		cur = adj
	}
	if cur != nil {
		it.Primary, it.Secondary, it.Note, it.Status = cur.Primary, cur.Secondary, cur.Note, StatusLabelled
	}
	if topIsSkip(events) {
		it.Status = StatusSkipped
	}
	m.growColumns(it)
}

// applyOthers sets the other reviewers' live labels of a trace as the
// store holds them after a write, and says so when they differ from the
// reviewer's own: both labels are kept (nothing is replaced), and only an
// adjudication settles them.
func (m *Model) applyOthers(id int64, others []OtherLabel) {
	it := m.queue.item(id)
	if it == nil || m.pol.blind || m.pol.label == triage.KindAdjudication {
		return
	}
	it.Others = others
	m.growColumns(it)
	if it.Disagrees() {
		m.status = "reviewers disagree on " + it.Key() + ": yours " + it.Primary + ", " + othersText(others) +
			"; both labels are kept (triage adjudicate settles them)"
	}
}

// othersText is other reviewers' labels as the queue shows them:
// "bob SCORER_RED · cy TIMEOUT".
func othersText(others []OtherLabel) string {
	parts := make([]string, len(others))
	for i, o := range others {
		parts[i] = o.Reviewer + " " + o.Primary
	}
	return strings.Join(parts, " · ")
}

// topIsSkip reports whether the latest live event (after undos) is a skip.
func topIsSkip(events []triage.LabelEvent) bool {
	var stack []triage.LabelKind
	for _, e := range events {
		if e.Kind == triage.KindUndo {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		stack = append(stack, e.Kind)
	}
	return len(stack) > 0 && stack[len(stack)-1] == triage.KindSkip
}

// classChoices are the taxonomy's classes as a picker lists them: codes
// and names, in the taxonomy's order.
func (m *Model) classChoices() (codes, names []string) {
	codes, names = make([]string, len(m.tax.Classes)), make([]string, len(m.tax.Classes))
	for i, c := range m.tax.Classes {
		codes[i], names[i] = c.Code, c.Name
	}
	return codes, names
}

// noteFor is the note a label of it carries: the draft typed before its
// primary, when there is one, else the note it has.
func (m *Model) noteFor(it *QueueItem) string {
	if d, ok := m.drafts[it.TraceID]; ok && d.hasNote {
		return d.note
	}
	return it.Note
}
