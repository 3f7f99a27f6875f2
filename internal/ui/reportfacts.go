package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// The report screen's outcomes block and root causes.
const (
	// factLabelW is the label column of the outcomes block ("leftovers").
	factLabelW = 9
	// maxNamedKeys is how many trace keys a count names beside it.
	maxNamedKeys = 5
	// rootCauseIndent is where a root cause's text starts, after its
	// count.
	rootCauseIndent = 9
	// maxDrillCause bounds a root cause in the title of what it opens.
	maxDrillCause = 40
)

// fact is one figure of a line of figures: its text and, when it names
// traces, what it opens.
type fact struct {
	text  string
	style lipgloss.Style
	drill *drill
}

// renderFacts draws what the text report says between the dominant class
// and the grid: the outcomes (each opens its traces), the secondary
// tags, where the labels came from, the leftovers and the leaked traces
// (each opens them), the rules that could not apply to a whole run, and
// the root causes of failing traces (each opens all its traces). It
// draws nothing for a report with no outcomes (no traces). It is pure.
func renderFacts(st *Styles, r *reportview.Report, width int) page {
	if len(r.Outcomes) == 0 {
		return page{}
	}
	var out []string
	var targets []target
	add := func(s string) { out = append(out, ansi.Truncate(s, width, "…")) }
	// row lays figures out after a label, " · " between them, wrapping
	// under the first figure; a figure's target is where it is drawn.
	row := func(label string, labelStyle lipgloss.Style, facts []fact) {
		indent := 2 + factLabelW + 1
		prefix := "  " + labelStyle.Render(pad(label, factLabelW)) + " "
		if label == "Outcomes" {
			indent = len("Outcomes ")
			prefix = labelStyle.Render(label) + " "
		}
		line, col := prefix, indent
		for i, f := range facts {
			txt := sanitizeLine(f.text)
			w := ansi.StringWidth(txt)
			sep := ""
			if i > 0 {
				sep = " · "
			}
			if i > 0 && col+len(" ·")+w > width {
				add(line + " ·")
				line, col, sep = strings.Repeat(" ", indent), indent, ""
			}
			line += sep
			col += ansi.StringWidth(sep)
			if f.drill != nil {
				targets = append(targets, target{line: len(out), col: col, width: min(w, max(0, width-col)), drill: *f.drill})
			}
			line += f.style.Render(txt)
			col += w
		}
		add(line)
	}
	muted, plain := st.App.Muted, lipgloss.NewStyle()
	byOutcome := outcomeTraces(&r.Grid)
	var facts []fact
	for _, o := range r.Outcomes {
		facts = append(facts, fact{text: o.Key + " " + strconv.Itoa(o.N), style: plain,
			drill: &drill{title: "outcome " + sanitizeLine(o.Key), keys: byOutcome[o.Key]}})
	}
	add("")
	row("Outcomes", st.Agree.Heading, facts)
	if r.Secondary != nil {
		facts = facts[:0]
		for _, c := range r.Secondary {
			facts = append(facts, fact{text: c.Key + " " + strconv.Itoa(c.N), style: plain})
		}
		row("secondary", muted, facts)
	}
	l := r.Labels
	row("labels", muted, []fact{{text: fmt.Sprintf("%d rules", l.Rules), style: plain},
		{text: fmt.Sprintf("%d human", l.Human), style: plain}, {text: fmt.Sprintf("%d adjudicated", l.Adjudicated), style: plain}})
	for _, k := range []struct {
		label string
		n     int
		keys  []string
	}{{"leftovers", r.Leftovers, r.LeftoverTraces}, {"leaked", len(r.Leaked), r.Leaked}} {
		style := muted
		if k.n > 0 {
			style = st.Agree.Bad
		}
		row(k.label, muted, []fact{{text: strconv.Itoa(k.n) + namedKeys(k.keys), style: style,
			drill: &drill{title: k.label, keys: k.keys}}})
	}
	if r.NotChecked != nil {
		for _, l := range reportview.Text(*r.NotChecked, width, st.Report.Sections) {
			add(l)
		}
	}
	if len(r.RootCauses) > 0 {
		add("")
		add(st.Agree.Heading.Render("Root causes of failing traces"))
		for _, rc := range r.RootCauses {
			keys := rc.Keys
			if keys == nil {
				keys = rc.Traces // only the examples are known
			}
			cause := sanitizeLine(rc.Cause)
			ls := strings.Split(reportview.WrapHang(fmt.Sprintf("%5d  %s", rc.Count, cause), width-2, rootCauseIndent-2), "\n")
			// The row's first line is the figure: its count and cause.
			targets = append(targets, target{line: len(out), col: 2, width: min(ansi.StringWidth(ls[0]), max(0, width-2)),
				drill: drill{title: "root cause " + ansi.Truncate(cause, maxDrillCause, "…"), keys: keys}})
			for _, l := range ls {
				add("  " + l)
			}
			eg := reportview.WrapHang("e.g. "+sanitizeLine(strings.Join(rc.Traces, ", ")), width-rootCauseIndent, 5)
			for _, l := range strings.Split(eg, "\n") {
				add(strings.Repeat(" ", rootCauseIndent) + muted.Render(l))
			}
		}
		if r.RootCausesNote != "" {
			for _, l := range strings.Split(reportview.WrapHang(sanitizeLine(r.RootCausesNote), width-2, 2), "\n") {
				add("  " + muted.Render(l))
			}
		}
	}
	return page{lines: out, targets: targets}
}

// namedKeys names up to maxNamedKeys trace keys after a count.
func namedKeys(keys []string) string {
	switch {
	case len(keys) == 0:
		return ""
	case len(keys) > maxNamedKeys:
		return " (" + strings.Join(keys[:maxNamedKeys], ", ") + fmt.Sprintf(", and %d more)", len(keys)-maxNamedKeys)
	}
	return " (" + strings.Join(keys, ", ") + ")"
}

// outcomeTraces is the traces each outcome opens: every attempt of the
// grid by its typed outcome, those with none (or one the report does not
// know) under "unknown", as the report counts them.
func outcomeTraces(g *reportview.Grid) map[string][]string {
	out := map[string][]string{}
	for _, t := range g.Tasks {
		for _, c := range t.AllCells() {
			o := string(c.Outcome)
			if !c.Outcome.Valid() {
				o = "unknown"
			}
			out[o] = append(out[o], triage.TraceKey(c.RunID, t.TaskID, c.Seed))
		}
	}
	return out
}
