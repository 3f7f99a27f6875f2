package card

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/triage-dev/triage/internal/reportview"
)

// Styles are the report's terminal styles; semantic fields only, so the
// views carry no colour literals.
type Styles struct {
	Title, Heading, Muted, Label lipgloss.Style
	Bar, PassBar, Pass, Fail     lipgloss.Style
	Mixed, Warn, Accent          lipgloss.Style
}

// DefaultStyles returns the report styles bound to renderer r.
func DefaultStyles(r *lipgloss.Renderer) Styles {
	green := lipgloss.AdaptiveColor{Light: "#1a7f37", Dark: "#3fb950"}
	red := lipgloss.AdaptiveColor{Light: "#cf222e", Dark: "#f85149"}
	amber := lipgloss.AdaptiveColor{Light: "#9a6700", Dark: "#d29922"}
	blue := lipgloss.AdaptiveColor{Light: "#0969da", Dark: "#58a6ff"}
	muted := lipgloss.AdaptiveColor{Light: "#656d76", Dark: "#8b949e"}
	return Styles{
		Title:   r.NewStyle().Bold(true).Foreground(blue),
		Heading: r.NewStyle().Bold(true).Underline(true),
		Muted:   r.NewStyle().Foreground(muted),
		Label:   r.NewStyle().Bold(true),
		Bar:     r.NewStyle().Foreground(amber),
		PassBar: r.NewStyle().Foreground(green),
		Pass:    r.NewStyle().Foreground(green),
		Fail:    r.NewStyle().Foreground(red),
		Mixed:   r.NewStyle().Foreground(amber),
		Warn:    r.NewStyle().Foreground(red).Bold(true),
		Accent:  r.NewStyle().Foreground(blue),
	}
}

// Layout constants of the text report.
const (
	minWidth     = 40
	defaultWidth = 80
	minBar       = 10
	keyColumn    = 24 // widest task or class name shown in full
)

