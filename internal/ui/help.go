package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// labelHelp is one help entry for the digit keys, sized to the taxonomy.
func (m Model) labelHelp() key.Binding {
	n := min(len(m.tax.Classes), len(m.keys.Label))
	if n == 0 {
		return key.NewBinding(key.WithDisabled())
	}
	k := m.keys.Label[0].Help().Key
	if n > 1 {
		k += "-" + m.keys.Label[n-1].Help().Key
	}
	return key.NewBinding(key.WithKeys(m.keys.Label[0].Keys()...), key.WithHelp(k, "label"))
}

// ShortHelp implements help.KeyMap: the footer's main keys for the
// current screen and modal, and only keys that can fire now.
func (m Model) ShortHelp() []key.Binding {
	km := m.keys
	switch m.modal {
	case modalInput:
		return []key.Binding{km.Confirm, withHelp(km.Back, "cancel")}
	case modalSwitch:
		return []key.Binding{km.SwitchDown, km.SwitchUp, withHelp(km.Confirm, "switch"), withHelp(km.Back, "cancel")}
	case modalNote:
		return []key.Binding{km.Save, withHelp(km.Back, "cancel")}
	case modalPicker:
		digits := m.labelHelp()
		if len(m.picker.items) > len(km.Label) {
			digits = km.Digits
		}
		return []key.Binding{km.Down, km.Up, digits, withHelp(km.Confirm, "choose"), withHelp(km.Back, "cancel")}
	case modalTags:
		return []key.Binding{km.Down, km.Up, km.Toggle, withHelp(km.Confirm, "save"), withHelp(km.Back, "cancel")}
	case modalHelp:
		return []key.Binding{withHelp(km.Help, "close help"), km.Quit}
	}
	if d := m.docScreen(); d != nil {
		return append(d.ShortHelp(), km.Help, km.Quit)
	}
	if m.screen == screenClusters {
		return m.clustersShortHelp()
	}
	if m.pol.agreement {
		return m.adjudicateShortHelp()
	}
	if m.screen == screenTrace {
		b := []key.Binding{m.labelHelp(), km.NextTrace, km.NextTab, km.Search}
		if m.trace.query != "" {
			b = append(b, km.NextMatch)
		}
		return append(b, km.Skip, km.Undo, km.Back, km.Help, km.PrevTrace)
	}
	b := []key.Binding{m.labelHelp()}
	if n := len(m.queue.markedIDs()); n > 0 {
		b = []key.Binding{withHelp(m.labelHelp(), fmt.Sprintf("label the %d marked", n)), km.Accept, withHelp(km.Back, "clear marks")}
	}
	if len(m.queue.view) > 0 {
		b = append(b, km.Open)
	}
	b = append(b, m.clusterShortHelp()...)
	b = append(b, km.Filter)
	if m.queue.filter != "" {
		b = append(b, withHelp(km.Back, "clear filter"))
	}
	return append(b, km.Skip, km.Undo, km.Help, km.Quit)
}

// FullHelp implements help.KeyMap: every key valid now, in columns.
func (m Model) FullHelp() [][]key.Binding {
	km := m.keys
	if m.modal != modalNone && m.modal != modalHelp {
		return [][]key.Binding{m.ShortHelp()}
	}
	move := []key.Binding{km.Down, km.Up, km.Top, km.Bottom, km.HalfDown, km.HalfUp}
	label := []key.Binding{m.labelHelp(), km.Picker, km.Tags, km.Note, km.Skip, km.Undo, km.Redo}
	if len(m.tax.Classes) > len(km.Label) {
		label = append(label, km.MoreClasses)
	}
	global := []key.Binding{km.Help, km.Switch, km.Mouse, km.Quit}
	if d := m.docScreen(); d != nil {
		cols := d.FullHelp()
		if m.pol.agreement {
			cols = append(cols, []key.Binding{withHelp(km.Agreement, "close agreement")})
		}
		return append(cols, global)
	}
	if m.screen == screenClusters {
		return m.clustersFullHelp(move, global)
	}
	label[0] = withHelp(label[0], m.pol.labelWord)
	label[3] = withHelp(label[3], m.pol.noteWord)
	if m.pol.agreement {
		global = append([]key.Binding{km.Agreement}, global...)
		if m.screen == screenQueue {
			global = append(global, m.showAllHelp())
		}
	}
	if m.screen == screenQueue {
		q := []key.Binding{km.Open, km.Filter, km.Sort, km.NextTrace, km.PrevTrace}
		if m.queue.filter != "" {
			q = append(q, withHelp(km.Back, "clear filter"))
		}
		if m.bulkRefusal() != "" {
			return [][]key.Binding{move, q, label, global}
		}
		bulk := []key.Binding{km.Mark, km.Range, km.MarkAll, withHelp(m.labelHelp(), "label the marked"), km.Accept}
		if len(m.queue.markedIDs()) > 0 {
			bulk = append(bulk, withHelp(km.Back, "clear marks"))
		}
		return [][]key.Binding{move, q, label, bulk, m.clusterHelp(), global}
	}
	v := &m.trace
	t := []key.Binding{km.NextTrace, km.PrevTrace, km.NextTab, km.PrevTab, km.Search}
	if v.query != "" {
		t = append(t, km.NextMatch, km.PrevMatch, withHelp(km.Back, "clear search"))
	} else {
		t = append(t, withHelp(km.Back, "back to queue"))
	}
	pane := []key.Binding{km.Wrap}
	if !v.wrap {
		pane = append(pane, km.Left, km.Right)
	}
	switch v.tab {
	case tabDiff:
		if len(v.doc().files) > 0 {
			pane = append(pane, km.NextHunk, km.PrevHunk, km.NextFile, km.PrevFile, km.Files)
		}
	case tabTimeline:
		if len(v.doc().calls) > 0 {
			pane = append(pane, km.NextCall, km.PrevCall, km.Fold)
		}
		pane = append(pane, km.FoldAll)
	case tabEvidence:
		if len(v.doc().evs) > 0 {
			pane = append(pane, km.Jump)
		}
	}
	cols := [][]key.Binding{move, t}
	if len(pane) > 0 {
		cols = append(cols, pane)
	}
	return append(cols, label, m.clusterHelp(), global)
}

