package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/triage-dev/triage/internal/triage"
)

// wheelLines is how far one mouse wheel step scrolls.
const wheelLines = 3

// Update implements tea.Model. Keys are routed in a fixed order: ctrl+c,
// an open modal (text inputs take every key but esc), global keys, then
// the current screen only. Whatever moved the queue's window, the rows
// that came into view have their root causes asked for after.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	tm, cmd := m.update(msg)
	mm, ok := tm.(Model)
	if !ok || mm.quitting {
		return tm, cmd
	}
	if c := mm.causesCmd(); c != nil {
		return mm, tea.Batch(cmd, c)
	}
	return mm, cmd
}

func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case causesLoadedMsg:
		m.setCauses(msg)
		return m, nil
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case queueLoadedMsg:
		if msg.gen != m.queueGen {
			return m, nil
		}
		var cmd tea.Cmd
		switch {
		case msg.partial && m.queue.loaded:
			return m, nil // the whole queue came first
		case msg.partial:
			m.queue.setFirstPage(msg.items, m.pol.blind)
			cmd = m.queueCmd(msg.gen, 0)
		default:
			m.queue.setWhole(msg.items, m.pol.blind)
			if m.status == refreshingStatus {
				m.status = "labels read again: the queue shows what the store holds now"
			}
		}
		m.natural = msg.natural
		m.resize(m.width, m.height)
		if msg.reviews != nil {
			m.reviews = msg.reviews
		}
		return m, cmd
	case agreementLoadedMsg:
		if msg.gen == m.agreeGen {
			m.setAgreement(msg)
		}
		if msg.pending {
			return m, m.docLoaded()
		}
		return m, nil
	case reportLoadedMsg:
		m.setReport(msg)
		return m, m.docLoaded()
	case traceLoadedMsg:
		if msg.gen != m.traceGen || msg.id != m.trace.id {
			return m, nil // A stale answer for a trace already left.
		}
		if msg.err != nil {
			m.errText = msg.err.Error()
			return m, nil
		}
		m.trace.setLoaded(msg, m.cfg.Reviewer, m.pol.blind)
		if !m.pol.blind {
			// The trace's history is everyone's: the queue row takes the
			// other reviewers' labels as this read found them.
			_, others := splitHistory(msg.history, m.cfg.Reviewer)
			m.applyOthers(msg.id, others)
		}
		return m, nil
	case labelSavedMsg:
		if msg.reloaded {
			m.applyHistory(msg.traceID, msg.events)
			m.applyOthers(msg.traceID, msg.others)
		}
		if msg.err != nil {
			m.errText = msg.err.Error()
			if msg.kind != triage.KindUndo {
				m.dropUndo(msg.traceID)
			}
		}
		m.writing = false
		return m, m.nextWrite()
	case acceptLoadedMsg:
		return m, m.applyAccepted(msg)
	case clustersLoadedMsg:
		m.applyClusters(msg)
		return m, nil
	case errMsg:
		m.errText = msg.Error()
		return m, nil
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case tea.KeyMsg:
		return m.handleKeys(msg)
	}
	// Cursor blinks and the like belong to the focused text input.
	var cmd tea.Cmd
	switch m.modal {
	case modalNote:
		m.note, cmd = m.note.Update(msg)
	case modalInput, modalSwitch:
		m.input, cmd = m.input.Update(msg)
	}
	return m, cmd
}

func (m Model) handleMouse(msg tea.MouseMsg) (Model, tea.Cmd) {
	if !m.cfg.Mouse || msg.Action != tea.MouseActionPress || m.modal != modalNone || m.lay.tooSmall {
		return m, nil
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp, tea.MouseButtonWheelDown, tea.MouseButtonLeft:
		return m, m.perform(m.screenOf(m.screen).HandleMouse(msg, m.session()))
	}
	return m, nil
}

