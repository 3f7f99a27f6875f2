package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/triage-dev/triage/internal/triage"
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
	var top string
	var bodyTop, bodyH int
	switch m.screen {
	case screenTrace:
		top, bodyTop, bodyH = m.traceScreen(), 4, m.lay.traceBody
		if m.pol.reviewers {
			bodyTop += reviewPanelHeight
		}
	case screenAgreement, screenReport:
		top, bodyTop, bodyH = m.docView(), 1, m.lay.agreeBody
	case screenClusters:
		top, bodyTop, bodyH = m.clustersView(), clusterRowsTop, m.lay.queueRows
	default:
		top, bodyTop, bodyH = m.queueScreen(), queueRowsTop, m.lay.queueRows
	}
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

// queueScreen is the title, the column header and the visible rows.
func (m Model) queueScreen() string {
	q, st, c := &m.queue, m.st, m.lay.cols
	var b strings.Builder
	b.WriteString(m.queueTitle())
	b.WriteByte('\n')
	if m.pol.reviewers {
		b.WriteString(st.Queue.Header.Render(m.row(c, "", "task", "run", "", "seed", "", "reviewers", "final", "status")))
	} else {
		b.WriteString(st.Queue.Header.Render(m.row(c, "", "task", "run", "model", "seed", "rules", "why", "yours", "status")))
	}
	rows := 0
	switch {
	case !q.loaded:
		b.WriteString("\n" + st.App.Muted.Render("Loading queue…"))
		rows = 1
	case len(q.all) == 0:
		empty := m.pol.empty
		if m.pol.agreement {
			if !m.showAll {
				empty += " (a shows every doubly-labelled item)"
			}
		}
		b.WriteString("\n" + st.App.Muted.Render(ansi.Truncate(empty, m.width, "…")))
		rows = 1
	case len(q.view) == 0:
		b.WriteString("\n" + st.App.Muted.Render(ansi.Truncate("No item matches the filter (esc clears it).", m.width, "…")))
		rows = 1
	}
	for i := q.offset; i < min(len(q.view), q.offset+q.height); i++ {
		it := &q.all[q.view[i]]
		mark := "  "
		if i == q.cursor {
			mark = "▸ "
		}
		marked := q.isMarked(i)
		if marked {
			// A mark, visible without colour: "*" beside the cursor's "▸".
			mark = mark[:len(mark)-1] + "*"
		}
		yours := it.Primary
		if yours == "" {
			if _, ok := m.drafts[it.TraceID]; ok {
				yours = "(draft)"
			}
		}
		var line string
		if m.pol.reviewers {
			line = m.row(c, mark, it.TaskID, it.RunID, "", fmt.Sprint(it.Seed), "", m.reviewSummary(it.TraceID), yours, adjStatus(it.Status))
		} else {
			line = m.row(c, mark, it.TaskID, it.RunID, it.Model, fmt.Sprint(it.Seed), it.Suggestion, it.Reason, yours, string(it.Status))
		}
		switch {
		case i == q.cursor:
			line = st.Queue.Cursor.Render(line)
		case marked:
			line = st.Queue.Marked.Render(line)
		case it.Status == StatusLabelled:
			line = st.Queue.Labelled.Render(line)
		case it.Status == StatusSkipped:
			line = st.Queue.Skipped.Render(line)
		}
		b.WriteString("\n" + line)
		rows++
	}
	b.WriteString(strings.Repeat("\n", max(0, q.height-rows)))
	return b.String()
}

