package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/triage-dev/triage/internal/triage"
)

// traceScreenDef is the trace screen's entry in the registry: opened
// from a queue row (enter), never from the switcher.
func traceScreenDef() screenDef {
	return screenDef{
		name: "trace",
		of:   func(m *Model, _ screenID) screen { return &m.trace },
		body: func(l *layout) (int, int) { return l.traceTop, l.traceBody },
	}
}

// traceScreen is one trace as a screen: its header (identity, figures
// against their caps, the labels), adjudicating the reviewers' panel, the
// tab bar and the current pane.
type traceScreen struct {
	traceView
}

// SetSize implements screen: h is the pane's body, under the header and
// the tab bar.
func (v *traceScreen) SetSize(w, h int) { v.setSize(w, h) }

// HandleKey implements screen: scrolling, panes, search matches, wrap,
// the diff's marks, the timeline's calls and folds; going back, stepping
// to another trace and opening the search line or the file list are the
// root's.
func (v *traceScreen) HandleKey(msg tea.KeyMsg, s *session) Action {
	return v.handleKey(msg, s.keys)
}

// HandleMouse implements screen: the wheel scrolls the pane, a click on
// a tab shows that pane.
func (v *traceScreen) HandleMouse(msg tea.MouseMsg, s *session) Action {
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		v.scroll(-wheelLines)
	case tea.MouseButtonWheelDown:
		v.scroll(wheelLines)
	case tea.MouseButtonLeft:
		if msg.Y != tabBarRow(s.pol) {
			return Action{}
		}
		if t, ok := v.tabAt(s.st, msg.X); ok {
			v.setTab(t)
		}
	}
	return Action{}
}

// View implements screen: the header, the reviewers' panel when the
// policy shows it, the tab bar and the visible body.
func (v *traceScreen) View(s *session) string {
	var b strings.Builder
	b.WriteString(v.header(s))
	b.WriteByte('\n')
	if s.pol.reviewers {
		b.WriteString(v.reviewPanel(s))
		b.WriteByte('\n')
	}
	b.WriteString(v.tabBar(s.st))
	b.WriteByte('\n')
	if !v.loaded {
		b.WriteString(s.st.App.Muted.Render("Loading trace…"))
		b.WriteString(strings.Repeat("\n", max(0, v.height-1)))
		return b.String()
	}
	b.WriteString(v.renderDoc(s.st))
	return b.String()
}

// ShortHelp implements screen: the footer's keys, only those that can
// fire now.
func (v *traceScreen) ShortHelp(s *session) []key.Binding {
	km := s.keys
	if s.pol.agreement {
		b := []key.Binding{withHelp(s.labelHelp(), "final label"), withHelp(km.Note, "reason"), km.NextTrace, km.NextTab, km.Search}
		if v.query != "" {
			b = append(b, km.NextMatch)
		}
		return append(b, km.Undo, km.Agreement, km.Back, km.Help)
	}
	b := []key.Binding{s.labelHelp(), km.NextTrace, km.NextTab, km.Search}
	if v.query != "" {
		b = append(b, km.NextMatch)
	}
	return append(b, s.writes(km.Skip), s.writes(km.Undo), km.Back, km.Help, km.PrevTrace)
}

// FullHelp implements screen: every key of the trace screen valid in the
// current pane, in columns.
func (v *traceScreen) FullHelp(s *session) [][]key.Binding {
	km := s.keys
	move := []key.Binding{km.Down, km.Up, km.Top, km.Bottom, km.HalfDown, km.HalfUp}
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
		if len(v.doc().failing) > 0 {
			pane = append(pane, km.NextFail, km.PrevFail)
		}
		pane = append(pane, km.FoldAll)
	case tabEvidence:
		if len(v.doc().evs) > 0 {
			pane = append(pane, km.Jump)
		}
	}
	return [][]key.Binding{move, t, pane, s.labelKeys(), s.clusterHelp(false), s.sessionKeys()}
}

