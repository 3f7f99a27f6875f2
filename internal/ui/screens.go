package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// docDef is a document screen: its name, and the document it shows in
// a session (nil: the session has no such screen). A new document
// screen is its own file (a renderer and a page func) and one line in
// docDefs.
type docDef struct {
	id   screenID
	name string
	page func(m *Model) func(width int) page
}

// docDefs are the document screens.
func docDefs() []docDef {
	return []docDef{
		{screenAgreement, "agreement", agreementDoc},
		{screenReport, "report", reportDoc},
	}
}

// agreementDoc is agree --tui's agreement, or a note while it is being
// computed; adjudication computes its own when A opens the screen.
func agreementDoc(m *Model) func(int) page {
	switch {
	case m.cfg.Agreement != nil:
		return m.agreementPage(m.cfg.Agreement, "")
	case m.cfg.LoadAgreement != nil:
		return notePage(m.st, computingAgreement)
	}
	return nil
}

// reportDoc is report --tui's report, or a note while it is being
// computed.
func reportDoc(m *Model) func(int) page {
	r, st := m.cfg.Report, m.st
	switch {
	case r != nil:
		return func(w int) page { return renderReport(st, r, w) }
	case m.cfg.LoadReport != nil:
		return notePage(st, computingReport)
	}
	return nil
}

// What a document screen says while its figures are computed.
const (
	computingReport    = "Computing the report…"
	computingAgreement = "Computing agreement…"
)

// loadDocsCmd computes the document screens the session was given as
// functions (report --tui, agree --tui over a store), one command each:
// the first frame shows the screen saying it is computing.
func (m *Model) loadDocsCmd() tea.Cmd {
	ctx := m.ctx
	var cmds []tea.Cmd
	if load := m.cfg.LoadReport; load != nil && m.cfg.Report == nil {
		cmds = append(cmds, func() tea.Msg {
			v, err := load(ctx)
			return reportLoadedMsg{view: v, err: err}
		})
	}
	if load := m.cfg.LoadAgreement; load != nil && m.cfg.Agreement == nil {
		gen := m.agreeGen
		cmds = append(cmds, func() tea.Msg {
			v, err := load(ctx)
			if err != nil {
				return errMsg{what: "agreement", err: err, agree: true}
			}
			return agreementLoadedMsg{gen: gen, view: v}
		})
	}
	return tea.Batch(cmds...)
}

// setReport shows a computed report, or says why there is none.
func (m *Model) setReport(msg reportLoadedMsg) {
	d := &m.docs[screenReport]
	if msg.err != nil {
		m.errText = "report: " + msg.err.Error()
		d.SetRender(notePage(m.st, "No report: "+msg.err.Error()))
		return
	}
	m.cfg.Report = msg.view
	d.SetRender(reportDoc(m))
}

// setAgreement shows a computed agreement: agree --tui's keeps its title
// for the screen's.
func (m *Model) setAgreement(v *AgreementView) {
	if !m.pol.agreement {
		m.cfg.Agreement = v
	}
	m.docs[screenAgreement].SetRender(m.agreementPage(v, ""))
}

// startDocs builds the session's document screens; the app starts on
// the first one it has (report --tui, agree --tui), where esc quits.
func (m *Model) startDocs() {
	for _, d := range docDefs() {
		page := d.page(m)
		if page == nil {
			continue
		}
		m.docs[d.id] = newDocScreen(m.st, m.keys, page)
		if m.screen == screenQueue {
			m.screen, m.docs[d.id].back = d.id, "quit"
		}
	}
}

// docScreen is the current screen's document, or nil on the queue and
// trace screens.
func (m *Model) docScreen() *docScreen {
	if d := &m.docs[m.screen]; d.render != nil {
		return d
	}
	return nil
}

// screenName names a screen in the title and the switcher.
func screenName(s screenID) string {
	for _, d := range docDefs() {
		if d.id == s {
			return d.name
		}
	}
	switch s {
	case screenTrace:
		return "trace"
	case screenClusters:
		return "clusters"
	}
	return "review"
}