// WriteText writes the report for a terminal of the given width. Without
// color it writes plain text (no escape sequences), for pipes and files.
func WriteText(w io.Writer, r *ReportData, width int, color bool) error {
	if width <= 0 {
		width = defaultWidth
	}
	width = max(width, minWidth)
	ren := lipgloss.NewRenderer(io.Discard)
	ren.SetHasDarkBackground(true)
	if color {
		ren.SetColorProfile(termenv.ANSI256)
	} else {
		ren.SetColorProfile(termenv.Ascii)
	}
	st := DefaultStyles(ren)
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	line("%s", st.Title.Render("triage report · "+fit(runsTitle(r), width-len("triage report · "))))
	line("%s", renderLines(st.Muted, reportview.WrapHang(fmt.Sprintf("dataset %s (%s) · scorer %s · prompt %s",
		fit(orNone(r.DatasetID), keyColumn), short(clean(r.DatasetSHA256)), fit(orNone(r.Scorer), keyColumn), fit(orNone(r.PromptID), keyColumn)), width, 2)))
	line("%s", renderLines(st.Muted, reportview.WrapHang(fmt.Sprintf("taxonomy %s (%s), trust: %s · rules %s · %d traces, %d tasks, k = %d",
		fit(orNone(r.Taxonomy.Name), keyColumn), short(clean(r.Taxonomy.Version)), clean(r.Taxonomy.Trust), fit(orNone(r.RulesVersion), keyColumn),
		r.NTraces, r.Grid.NTasks, r.Grid.K), width, 2)))
	if len(r.MissingControls) > 0 {
		line("%s", renderLines(st.Warn, reportview.WrapHang("controls missing: "+strings.Join(r.MissingControls, ", "), width, 2)))
	}
	if r.NTraces == 0 {
		line("")
		line("%s", st.Warn.Render("No traces: zeros are not a result. Import traces first."))
		_, err := io.WriteString(w, b.String())
		return err
	}

	v := View(r)
	line("")
	line("%s", st.Heading.Render("Failure mix"))
	labelW := 0
	for _, c := range v.Mix {
		labelW = max(labelW, lipgloss.Width(fit(c.Code, keyColumn)))
	}
	barMax := max(minBar, width-labelW-18)
	top := 0
	for _, c := range v.Mix {
		top = max(top, c.Count)
	}
	for _, c := range v.Mix {
		n := 0
		if top > 0 {
			n = (c.Count*barMax + top - 1) / top
		}
		bar := st.Bar
		if strings.HasPrefix(c.Code, "PASS_") {
			bar = st.PassBar
		}
		line("  %s %s%s %4d %6s", padRight(fit(c.Code, keyColumn), labelW), bar.Render(strings.Repeat("█", n)),
			strings.Repeat(" ", barMax-n), c.Count, pct(ratio(c.Count, v.Traces)))
	}
	if v.MixNote != "" {
		line("  %s", renderLines(st.Warn, reportview.WrapHang(v.MixNote, width-2, 4)))
	}

	line("")
	line("%s", st.Heading.Render("Pass rates"))
	line("  %s %-7s %s %-7s %s %s",
		st.Label.Render("headline"), pct(v.Rates.HeadlinePassRate),
		st.Label.Render("contract"), pct(v.Rates.ContractPassRate),
		st.Muted.Render("│"), st.Muted.Render("from the labels"))
	line("  %s %-9s %s %-9s %s %s",
		st.Label.Render("pass@1"), frac(v.Rates.PassAt1),
		st.Label.Render("pass^k"), frac(v.Rates.PassHatK),
		st.Muted.Render("│"), st.Muted.Render(fmt.Sprintf("from outcomes · k %d · resolution %s", v.Rates.K, frac(v.Rates.Resolution))))
	line("  %s %s   %s %s", st.Label.Render("assumption share"), pct(v.Rates.AssumptionShare), st.Label.Render("loop share"), pct(v.Rates.LoopShare))
	caveatStyle := st.Muted
	if v.CaveatsWarn {
		caveatStyle = st.Warn
	}
	line("  %s", renderLines(caveatStyle, reportview.WrapHang("left out: "+v.Caveats, width-2, 4)))

	if d := v.Dominant; d != nil {
		line("")
		line("%s %s %s", st.Heading.Render("Dominant"), st.Accent.Render(fit(d.Code, keyColumn)),
			st.Muted.Render(fmt.Sprintf("%s · %d of %d traces (%s)", fit(d.Name, keyColumn), d.Count, v.Traces, pct(d.Share))))
		if d.DoNot != "" || d.DoThis != "" {
			line("  %s %s", st.Fail.Render("Do not:"), reportview.WrapHang(clean(orNone(d.DoNot)), width-11, 11))
			line("  %s %s", st.Pass.Render("Do this:"), reportview.WrapHang(clean(orNone(d.DoThis)), width-11, 11))
		} else {
			line("  %s", st.Muted.Render("The decision table has no advice for this class."))
		}
	}

	line("")
	line("%s %s", st.Heading.Render("Outcomes"), countsLine(v.Outcomes))
	if v.Secondary != nil {
		line("%s %s", st.Label.Render("Secondary"), countsLine(v.Secondary))
	}
	line("%s %d rules · %d human · %d adjudicated", st.Label.Render("Labels"), v.Labels.Rules, v.Labels.Human, v.Labels.Adjudicated)
	leftStyle := st.Muted
	if v.Leftovers > 0 {
		leftStyle = st.Warn
	}
	line("%s %s", st.Label.Render("Leftovers"), leftStyle.Render(strconv.Itoa(v.Leftovers)+listSuffix(v.LeftoverTraces)))
	leakStyle := st.Muted
	if len(v.Leaked) > 0 {
		leakStyle = st.Warn
	}
	line("%s %s", st.Label.Render("Leaked"), leakStyle.Render(strconv.Itoa(len(v.Leaked))+listSuffix(v.Leaked)))
	if v.NotChecked != nil {
		writeTextSection(&b, *v.NotChecked, st, width)
	}
	if len(v.RootCauses) > 0 {
		line("")
		line("%s", st.Heading.Render("Root causes of failing traces"))
		for _, rc := range v.RootCauses {
			line("  %s", reportview.WrapHang(fmt.Sprintf("%5d  %s", rc.Count, clean(rc.Cause)), width, 9))
			line("         %s", renderLines(st.Muted, reportview.WrapHang("e.g. "+clean(strings.Join(rc.Traces, ", ")), width, 14)))
		}
		if v.RootCausesNote != "" {
			line("  %s", renderLines(st.Muted, reportview.WrapHang(v.RootCausesNote, width-2, 4)))
		}
	}

	line("")
	line("%s", st.Heading.Render("Per-task grid"))
	line("  %s", renderLines(st.Muted, reportview.WrapHang(reportview.GridLegend, width-2, 2)))
	writeTextGrid(&b, &v.Grid, st, width)
	// Task lists wrap: a task run by several models is one row per
	// model and agent, named "task [model · agent]".
	for _, l := range []struct {
		label string
		ids   []string
	}{{"nobody clears:", v.NobodyClears}, {"saturated:", v.Saturated}} {
		text := reportview.WrapHang(l.label+" "+clean(orNone(strings.Join(l.ids, ", "))), width-2, 4)
		line("  %s%s", st.Label.Render(l.label), strings.TrimPrefix(text, l.label))
	}
	if v.TasksInPack > v.Grid.NTasks {
		line("  %s", st.Warn.Render(fmt.Sprintf("%d of the pack's %d tasks have no trace", v.TasksInPack-v.Grid.NTasks, v.TasksInPack)))
	}

	for _, sec := range v.Sections {
		writeTextSection(&b, sec, st, width)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTextGrid draws the per-task × seed grid, as many seed columns as
// the width holds: a run of thousands of seeds would otherwise print lines
// thousands of cells wide. The md and html reports carry every column.
func writeTextGrid(b *strings.Builder, g *reportview.Grid, st Styles, width int) {
	taskW := len("task")
	for _, t := range g.Tasks {
		taskW = max(taskW, lipgloss.Width(fit(t.TaskID, keyColumn)))
	}
	const stats = "   solved  pass@1  pass^k"
	seeds := g.Seeds
	if fits := (width - 3 - taskW - len(stats)) / 2; len(seeds) > max(fits, 1) {
		seeds = seeds[:max(fits-1, 1)]
	}
	more := len(g.Seeds) - len(seeds)
	var head strings.Builder
	head.WriteString("  " + padRight("task", taskW) + " ")
	for _, s := range seeds {
		head.WriteString(" " + strconv.Itoa(s%10))
	}
	if more > 0 {
		head.WriteString(" …")
	}
	head.WriteString(stats)
	fmt.Fprintln(b, st.Label.Render(head.String()))
	for _, t := range g.Tasks {
		var l strings.Builder
		l.WriteString("  " + padRight(fit(t.TaskID, keyColumn), taskW) + " ")
		for _, c := range reportview.Columns(t.AllCells(), seeds) {
			style := st.Muted
			switch c.State() {
			case reportview.CellSolved:
				style = st.Pass
			case reportview.CellFailed:
				style = st.Fail
			case reportview.CellMixed:
				style = st.Mixed
			case reportview.CellLeaked:
				style = st.Warn
			case reportview.CellMissing, reportview.CellUnknown:
				style = st.Muted
			}
			l.WriteString(" " + style.Render(c.Symbol()))
		}
		if more > 0 {
			l.WriteString(" " + st.Muted.Render("…"))
		}
		fmt.Fprintf(&l, "   %-6s  %-6s  %s", solvedOf(t), taskPassAt1(t), yesNo(t.PassHatK))
		fmt.Fprintln(b, l.String())
	}
	if more > 0 {
		fmt.Fprintln(b, st.Muted.Render(fmt.Sprintf("  … %d more seeds: --format md or html shows them", more)))
	}
}

// renderLines styles each line on its own: lipgloss pads a multi-line
// block to its widest line, which would leave trailing spaces.
func renderLines(st lipgloss.Style, s string) string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = st.Render(l)
	}
	return strings.Join(ls, "\n")
}

func padRight(s string, w int) string { return s + strings.Repeat(" ", max(0, w-lipgloss.Width(s))) }

// listSuffix shows up to five trace keys after a count.
func listSuffix(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return " (" + clean(listSome(keys, 5)) + ")"
}

func optFrac(p *float64) string {
	if p == nil {
		return "—"
	}
	return strconv.FormatFloat(*p, 'f', 3, 64)
}

func optCI(p *[2]float64) string {
	if p == nil {
		return "—"
	}
	return "[" + strconv.FormatFloat(p[0], 'f', 3, 64) + ", " + strconv.FormatFloat(p[1], 'f', 3, 64) + "]"
}

// writeTextSection writes a section for a terminal of the given width,
// after a blank line (reportview.Text).
func writeTextSection(b *strings.Builder, sec Section, st Styles, width int) {
	for _, l := range reportview.Text(sec, width, reportview.Styles{Heading: st.Heading, Muted: st.Muted, Label: st.Label}) {
		fmt.Fprintln(b, l)
	}
}

// plainStyles are the styles of text with no colour, for pipes and files.
func plainStyles() Styles {
	ren := lipgloss.NewRenderer(io.Discard)
	ren.SetColorProfile(termenv.Ascii)
	return DefaultStyles(ren)
}
