package ui

import (
	"slices"
	"sort"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui/diffview"
)

// tabID is a pane of the trace screen.
type tabID int

const (
	tabTimeline tabID = iota
	tabDiff
	tabTests
	tabEvidence
	tabRaw
	numTabs
)

func (t tabID) String() string {
	return [...]string{"Timeline", "Diff", "Tests", "Evidence", "Raw"}[t]
}

// traceView is the trace screen's state: the loaded trace, one document
// per tab, the scroll position per tab and the search.
type traceView struct {
	id      int64
	loaded  bool
	trace   *triage.Trace
	verdict *triage.Verdict
	tctx    TraceContext
	others  []triage.LabelEvent
	docs    [numTabs]doc
	offset  [numTabs]int
	tab     tabID
	evSel   int
	// target is the line an evidence jump landed on, per tab, so the
	// reviewer sees where to look; -1 for none.
	target   [numTabs]int
	unfolded bool
	idents   []string // evidence identifiers to highlight; nil when blind

	query    string
	matches  []int
	matchIdx int

	width, height int
	// dvStyle is the diffview renderers' style, filled from styles.go.
	dvStyle diffview.Style
}

func newTraceView(st diffview.Style) traceView {
	v := traceView{id: -1, dvStyle: st}
	v.clearTargets()
	return v
}

func (v *traceView) clearTargets() {
	for i := range v.target {
		v.target[i] = -1
	}
}

func (v *traceView) setSize(w, h int) {
	v.width, v.height = w, h
	for t := range v.docs {
		if v.docs[t].view != nil {
			v.docs[t].view.SetWidth(w)
		}
	}
	for t := range v.offset {
		v.clampTab(tabID(t))
	}
}

// open resets the view for a trace being loaded.
func (v *traceView) open(id int64) {
	tab, query, dv := v.tab, v.query, v.dvStyle
	*v = traceView{id: id, tab: tab, query: query, width: v.width, height: v.height, dvStyle: dv}
	v.clearTargets()
}

// setLoaded builds every tab's document for a loaded trace.
func (v *traceView) setLoaded(msg traceLoadedMsg, reviewer string, blind bool) {
	v.loaded = true
	v.trace, v.tctx = msg.trace, msg.tctx
	if !blind {
		v.verdict = msg.verdict
		v.others = othersLabels(msg.history, reviewer)
	}
	v.idents = nil
	var files []string
	if v.verdict != nil {
		for _, e := range v.verdict.Evidence {
			if e.Ident != "" && !slices.Contains(v.idents, e.Ident) {
				v.idents = append(v.idents, e.Ident)
			}
			if e.File != "" && !slices.Contains(files, e.File) {
				files = append(files, e.File)
			}
		}
	}
	v.docs[tabTimeline] = buildTimeline(v.trace, v.unfolded)
	v.docs[tabDiff] = buildDiffView(v.trace, v.dvStyle, v.idents, files, v.width)
	v.docs[tabTests] = buildTestsView(v.trace, v.dvStyle, v.idents, v.width)
	v.docs[tabEvidence] = buildEvidence(v.verdict, v.tctx, v.others, blind)
	v.docs[tabRaw] = buildRaw(v.trace)
	v.findMatches()
}

// othersLabels is each other reviewer's live label (adjudications too).
func othersLabels(history []triage.LabelEvent, reviewer string) []triage.LabelEvent {
	byActor := map[string][]triage.LabelEvent{}
	for _, e := range history {
		if e.Actor != reviewer && e.Actor != triage.ActorRules && e.Kind != triage.KindRule {
			byActor[e.Actor] = append(byActor[e.Actor], e)
		}
	}
	var out []triage.LabelEvent
	for _, evs := range byActor {
		if cur := triage.CurrentLabel(evs); cur != nil {
			out = append(out, *cur)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Actor < out[j].Actor })
	return out
}

// toggleFold folds or unfolds long outputs in the timeline, keeping the
// tool call at the top of the screen in view.
func (v *traceView) toggleFold() {
	if !v.loaded {
		return
	}
	d := &v.docs[tabTimeline]
	anchor := -1
	if off := v.offset[tabTimeline]; off < len(d.lines) {
		anchor = d.lines[off].tool
	}
	v.unfolded = !v.unfolded
	v.target[tabTimeline] = -1
	v.docs[tabTimeline] = buildTimeline(v.trace, v.unfolded)
	if line, ok := v.docs[tabTimeline].tools[anchor]; ok {
		v.offset[tabTimeline] = line
	}
	v.clampTab(tabTimeline)
	if v.tab == tabTimeline {
		v.findMatches()
	}
}