// traceHeader is three lines: identity, run figures against their caps,
// and the labels (yours; the rules' only when not blind).
func (v *traceScreen) header(s *session) string {
	st := s.st
	it := s.queue.item(v.id)
	lbl := func(s string) string { return st.Trace.Label.Render(s) }
	val := func(s string) string { return st.Trace.Value.Render(sanitizeLine(s)) }
	var l1, l2, l3 []string
	if it != nil {
		l1 = append(l1, val(it.TaskID), lbl("run ")+val(it.RunID), lbl("model ")+val(orDash(it.Model)), lbl("seed ")+val(fmt.Sprint(it.Seed)))
		l1 = append(l1, lbl(fmt.Sprintf("%d/%d", s.queue.cursor+1, len(s.queue.view))))
	}
	if s.pol.blind {
		l1 = append(l1, st.Trace.Over.Render("BLIND"))
	}
	if tr := v.trace; tr != nil {
		var derived triage.Outcome
		if !s.pol.blind && v.verdict != nil {
			derived = v.verdict.Outcome
		}
		l2 = figures(st, tr, v.tctx.Controls, derived)
	}
	if it != nil && s.cfg.Reviewer != "" {
		mine := orDash(it.Primary)
		if len(it.Secondary) > 0 {
			mine += " [" + strings.Join(it.Secondary, ", ") + "]"
		}
		who, what := s.pol.yours, s.pol.noteWord+" "
		l3 = append(l3, lbl(who)+st.Trace.Mine.Render(sanitizeLine(mine)))
		if it.Note != "" {
			// The note stays as stored (a new label writes it back), so
			// --redact masks its one shown line here.
			l3 = append(l3, lbl(what)+sanitizeLine(firstLine(s.cfg.Redactor.String(it.Note))))
		}
	}
	if !s.pol.blind && v.verdict != nil {
		r := v.verdict.Primary + " (" + string(v.verdict.Decision) + ")"
		if v.verdict.Reason != "" {
			r += " — " + v.verdict.Reason
		}
		l3 = append(l3, lbl("rules ")+st.Queue.Suggestion.Render(sanitizeLine(r)))
	}
	sep := lbl(" · ")
	cut := func(parts []string) string { return ansi.Truncate(strings.Join(parts, sep), v.width, "…") }
	return cut(l1) + "\n" + cut(l2) + "\n" + cut(l3)
}

// figures are the run's numbers, each against its cap when known; a
// figure over its cap is marked. derived is the rules' typed outcome,
// shown when the trace recorded none (or when a leak overrode it).
func figures(st *Styles, tr *triage.Trace, c *triage.Controls, derived triage.Outcome) []string {
	lbl := func(s string) string { return st.Trace.Label.Render(s) }
	val := st.Trace.Value.Render
	var out []string
	exit := "?"
	if tr.ExitCode != nil {
		exit = fmt.Sprint(*tr.ExitCode)
	}
	outcome := sanitizeLine(string(tr.Outcome))
	if derived != "" && derived != tr.Outcome {
		if outcome == "" {
			outcome = string(derived) + " (derived)"
		} else {
			outcome += " → " + string(derived)
		}
	}
	out = append(out, lbl("exit ")+val(exit), val(orDash(outcome)))
	cs, cover := fmt.Sprint(len(tr.ToolCalls)), false
	if c != nil && c.MaxToolCalls != nil {
		cs += fmt.Sprintf("/%d", *c.MaxToolCalls)
		cover = int64(len(tr.ToolCalls)) >= *c.MaxToolCalls
	}
	out = append(out, lbl("calls ")+capped(st, cs, cover))
	wallCap := tr.WallCap
	if wallCap == nil && c != nil {
		wallCap = c.WallS
	}
	if tr.WallS != nil {
		s := fmt.Sprintf("%.0fs", *tr.WallS)
		over := false
		if wallCap != nil {
			s += fmt.Sprintf("/%.0fs", *wallCap)
			over = *tr.WallS >= *wallCap
		}
		if tr.Timeout != nil && *tr.Timeout {
			s += " killed"
			over = true
		}
		out = append(out, lbl("wall ")+capped(st, s, over))
	}
	if tr.Tokens != nil {
		s := humanCount(tr.Tokens.Input) + "→" + humanCount(tr.Tokens.Output)
		over := false
		if c != nil && c.MaxOutputTokens != nil {
			s += "/" + humanCount(*c.MaxOutputTokens)
			over = tr.Tokens.Output >= *c.MaxOutputTokens
		}
		out = append(out, lbl("tok ")+capped(st, s, over))
	}
	if tr.CostUSD != nil {
		out = append(out, val(fmt.Sprintf("$%.2f", *tr.CostUSD)))
	}
	return out
}

// humanCount shortens a count for the header: 950, 12.0k, 3.4M.
func humanCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func capped(st *Styles, s string, over bool) string {
	if over {
		return st.Trace.Over.Render(s + "!")
	}
	return st.Trace.Value.Render(s)
}

// tabBarRow is the screen line of the trace screen's tab bar: under the
// three header lines and, adjudicating, the reviewers' panel.
func tabBarRow(pol *policy) int {
	if pol.reviewers {
		return 3 + reviewPanelHeight
	}
	return 3
}