// queueTitle is the session line with progress, filter and order.
func (m Model) queueTitle() string {
	done, total := m.queue.progress()
	if m.pol.reviewers {
		parts := []string{m.pol.title, m.shown(m.cfg.Reviewer), "slice " + m.shown(m.cfg.Slice), fmt.Sprintf("%d of %d settled", done, total)}
		if m.showAll {
			parts = append(parts, "every doubly-labelled item")
		} else {
			parts = append(parts, "disagreements")
		}
		if m.queue.filter != "" {
			parts = append(parts, fmt.Sprintf("filter %q: %d shown", m.queue.filter, len(m.queue.view)))
		}
		if m.drilled {
			parts = append(parts, fmt.Sprintf("%s: %d shown", m.queue.onlyTitle, len(m.queue.view)))
		}
		return m.st.App.Title.Render(ansi.Truncate(sanitizeLine(strings.Join(parts, " · ")), m.width, "…"))
	}
	parts := []string{m.pol.title, m.shown(m.cfg.Reviewer)}
	switch {
	case m.cfg.Slice != "":
		parts = append(parts, "slice "+m.shown(m.cfg.Slice))
	case m.cfg.RunID != "":
		parts = append(parts, "run "+m.shown(m.cfg.RunID))
	}
	if m.pol.blind {
		parts = append(parts, "BLIND")
	}
	if m.queue.partial {
		parts = append(parts, fmt.Sprintf("loading the queue: its first %d shown", total))
	} else {
		parts = append(parts, fmt.Sprintf("%d of %d labelled", done, total))
	}
	if m.queue.filter != "" {
		parts = append(parts, fmt.Sprintf("filter %q: %d shown", m.queue.filter, len(m.queue.view)))
	}
	if m.drilled {
		parts = append(parts, fmt.Sprintf("%s: %d shown (esc: back to the %s)", m.queue.onlyTitle, len(m.queue.view), screenName(m.drillFrom)))
	}
	if m.queue.sortBy != sortQueue {
		parts = append(parts, "by "+m.queue.sortBy.String())
	} else if len(m.queue.ahead.novel) > 0 {
		parts = append(parts, "novel clusters first")
	}
	if n := len(m.queue.markedIDs()); n > 0 || m.queue.rangeOpen() {
		s := fmt.Sprintf("%d marked", n)
		if m.queue.rangeOpen() {
			s += " (range)"
		}
		parts = append(parts, s)
	}
	return m.st.App.Title.Render(ansi.Truncate(sanitizeLine(strings.Join(parts, " · ")), m.width, "…"))
}

// row lays out one queue row in the layout's columns; a zero width hides
// a column. Cells are untrusted text: sanitized, cut and padded.
func (m Model) row(c queueCols, mark, task, run, model, seed, rules, why, yours, status string) string {
	cell := func(s string, w int) string {
		if w <= 0 {
			return ""
		}
		s = ansi.Truncate(sanitizeLine(s), w-1, "…")
		return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
	}
	out := mark + strings.Repeat(" ", max(0, c.mark-ansi.StringWidth(mark))) + cell(task, c.task) + cell(run, c.run) + cell(model, c.model) + cell(seed, c.seed)
	if c.rules > 0 {
		out += cell(rules, c.rules)
	}
	if c.why > 0 {
		out += cell(why, c.why)
	}
	return out + cell(yours, c.yours) + cell(status, c.status)
}

// traceScreen is the header, the tab bar and the visible body.
func (m Model) traceScreen() string {
	v := &m.trace
	var b strings.Builder
	b.WriteString(m.traceHeader())
	b.WriteByte('\n')
	if m.pol.reviewers {
		b.WriteString(m.reviewPanel())
		b.WriteByte('\n')
	}
	b.WriteString(m.tabBar())
	b.WriteByte('\n')
	if !v.loaded {
		b.WriteString(m.st.App.Muted.Render("Loading trace…"))
		b.WriteString(strings.Repeat("\n", max(0, v.height-1)))
		return b.String()
	}
	b.WriteString(m.renderDoc())
	return b.String()
}

