package card

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/reportview"
)

// mdEscaper backslash-escapes what Markdown would read as markup, so a
// task ID cannot open a link, an image, raw HTML or a new table cell, and
// breaks "://" so a renderer does not turn trace text into a live link.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"#", `\#`, "|", `\|`, "~", `\~`, "!", `\!`, "(", `\(`, ")", `\)`, "&", "&amp;",
	"<", "&lt;", ">", "&gt;", "://", "&#58;//",
)

// md makes untrusted text safe for a Markdown table cell or line.
func md(s string) string { return mdEscaper.Replace(clean(s)) }

// WriteMarkdown writes the report as GitHub-flavoured Markdown, for a pull
// request or a wiki page.
func WriteMarkdown(w io.Writer, r *ReportData) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	table := func(head []string, rows [][]string) {
		p("| %s |", strings.Join(head, " | "))
		seps := make([]string, len(head))
		for i := range seps {
			seps[i] = "---:"
			if i == 0 {
				seps[i] = "---"
			}
		}
		p("|%s|", strings.Join(seps, "|"))
		for _, row := range rows {
			p("| %s |", strings.Join(row, " | "))
		}
		p("")
	}

	p("# Triage report: %s", md(runsTitle(r)))
	p("")
	p("- dataset: %s, sha256 %s", md(orNone(r.DatasetID)), md(orNone(r.DatasetSHA256)))
	p("- scorer: %s; prompt: %s", md(orNone(r.Scorer)), md(orNone(r.PromptID)))
	p("- taxonomy: %s (%s), trust: **%s**; rules: %s", md(orNone(r.Taxonomy.Name)), md(short(r.Taxonomy.Version)), md(r.Taxonomy.Trust), md(orNone(r.RulesVersion)))
	p("- %d traces, %d tasks, k = %d", r.NTraces, r.Grid.NTasks, r.Grid.K)
	if len(r.MissingControls) > 0 {
		p("- **controls missing:** %s", md(strings.Join(r.MissingControls, ", ")))
	}
	p("")
	if r.NTraces == 0 {
		p("**No traces: zeros are not a result.**")
		_, err := io.WriteString(w, b.String())
		return err
	}

	v := View(r)
	p("## Failure mix")
	p("")
	rows := make([][]string, 0, len(v.Mix))
	for _, c := range v.Mix {
		share := ratio(c.Count, v.Traces)
		rows = append(rows, []string{md(c.Code), strconv.Itoa(c.Count), pct(share), strings.Repeat("█", int(share*20+0.5))})
	}
	table([]string{"class", "count", "share", ""}, rows)
	if v.MixNote != "" {
		p("%s", md(v.MixNote))
		p("")
	}

	p("## Pass rates")
	p("")
	table([]string{"from the labels", "", "from outcomes", ""}, [][]string{
		{"headline pass rate", pct(v.Rates.HeadlinePassRate), "pass@1", frac(v.Rates.PassAt1)},
		{"contract pass rate", pct(v.Rates.ContractPassRate), "pass^k", frac(v.Rates.PassHatK)},
		{"assumption share", pct(v.Rates.AssumptionShare), "k", strconv.Itoa(v.Rates.K)},
		{"loop share", pct(v.Rates.LoopShare), "resolution", frac(v.Rates.Resolution)},
	})
	p("**Left out:** %s", md(v.Caveats))
	p("")

	if d := v.Dominant; d != nil {
		p("## Dominant: %s (%s), %d of %d traces", md(d.Code), md(d.Name), d.Count, v.Traces)
		p("")
		if d.DoNot != "" || d.DoThis != "" {
			p("- **Do not:** %s", md(orNone(d.DoNot)))
			p("- **Do this:** %s", md(orNone(d.DoThis)))
		} else {
			p("The decision table has no advice for this class.")
		}
		p("")
	}

	p("## Outcomes")
	p("")
	p("%s", md(countsLine(v.Outcomes)))
	p("")
	if v.Secondary != nil {
		p("Secondary tags: %s", md(countsLine(v.Secondary)))
		p("")
	}
	p("Labels: %d rules, %d human, %d adjudicated. Leftovers: %d%s. Leaked: %d%s.",
		v.Labels.Rules, v.Labels.Human, v.Labels.Adjudicated,
		v.Leftovers, md(listSuffix(v.LeftoverTraces)), len(v.Leaked), md(listSuffix(v.Leaked)))
	p("")
	if v.NotChecked != nil {
		mdSection(&b, *v.NotChecked, table)
	}
	if len(v.RootCauses) > 0 {
		p("## Root causes of failing traces")
		p("")
		rcRows := make([][]string, 0, len(v.RootCauses))
		for _, rc := range v.RootCauses {
			rcRows = append(rcRows, []string{strconv.Itoa(rc.Count), md(rc.Cause), md(listSome(rc.Traces, 3))})
		}
		table([]string{"traces", "root cause", "for example"}, rcRows)
		if v.RootCausesNote != "" {
			p("%s", md(v.RootCausesNote))
			p("")
		}
	}

	p("## Per-task grid")
	p("")
	p("%s", md(reportview.GridLegend))
	p("")
	g := &v.Grid
	head := []string{"task"}
	for _, s := range g.Seeds {
		head = append(head, "s"+strconv.Itoa(s))
	}
	head = append(head, "solved", "pass@1", "pass^k")
	rows = rows[:0]
	for _, t := range g.Tasks {
		row := []string{md(t.TaskID)}
		for _, c := range reportview.Columns(t.AllCells(), g.Seeds) {
			row = append(row, c.Symbol())
		}
		row = append(row, solvedOf(t), taskPassAt1(t), yesNo(t.PassHatK))
		rows = append(rows, row)
	}
	table(head, rows)
	p("- nobody clears: %s", md(orNone(strings.Join(v.NobodyClears, ", "))))
	p("- saturated: %s", md(orNone(strings.Join(v.Saturated, ", "))))
	if v.TasksInPack > g.NTasks {
		p("- %d of the pack's %d tasks have no trace", v.TasksInPack-g.NTasks, v.TasksInPack)
	}
	p("")

	for _, sec := range v.Sections {
		mdSection(&b, sec, table)
	}
	// A section ends on a blank line; the page ends on its last line.
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// mdSection writes a section: its title, its notes as paragraphs (or as
// one list), then its table drawn by table.
func mdSection(b *strings.Builder, sec Section, table func(head []string, rows [][]string)) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	p("## %s", md(sec.Title))
	p("")
	for _, n := range sec.Notes {
		if sec.List {
			p("- %s", md(n))
			continue
		}
		p("%s", md(n))
		p("")
	}
	if sec.List && len(sec.Notes) > 0 {
		p("")
	}
	if sec.Head == nil {
		return
	}
	head, rows := mdCells(sec.Head), make([][]string, len(sec.Rows))
	for i, row := range sec.Rows {
		rows[i] = mdCells(row)
	}
	table(head, rows)
}

// mdCells escapes a section's cells for a Markdown table.
func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = md(c)
	}
	return out
}
