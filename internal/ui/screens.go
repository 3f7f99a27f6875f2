package ui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/triage-dev/triage/internal/triage"
)

// screen is what the root asks of every screen. The root sizes it (h is
// the height under the screen's own title lines), hands it the keys and
// clicks it does not take itself (global keys, modals, labelling),
// performs the Action it returns and draws it above the status line.
// s is the session as the screen may read it: built by the root for each
// call, never kept, never written.
type screen interface {
	SetSize(w, h int)
	HandleKey(msg tea.KeyMsg, s *session) Action
	HandleMouse(msg tea.MouseMsg, s *session) Action
	View(s *session) string
	ShortHelp(s *session) []key.Binding
	FullHelp(s *session) [][]key.Binding
}

// screenID names a screen: its place in the registry.
type screenID int

// screenDef is all the root knows of a screen, written in the screen's
// own file: its name (in titles and the switcher), its component, where
// its body is drawn, whether the : switcher offers it and what showing it
// does. A nil func takes the default given on the field.
type screenDef struct {
	name string
	// of is its component: a typed field of the root (STYLE §5), or a
	// document screen's entry in m.docs.
	of func(m *Model, id screenID) screen
	// body is its body's first screen line and height, for sizing it
	// and for the modal boxes drawn over it (nil: a document's).
	body func(l *layout) (top, h int)
	// offered says whether : lists it now (nil: never).
	offered func(m *Model, id screenID) bool
	// open shows it from another screen (nil: as it was left).
	open func(m *Model) tea.Cmd
	// doc is a document screen's page and title (nil: not one).
	doc *docDef
}

// The screens, in the switcher's order.
const (
	screenQueue screenID = iota
	screenTrace
	screenClusters  // the failing traces by signature (C)
	screenAgreement // the agreement figures (agree --tui, A in adjudicate)
	screenReport    // the report's figures (report --tui)
	numScreens
)

// registry is every screen's def, by ID. Each def is written in its
// screen's own file, so a screen is that file, its ID above and its line
// here (and, unless it is a document, its typed field in Model). It is
// filled in init because defs refer to the root's methods, which read
// the registry: as a variable's initialiser that would be a cycle.
var registry [numScreens]screenDef

func init() {
	registry = [numScreens]screenDef{
		screenQueue:     queueScreenDef(),
		screenTrace:     traceScreenDef(),
		screenClusters:  clustersScreenDef(),
		screenAgreement: agreementScreenDef(),
		screenReport:    reportScreenDef(),
	}
}

// screenOf is the component that is screen id.
func (m *Model) screenOf(id screenID) screen { return registry[id].of(m, id) }

// screenName names a screen in the title and the switcher.
func screenName(id screenID) string { return registry[id].name }

// docOf is a document screen's component, in m.docs.
func docOf(m *Model, id screenID) screen { return &m.docs[id] }

// docOffered offers a document screen the session has, but never in
// blind review: the figures quote what blind review hides.
func docOffered(m *Model, id screenID) bool { return m.docs[id].render != nil && !m.pol.blind }

// body is where screen id's body is: its def's, else a document's.
func (l *layout) body(id screenID) (top, h int) {
	if f := registry[id].body; f != nil {
		return f(l)
	}
	return 1, l.agreeBody
}

// session is what the screens read of the session the root runs.
type session struct {
	st      *Styles
	keys    *KeyMap
	tax     *triage.Taxonomy
	pol     *policy
	cfg     *Config
	queue   *queueModel // the review queue, where the trace screen is in it
	drafts  map[int64]draft
	reviews map[int64][]triage.LabelEvent
	showAll bool
	// drilled: the queue shows a figure's traces, from screen drillFrom.
	drilled   bool
	drillFrom screenID
	// clusters: this session has the clusters screen; noCause: the
	// queue shows its "no cause found" row, which is never labelled whole.
	clusters, noCause bool
	// causes are the root causes fetched for queue rows (whyOf).
	causes map[int64]string
}

// session is the session for this call's screen.
func (m *Model) session() *session {
	return &session{st: m.st, keys: m.keys, tax: m.tax, pol: &m.pol, cfg: &m.cfg, queue: &m.queue.queueModel,
		drafts: m.drafts, reviews: m.reviews, showAll: m.showAll, drilled: m.drilled, drillFrom: m.drillFrom, clusters: m.clusterRefusal() == "", causes: m.causes,
		noCause: m.drilled && m.drillFrom == screenClusters && m.clusters.openNoCause()}
}

