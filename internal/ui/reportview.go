package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// Report view sizes.
const (
	// reportCellW is a grid cell: a two-letter class code and a margin.
	reportCellW = 4
	// maxBarW bounds the mix's bars on a wide screen.
	maxBarW = 50
	// maxTaskLabel bounds a task id beside the grid.
	maxTaskLabel = 24
)

// renderReport draws the report's view-model (package reportview, which
// card.View fills and the text, Markdown and HTML reports draw too) as
// lines of at most width cells: the headline figures and their caveats,
// the failure mix as bars, the dominant class's advice, the outcomes and
// the root causes of failing traces (renderFacts), the per-task × seed
// grid as coloured cells, then the further sections as the text report
// draws them. Each bar, outcome, root cause and cell is a target that
// opens its traces. It is pure.
func renderReport(st *Styles, r *reportview.Report, width int) page {
	if width <= 0 || r == nil {
		return page{}
	}
	var out []string
	var targets []target
	var frozen []int
	add := func(s string) { out = append(out, ansi.Truncate(s, width, "…")) }
	// The screen's title line names the report; the page starts with
	// its figures.
	figs := fmt.Sprintf("%d traces · headline pass %s · contract pass %s · pass@1 %.2f · pass^k %.2f (k=%d)",
		r.Traces, pct(r.Rates.HeadlinePassRate), pct(r.Rates.ContractPassRate), r.Rates.PassAt1, r.Rates.PassHatK, r.Rates.K)
	if r.Leftovers > 0 {
		figs += " · " + plural(r.Leftovers, "leftover")
	}
	for _, l := range wrapText(figs, width) {
		add(l)
	}
	if r.Caveats != "" {
		for _, l := range wrapText("left out: "+sanitizeLine(r.Caveats), width) {
			add(st.Doc.Caveat.Render(l))
		}
	}
	add("")
	add(st.Agree.Heading.Render("Failure mix"))
	codeW, maxN := 0, 0
	for _, m := range r.Mix {
		codeW = max(codeW, ansi.StringWidth(cutCell(m.Code, maxGridLabel)))
		maxN = max(maxN, m.Count)
	}
	barW := max(1, min(maxBarW, width-codeW-16))
	byClass := classTraces(&r.Grid)
	for _, m := range r.Mix {
		n := 0
		if maxN > 0 {
			n = (m.Count*barW + maxN - 1) / maxN
		}
		share := 0.0
		if r.Traces > 0 {
			share = float64(m.Count) / float64(r.Traces)
		}
		bar := barStyle(st, m.Code).Render(strings.Repeat("█", n))
		targets = append(targets, target{line: len(out), col: 2, width: codeW,
			drill: drill{title: "class " + sanitizeLine(m.Code), keys: byClass[m.Code]}})
		add(fmt.Sprintf("  %-*s ", codeW, cutCell(m.Code, maxGridLabel)) + pad(bar, barW) + fmt.Sprintf(" %4d %4s", m.Count, pct(share)))
	}
	if d := r.Dominant; d != nil {
		add("")
		add(st.Agree.Heading.Render("Dominant") + " " + st.Agree.Bad.Render(sanitizeLine(d.Code)) + st.App.Muted.Render(" "+pct(d.Share)+" of traces"))
		if d.DoNot != "" {
			for _, l := range wrapText("do not: "+sanitizeLine(d.DoNot), max(10, width-2)) {
				add("  " + l)
			}
		}
		if d.DoThis != "" {
			for _, l := range wrapText("do this: "+sanitizeLine(d.DoThis), max(10, width-2)) {
				add("  " + l)
			}
		}
	}
	f := renderFacts(st, r, width)
	for _, t := range f.targets {
		t.line += len(out)
		targets = append(targets, t)
	}
	out = append(out, f.lines...)
	if len(r.Grid.Tasks) > 0 {
		add("")
		g := renderGrid(st, r, width)
		for _, t := range g.targets {
			t.line += len(out)
			targets = append(targets, t)
		}
		frozen = append(frozen, make([]int, len(out)-len(frozen))...)
		frozen = append(frozen, g.frozen...)
		out = append(out, g.lines...)
	}
	// The further sections (breakdowns, trends, the dumbbell, the
	// heatmap), rendered as the text report renders them.
	for _, sec := range r.Sections {
		for _, l := range reportview.Text(sec, width, st.Report.Sections) {
			add(l)
		}
	}
	if len(frozen) > 0 {
		frozen = append(frozen, make([]int, len(out)-len(frozen))...)
	}
	// The grid's rows may run past the width (many seeds): the screen
	// scrolls sideways to the cell under the cursor.
	return page{lines: out, targets: targets, frozen: frozen, step: reportCellW}
}