// traceHeader is three lines: identity, run figures against their caps,
// and the labels (yours; the rules' only when not blind).
func (m Model) traceHeader() string {
	st, v := m.st, &m.trace
	it := m.queue.item(v.id)
	lbl := func(s string) string { return st.Trace.Label.Render(s) }
	val := func(s string) string { return st.Trace.Value.Render(sanitizeLine(s)) }
	var l1, l2, l3 []string
	if it != nil {
		l1 = append(l1, val(it.TaskID), lbl("run ")+val(it.RunID), lbl("model ")+val(orDash(it.Model)), lbl("seed ")+val(fmt.Sprint(it.Seed)))
		l1 = append(l1, lbl(fmt.Sprintf("%d/%d", m.queue.cursor+1, len(m.queue.view))))
	}
	if m.pol.blind {
		l1 = append(l1, st.Trace.Over.Render("BLIND"))
	}
	if tr := v.trace; tr != nil {
		var derived triage.Outcome
		if !m.pol.blind && v.verdict != nil {
			derived = v.verdict.Outcome
		}
		l2 = m.figures(tr, v.tctx.Controls, derived)
	}
	if it != nil {
		mine := orDash(it.Primary)
		if len(it.Secondary) > 0 {
			mine += " [" + strings.Join(it.Secondary, ", ") + "]"
		}
		who, what := m.pol.yours, m.pol.noteWord+" "
		l3 = append(l3, lbl(who)+st.Trace.Mine.Render(sanitizeLine(mine)))
		if it.Note != "" {
			// The note stays as stored (a new label writes it back), so
			// --redact masks its one shown line here.
			l3 = append(l3, lbl(what)+sanitizeLine(firstLine(m.cfg.Redactor.String(it.Note))))
		}
	}
	if !m.pol.blind && v.verdict != nil {
		r := v.verdict.Primary + " (" + string(v.verdict.Decision) + ")"
		if v.verdict.Reason != "" {
			r += " — " + v.verdict.Reason
		}
		l3 = append(l3, lbl("rules ")+st.Queue.Suggestion.Render(sanitizeLine(r)))
	}
	sep := lbl(" · ")
	cut := func(parts []string) string { return ansi.Truncate(strings.Join(parts, sep), m.width, "…") }
	return cut(l1) + "\n" + cut(l2) + "\n" + cut(l3)
}

// figures are the run's numbers, each against its cap when known; a
// figure over its cap is marked. derived is the rules' typed outcome,
// shown when the trace recorded none (or when a leak overrode it).
func (m Model) figures(tr *triage.Trace, c *triage.Controls, derived triage.Outcome) []string {
	st := m.st
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

// queueRowsTop is the screen line of the queue's first row, under the
// title and the column header.
const queueRowsTop = 2

// tabBarRow is the screen line of the trace screen's tab bar: under the
// three header lines and, adjudicating, the reviewers' panel.
func (m Model) tabBarRow() int {
	if m.pol.reviewers {
		return 3 + reviewPanelHeight
	}
	return 3
}

// tabLabel is the text of a pane's tab, bracketed when it is current.
func (m Model) tabLabel(t tabID) string {
	name := t.String()
	if n := tabCount(&m.trace, t); n != "" {
		name += " " + n
	}
	if t == m.trace.tab {
		return "[" + name + "]"
	}
	return name
}

// tabAt is the tab drawn at column x of the tab bar.
func (m Model) tabAt(x int) (tabID, bool) {
	at := 0
	for t := range numTabs {
		st := m.st.Trace.Tab
		if t == m.trace.tab {
			st = m.st.Trace.TabActive
		}
		w := ansi.StringWidth(m.tabLabel(t)) + st.GetHorizontalFrameSize()
		if x >= at && x < at+w {
			return t, true
		}
		at += w
	}
	return 0, false
}

// tabBar names the panes, marks the current one, and ends with the
// position in the current pane.
func (m Model) tabBar() string {
	v := &m.trace
	var parts []string
	for t := range numTabs {
		if t == v.tab {
			parts = append(parts, m.st.Trace.TabActive.Render(m.tabLabel(t)))
		} else {
			parts = append(parts, m.st.Trace.Tab.Render(m.tabLabel(t)))
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
		if gap := m.width - ansi.StringWidth(bar) - ansi.StringWidth(pos); gap > 0 {
			bar += strings.Repeat(" ", gap) + m.st.App.Muted.Render(pos)
		}
	}
	return ansi.Truncate(bar, m.width, "…")
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
