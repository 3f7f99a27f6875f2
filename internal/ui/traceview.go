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
	id     int64
	loaded bool
	trace  *triage.Trace
	// steps is the trace's reading, loaded with it (DESIGN §8).
	steps   []triage.Step
	verdict *triage.Verdict
	tctx    TraceContext
	others  []triage.LabelEvent
	docs    [numTabs]doc
	offset  [numTabs]int
	tab     tabID
	evSel   int
	// target is the line an evidence jump landed on, per tab, so the
	// reviewer sees where to look; -1 for none. In the diff it is also
	// the hunk or file that ] and [ step from.
	target [numTabs]int
	// sub is the line within the top row that is shown first (wrap on);
	// xoff the first column shown (wrap off).
	sub  [numTabs]int
	xoff [numTabs]int
	wrap bool
	// cur is the timeline's cursor: the tool call (group head) under it,
	// -1 for none. z folds it; ] and [ move it. curParked says the load
	// put it on the first call, which the reviewer has not been shown
	// yet: the first ] brings that call up rather than stepping past it.
	cur       int
	curParked bool
	// unfolded folds every output one way (Z); flip holds the calls z
	// folded the other way.
	unfolded bool
	flip     map[int]bool
	blocks   blockCache
	spare    []docLine
	// heights caches how many lines a wrapped document row takes, by
	// tab, row and whether it is selected; cleared whenever a document,
	// the width or wrapping changes.
	heights map[heightKey]int
	idents  []string // evidence identifiers to highlight; nil when blind

	query    string
	matches  []int
	matchIdx int

	width, height int
	// dvStyle is the diffview renderers' style, filled from styles.go.
	dvStyle diffview.Style
}

func newTraceView(st diffview.Style, wrap bool) traceView {
	v := traceView{id: -1, dvStyle: st, wrap: wrap, cur: -1}
	v.clearTargets()
	return v
}

func (v *traceView) clearTargets() {
	for i := range v.target {
		v.target[i] = -1
	}
}

func (v *traceView) setSize(w, h int) {
	if w != v.width {
		v.heights = nil
	}
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
	tab, query, dv, wrap := v.tab, v.query, v.dvStyle, v.wrap
	*v = traceView{id: id, tab: tab, query: query, width: v.width, height: v.height, dvStyle: dv, wrap: wrap, cur: -1}
	v.clearTargets()
}

// setLoaded builds every tab's document for a loaded trace.
func (v *traceView) setLoaded(msg traceLoadedMsg, reviewer string, blind bool) {
	v.loaded = true
	v.trace, v.tctx, v.steps = msg.trace, msg.tctx, msg.steps
	v.blocks, v.heights, v.spare = blockCache{}, nil, nil
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
	v.docs[tabTimeline] = buildTimeline(v.trace, v.steps, v.isUnfolded, v.blocks)
	if tl := &v.docs[tabTimeline]; v.cur < 0 && len(tl.calls) > 0 {
		v.cur = tl.lines[tl.calls[0]].tool
		v.curParked = tl.calls[0] > v.offset[tabTimeline]
	}
	v.docs[tabDiff] = buildDiffView(v.trace, v.dvStyle, v.idents, files, v.width)
	v.docs[tabTests] = buildTestsView(v.trace, v.dvStyle, v.idents, v.width)
	v.docs[tabEvidence] = buildEvidence(v.verdict, v.tctx, v.others, blind)
	v.docs[tabRaw] = buildRaw(v.trace)
	for t := range v.docs {
		if dv := v.docs[t].view; dv != nil {
			dv.SetWrap(v.wrap)
			dv.SetXOffset(v.xoff[t])
		}
	}
	v.findMatches()
}

// isUnfolded reports whether a tool call's output (-1: messages and the
// answer) is shown whole.
func (v *traceView) isUnfolded(tool int) bool { return v.unfolded != (tool >= 0 && v.flip[tool]) }

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

// toggleFold folds or unfolds the output of the call under the cursor
// (all outputs when all is set), keeping the cursor's call, or the call
// at the top of the screen, where it was on screen.
func (v *traceView) toggleFold(all bool) {
	if !v.loaded {
		return
	}
	d := &v.docs[tabTimeline]
	if v.cur < 0 && !all {
		v.cur = v.callAtTop()
		if v.cur < 0 {
			return
		}
	}
	anchor, line := v.cur, 0
	if l, ok := d.tools[anchor]; !ok || !v.visible(tabTimeline, l) {
		anchor = -1
		if off := v.offset[tabTimeline]; off < len(d.lines) {
			anchor = d.lines[off].tool
		}
	}
	if l, ok := d.tools[anchor]; ok {
		line = l - v.offset[tabTimeline]
	}
	if all {
		v.unfolded, v.flip = !v.unfolded, nil
	} else {
		if v.flip == nil {
			v.flip = map[int]bool{}
		}
		v.flip[v.cur] = !v.flip[v.cur]
	}
	v.target[tabTimeline] = -1
	v.heights = nil
	// The old document's lines become the next build's buffer.
	old := v.docs[tabTimeline].lines
	v.docs[tabTimeline] = buildTimeline(v.trace, v.steps, v.isUnfolded, v.blocks, v.spare)
	v.spare = old
	if l, ok := v.docs[tabTimeline].tools[anchor]; ok {
		v.offset[tabTimeline], v.sub[tabTimeline] = max(0, l-max(0, line)), 0
	}
	v.clampTab(tabTimeline)
	if v.tab == tabTimeline {
		v.findMatches()
	}
}

// callAtTop is the tool call shown on the timeline's top line (or the
// first one whose header is on screen), -1 for none.
func (v *traceView) callAtTop() int {
	d := &v.docs[tabTimeline]
	off := v.offset[tabTimeline]
	if off < len(d.lines) && d.lines[off].tool >= 0 {
		return d.lines[off].tool
	}
	for _, l := range d.calls {
		if l >= off && v.visible(tabTimeline, l) {
			return d.lines[l].tool
		}
	}
	return -1
}

// stepCall moves the timeline's cursor to the next (d=1) or previous
// tool call and puts its header on top; it reports whether it moved.
func (v *traceView) stepCall(d int) bool { return v.stepAmong(v.docs[tabTimeline].calls, d) }

// stepFailing moves to the next (d=1) or previous call whose check did
// not pass (DESIGN §8: failed, errored, never ran, timed out).
func (v *traceView) stepFailing(d int) bool { return v.stepAmong(v.docs[tabTimeline].failing, d) }

// failingStatus says why } or { did not move: nothing failed at all, or
// nothing more in that direction.
func (v *traceView) failingStatus(more string) string {
	if len(v.docs[tabTimeline].failing) == 0 {
		return "no check failed in this trace"
	}
	return more
}

// stepAmong moves the cursor to the next or previous header of headers
// (lines of the timeline, ascending) from the cursor's call.
func (v *traceView) stepAmong(headers []int, d int) bool {
	doc := &v.docs[tabTimeline]
	if len(headers) == 0 {
		return false
	}
	ref := -1
	if l, ok := doc.tools[v.cur]; ok && v.cur >= 0 {
		ref = l
	} else if d > 0 {
		ref = v.offset[tabTimeline] - 1
	} else {
		ref = v.offset[tabTimeline] + 1
	}
	parked := v.curParked
	v.curParked = false
	var next int
	if i, found := sort.Find(len(headers), func(i int) int { return ref - headers[i] }); d > 0 && parked && ref > v.offset[tabTimeline] && found {
		// The first ] of a trace opened on its messages: call #1, not #2.
		next = headers[i]
	} else if d > 0 {
		i := sort.SearchInts(headers, ref+1)
		if i >= len(headers) {
			return false
		}
		next = headers[i]
	} else {
		i := sort.SearchInts(headers, ref)
		if i == 0 {
			return false
		}
		next = headers[i-1]
	}
	v.cur = doc.lines[next].tool
	v.offset[tabTimeline], v.sub[tabTimeline] = next, 0
	v.clampTab(tabTimeline)
	return true
}

