package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// switchKind is what a switcher entry switches to.
type switchKind int

const (
	switchScreen switchKind = iota
	switchRun
	switchSlice
)

// switchEntry is one line of the : switcher.
type switchEntry struct {
	kind   switchKind
	name   string // the run or slice; "" for every run
	screen screenID
	label  string
}

// switchEntries is what : can switch to now: the screens this session
// has, then (outside adjudication) the runs and the slices. A blind
// session offers neither other runs nor the report: what it hides must
// stay hidden until the reviewer starts a new session.
func (m *Model) switchEntries() []switchEntry {
	var out []switchEntry
	scr := func(s screenID) {
		out = append(out, switchEntry{kind: switchScreen, screen: s, label: "screen " + screenName(s)})
	}
	if m.store != nil {
		scr(screenQueue)
	}
	if m.clusterRefusal() == "" {
		scr(screenClusters)
	}
	for _, d := range docDefs() {
		// An adjudication's agreement is computed when it opens.
		if (m.docs[d.id].render != nil && !m.pol.blind) || (d.id == screenAgreement && m.pol.agreement) {
			scr(d.id)
		}
	}
	if m.pol.agreement || m.store == nil {
		return out
	}
	if !m.pol.blind {
		out = append(out, switchEntry{kind: switchRun, label: "run * (every run)"})
		for _, r := range m.cfg.Runs {
			out = append(out, switchEntry{kind: switchRun, name: r, label: "run " + r})
		}
	}
	for _, s := range m.cfg.Slices {
		out = append(out, switchEntry{kind: switchSlice, name: s, label: "slice " + s + " (blind)"})
	}
	return out
}

// openSwitcher opens the : line over the list of entries.
func (m *Model) openSwitcher() tea.Cmd {
	m.modal = modalSwitch
	m.input.Prompt = ":"
	m.input.Placeholder = "screen, run or slice"
	m.input.SetValue("")
	m.filterSwitcher()
	return m.input.Focus()
}

// filterSwitcher keeps the entries whose label holds every typed word.
func (m *Model) filterSwitcher() {
	words := strings.Fields(strings.ToLower(m.input.Value()))
	m.switching = m.switching[:0]
	var labels []string
	for _, e := range m.switchEntries() {
		l := strings.ToLower(e.label)
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(l, w)
		}
		if ok {
			m.switching = append(m.switching, e)
			labels = append(labels, e.label)
		}
	}
	m.picker = newPicker("Switch to", labels, nil, false, nil, 0)
}

// closeSwitcher gives the input line back to filter and search.
func (m *Model) closeSwitcher() {
	m.modal = modalNone
	m.input.Blur()
	m.input.Prompt = "/"
}

// handleSwitchKey gives the : line every key but the list's: esc
// closes, enter switches to the entry under the cursor.
func (m Model) handleSwitchKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	km := m.keys
	switch {
	case msg.Type == tea.KeyEsc:
		m.closeSwitcher()
		return m, nil
	case msg.Type == tea.KeyEnter:
		m.closeSwitcher()
		if m.picker.cursor >= len(m.switching) {
			m.status = "nothing to switch to"
			return m, nil
		}
		return m, m.switchTo(m.switching[m.picker.cursor])
	case key.Matches(msg, km.SwitchDown):
		m.picker.cursor = min(len(m.switching)-1, m.picker.cursor+1)
		return m, nil
	case key.Matches(msg, km.SwitchUp):
		m.picker.cursor = max(0, m.picker.cursor-1)
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(inertKey(msg))
	m.filterSwitcher()
	return m, cmd
}

// switchTo performs a switcher entry: a screen is shown as it was left;
// a run or a slice starts its queue afresh (a slice blind).
func (m *Model) switchTo(e switchEntry) tea.Cmd {
	switch e.kind {
	case switchScreen:
		if e.screen == screenAgreement && m.pol.agreement && m.screen != screenAgreement {
			return m.openAgreement()
		}
		if e.screen == screenClusters {
			return m.openClusters()
		}
		if m.screen == screenTrace {
			m.traceGen++ // Any load in flight is now stale.
		}
		m.screen = e.screen
		m.status = "screen " + screenName(e.screen)
		return nil
	case switchRun:
		m.cfg.RunID, m.cfg.Slice, m.cfg.Blind = e.name, "", false
	case switchSlice:
		m.cfg.RunID, m.cfg.Slice, m.cfg.Blind, m.cfg.All = "", e.name, true, false
	}
	m.pol = policyFor(m.cfg)
	m.status = e.label
	return m.reloadQueue()
}

// reloadQueue starts the queue over for the session's run or slice: the
// old queue's marks, drill-down and loads in flight are dropped.
func (m *Model) reloadQueue() tea.Cmd {
	m.queueGen++
	m.traceGen++
	m.queue = queueScreen{}
	m.drilled = false
	m.screen = screenQueue
	// The queue is read now: a report still being computed need not
	// start it when it comes.
	m.docsPending = 0
	m.resize(m.width, m.height)
	return tea.Batch(m.loadFirstQueueCmd(m.queueGen), m.resetClusters())
}
