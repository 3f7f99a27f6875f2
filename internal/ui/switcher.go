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
	for i, d := range registry {
		if id := screenID(i); d.offered != nil && d.offered(m, id) {
			out = append(out, switchEntry{kind: switchScreen, screen: id, label: "screen " + d.name})
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
	m.picker.empty = "Nothing to switch to matches " + strconvQuote(m.input.Value()) + ": this session offers " + m.offeredWords()
}

// offeredWords says what kinds of entry the switcher has this session
// ("screens, runs and slices"), for the note shown when a typed name
// matches none.
func (m *Model) offeredWords() string {
	var kinds []string
	seen := map[switchKind]bool{}
	for _, e := range m.switchEntries() {
		if !seen[e.kind] {
			seen[e.kind] = true
			kinds = append(kinds, [...]string{"screens", "runs", "slices"}[e.kind])
		}
	}
	switch len(kinds) {
	case 0:
		return "nothing"
	case 1:
		return kinds[0]
	}
	return strings.Join(kinds[:len(kinds)-1], ", ") + " and " + kinds[len(kinds)-1]
}

// strconvQuote quotes typed text for a message.
func strconvQuote(s string) string { return "“" + s + "”" }

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
		if open := registry[e.screen].open; open != nil {
			return open(m)
		}
		return m.show(e.screen)
	case switchRun:
		m.cfg.RunID, m.cfg.Slice, m.cfg.Blind = e.name, "", false
	case switchSlice:
		m.cfg.RunID, m.cfg.Slice, m.cfg.Blind, m.cfg.All = "", e.name, true, false
	}
	m.pol = policyFor(m.cfg)
	m.status = e.label
	return m.reloadQueue()
}

// show shows screen id as it was left.
func (m *Model) show(id screenID) tea.Cmd {
	if m.screen == screenTrace {
		m.traceGen++ // Any load in flight is now stale.
	}
	m.screen = id
	m.status = "screen " + screenName(id)
	return nil
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

// refreshQueue reads the whole queue again behind the one shown, as the
// first page's load does: the cursor, the filter and the labels written
// meanwhile stay, and every row takes the labels the store holds now
// (another reviewer's on a shared store).
func (m *Model) refreshQueue() tea.Cmd {
	m.queueGen++
	q := &m.queue
	q.partial, q.moved, q.touched = true, true, map[int64]bool{}
	m.status = refreshingStatus
	return m.queueCmd(m.queueGen, 0)
}

// refreshingStatus is the status line while a refresh reads the queue.
const refreshingStatus = "reading everyone's labels again…"