// classTraces is the traces each class's bar opens: every attempt of
// the grid by its current label, the unlabelled ones under Unlabelled
// (as the mix counts them).
func classTraces(g *reportview.Grid) map[string][]string {
	out := map[string][]string{}
	for _, t := range g.Tasks {
		for _, c := range t.AllCells() {
			class := c.Primary
			if class == "" {
				class = reportview.Unlabelled
			}
			out[class] = append(out[class], triage.TraceKey(c.RunID, t.TaskID, c.Seed))
		}
	}
	return out
}

// gridMark is what a grid cell shows for a column of attempts: a leak,
// every outcome unknown, every attempt solved, else the class of its
// last failed attempt; runs counted together share a column, and one
// failure among them is shown rather than hidden behind a pass.
type gridMark struct {
	ran, leaked, unknown, solved bool
	primary                      string
}

func markOf(c reportview.Column) gridMark {
	n := len(c.Attempts)
	m := gridMark{ran: n > 0, leaked: c.Leaked, unknown: n > 0 && c.Unknown == n, solved: n > 0 && c.Solved == n}
	if n == 0 || m.unknown || m.solved {
		return m
	}
	for i := n - 1; i >= 0; i-- {
		if a := c.Attempts[i]; !a.Solved && !a.Unknown {
			m.primary = a.Primary
			return m
		}
	}
	// Solved and unknown attempts only: the last one speaks.
	last := c.Attempts[n-1]
	m.solved, m.unknown = last.Solved, last.Unknown
	return m
}

// visible drops the targets a line cut at width no longer shows.
func visible(ts []target, width int) []target {
	out := ts[:0]
	for _, t := range ts {
		if t.col+t.width <= width {
			out = append(out, t)
		}
	}
	return out
}

