package card

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/reportview"
)

// Section is one part of a report as plain data (reportview.Section):
// the text, Markdown and HTML writers and the TUI all render the same
// sections, so a section is written once.
type Section = reportview.Section

// DashboardSections are the report's sections after the breakdowns by
// run, model, agent and prompt: trends, the breakdowns by repository,
// task type and tool, and seed 004's dumbbell and heatmap, in that order.
// Sections with nothing to show say so in a note rather than vanish.
func DashboardSections(r *ReportData) []Section {
	var out []Section
	if r.Trend != nil {
		out = append(out, TrendSection(r.Trend))
	}
	out = append(out, dimensionSections(r)...)
	if len(r.Dumbbells) > 0 {
		out = append(out, dumbbellSection(r))
	}
	if len(r.Heatmap.Models) > 0 {
		out = append(out, heatmapSection(r))
	}
	return out
}

// TrendSection is the trends as a section, for a report or a comparison.
func TrendSection(tr *TrendReport) Section {
	s := Section{Title: "Trends by " + tr.By,
		Head: []string{"figure", tr.By, "value", "95% CI", "change", "call", "noise floor"}, Wide: []int{6}}
	order := tr.Order
	if order == "first import" {
		order = "oldest first (by first import, ties by name)"
	}
	s.Notes = append(s.Notes, fmt.Sprintf("%d points, %s: %s; 95%% intervals clustered by task.", len(tr.Points), order, strings.Join(tr.Points, " → ")))
	s.Notes = append(s.Notes, tr.Notes...)
	if len(tr.NoiseRuns) == 2 {
		s.Notes = append(s.Notes, fmt.Sprintf("noise floor: each figure's difference between %s and %s (two runs of one configuration); no change inside it is called a trend.", tr.NoiseRuns[0], tr.NoiseRuns[1]))
		for _, l := range tr.Lines {
			if l.Figure == TrendPassHatK && !l.Cluster && l.NoiseFloor == nil {
				s.Notes = append(s.Notes, "pass^k has no noise floor: the two noise runs ran different k, so their difference is not noise.")
			}
		}
	} else {
		s.Notes = append(s.Notes, "no noise floor given (--noise X,Y: two runs of one configuration): only the interval of the difference separates a trend from noise.")
	}
	if len(tr.Lines) > 0 {
		var left []string
		for _, p := range tr.Lines[0].Points {
			if p.Leftovers > 0 || p.UnknownOutcome > 0 {
				left = append(left, fmt.Sprintf("%s %d of %d traces leftovers (provisional labels), %d with an unknown outcome (%s)",
					p.RunID, p.Leftovers, p.Traces, p.UnknownOutcome, UnknownOutcomeEffect))
			}
		}
		s.Notes = append(s.Notes, trendKNote(tr.Lines[0].Points))
		if left == nil {
			s.Notes = append(s.Notes, "left out: nothing (no point has leftovers or unknown outcomes); taxonomy trust as above.")
		} else {
			s.Notes = append(s.Notes, "left out: "+strings.Join(left, "; ")+"; taxonomy trust as above.")
		}
	}
	switch {
	case !tr.Clustered:
		s.Notes = append(s.Notes, "clusters not followed (report --clusters reads the failing traces to cluster them).")
	case tr.ClustersLeftOut > 0:
		s.Notes = append(s.Notes, fmt.Sprintf("clusters: the %d largest followed, %d smaller ones left out.", MaxTrendClusters, tr.ClustersLeftOut))
	}
	for _, l := range tr.Lines {
		name := l.Figure
		if l.Cluster {
			name = "cluster " + name
		}
		floor := "—"
		if l.NoiseFloor != nil {
			floor = signedPts(*l.NoiseFloor, false)
		}
		for i, p := range l.Points {
			e := p.Estimate
			change, call := "", ""
			if p.Change != nil {
				change = signedPts(*p.Change, true)
				call = map[string]string{"up": "↑ trend", "down": "↓ trend", "noise": "noise", TrendKDiffers: "k differs"}[p.Trend]
			}
			fig := name
			if i > 0 {
				fig = ""
			}
			value, ci := pct(e.Value), "["+pct(e.Lo)+", "+pct(e.Hi)+"]"
			if p.NoOutcome {
				// Nobody scored this point's runs: no rate, and no call.
				value, ci = "—", "—"
			}
			s.Rows = append(s.Rows, []string{fig, p.RunID, value, ci, change, call, floor})
		}
	}
	return s
}