// handleKeys splits a burst of runes into single keys. Bubble Tea v1
// delivers keys typed faster than one read (or sent by tmux) as one
// KeyRunes message, which no single-key binding would match; text inputs
// take the burst whole.
func (m Model) handleKeys(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.queue.partial {
		// Whatever the reviewer does on the first page, the whole queue
		// must not move the cursor from under them.
		m.queue.moved = true
	}
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste || m.modal == modalInput || m.modal == modalNote || m.modal == modalSwitch {
		return m.handleKey(msg)
	}
	var cmds []tea.Cmd
	var tm tea.Model = m
	for i, r := range msg.Runes {
		cur := tm.(Model)
		if cur.modal == modalInput || cur.modal == modalNote || cur.modal == modalSwitch {
			// The rest of the burst is text for the input just opened.
			rest := tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes[i:]}
			var cmd tea.Cmd
			tm, cmd = cur.handleKey(rest)
			cmds = append(cmds, cmd)
			break
		}
		var cmd tea.Cmd
		tm, cmd = cur.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
		cmds = append(cmds, cmd)
	}
	return tm, tea.Batch(cmds...)
}

func (m Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	m.errText = ""
	// An esc that asked "quit?" holds for the next key only.
	m.quitAsked, m.quitArmed = m.quitArmed, false
	if m.modal != modalInput && m.modal != modalSwitch {
		m.status = ""
	}
	if msg.Type == tea.KeyCtrlC {
		m.quitting = true
		return m, tea.Quit
	}
	if m.lay.tooSmall {
		// Nothing is drawn but the "Too small" notice, so no key may act
		// on a trace nobody can see: only quit works.
		if key.Matches(msg, m.keys.Quit) {
			m.quitting = true
			return m, tea.Quit
		}
		return m, nil
	}
	switch m.modal {
	case modalSwitch:
		return m.handleSwitchKey(msg)
	case modalInput:
		return m.handleInputKey(msg)
	case modalNote:
		return m.handleNoteKey(msg)
	case modalPicker, modalTags, modalFiles:
		return m.handlePickerKey(msg)
	case modalHelp:
		switch {
		case key.Matches(msg, m.keys.Quit):
			m.quitting = true
			return m, tea.Quit
		case key.Matches(msg, m.keys.Help), key.Matches(msg, m.keys.Back):
			m.modal = modalNone
		case key.Matches(msg, m.keys.Down):
			m.scrollHelp(1)
		case key.Matches(msg, m.keys.Up):
			m.scrollHelp(-1)
		case key.Matches(msg, m.keys.HalfDown):
			m.scrollHelp(max(1, m.height/2))
		case key.Matches(msg, m.keys.HalfUp):
			m.scrollHelp(-max(1, m.height/2))
		case key.Matches(msg, m.keys.Top):
			m.helpOff = 0
		case key.Matches(msg, m.keys.Bottom):
			m.scrollHelp(1 << 20)
		}
		return m, nil
	}
	switch {
	case key.Matches(msg, m.keys.Quit):
		m.quitting = true
		return m, tea.Quit
	case key.Matches(msg, m.keys.Help):
		m.modal, m.helpOff = modalHelp, 0
		return m, nil
	case key.Matches(msg, m.keys.Switch):
		return m, m.openSwitcher()
	case key.Matches(msg, m.keys.Refresh) && m.screen == screenQueue && m.queue.loaded && m.store != nil:
		return m, m.refreshQueue()
	case key.Matches(msg, m.keys.Mouse):
		m.cfg.Mouse = !m.cfg.Mouse
		if m.cfg.Mouse {
			m.status = "mouse on: click a row or a tab, the wheel scrolls (M gives the terminal its selection back)"
			return m, tea.EnableMouseCellMotion
		}
		m.status = "mouse off: the terminal selects text again (M turns it back on)"
		return m, tea.DisableMouse
	}
	if m.pol.agreement {
		switch {
		case key.Matches(msg, m.keys.Agreement) && m.screen == screenAgreement:
			return m, m.leaveDoc()
		case key.Matches(msg, m.keys.Agreement):
			return m, m.openAgreement()
		case m.screen == screenQueue && key.Matches(msg, m.keys.ShowAll):
			return m, m.toggleAll()
		}
	}
	if m.docScreen() != nil {
		return m, m.perform(m.screenOf(m.screen).HandleKey(msg, m.session()))
	}
	if cmd, ok := m.handleClusterKey(msg); ok {
		return m, cmd
	}
	if m.cfg.Reviewer == "" && m.labelling(msg) {
		m.status = "read only: no reviewer (set --reviewer, $TRIAGE_REVIEWER or reviewer in the config file) to label"
		return m, nil
	}
	if cmd, ok := m.handleBulkKey(msg); ok {
		return m, cmd
	}
	if cmd, ok := m.handleLabelKey(msg); ok {
		return m, cmd
	}
	return m, m.perform(m.screenOf(m.screen).HandleKey(msg, m.session()))
}

