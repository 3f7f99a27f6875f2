package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// writes is b as help shows it: hidden in a read-only session (report
// --tui or agree --tui opened traces with no reviewer), where no key that
// writes a label can fire (issue 29: the label keys were offered).
func (s *session) writes(b key.Binding) key.Binding {
	if s.cfg.Reviewer == "" {
		b.SetEnabled(false)
	}
	return b
}

// labelHelp is one help entry for the digit keys, sized to the taxonomy.
func (s *session) labelHelp() key.Binding {
	n := min(len(s.tax.Classes), len(s.keys.Label))
	if n == 0 || s.cfg.Reviewer == "" {
		return key.NewBinding(key.WithDisabled())
	}
	k := s.keys.Label[0].Help().Key
	if n > 1 {
		k += "-" + s.keys.Label[n-1].Help().Key
	}
	return key.NewBinding(key.WithKeys(s.keys.Label[0].Keys()...), key.WithHelp(k, "label"))
}

// labelKeys are the labelling keys' help column, in the policy's words.
func (s *session) labelKeys() []key.Binding {
	km := s.keys
	label := []key.Binding{withHelp(s.labelHelp(), s.pol.labelWord), km.Picker, km.Tags, withHelp(km.Note, s.pol.noteWord), km.Skip, km.Undo, km.Redo}
	if len(s.tax.Classes) > len(km.Label) {
		label = append(label, km.MoreClasses)
	}
	for i := range label {
		label[i] = s.writes(label[i])
	}
	return label
}

// globalKeys are the keys that work on every screen.
func (s *session) globalKeys() []key.Binding {
	km := s.keys
	return []key.Binding{km.Help, km.Switch, km.Mouse, km.Quit}
}

// sessionKeys are the global keys with the policy's own (A opens the
// agreement in an adjudication).
func (s *session) sessionKeys() []key.Binding {
	if s.pol.agreement {
		return append([]key.Binding{s.keys.Agreement}, s.globalKeys()...)
	}
	return s.globalKeys()
}

// ShortHelp implements help.KeyMap: the footer's main keys for the
// current screen and modal, and only keys that can fire now.
func (m Model) ShortHelp() []key.Binding {
	km := m.keys
	s := m.session()
	switch m.modal {
	case modalInput:
		return []key.Binding{km.Confirm, withHelp(km.Back, "cancel")}
	case modalSwitch:
		return []key.Binding{km.SwitchDown, km.SwitchUp, withHelp(km.Confirm, "switch"), withHelp(km.Back, "cancel")}
	case modalNote:
		return []key.Binding{km.Save, withHelp(km.Back, "cancel")}
	case modalPicker:
		digits := s.labelHelp()
		if len(m.picker.items) > len(km.Label) {
			digits = km.Digits
		}
		return []key.Binding{km.Down, km.Up, digits, withHelp(km.Confirm, "choose"), withHelp(km.Back, "cancel")}
	case modalTags:
		return []key.Binding{km.Down, km.Up, km.Toggle, withHelp(km.Confirm, "save"), withHelp(km.Back, "cancel")}
	case modalHelp:
		return []key.Binding{withHelp(km.Help, "close help"), km.Quit}
	}
	return m.screenOf(m.screen).ShortHelp(s)
}

// FullHelp implements help.KeyMap: every key valid now, in columns.
func (m Model) FullHelp() [][]key.Binding {
	if m.modal != modalNone && m.modal != modalHelp {
		return [][]key.Binding{m.ShortHelp()}
	}
	return m.screenOf(m.screen).FullHelp(m.session())
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

// showAllHelp names what the scope toggle switches to.
func (s *session) showAllHelp() key.Binding {
	if s.showAll {
		return withHelp(s.keys.ShowAll, "disagreements only")
	}
	return s.keys.ShowAll
}
