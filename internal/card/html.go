package card

import (
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/reportview"
)

// esc makes untrusted text safe for HTML text and attribute values. On top
// of HTML escaping it writes "/" and "@" as character references, so trace
// text can never put a "//" URL in the page's bytes, and it turns control
// characters into visible stand-ins, which keeps the page valid XML too.
func esc(s string) string {
	return htmlExtra.Replace(html.EscapeString(strings.Map(noNonchar, clean(s))))
}

// noNonchar replaces Unicode noncharacters (U+FDD0–U+FDEF and the last two
// code points of every plane), which neither XML nor HTML allows, with
// U+FFFD.
func noNonchar(r rune) rune {
	if (r >= 0xfdd0 && r <= 0xfdef) || r&0xfffe == 0xfffe {
		return '\ufffd'
	}
	return r
}

// htmlExtra writes "/" and "@" as character references: the page then
// never holds "//" or "@import" as bytes, whatever a trace says.
var htmlExtra = strings.NewReplacer("/", "&#47;", "@", "&#64;")

// pageCSS is the page's only style sheet. It must stay free of url(),
// @import and "//": the page works offline and loads nothing.
const pageCSS = `
body { font: 14px system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #1f2328; background: #fff; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #d0d7de; }
.meta { color: #656d76; } .warn { color: #cf222e; font-weight: bold; }
table { border-collapse: collapse; margin: .5em 0; } th, td { padding: .2em .7em; text-align: right; border-bottom: 1px solid #eaeef2; }
th:first-child, td:first-child { text-align: left; } th { background: #f6f8fa; }
.rates td { font-size: 1.2em; } .donot { color: #cf222e; } .dothis { color: #1a7f37; }
svg text { font: 12px ui-monospace, monospace; fill: #1f2328; }
.ok { fill: #2da44e; } .no { fill: #cf222e; } .mix { fill: #d4a72c; } .leak { fill: #8250df; } .unk { fill: #8c959f; } .none { fill: #eaeef2; }
.bar { fill: #d4a72c; } .passbar { fill: #2da44e; }
.axis, .gap { stroke: #8c959f; stroke-width: 1; } .gap { stroke: #1f2328; stroke-width: 2; }
.pass1 { fill: #0969da; stroke: #0969da; } .passk { fill: #fff; stroke: #0969da; stroke-width: 2; }
.heat { fill: #2da44e; } .mark { fill: #cf222e; font-weight: bold; }
`

// SVG layout of the failure-mix chart and the grid.
const (
	svgLabelW = 160
	svgBarW   = 400
	svgRowH   = 22
	svgCell   = 18
	svgGap    = 4
)