// trendKNote says each point's k, the tasks short of it, and that pass^k
// is not followed across points of different k.
func trendKNote(pts []TrendPoint) string {
	var ks, short []string
	same := true
	for i, p := range pts {
		ks = append(ks, fmt.Sprintf("%s %d", p.RunID, p.K))
		if p.ShortOfK > 0 {
			short = append(short, fmt.Sprintf("%s %d of %d", p.RunID, p.ShortOfK, p.Tasks))
		}
		same = same && (i == 0 || p.K == pts[i-1].K)
	}
	note := "pass^k's k: " + strings.Join(ks, ", ")
	if !same {
		note += "; pass^k is not compared between points of different k, which set different bars"
	}
	if short != nil {
		note += "; tasks that ran fewer attempts and cannot clear pass^k: " + strings.Join(short, ", ")
	}
	return note + "."
}

// signedPts writes a difference of shares in percentage points.
func signedPts(f float64, sign bool) string {
	s := strconv.FormatFloat(100*f, 'f', 1, 64)
	if sign && f > 0 {
		s = "+" + s
	}
	return s + " pts"
}

func dimensionSections(r *ReportData) []Section {
	named := func(gs []Group) bool {
		return slices.ContainsFunc(gs, func(g Group) bool { return g.Key != "(none)" })
	}
	var out []Section
	for _, d := range []struct {
		title, what string
		gs          []Group
		none        string
	}{
		{"By repository", "repository", r.ByRepository, "no task id names a repository (SWE-bench-style ids such as django__django-11276 do)."},
		{"By task type", "task type", r.ByTaskType, "no task id names a task type (SWE-bench or SWE-smith ids, or suite/task)."},
	} {
		s := Section{Title: d.title}
		if !named(d.gs) {
			s.Notes = []string{d.none}
		} else {
			s.Head, s.Rows = groupTable(d.what, d.gs, 1<<20)
			s.Wide, s.Medium = []int{6, 7, 8, 9}, []int{8, 9}
			s.Notes = []string{"\"(none)\": tasks whose id names none."}
		}
		out = append(out, s)
	}
	read := fmt.Sprintf("over the %d of %d traces whose tool calls were read", r.ToolsRead, r.NTraces)
	for _, d := range []struct {
		title, what string
		gs          []Group
		note        string
	}{
		{"By tool used", "tool", r.ByTool, "a trace counts once under each tool it called, so the rows add up to more than the traces."},
		{"By failing tool", "failed in", r.ByFailingTool, "the tool whose call failed last (the last failed test or script run, else the last call with an error); \"(none)\": no call failed."},
	} {
		s := Section{Title: d.title}
		if r.ToolsRead == 0 {
			s.Notes = []string{"tool calls not read (report --clusters reads the failing traces' tool calls)."}
		} else {
			s.Head, s.Rows = groupTable(d.what, d.gs, 1<<20)
			s.Wide, s.Medium = []int{6, 7, 8, 9}, []int{8, 9}
			s.Notes = []string{read + "; " + d.note}
		}
		out = append(out, s)
	}
	return out
}

// The titles of the sections the HTML report draws a picture for.
const (
	dumbbellTitle = "Capability × reliability by model"
	heatmapTitle  = "Model × task: solved seeds out of k"
)

// dumbbellW is the width of a text dumbbell, 0 to 1.
const dumbbellW = 21

// DumbbellText draws a model's pass@1 (●) and pass^k (○) on a 0…1 line,
// the gap between them drawn ━.
func DumbbellText(d Dumbbell) string {
	if !d.Scored() {
		return "|" + fmt.Sprintf("%-*s", dumbbellW, " no known outcome") + "|"
	}
	pos := func(v float64) int { return min(dumbbellW-1, max(0, int(v*float64(dumbbellW-1)+0.5))) }
	a, k := pos(d.PassAt1), pos(d.PassHatK)
	b := []rune(strings.Repeat("·", dumbbellW))
	for i := min(a, k); i <= max(a, k); i++ {
		b[i] = '━'
	}
	b[k] = '○'
	b[a] = '●'
	return "|" + string(b) + "|"
}