// withHelp is b with another description, for keys whose meaning depends
// on the state (esc clears a filter, or goes back).
func withHelp(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// classLegend lists the digit of each class, for the help overlay.
func (m Model) classLegend() []string {
	var out []string
	for i, c := range m.tax.Classes {
		k := "p"
		if i < len(m.keys.Label) {
			k = m.keys.Label[i].Help().Key
		} else if mk := m.keys.MoreClasses.Help().Key; mk != "" {
			// 0 opens the picker, where the class's number picks it.
			k = fmt.Sprintf("%s %d", mk, i+1)
		}
		out = append(out, fmt.Sprintf("%s=%s", k, sanitizeLine(c.Code)))
	}
	return out
}

// helpGrid lays out every enabled binding as "key desc" cells in as many
// columns as fit the width, filled column by column, so the overlay never
// cuts a key off on a narrow terminal.
func helpGrid(st *Styles, groups [][]key.Binding, width int) string {
	var keys, descs []string
	kw, dw := 0, 0
	for _, g := range groups {
		for _, b := range g {
			if !b.Enabled() || b.Help().Key == "" {
				continue
			}
			keys, descs = append(keys, b.Help().Key), append(descs, b.Help().Desc)
			kw, dw = max(kw, ansi.StringWidth(b.Help().Key)), max(dw, ansi.StringWidth(b.Help().Desc))
		}
	}
	if len(keys) == 0 {
		return ""
	}
	cellW := kw + 1 + dw + 3
	cols := max(1, min(len(keys), width/cellW))
	rows := (len(keys) + cols - 1) / cols
	var b strings.Builder
	for r := range rows {
		if r > 0 {
			b.WriteByte('\n')
		}
		var line strings.Builder
		for c := range cols {
			i := c*rows + r
			if i >= len(keys) {
				break
			}
			cell := st.App.FooterKey.Render(fmt.Sprintf("%-*s", kw, keys[i])) + " " + st.App.Muted.Render(fmt.Sprintf("%-*s", dw, descs[i]))
			if c < cols-1 {
				cell += "   "
			}
			line.WriteString(cell)
		}
		b.WriteString(ansi.Truncate(line.String(), width, "…"))
	}
	return b.String()
}

// adjudicateShortHelp is the adjudication footer: the final label, the
// reason, the agreement view and, in the queue, the scope toggle.
func (m Model) adjudicateShortHelp() []key.Binding {
	km := m.keys
	final := withHelp(m.labelHelp(), "final label")
	if m.screen == screenTrace {
		b := []key.Binding{final, withHelp(km.Note, "reason"), km.NextTrace, km.NextTab, km.Search}
		if m.trace.query != "" {
			b = append(b, km.NextMatch)
		}
		return append(b, km.Undo, km.Agreement, km.Back, km.Help)
	}
	b := []key.Binding{final}
	if len(m.queue.view) > 0 {
		b = append(b, km.Open)
	}
	return append(b, withHelp(km.Note, "reason"), km.Undo, km.Agreement, m.showAllHelp(), km.Help, km.Quit)
}

// showAllHelp names what the scope toggle switches to.
func (m Model) showAllHelp() key.Binding {
	if m.showAll {
		return withHelp(m.keys.ShowAll, "disagreements only")
	}
	return m.keys.ShowAll
}