func (v *traceView) doc() *doc { return &v.docs[v.tab] }

func (v *traceView) setTab(t tabID) {
	v.tab = (t + numTabs) % numTabs
	v.findMatches()
}

// scroll moves the current tab by d lines. On the evidence tab with
// evidence, it moves the selection instead and keeps it visible.
func (v *traceView) scroll(d int) {
	if v.tab == tabEvidence && len(v.doc().evs) > 0 {
		v.evSel = max(0, min(v.evSel+d, len(v.doc().evs)-1))
		v.show(v.doc().evs[v.evSel])
		return
	}
	v.offset[v.tab] += d
	v.clampTab(v.tab)
}

func (v *traceView) top()    { v.scroll(-1 << 30) }
func (v *traceView) bottom() { v.scroll(1 << 30) }

// show scrolls so that line is visible, placing it a little below the top
// when it was off screen.
func (v *traceView) show(line int) {
	off := &v.offset[v.tab]
	if line < *off || line >= *off+v.height {
		*off = max(0, line-v.height/4)
	}
	v.clampTab(v.tab)
}

func (v *traceView) clampTab(t tabID) {
	n := v.docs[t].len()
	v.offset[t] = max(0, min(v.offset[t], n-v.height))
}

// search sets the query and jumps to the first match at or below the top
// line of the current tab.
func (v *traceView) search(query string) {
	v.query = query
	v.findMatches()
	if len(v.matches) > 0 {
		v.show(v.matches[v.matchIdx])
	}
}

// findMatches finds the query (smart case: case-insensitive unless it has
// an upper case letter) in the current tab without moving.
func (v *traceView) findMatches() {
	v.matches, v.matchIdx = nil, 0
	query := v.query
	if d := v.doc(); d.view != nil {
		d.view.SetQuery(query)
		v.matches = d.view.Search(query)
		v.firstMatchBelowTop()
		return
	}
	if query == "" {
		return
	}
	fold := strings.ToLower(query) == query
	for i, l := range v.doc().lines {
		t := l.text
		if len(t) > maxLineBytes {
			t = t[:maxLineBytes]
		}
		if fold {
			t = strings.ToLower(t)
		}
		if strings.Contains(t, query) {
			v.matches = append(v.matches, i)
		}
	}
	v.firstMatchBelowTop()
}

func (v *traceView) firstMatchBelowTop() {
	top := v.offset[v.tab]
	for i, ln := range v.matches {
		if ln >= top {
			v.matchIdx = i
			break
		}
	}
}

// nextMatch moves to the next (d=1) or previous (d=-1) match, wrapping.
func (v *traceView) nextMatch(d int) {
	if len(v.matches) == 0 {
		return
	}
	v.matchIdx = (v.matchIdx + d + len(v.matches)) % len(v.matches)
	v.offset[v.tab] = max(0, v.matches[v.matchIdx]-v.height/4)
	v.clampTab(v.tab)
}

// jumpAnchor moves to the next (d=1) or previous anchor of a list (files
// or hunks of the diff) relative to the top line.
func (v *traceView) jumpAnchor(anchors []int, d int) {
	top := v.offset[v.tab]
	if d > 0 {
		v.offset[v.tab] = diffview.NextStart(anchors, top)
	} else {
		v.offset[v.tab] = diffview.PrevStart(anchors, top)
	}
	v.clampTab(v.tab)
}

// jumpEvidence opens the tool call or diff line the selected evidence
// points at, and reports whether there was somewhere to go.
func (v *traceView) jumpEvidence() bool {
	if v.verdict == nil || v.evSel >= len(v.verdict.Evidence) {
		return false
	}
	e := v.verdict.Evidence[v.evSel]
	if d := &v.docs[tabDiff]; e.File != "" && d.diff != nil {
		if row := d.diff.RowFor(e.File, e.Line); row >= 0 {
			v.tab = tabDiff
			v.target[tabDiff] = row
			v.show(row)
			v.findMatches()
			return true
		}
	}
	if e.ToolCall >= 0 {
		if line, ok := v.docs[tabTimeline].tools[e.ToolCall]; ok {
			v.tab = tabTimeline
			v.target[tabTimeline] = line
			v.offset[tabTimeline] = line
			v.clampTab(tabTimeline)
			v.findMatches()
			return true
		}
	}
	return false
}