// perform does what a screen's key handler decided: the side effects
// (loads, modals, switching screens) are the root's.
func (m *Model) perform(a Action) tea.Cmd {
	if a.status != "" {
		m.status = a.status
	}
	switch a.kind {
	case actOpen:
		return m.openTrace(a.id)
	case actFilter:
		return m.openInput(inputFilter, m.queue.filter)
	case actCloseDrill:
		m.closeDrill()
	case actBack:
		switch {
		case m.docScreen() != nil:
			return m.leaveDoc()
		case m.screen == screenTrace:
			m.traceGen++ // Any load in flight is now stale.
		}
		m.screen = screenQueue
	case actCluster:
		return m.openCluster(m.clusters.cursor)
	case actStep:
		return m.stepTrace(a.n)
	case actSearch:
		if d := m.docScreen(); d != nil {
			return m.openInput(inputDocSearch, d.query)
		}
		return m.openInput(inputSearch, m.trace.query)
	case actFiles:
		m.openFileList()
	case actDrill:
		return m.openDrill(a.drill)
	}
	return nil
}

// openTrace switches to the trace screen and loads the trace. The new
// generation makes any earlier load stale.
func (m *Model) openTrace(id int64) tea.Cmd {
	m.screen = screenTrace
	m.traceGen++
	m.trace.open(id)
	m.clusters.sawTrace(id)
	return m.loadTraceCmd(id, m.traceGen)
}

// stepTrace opens the next (d=1) or previous trace of the queue's view.
func (m *Model) stepTrace(d int) tea.Cmd {
	if !m.queue.move(d) {
		if d > 0 {
			m.status = m.queue.lastNote()
		} else {
			m.status = "first trace of the queue"
		}
		return nil
	}
	return m.openTrace(m.queue.current().TraceID)
}

// openInput focuses the filter or search line with its current value.
func (m *Model) openInput(mode inputMode, value string) tea.Cmd {
	m.modal, m.inputOf, m.inputWas = modalInput, mode, value
	m.input.SetValue(value)
	m.input.CursorEnd()
	switch mode {
	case inputFilter:
		m.input.Placeholder = "class:X rule:R status:todo model:M task:T label:X words"
	case inputDocSearch:
		m.input.Placeholder = "search this screen"
	default:
		m.input.Placeholder = "search this pane"
	}
	return m.input.Focus()
}