// WriteHTML writes the report as one self-contained page: inline CSS,
// inline SVG charts, no script and no reference to anything outside the
// page, so it opens offline and leaks nothing when shared.
func WriteHTML(w io.Writer, r *ReportData) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("<!DOCTYPE html>")
	p(`<html lang="en"><head><meta charset="utf-8"/>`)
	p(`<meta name="viewport" content="width=device-width, initial-scale=1"/>`)
	p("<title>triage report · %s</title>", esc(runsTitle(r)))
	p("<style>%s</style></head><body>", pageCSS)
	p("<h1>Triage report · %s</h1>", esc(runsTitle(r)))
	p(`<p class="meta">dataset %s (sha256 %s) · scorer %s · prompt %s<br/>taxonomy %s (%s), trust: <b>%s</b> · rules %s · %d traces, %d tasks, k = %d</p>`,
		esc(orNone(r.DatasetID)), esc(short(r.DatasetSHA256)), esc(orNone(r.Scorer)), esc(orNone(r.PromptID)),
		esc(orNone(r.Taxonomy.Name)), esc(short(r.Taxonomy.Version)), esc(r.Taxonomy.Trust), esc(orNone(r.RulesVersion)),
		r.NTraces, r.Grid.NTasks, r.Grid.K)
	if len(r.MissingControls) > 0 {
		p(`<p class="warn">controls missing: %s</p>`, esc(strings.Join(r.MissingControls, ", ")))
	}
	if r.NTraces == 0 {
		p(`<p class="warn">No traces: zeros are not a result.</p>`)
		p("</body></html>")
		_, err := io.WriteString(w, b.String())
		return err
	}

	v := View(r)
	p("<h2>Failure mix</h2>")
	writeMixSVG(&b, v)
	if v.MixNote != "" {
		p("<p>%s</p>", esc(v.MixNote))
	}

	p("<h2>Pass rates</h2>")
	p(`<table class="rates"><tr><th>from the labels</th><th></th><th>from outcomes</th><th></th></tr>`)
	p("<tr><td>headline pass rate</td><td>%s</td><td>pass@1</td><td>%s</td></tr>", pct(v.Rates.HeadlinePassRate), frac(v.Rates.PassAt1))
	p("<tr><td>contract pass rate</td><td>%s</td><td>pass^k</td><td>%s</td></tr>", pct(v.Rates.ContractPassRate), frac(v.Rates.PassHatK))
	p("<tr><td>assumption share</td><td>%s</td><td>k</td><td>%d</td></tr>", pct(v.Rates.AssumptionShare), v.Rates.K)
	p("<tr><td>loop share</td><td>%s</td><td>resolution</td><td>%s</td></tr></table>", pct(v.Rates.LoopShare), frac(v.Rates.Resolution))
	p(`<p%s>Left out: %s</p>`, warnIf(v.CaveatsWarn), esc(v.Caveats))

	if d := v.Dominant; d != nil {
		p("<h2>Dominant: %s</h2>", esc(d.Code))
		p("<p>%s · %d of %d traces (%s)</p>", esc(d.Name), d.Count, v.Traces, pct(d.Share))
		if d.DoNot != "" || d.DoThis != "" {
			p(`<p class="donot"><b>Do not:</b> %s</p>`, esc(orNone(d.DoNot)))
			p(`<p class="dothis"><b>Do this:</b> %s</p>`, esc(orNone(d.DoThis)))
		} else {
			p("<p>The decision table has no advice for this class.</p>")
		}
	}

	p("<h2>Outcomes</h2>")
	p("<p>%s</p>", esc(countsLine(v.Outcomes)))
	if v.Secondary != nil {
		p("<p>Secondary tags: %s</p>", esc(countsLine(v.Secondary)))
	}
	p("<p>Labels: %d rules, %d human, %d adjudicated.</p>", v.Labels.Rules, v.Labels.Human, v.Labels.Adjudicated)
	p(`<p%s>Leftovers: %d%s</p>`, warnIf(v.Leftovers > 0), v.Leftovers, esc(listSuffix(v.LeftoverTraces)))
	p(`<p%s>Leaked: %d%s</p>`, warnIf(len(v.Leaked) > 0), len(v.Leaked), esc(listSuffix(v.Leaked)))
	if v.NotChecked != nil {
		htmlSection(&b, *v.NotChecked)
	}
	if len(v.RootCauses) > 0 {
		p("<h2>Root causes of failing traces</h2>")
		rcRows := make([][]string, 0, len(v.RootCauses))
		for _, rc := range v.RootCauses {
			rcRows = append(rcRows, []string{strconv.Itoa(rc.Count), rc.Cause, listSome(rc.Traces, 3)})
		}
		htmlTable(&b, []string{"traces", "root cause", "for example"}, rcRows)
		if v.RootCausesNote != "" {
			p("<p>%s</p>", esc(v.RootCausesNote))
		}
	}

	p("<h2>Per-task grid</h2>")
	p("<p>%s</p>", esc(reportview.GridLegend))
	writeGridSVG(&b, &v.Grid)
	p("<p>nobody clears: %s<br/>saturated: %s</p>", esc(orNone(strings.Join(v.NobodyClears, ", "))), esc(orNone(strings.Join(v.Saturated, ", "))))
	if v.TasksInPack > v.Grid.NTasks {
		p(`<p class="warn">%d of the pack's %d tasks have no trace</p>`, v.TasksInPack-v.Grid.NTasks, v.TasksInPack)
	}

	for _, sec := range v.Sections {
		p("<h2>%s</h2>", esc(sec.Title))
		htmlNotes(&b, sec)
		table := sec.Head != nil
		switch sec.Title {
		case dumbbellTitle:
			writeDumbbellSVG(&b, r)
		case heatmapTitle:
			// The picture holds every cell's figure as text (and its
			// traces), so the table would only repeat it (0.5 MB of a
			// 26 MB page on 10,000 tasks).
			writeHeatmapSVG(&b, r)
			table = false
		}
		if table {
			htmlTable(&b, sec.Head, sec.Rows)
		}
	}
	p("</body></html>")
	_, err := io.WriteString(w, b.String())
	return err
}

// svgCellClass is each grid state's class in the page's style sheet.
var svgCellClass = [...]string{
	reportview.CellMissing: "none", reportview.CellSolved: "ok", reportview.CellFailed: "no",
	reportview.CellMixed: "mix", reportview.CellLeaked: "leak", reportview.CellUnknown: "unk",
}

