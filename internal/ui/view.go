package ui

import (
	"fmt"
	"math"
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
		top = overlayBox(top, box, m.width, bodyTop, bodyH)
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
		return m.helpBox()
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

// helpSize is the help box's inner width and the lines its body shows:
// the screen's whole width and the body's height, so the keys of a
// narrow screen are laid out in columns and scroll rather than being cut
// off below the screen's last line.
func (m Model) helpSize() (innerW, rows int) {
	box := m.st.Picker.Box
	_, bodyH := m.lay.body(m.screen)
	innerW = max(20, m.width-2) - box.GetHorizontalFrameSize()
	// The title and the scroll note take a line each.
	rows = max(1, bodyH-box.GetVerticalFrameSize()-2)
	return innerW, rows
}

// helpLines are the help's lines at width w: the class legend first (the
// labelling keys a reviewer needs most), then every key valid now.
func (m Model) helpLines(w int) []string {
	grid := strings.Split(helpGrid(m.st, m.FullHelp(), w), "\n")
	if m.cfg.Reviewer == "" {
		return grid // Read only: no class can be given, no legend.
	}
	legend := m.st.App.Muted.Render(lipgloss.NewStyle().Width(w).Render(strings.Join(m.classLegend(), "  ")))
	lines := strings.Split(legend, "\n")
	lines = append(lines, "")
	return append(lines, grid...)
}

// helpBox draws the help, scrolled to helpOff, with a note saying what
// is above or below.
func (m Model) helpBox() string {
	w, rows := m.helpSize()
	lines := m.helpLines(w)
	off := min(m.helpOff, max(0, len(lines)-rows))
	shown := lines[off:min(len(lines), off+rows)]
	note := ""
	if len(lines) > rows {
		note = fmt.Sprintf("lines %d–%d of %d · j/k scroll", off+1, off+len(shown), len(lines))
	}
	title := m.st.Picker.Title.Render("Keys")
	body := strings.Join(shown, "\n") + "\n" + m.st.App.Muted.Render(note)
	return m.st.Picker.Box.Width(w).Render(title + "\n" + body)
}

// scrollHelp moves the help by d lines, within its length.
func (m *Model) scrollHelp(d int) {
	w, rows := m.helpSize()
	n := len(m.helpLines(w))
	m.helpOff = max(0, min(m.helpOff+d, n-rows))
}

// overlayBox draws box centred over the body (bodyH lines from line
// bodyTop) of screen, a w wide screen, and keeps what the box does not
// cover: the diff beside a file list stays in sight (whole blank lines
// replaced it).
func overlayBox(screen, box string, w, bodyTop, bodyH int) string {
	lines := strings.Split(screen, "\n")
	over := strings.Split(box, "\n")
	boxW := 0
	for _, l := range over {
		boxW = max(boxW, ansi.StringWidth(l))
	}
	// Centred as lipgloss.Place centres: the odd cell goes to the right.
	gapX, gapY := max(0, w-boxW), max(0, bodyH-len(over))
	x := gapX - int(math.Round(float64(gapX)*0.5))
	y := gapY - int(math.Round(float64(gapY)*0.5))
	const reset = "\x1b[m"
	for i, ol := range over {
		at := bodyTop + y + i
		if at >= len(lines) || i >= bodyH {
			break
		}
		under := lines[at]
		left := ansi.Truncate(under, x, "")
		left += strings.Repeat(" ", max(0, x-ansi.StringWidth(left)))
		pad := strings.Repeat(" ", max(0, boxW-ansi.StringWidth(ol)))
		right := ansi.TruncateLeft(under, x+boxW, "")
		if strings.Contains(under, "\x1b") || strings.Contains(ol, "\x1b") {
			// A style left open on either side must not bleed across.
			lines[at] = left + reset + ol + pad + reset + right
		} else {
			lines[at] = left + ol + pad + right
		}
	}
	return strings.Join(lines, "\n")
}