// docDef is what a document screen adds to its screenDef: the document
// it shows in a session (nil: the session has no such screen) and its
// title. A new document screen is its own file (a renderer, a page func,
// a title func, its screenDef) and its line in the registry.
type docDef struct {
	page  func(m *Model) func(width int) page
	title func(s *session) []string
}

// newDoc is document screen id showing page.
func (m *Model) newDoc(id screenID, page func(int) page) docScreen {
	d := newDocScreen(m.st, m.keys, page)
	if def := registry[id].doc; def != nil {
		d.title = def.title
	}
	return d
}

// What a document screen says while its figures are computed.
const (
	computingReport    = "Computing the report…"
	computingAgreement = "Computing agreement…"
	// countingCaveats stands in for agree --tui's caveats meanwhile.
	countingCaveats = "still being counted over the whole store…"
)

// loadDocsCmd computes the document screens the session was given as
// functions (report --tui, agree --tui over a store), one command each:
// the first frame shows the screen saying it is computing (pendingDocs
// counts them).
func (m *Model) loadDocsCmd() tea.Cmd {
	ctx := m.ctx
	var cmds []tea.Cmd
	if load := m.cfg.LoadReport; load != nil && m.cfg.Report == nil {
		cmds = append(cmds, func() tea.Msg {
			v, err := load(ctx)
			return reportLoadedMsg{view: v, err: err}
		})
	}
	if load := m.cfg.LoadAgreement; load != nil {
		gen := m.agreeGen
		cmds = append(cmds, func() tea.Msg {
			v, err := load(ctx)
			return agreementLoadedMsg{gen: gen, view: v, err: err, pending: true}
		})
	}
	return tea.Batch(cmds...)
}

// pendingDocs counts the document screens a session computes (see
// loadDocsCmd).
func pendingDocs(cfg *Config) int {
	n := 0
	if cfg.LoadReport != nil && cfg.Report == nil {
		n++
	}
	if cfg.LoadAgreement != nil {
		n++
	}
	return n
}

// docLoaded counts a computed document screen in, and reads the queue
// once the last is: the figures first, then what they open. An
// adjudication's agreement (A) was never pending.
func (m *Model) docLoaded() tea.Cmd {
	if m.docsPending == 0 {
		return nil
	}
	m.docsPending--
	if m.docsPending > 0 || m.store == nil {
		return nil
	}
	return m.loadFirstQueueCmd(m.queueGen)
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
// for the screen's. A completion that failed (agree --tui's caveats)
// leaves the figures shown and says why.
func (m *Model) setAgreement(msg agreementLoadedMsg) {
	v := msg.view
	if msg.err != nil {
		m.errText = "agreement: " + msg.err.Error()
		if !msg.pending {
			// The figures were being computed: the page says it failed.
			// (agree --tui's completion keeps the figures it has.)
			m.docs[screenAgreement].SetRender(m.agreementPage(nil, m.errText))
		}
		return
	}
	if !m.pol.agreement {
		m.cfg.Agreement = v
	}
	m.docs[screenAgreement].SetRender(m.agreementPage(v, ""))
}

// startDocs builds the session's document screens; the app starts on
// the first one it has (report --tui, agree --tui), where esc quits.
func (m *Model) startDocs() {
	for i, d := range registry {
		if d.doc == nil {
			continue
		}
		id := screenID(i)
		page := d.doc.page(m)
		if page == nil {
			continue
		}
		m.docs[id] = m.newDoc(id, page)
		if m.screen == screenQueue {
			m.screen, m.docs[id].back = id, "quit"
		}
	}
}

// docScreen is the current screen's document, or nil on a screen that is
// not a document (the queue, the trace, the clusters).
func (m *Model) docScreen() *docScreen {
	if d := &m.docs[m.screen]; d.render != nil && registry[m.screen].doc != nil {
		return d
	}
	return nil
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

// leaveDoc goes back from a document screen: to the screen it was opened
// from in an adjudication, else (the screen the app started on) it quits,
// as the standalone pagers did.
func (m *Model) leaveDoc() tea.Cmd {
	if m.pol.agreement && m.screen == screenAgreement {
		m.screen = m.prevScreen
		m.agreeGen++ // A computation in flight is now stale.
		return nil
	}
	// The screen the app started on: esc asks before it quits, since
	// esc elsewhere only goes back (q quits at once).
	if !m.quitAsked {
		m.quitArmed = true
		m.status = "esc again quits (q quits at once; any other key stays)"
		return nil
	}
	m.quitting = true
	return tea.Quit
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