// followCursor keeps the timeline's cursor on screen after a scroll: a
// cursor scrolled out of view moves to the call shown at the top.
func (v *traceView) followCursor() {
	if v.tab != tabTimeline || v.cur < 0 {
		return
	}
	if l, ok := v.docs[tabTimeline].tools[v.cur]; ok && v.visible(tabTimeline, l) {
		return
	}
	if c := v.callAtTop(); c >= 0 {
		v.cur = c
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
	v.scrollLines(v.tab, d)
	v.followCursor()
}

func (v *traceView) top()    { v.scroll(-1 << 30) }
func (v *traceView) bottom() { v.scroll(1 << 30) }

// show scrolls so that line is visible, placing it a little below the top
// when it was off screen.
func (v *traceView) show(line int) {
	if !v.visible(v.tab, line) {
		v.offset[v.tab], v.sub[v.tab] = max(0, line-v.bodyHeight(v.tab)/4), 0
	}
	v.clampTab(v.tab)
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
	v.offset[v.tab], v.sub[v.tab] = max(0, v.matches[v.matchIdx]-v.bodyHeight(v.tab)/4), 0
	v.clampTab(v.tab)
	v.followCursor()
}

// stepMark moves the diff's mark to the next (d=1) or previous anchor
// of a list (hunks, files), from the mark when it is on screen, else from
// the top line. The mark shows on a diff too short to scroll, so ] on
// one screen still says where the next hunk or file is. It reports the
// row marked, or -1 when there is none further.
func (v *traceView) stepMark(anchors []int, d int) int {
	t := v.tab
	ref := v.target[t]
	if ref < 0 || !v.visible(t, ref) {
		ref = v.offset[t] // As before the mark: from the top line.
	}
	var row int
	if d > 0 {
		i := sort.SearchInts(anchors, ref+1)
		if i >= len(anchors) {
			return -1
		}
		row = anchors[i]
	} else {
		i := sort.SearchInts(anchors, ref)
		if i == 0 {
			return -1
		}
		row = anchors[i-1]
	}
	v.target[t] = row
	if !v.visible(t, row) || row > v.offset[t]+v.bodyHeight(t)*3/4 {
		v.offset[t], v.sub[t] = row, 0
	}
	v.clampTab(t)
	return row
}

// hunkAnchors are the rows ] and [ step through in the diff: every hunk,
// and the header of a file with none (binary, a pure rename).
func (d *doc) hunkAnchors() []int {
	if d.diff == nil {
		return d.hunks
	}
	out := make([]int, 0, len(d.hunks)+len(d.files))
	h := 0
	for fi, start := range d.files {
		end := d.len()
		if fi+1 < len(d.files) {
			end = d.files[fi+1]
		}
		n := 0
		for h < len(d.hunks) && d.hunks[h] < end {
			out = append(out, d.hunks[h])
			h, n = h+1, n+1
		}
		if n == 0 {
			out = append(out, start)
		}
	}
	return out
}

// jumpFile marks file i of the diff and puts its header on top.
func (v *traceView) jumpFile(i int) {
	d := &v.docs[tabDiff]
	if i < 0 || i >= len(d.files) {
		return
	}
	v.tab = tabDiff
	v.target[tabDiff] = d.files[i]
	v.offset[tabDiff], v.sub[tabDiff] = d.files[i], 0
	v.clampTab(tabDiff)
	v.findMatches()
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
			v.cur = v.docs[tabTimeline].lines[line].tool
			v.offset[tabTimeline], v.sub[tabTimeline] = line, 0
			v.clampTab(tabTimeline)
			v.findMatches()
			return true
		}
	}
	return false
}