// renderGrid draws the per-task × seed grid: a solved attempt is a green
// "ok", a failed one its class's two-letter code on red, a leak "!!", a
// seed never run "·". Letters carry the meaning where colour is off.
func renderGrid(st *Styles, r *reportview.Report, width int) page {
	rs := &st.Report
	var out []string
	var targets []target
	add := func(s string) { out = append(out, ansi.Truncate(s, width, "…")) }
	// Rows of cells are kept whole, however many seeds: every cell is a
	// figure the cursor can reach. Their task label stays put sideways.
	var frozen []int
	whole := func(s string, f int) {
		frozen = append(frozen, make([]int, len(out)-len(frozen))...)
		frozen = append(frozen, f)
		out = append(out, s)
	}
	add(st.Agree.Heading.Render("Per task × seed") + st.App.Muted.Render(" ok solved · XX failed · ?? unknown · !! leaked · · not run"))
	g := &r.Grid
	taskW := len("task")
	for _, t := range g.Tasks {
		taskW = max(taskW, ansi.StringWidth(cutCell(t.TaskID, maxTaskLabel)))
	}
	var hb strings.Builder
	hb.WriteString(fmt.Sprintf("  %-*s", taskW, "task"))
	for _, s := range g.Seeds {
		hb.WriteString(fmt.Sprintf("%*d", reportCellW, s))
	}
	hb.WriteString("  pass@1 pass^k")
	whole(st.App.Muted.Render(hb.String()), 2+taskW)
	used := map[string]bool{}
	var order []string
	for _, t := range g.Tasks {
		var b strings.Builder
		b.WriteString(fmt.Sprintf("  %-*s", taskW, cutCell(t.TaskID, maxTaskLabel)))
		for i, col := range reportview.Columns(t.AllCells(), g.Seeds) {
			c := markOf(col)
			if c.ran {
				keys := make([]string, len(col.Attempts))
				for j, a := range col.Attempts {
					keys[j] = triage.TraceKey(a.RunID, t.TaskID, a.Seed)
				}
				targets = append(targets, target{line: len(out), col: 2 + taskW + i*reportCellW + reportCellW - 2, width: 2,
					drill: drill{title: fmt.Sprintf("task %s seed %d", sanitizeLine(t.TaskID), g.Seeds[i]), keys: keys}})
			}
			txt, style := "·", rs.NotRun
			switch {
			case !c.ran:
			case c.leaked:
				txt, style = "!!", rs.Leaked
			case c.unknown:
				txt, style = "??", rs.NotRun
			case c.solved:
				txt, style = "ok", rs.Solved
			default:
				txt, style = classAbbrev(c.primary), rs.Failed
				key := c.primary
				if triage.IsPass(c.primary) {
					// A pass label on an attempt its outcome says was not
					// solved: the two disagree, and the cell says so
					// rather than show a pass in a failed cell.
					txt, style, key = "P?", rs.Leaked, passDisagrees
				}
				if !used[key] {
					used[key] = true
					order = append(order, key)
				}
			}
			b.WriteString(strings.Repeat(" ", reportCellW-2) + style.Render(fmt.Sprintf("%-2s", txt)))
		}
		hk := st.App.Muted.Render("  no")
		if t.PassHatK {
			hk = rs.BarPass.Render(" yes")
		}
		p1 := fmt.Sprintf("  %6.2f ", t.PassAt1)
		if t.Runs == t.Unknown {
			// No attempt's outcome is known: the task is in neither
			// rate, and 0.00 / no would say it failed.
			p1, hk = "       — ", st.App.Muted.Render("   —")
		}
		b.WriteString(p1 + hk)
		whole(b.String(), 2+taskW)
	}
	if len(order) > 0 {
		var leg []string
		for _, c := range order {
			if c == passDisagrees {
				leg = append(leg, "P?=labelled a pass, scored not solved")
				continue
			}
			leg = append(leg, classAbbrev(c)+"="+sanitizeLine(orDash(c)))
		}
		for _, l := range wrapText(strings.Join(leg, "  "), max(10, width-2)) {
			add("  " + st.App.Muted.Render(l))
		}
	}
	if len(r.NobodyClears) > 0 {
		add("  " + st.Agree.Bad.Render("nobody clears: ") + sanitizeLine(strings.Join(r.NobodyClears, ", ")))
	}
	if len(r.Saturated) > 0 {
		add("  " + st.Agree.Good.Render("saturated: ") + sanitizeLine(strings.Join(r.Saturated, ", ")))
	}
	return page{lines: out, targets: targets, frozen: frozen}
}

// passDisagrees keys the grid legend's entry for a pass label on an
// attempt that was not solved.
const passDisagrees = "\x00pass-disagrees"

// classAbbrev is a class's two-letter grid code: the initials of its
// words (ASSUME_API → AA), or its first two letters (TIMEOUT → TI).
func classAbbrev(code string) string {
	if code == "" {
		return "??"
	}
	code = sanitizeLine(code)
	words := strings.FieldsFunc(code, func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	if len(words) >= 2 {
		return strings.ToUpper(firstRune(words[0]) + firstRune(words[1]))
	}
	rs := []rune(code)
	if len(rs) >= 2 {
		return strings.ToUpper(string(rs[:2]))
	}
	return strings.ToUpper(code) + " "
}

func firstRune(s string) string {
	for _, r := range s {
		return string(r)
	}
	return ""
}

// barStyle colours a class's bar: a contract pass green, a weak pass
// amber, every failure red.
func barStyle(st *Styles, code string) lipgloss.Style {
	switch code {
	case triage.PassContract:
		return st.Report.BarPass
	case triage.PassWeak:
		return st.Report.BarWeak
	}
	return st.Report.BarFail
}

// pct formats a share as a whole percentage.
func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }
