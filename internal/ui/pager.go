package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/triage-dev/triage/internal/agreement"
)

// pager is a read-only screen of pre-rendered lines (the agreement and
// report views run on their own): it scrolls, re-renders on resize and
// quits on q or esc.
type pager struct {
	st     *Styles
	keys   *KeyMap
	help   help.Model
	render func(width int) []string
	lines  []string
	width  int
	height int
	offset int
}

func newPager(render func(*Styles, int) []string) pager {
	st := DefaultStyles()
	km := DefaultKeyMap()
	h := help.New()
	h.Styles.ShortKey = st.App.FooterKey
	h.Styles.ShortDesc = st.App.Muted
	h.Styles.ShortSeparator = st.App.FooterSep
	return pager{st: st, keys: &km, help: h, render: func(w int) []string { return render(st, w) }}
}

// Init implements tea.Model.
func (p pager) Init() tea.Cmd { return nil }

// Update implements tea.Model.
func (p pager) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.width, p.height = msg.Width, msg.Height
		p.help.Width = msg.Width
		p.lines = p.render(msg.Width)
		p.scroll(0)
	case tea.MouseMsg:
		if msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				p.scroll(-wheelLines)
			case tea.MouseButtonWheelDown:
				p.scroll(wheelLines)
			}
		}
	case tea.KeyMsg:
		km, half := p.keys, max(1, p.bodyHeight()/2)
		switch {
		case msg.Type == tea.KeyCtrlC, key.Matches(msg, km.Quit), key.Matches(msg, km.Back):
			return p, tea.Quit
		case key.Matches(msg, km.Down):
			p.scroll(1)
		case key.Matches(msg, km.Up):
			p.scroll(-1)
		case key.Matches(msg, km.HalfDown):
			p.scroll(half)
		case key.Matches(msg, km.HalfUp):
			p.scroll(-half)
		case key.Matches(msg, km.Top):
			p.scroll(-len(p.lines))
		case key.Matches(msg, km.Bottom):
			p.scroll(len(p.lines))
		}
	}
	return p, nil
}

// bodyHeight is the lines left for content above the footer.
func (p *pager) bodyHeight() int { return max(0, p.height-1) }

func (p *pager) scroll(d int) {
	p.offset = max(0, min(p.offset+d, len(p.lines)-p.bodyHeight()))
}

// View implements tea.Model.
func (p pager) View() string {
	if p.width == 0 {
		return "Loading…"
	}
	return pageView(p.lines, p.offset, p.width, p.bodyHeight()) + "\n" + p.footer()
}

func (p pager) footer() string {
	km := p.keys
	b := []key.Binding{km.Down, km.Up, km.HalfDown, km.Top, km.Bottom, withHelp(km.Quit, "quit")}
	pos := ""
	if n := len(p.lines); n > p.bodyHeight() {
		pos = fmt.Sprintf("  %d-%d/%d", p.offset+1, min(n, p.offset+p.bodyHeight()), n)
	}
	return ansi.Truncate(p.help.ShortHelpView(b)+p.st.App.Muted.Render(pos), p.width, "…")
}

// pageView is height lines of a rendered document from offset, padded so
// the footer stays at the bottom.
func pageView(lines []string, offset, width, height int) string {
	out := make([]string, 0, height)
	for i := offset; i < len(lines) && len(out) < height; i++ {
		out = append(out, ansi.Truncate(lines[i], width, "…"))
	}
	for len(out) < height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

// NewAgreementView is the standalone agreement screen's model, exported
// for tests and for callers that run their own program.
func NewAgreementView(rep *agreement.Report, title string) tea.Model {
	return newPager(func(st *Styles, w int) []string { return renderAgreement(st, rep, title, w) })
}

// NewReportView is the standalone report screen's model.
func NewReportView(r *ReportView) tea.Model {
	return newPager(func(st *Styles, w int) []string { return renderReport(st, r, w) })
}

// RunAgreement shows an agreement report full screen until q or esc.
func RunAgreement(ctx context.Context, rep *agreement.Report, title string, opts ...tea.ProgramOption) error {
	if rep == nil {
		return errors.New("agreement view: no report")
	}
	if err := runProgram(ctx, NewAgreementView(rep, title), true, opts); err != nil {
		return err
	}
	return ctx.Err()
}

// RunReport shows a report full screen until q or esc.
func RunReport(ctx context.Context, r *ReportView, opts ...tea.ProgramOption) error {
	if r == nil {
		return errors.New("report view: no report")
	}
	if err := runProgram(ctx, NewReportView(r), true, opts); err != nil {
		return err
	}
	return ctx.Err()
}