// tabLabel is the text of a pane's tab, bracketed when it is current.
func (v *traceScreen) tabLabel(t tabID) string {
	name := t.String()
	if n := tabCount(&v.traceView, t); n != "" {
		name += " " + n
	}
	if t == v.tab {
		return "[" + name + "]"
	}
	return name
}

// tabAt is the tab drawn at column x of the tab bar.
func (v *traceScreen) tabAt(sty *Styles, x int) (tabID, bool) {
	at := 0
	for t := range numTabs {
		st := sty.Trace.Tab
		if t == v.tab {
			st = sty.Trace.TabActive
		}
		w := ansi.StringWidth(v.tabLabel(t)) + st.GetHorizontalFrameSize()
		if x >= at && x < at+w {
			return t, true
		}
		at += w
	}
	return 0, false
}

// tabBar names the panes, marks the current one, and ends with the
// position in the current pane.
func (v *traceScreen) tabBar(st *Styles) string {
	var parts []string
	for t := range numTabs {
		if t == v.tab {
			parts = append(parts, st.Trace.TabActive.Render(v.tabLabel(t)))
		} else {
			parts = append(parts, st.Trace.Tab.Render(v.tabLabel(t)))
		}
	}
	bar := strings.Join(parts, "")
	if v.loaded {
		n := v.doc().len()
		from, to := v.visibleRows(v.tab)
		pos := fmt.Sprintf(" %d-%d/%d", min(n, from+1), to, n) + v.paneFlags()
		if v.query != "" {
			pos = fmt.Sprintf(" /%s %d/%d", sanitizeLine(v.query), min(len(v.matches), v.matchIdx+1), len(v.matches)) + pos
		}
		if gap := v.width - ansi.StringWidth(bar) - ansi.StringWidth(pos); gap > 0 {
			bar += strings.Repeat(" ", gap) + st.App.Muted.Render(pos)
		}
	}
	return ansi.Truncate(bar, v.width, "…")
}

// tabCount is a pane's size shown in its tab: files, lines, evidence.
func tabCount(v *traceView, t tabID) string {
	if !v.loaded {
		return ""
	}
	switch t {
	case tabTimeline:
		if v.trace != nil && len(v.trace.ToolCalls) > 0 {
			return fmt.Sprint(len(v.trace.ToolCalls))
		}
	case tabDiff:
		if n := len(v.docs[tabDiff].files); n > 0 {
			return fmt.Sprint(n)
		}
	case tabEvidence:
		if n := len(v.docs[tabEvidence].evs); n > 0 {
			return fmt.Sprint(n)
		}
	}
	return ""
}

// reviewPanel draws the reviewers side by side: name and primary, tags,
// and the first line of the note, one column per reviewer. A primary that
// differs from the final label is marked, so the split is visible at once.
func (v *traceScreen) reviewPanel(s *session) string {
	st := s.st
	it := s.queue.item(v.id)
	revs := s.reviews[v.id]
	lines := make([]string, reviewPanelHeight)
	if len(revs) == 0 {
		lines[0] = st.App.Muted.Render("No reviewer labels.")
		return strings.Join(lines, "\n")
	}
	final := ""
	if it != nil {
		final = it.Primary
	}
	shown := revs
	maxCols := max(1, v.width/minReviewCol)
	more := 0
	if len(shown) > maxCols {
		more = len(shown) - (maxCols - 1)
		shown = shown[:maxCols-1]
	}
	n := len(shown)
	if more > 0 {
		n++
	}
	colW := max(1, (v.width-(n-1)*len(reviewGap))/n)
	for i, r := range shown {
		prim, mark := st.Adjudicate.Primary, ""
		switch {
		case final != "" && r.Primary == final:
			prim, mark = st.Adjudicate.Same, " ✓"
		case final != "":
			prim, mark = st.Adjudicate.Differs, " ✗"
		}
		tags := "no tags"
		if len(r.Secondary) > 0 {
			tags = "[" + strings.Join(r.Secondary, ", ") + "]"
		}
		note := "no note"
		if r.Note != "" {
			note = firstLine(r.Note)
		}
		cells := []string{
			st.Adjudicate.Reviewer.Render(fit(r.Actor+" ", colW/2)) + prim.Render(fit(orDash(r.Primary)+mark, colW-min(colW/2, ansiWidth(r.Actor)+1))),
			st.Trace.Value.Render(fit(tags, colW)),
			st.App.Muted.Render(fit(note, colW)),
		}
		for l := range lines {
			if i > 0 {
				lines[l] += reviewGap
			}
			lines[l] += pad(cells[l], colW)
		}
	}
	if more > 0 {
		lines[0] += reviewGap + st.App.Muted.Render(fit(fmt.Sprintf("+%d more (Evidence pane)", more), colW))
	}
	return strings.Join(lines, "\n")
}