func warnIf(b bool) string {
	if b {
		return ` class="warn"`
	}
	return ""
}

// htmlSection writes a section: its title, its notes, its table.
func htmlSection(b *strings.Builder, sec Section) {
	b.WriteString("<h2>" + esc(sec.Title) + "</h2>\n")
	htmlNotes(b, sec)
	if sec.Head != nil {
		htmlTable(b, sec.Head, sec.Rows)
	}
}

// htmlNotes writes a section's notes as paragraphs, or as one list.
func htmlNotes(b *strings.Builder, sec Section) {
	if !sec.List {
		for _, n := range sec.Notes {
			b.WriteString("<p>" + esc(n) + "</p>\n")
		}
		return
	}
	if len(sec.Notes) == 0 {
		return
	}
	b.WriteString("<ul>\n")
	for _, n := range sec.Notes {
		b.WriteString("<li>" + esc(n) + "</li>\n")
	}
	b.WriteString("</ul>\n")
}

// htmlTable writes a table; every cell is escaped here, whatever its origin.
func htmlTable(b *strings.Builder, head []string, rows [][]string) {
	b.WriteString("<table><tr>")
	for _, h := range head {
		b.WriteString("<th>" + esc(h) + "</th>")
	}
	b.WriteString("</tr>\n")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, c := range r {
			b.WriteString("<td>" + esc(c) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
}

func writeMixSVG(b *strings.Builder, v *reportview.Report) {
	top := 0
	for _, c := range v.Mix {
		top = max(top, c.Count)
	}
	w := svgLabelW + svgBarW + 110
	h := svgRowH*len(v.Mix) + svgGap
	fmt.Fprintf(b, `<svg role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>failure mix</title>`+"\n", w, h, w, h)
	for i, c := range v.Mix {
		y := i*svgRowH + svgGap
		bw := 0
		if top > 0 {
			bw = c.Count * svgBarW / top
		}
		class := "bar"
		if strings.HasPrefix(c.Code, "PASS_") {
			class = "passbar"
		}
		fmt.Fprintf(b, `<text x="0" y="%d">%s</text>`, y+14, esc(clip(c.Code, 20)))
		fmt.Fprintf(b, `<rect class="%s" x="%d" y="%d" width="%d" height="%d"></rect>`, class, svgLabelW, y, bw, svgRowH-svgGap*2)
		fmt.Fprintf(b, `<text x="%d" y="%d">%d (%s)</text>`+"\n", svgLabelW+bw+6, y+14, c.Count, pct(ratio(c.Count, v.Traces)))
	}
	b.WriteString("</svg>\n")
}

func writeGridSVG(b *strings.Builder, g *reportview.Grid) {
	cols := len(g.Seeds)
	gridX := svgLabelW
	statsX := gridX + cols*(svgCell+svgGap) + 16
	w := statsX + 220
	h := (len(g.Tasks)+1)*(svgCell+svgGap) + svgGap
	fmt.Fprintf(b, `<svg role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>per-task grid</title>`+"\n", w, h, w, h)
	fmt.Fprintf(b, `<text x="0" y="14">task</text>`)
	for j, s := range g.Seeds {
		fmt.Fprintf(b, `<text x="%d" y="14">%s</text>`, gridX+j*(svgCell+svgGap)+4, strconv.Itoa(s))
	}
	fmt.Fprintf(b, `<text x="%d" y="14">solved  pass@1  pass^k</text>`+"\n", statsX)
	for i, t := range g.Tasks {
		y := (i+1)*(svgCell+svgGap) + svgGap
		fmt.Fprintf(b, `<text x="0" y="%d">%s</text>`, y+13, esc(clip(t.TaskID, 20)))
		gc := reportview.Columns(t.AllCells(), g.Seeds)
		for j, s := range g.Seeds {
			sym, class := gc[j].Symbol(), svgCellClass[gc[j].State()]
			fmt.Fprintf(b, `<rect class="%s" x="%d" y="%d" width="%d" height="%d"><title>%s seed %d: %s</title></rect>`,
				class, gridX+j*(svgCell+svgGap), y, svgCell, svgCell, esc(t.TaskID), s, esc(sym))
		}
		fmt.Fprintf(b, `<text x="%d" y="%d">%s  %s  %s</text>`+"\n", statsX, y+13, esc(solvedOf(t)), taskPassAt1(t), yesNo(t.PassHatK))
	}
	b.WriteString("</svg>\n")
}
