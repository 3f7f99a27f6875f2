package ui

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// Config is what cmd/triage decides for a review session.
type Config struct {
	// Reviewer names the person labelling; every event carries it.
	Reviewer string
	// RunID limits the queue to one run; empty means every run.
	RunID string
	// Slice reviews a held-out slice's items instead of the leftovers.
	Slice string
	// Blind hides the rules' verdict, evidence highlights and other
	// reviewers' labels; they are not even fetched.
	Blind bool
	// All reviews every trace of the run, not only the leftovers.
	All bool
	// Taxonomy gives the classes (digit i sets class i) and tags. Nil
	// means the seed article's eight classes.
	Taxonomy *triage.Taxonomy
	// Mouse enables wheel scrolling; Run also turns on mouse reporting.
	Mouse bool
	// Theme picks the palette (ThemeAuto: the terminal's background
	// decides); NO_COLOR draws none whatever the theme.
	Theme Theme
	// Wrap starts with long lines wrapped in every pane (w toggles it);
	// without it they are cut and ← and → scroll sideways.
	Wrap bool
	// KeyMap overrides the bindings (see LoadKeyMap); nil uses defaults.
	KeyMap *KeyMap
	// Now stamps label events; nil means time.Now. Tests inject a clock.
	Now func() time.Time
	// Report, when set, starts the app on the report screen (report
	// --tui); its bars and grid cells open their traces in the queue,
	// which then covers every trace (set All).
	Report *reportview.Report
	// Agreement, when set, starts the app on the agreement screen (agree
	// --tui); its matrix cells and confused pairs open their traces.
	Agreement *AgreementView
	// LoadReport, set in place of Report, computes the report in a
	// command: the app starts on the report screen at once, saying it is
	// computing, and shows the figures when they come (a report over
	// 100k traces takes seconds). LoadAgreement completes Agreement (its
	// caveats read the whole store), shown meanwhile. They run once, off
	// the UI goroutine, with the session's context, before the queue is
	// read: the figures are what the reviewer asked for, the queue only
	// what they open.
	LoadReport    func(ctx context.Context) (*reportview.Report, error)
	LoadAgreement func(ctx context.Context) (*AgreementView, error)
	// Runs and Slices are what the : switcher offers besides screens.
	Runs   []string
	Slices []string
	// Baseline, when set, is the run the clusters are compared with:
	// clusters it does not show are novel, first on the clusters screen,
	// and their traces come first in the queue's own order.
	Baseline string
	// Redactor masks sentinels and secrets in everything shown
	// (--redact); the trace's task adds its own sentinels. Nil shows
	// text as stored.
	Redactor *triage.Redactor
}

type modalID int

const (
	modalNone modalID = iota
	modalHelp
	modalPicker
	modalTags
	modalNote
	modalInput  // the filter or search line
	modalFiles  // the diff's file list
	modalSwitch // the : switcher of screens, runs and slices
)

type inputMode int

const (
	inputFilter inputMode = iota
	inputSearch
	inputDocSearch // search the report or agreement screen
)

// Model is the root of the review app. It owns the size, the screen, the
// open modal and all routing; children are typed fields.
type Model struct {
	store Store
	cfg   Config
	ctx   context.Context
	keys  *KeyMap
	st    *Styles
	tax   *triage.Taxonomy

	width, height int
	lay           layout
	natural       colWidths // the queue's content widths, for the layout

	screen  screenID
	modal   modalID
	inputOf inputMode
	// inputWas is the filter as it stood when / opened: esc puts it back
	// (the filter applies as it is typed).
	inputWas string
	// helpOff is the first line of the help shown (? then j/k scroll).
	helpOff int
	// quitArmed: esc on the screen the app started on asked whether to
	// quit; quitAsked is that, for the key being handled (a second esc
	// quits, any other key disarms it).
	quitArmed, quitAsked bool

	queue  queueScreen
	trace  traceScreen
	picker picker
	note   textarea.Model
	input  textinput.Model
	help   help.Model

	status   string
	errText  string
	queueGen int
	traceGen int

	// writes is the label write queue: one event in flight at a time so
	// that a label and its undo reach the store in key order.
	writes  []triage.LabelEvent
	writing bool
	// undoStack holds each change this reviewer made in the session
	// (labels, tags, notes, skips, adjudications), latest last: undo
	// takes back the latest, wherever the cursor has moved since.
	// redoStack holds what undo took back, for redo; a new change clears
	// it, as in an editor.
	undoStack []change
	redoStack []change
	// batches numbers bulk decisions, for the undo stack.
	batches int
	// drafts hold tags and a note chosen before the primary: an event
	// needs a primary, so they travel with it.
	drafts map[int64]draft

	quitting bool

	// pol is the session's policy: review, blind slice or adjudication.
	pol policy

	// Adjudication (nil adj: a review session). reviews holds each
	// item's reviewer labels; pending is the class waiting for its
	// reason in the note box.
	adj        AdjudicationStore
	reviews    map[int64][]triage.LabelEvent
	showAll    bool
	pending    string
	prevScreen screenID
	agreeGen   int

	// docs are the document screens, by screen (see docDef; a screen
	// this session lacks has no render); drillFrom is the screen a
	// drill-down came from, which esc in the drilled queue goes back to.
	docs      [numScreens]docScreen
	drillFrom screenID
	drilled   bool
	// docsPending counts the document screens being computed (LoadReport,
	// LoadAgreement); the queue is read when it falls to zero.
	docsPending int
	// switching is the switcher's entries that match what is typed.
	switching []switchEntry
	// clusterStore computes the clusters (nil: the store cannot), shown
	// on the clusters screen.
	clusterStore ClusterStore
	clusters     clusterScreen
	// causes are the root causes of the queue rows shown so far (see
	// causesCmd); causing is set while a request is out.
	causes  map[int64]string
	causing bool
}

// draft is a label's tags and note waiting for its primary.
type draft struct {
	tags    []string
	note    string
	hasTags bool
	hasNote bool
}

// New builds the review app over store. Nothing is read until Init's
// command runs.
func New(store Store, cfg Config) Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	km := DefaultKeyMap()
	if cfg.KeyMap != nil {
		km = *cfg.KeyMap
	}
	tax := cfg.Taxonomy
	if tax == nil {
		tax = seedTaxonomy()
	}
	st := StylesFor(cfg.Theme)
	// Static cursors: a blinking one ticks for ever, which keeps frames
	// and golden tests from settling and buys a reviewer nothing.
	ti := textinput.New()
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.Prompt = "/"
	ti.CharLimit = 256
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.CharLimit = 4000
	ta.Placeholder = "Why this label? (ctrl+s saves, esc cancels)"
	h := help.New()
	h.Styles.ShortKey = st.App.FooterKey
	h.Styles.ShortDesc = st.App.Muted
	h.Styles.ShortSeparator = st.App.FooterSep
	h.Styles.FullKey = st.App.FooterKey
	h.Styles.FullDesc = st.App.Muted
	h.Styles.FullSeparator = st.App.FooterSep
	m := Model{
		store:  store,
		cfg:    cfg,
		ctx:    context.Background(),
		keys:   &km,
		st:     st,
		tax:    tax,
		note:   ta,
		input:  ti,
		help:   h,
		drafts: map[int64]draft{},
		trace:  traceScreen{newTraceView(st.DiffView, cfg.Wrap)},
		pol:    policyFor(cfg),
	}
	if a := m.cfg.Agreement; a != nil && m.cfg.LoadAgreement != nil && a.Caveats == "" {
		// Shown while LoadAgreement completes it; a copy, as the caller
		// may still hold the view.
		c := *a
		c.Caveats = countingCaveats
		m.cfg.Agreement = &c
	}
	m.startDocs()
	m.docsPending = pendingDocs(&m.cfg)
	m.clusterStore, _ = store.(ClusterStore)
	m.clusters.open = -1
	if cfg.Baseline != "" && m.clusterRefusal() == "" {
		m.clusters.state = clustersLoading // Init computes them, for the queue's order.
	}
	return m
}

// WithContext returns m with the context its store calls use; Run sets
// it so that cancelling the session cancels pending reads.
func (m Model) WithContext(ctx context.Context) Model {
	m.ctx = contextOrBackground(ctx)
	return m
}

// Init implements tea.Model: it loads the queue.
func (m Model) Init() tea.Cmd {
	docs := m.loadDocsCmd()
	if m.store == nil || docs != nil {
		// A document screen on its own, or one being computed: the
		// queue is read once it is in (see docLoaded).
		return docs
	}
	if m.adjudicating() {
		return tea.Batch(m.loadDisputesCmd(m.queueGen), docs)
	}
	if m.clusters.state == clustersLoading {
		return tea.Batch(m.loadFirstQueueCmd(m.queueGen), m.loadClustersCmd(m.clusters.gen), docs)
	}
	return tea.Batch(m.loadFirstQueueCmd(m.queueGen), docs)
}

// seedTaxonomy is the seed article's eight classes, used when the caller
// gives no taxonomy.
func seedTaxonomy() *triage.Taxonomy {
	codes := []string{
		triage.PassContract, triage.PassWeak, triage.AssumeAPI, triage.ToolLoop,
		triage.MissingAsk, triage.ScopeSlip, triage.Timeout, triage.ScorerRed,
	}
	t := &triage.Taxonomy{Name: "seed", SecondaryTags: []string{triage.TagLeaked}}
	for _, c := range codes {
		t.Classes = append(t.Classes, triage.Class{Code: c})
	}
	return t
}
