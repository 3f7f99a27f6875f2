package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// View implements tea.Model. It reads sizes from the layout and draws
// only what is visible.
func (m Model) View() string {
	if m.quitting {
		return ""
	}
	if m.width == 0 {
		return "Loading…"
	}
	if m.lay.tooSmall {
		msg := fmt.Sprintf("Too small: %d×%d (need %d×%d).\nEnlarge the window or press q.", m.width, m.height, minWidth, minHeight)
		// Wrapped to the width: the message must fit the tiny screen.
		msg = m.st.App.TooSmall.Width(m.width).Align(lipgloss.Center).Render(msg)
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, msg)
	}
	top := m.screenOf(m.screen).View(m.session())
	bodyTop, bodyH := m.lay.body(m.screen)
	if box := m.modalBox(); box != "" {
		lines := strings.Split(top, "\n")
		over := strings.Split(lipgloss.Place(m.width, bodyH, lipgloss.Center, lipgloss.Center, box), "\n")
		for i := 0; i < len(over) && bodyTop+i < len(lines); i++ {
			lines[bodyTop+i] = over[i]
		}
		top = strings.Join(lines, "\n")
	}
	return top + "\n" + m.statusLine() + "\n" + m.footer()
}

func (m Model) statusLine() string {
	switch {
	case m.modal == modalInput, m.modal == modalSwitch:
		return m.input.View()
	case m.errText != "":
		return m.st.App.Error.Render(ansi.Truncate("error: "+sanitizeLine(m.errText), m.width, "…"))
	case m.writing || len(m.writes) > 0:
		return m.st.App.Muted.Render(ansi.Truncate("saving… "+sanitizeLine(m.status), m.width, "…"))
	}
	return m.st.App.Status.Render(ansi.Truncate(sanitizeLine(m.status), m.width, "…"))
}

func (m Model) footer() string {
	return ansi.Truncate(m.help.ShortHelpView(m.ShortHelp()), m.width, "…")
}

// modalBox draws the open picker, note or help box, or "".
func (m Model) modalBox() string {
	boxW, boxH := m.modalSize()
	box := m.st.Picker.Box
	innerW := max(0, boxW-box.GetHorizontalFrameSize())
	innerH := max(1, boxH-box.GetVerticalFrameSize()-1)
	title := ""
	var body string
	switch m.modal {
	case modalPicker, modalTags, modalFiles, modalSwitch:
		title = m.picker.title
		body = m.picker.view(m.st, innerW, innerH)
	case modalNote:
		title = m.pol.noteTitle
		if m.pending != "" {
			title = "Reason for " + m.pending + " (required)"
		}
		body = m.note.View()
	case modalHelp:
		title = "Keys"
		body = helpGrid(m.st, m.FullHelp(), innerW)
		legend := strings.Join(m.classLegend(), "  ")
		body += "\n\n" + m.st.App.Muted.Render(lipgloss.NewStyle().Width(innerW).Render(legend))
	default:
		return ""
	}
	title = m.st.Picker.Title.Render(ansi.Truncate(sanitizeLine(title), innerW, "…"))
	return box.Width(innerW).Render(title + "\n" + body)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func firstLine(s string) string {
	l, rest, _ := strings.Cut(s, "\n")
	if rest != "" {
		l += " …"
	}
	return l
}