// agreementPage renders an agreement view, or a note in its place (it is
// being computed, or failed) when v is nil.
func (m *Model) agreementPage(v *AgreementView, note string) func(int) page {
	st := m.st
	if v == nil && note != "" {
		return notePage(st, note)
	}
	return func(w int) page { return renderAgreement(st, v, w) }
}

// notePage is a document of one muted line: a screen being computed, or
// why it could not be.
func notePage(st *Styles, note string) func(int) page {
	return func(w int) page {
		return page{lines: []string{st.App.Muted.Render(ansi.Truncate(sanitizeLine(note), w, "…"))}}
	}
}

// handleDocKey routes a key to a document screen and performs the action
// it returns.
func (m Model) handleDocKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	d := m.docScreen() // of this copy of the model, which is returned
	if m.pol.agreement && key.Matches(msg, m.keys.Agreement) {
		return m.leaveDoc()
	}
	a := d.HandleKey(msg)
	if a.status != "" {
		m.status = a.status
	}
	switch a.kind {
	case actBack:
		return m.leaveDoc()
	case actSearch:
		return m, m.openInput(inputDocSearch, d.query)
	case actDrill:
		return m, m.openDrill(a.drill)
	}
	return m, nil
}

// leaveDoc goes back from a document screen: to the screen it was opened
// from in an adjudication, else (the screen the app started on) it quits,
// as the standalone pagers did.
func (m Model) leaveDoc() (tea.Model, tea.Cmd) {
	if m.pol.agreement && m.screen == screenAgreement {
		m.screen = m.prevScreen
		m.agreeGen++ // A computation in flight is now stale.
		return m, nil
	}
	m.quitting = true
	return m, tea.Quit
}

// openDrill shows a figure's traces in the queue: a drill-down that esc
// leaves, back to the figure.
func (m *Model) openDrill(d drill) tea.Cmd {
	if m.store == nil {
		m.status = "no store open: run this from a store (--db) to open traces"
		return nil
	}
	m.drillFrom, m.drilled = m.screen, true
	m.queue.setOnly(d.title, d.keys, m.pol.blind)
	m.screen = screenQueue
	m.status = m.drillStatus()
	return nil
}

// drillStatus says how many of the figure's traces the queue holds.
func (m *Model) drillStatus() string {
	q := &m.queue
	if !q.loaded {
		return fmt.Sprintf("%s: %d traces; loading the queue… (esc goes back)", q.onlyTitle, len(q.only))
	}
	s := fmt.Sprintf("%s: %d traces (esc goes back)", q.onlyTitle, len(q.view))
	if n := len(q.only); n > len(q.view) && q.filter == "" {
		s = fmt.Sprintf("%s: %d of %d traces are in this queue (esc goes back)", q.onlyTitle, len(q.view), n)
	}
	return s
}

// closeDrill leaves a drill-down for the screen it came from, where the
// cursor still is.
func (m *Model) closeDrill() {
	m.queue.setOnly("", nil, m.pol.blind)
	m.screen, m.drilled = m.drillFrom, false
}

// docView is a document screen: a title naming the screen, then the
// visible window of the document.
func (m Model) docView() string {
	d := m.docScreen()
	parts := []string{"triage " + screenName(m.screen)}
	switch {
	case m.screen == screenAgreement && m.pol.agreement:
		parts = []string{m.pol.title, m.shown(m.cfg.Reviewer), "agreement on slice " + m.shown(m.cfg.Slice)}
	case m.screen == screenAgreement && m.cfg.Agreement != nil && m.cfg.Agreement.Title != "":
		parts = append(parts, m.shown(m.cfg.Agreement.Title))
	case m.screen == screenReport && m.cfg.Report != nil && m.cfg.Report.Title != "":
		parts = append(parts, m.shown(m.cfg.Report.Title))
	}
	title := m.st.App.Title.Render(sanitizeLine(strings.Join(parts, " · ")))
	if t := d.current(); t != nil && t.drill.why == "" {
		title += m.st.App.Muted.Render(sanitizeLine(fmt.Sprintf(" · enter opens %s (%d)", t.drill.title, len(t.drill.keys))))
	}
	return ansi.Truncate(title, m.width, "…") + "\n" + d.View()
}