func dumbbellSection(r *ReportData) Section {
	s := Section{Title: dumbbellTitle,
		Head: []string{"model", "0 ● pass@1 ○ pass^k 1", "pass@1", "pass^k", "gap", "resolution", "$", "tokens", "wall", "$ rank", "token rank", "wall rank"},
		Wide: []int{5, 9, 10, 11}, Medium: []int{5, 9, 10, 11}}
	s.Notes = []string{"● pass@1 (capability), ○ pass^k (reliability), ━ the gap between them; ranks place each model on each cost axis (1 = cheapest, fastest)."}
	rank := func(val func(Dumbbell) (float64, bool)) map[string]string {
		type kv struct {
			m string
			v float64
		}
		var xs []kv
		for _, d := range r.Dumbbells {
			if v, ok := val(d); ok {
				xs = append(xs, kv{d.Model, v})
			}
		}
		slices.SortStableFunc(xs, func(a, b kv) int {
			switch {
			case a.v < b.v:
				return -1
			case a.v > b.v:
				return 1
			}
			return strings.Compare(a.m, b.m)
		})
		out := map[string]string{}
		for i, x := range xs {
			out[x.m] = strconv.Itoa(i+1) + "/" + strconv.Itoa(len(xs))
		}
		return out
	}
	byDollars := rank(func(d Dumbbell) (float64, bool) { return deref(d.Dollars) })
	byTokens := rank(func(d Dumbbell) (float64, bool) {
		if d.Tokens == nil {
			return 0, false
		}
		return float64(*d.Tokens), true
	})
	byWall := rank(func(d Dumbbell) (float64, bool) { return deref(d.MedianWallS) })
	partial := false
	for _, d := range r.Dumbbells {
		tok := "—"
		if d.Tokens != nil {
			tok = thousands(*d.Tokens)
		}
		p1, pk, gap, res := frac(d.PassAt1), frac(d.PassHatK), frac(d.Gap), frac(d.Resolution)
		if !d.Scored() {
			p1, pk, gap, res = "—", "—", "—", "—"
		}
		s.Rows = append(s.Rows, []string{d.Model, DumbbellText(d), p1, pk, gap, res,
			dollars(d.Dollars), tok, seconds(d.MedianWallS), orNone(byDollars[d.Model]), orNone(byTokens[d.Model]), orNone(byWall[d.Model])})
		partial = partial || d.CostKnown < d.Traces || d.TokensKnown < d.Traces || d.WallKnown < d.Traces
	}
	if partial {
		s.Notes = append(s.Notes, "some traces recorded no cost, tokens or wall-clock: each figure sums or takes the median over those that did (see --format json, traces_with_*).")
	}
	return s
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// HeatMark is a heatmap task's mark: S saturated, C cold, "" neither.
func HeatMark(t HeatTask) string {
	switch {
	case t.Saturated:
		return "saturated"
	case t.Cold:
		return "cold"
	}
	return ""
}

// heatCellText is a cell as solved/runs, with ? when some attempts have
// no recorded outcome, · where the model did not run the task.
func heatCellText(c *HeatCell) string {
	if c == nil {
		return "·"
	}
	s := strconv.Itoa(c.Solved) + "/" + strconv.Itoa(c.Runs)
	if c.Unknown > 0 {
		s += "?"
	}
	return s
}

func heatmapSection(r *ReportData) Section {
	h := r.Heatmap
	s := Section{Title: heatmapTitle,
		Head: append(append([]string{"task"}, h.Models...), "mark")}
	s.Notes = []string{"solved seeds / seeds run; ? some attempts have no recorded outcome (not solved); · not run. saturated: every model that ran the task solved all its seeds; cold: no model did."}
	var sat, cold int
	for j, t := range h.Tasks {
		row := []string{t.TaskID}
		for i := range h.Models {
			row = append(row, heatCellText(h.Cells[i][j]))
		}
		row = append(row, HeatMark(t))
		s.Rows = append(s.Rows, row)
		if t.Saturated {
			sat++
		} else if t.Cold {
			cold++
		}
	}
	s.Notes = append(s.Notes, fmt.Sprintf("%d of %d tasks saturated, %d cold.", sat, len(h.Tasks), cold))
	return s
}