// handleInputKey gives the filter or search line every key but esc and
// enter. The filter applies as it is typed; a half-typed term that does
// not parse yet leaves the last good filter in place.
func (m Model) handleInputKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch msg.Type {
	case tea.KeyEsc:
		m.modal = modalNone
		m.input.Blur()
		switch m.inputOf {
		case inputFilter:
			// Esc cancels: the filter typed so far goes, the one before
			// it comes back.
			_ = m.queue.apply(m.inputWas, m.pol.blind)
			m.status = "filter unchanged"
		case inputSearch:
			m.trace.search("")
		case inputDocSearch:
			if d := m.docScreen(); d != nil {
				d.search("")
			}
		}
		return m, nil
	case tea.KeyEnter:
		m.modal = modalNone
		m.input.Blur()
		val := m.input.Value()
		if d := m.docScreen(); d != nil && m.inputOf == inputDocSearch {
			d.search(val)
			m.status = fmt.Sprintf("%d lines match", len(d.hits))
			return m, nil
		}
		if m.inputOf == inputSearch {
			m.trace.search(val)
			m.status = fmt.Sprintf("%d matches", len(m.trace.matches))
			return m, nil
		}
		if err := m.queue.apply(val, m.pol.blind); err != nil {
			m.errText = err.Error()
			return m, nil
		}
		m.status = fmt.Sprintf("%d of %d shown", len(m.queue.view), len(m.queue.all))
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(inertKey(msg))
	if m.inputOf == inputFilter {
		_ = m.queue.apply(m.input.Value(), m.pol.blind)
	}
	return m, cmd
}

func (m Model) handleNoteKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case msg.Type == tea.KeyEsc:
		m.modal = modalNone
		m.note.Blur()
		m.status = "note discarded"
		if m.pending != "" {
			m.status = "not settled: an adjudication needs a reason"
			m.pending = ""
		}
		return m, nil
	case key.Matches(msg, m.keys.Save) && m.pending != "":
		if strings.TrimSpace(m.note.Value()) == "" {
			m.errText = reasonRequired
			return m, nil
		}
		m.modal = modalNone
		m.note.Blur()
		code := m.pending
		m.pending = ""
		if it := m.queue.item(m.picker.traceID); it != nil {
			return m, m.storePrimary(it, code, m.note.Value())
		}
		return m, nil
	case key.Matches(msg, m.keys.Save):
		m.modal = modalNone
		m.note.Blur()
		return m, m.setNote(m.picker.traceID, m.note.Value())
	}
	var cmd tea.Cmd
	m.note, cmd = m.note.Update(inertKey(msg))
	return m, cmd
}

func (m Model) handlePickerKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.modal == modalPicker && m.clusters.picking > 0 {
		return m.handleClusterPickerKey(msg)
	}
	// Digits choose directly in the class picker, as everywhere else; with
	// more classes than digit keys they type a class number instead.
	if m.modal == modalPicker && len(m.picker.items) > len(m.keys.Label) && key.Matches(msg, m.keys.Digits) {
		// The binding's keys stand for 0 to 9 in order, so a config
		// may move them.
		d := slices.Index(m.keys.Digits.Keys(), msg.String())
		if d >= 0 && d <= 9 && m.picker.typeDigit(d) {
			m.modal = modalNone
			return m, m.setPrimary(m.picker.traceID, m.picker.items[m.picker.cursor])
		}
		return m, nil
	}
	if m.modal == modalPicker {
		for i := range m.keys.Label {
			if key.Matches(msg, m.keys.Label[i]) && i < len(m.picker.items) {
				m.modal = modalNone
				return m, m.setPrimary(m.picker.traceID, m.picker.items[i])
			}
		}
	}
	switch m.picker.handle(msg, m.keys) {
	case pickCancel:
		m.modal = modalNone
	case pickChoose:
		if m.modal == modalFiles {
			m.modal = modalNone
			m.trace.jumpFile(m.picker.cursor)
			m.status = m.trace.markStatus(m.trace.target[tabDiff], "")
			return m, nil
		}
		m.modal = modalNone
		chosen := m.picker.chosen()
		if m.picker.multi {
			return m, m.setTags(m.picker.traceID, chosen)
		}
		if len(chosen) == 1 {
			return m, m.setPrimary(m.picker.traceID, chosen[0])
		}
	}
	return m, nil
}
