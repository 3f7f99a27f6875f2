package card

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// trendRows are two runs of 20 tasks × 3 seeds: in "old" (imported
// first) TOOL_LOOP is every trace of 15 tasks, in "new" of 2, the rest a
// pass; each TOOL_LOOP trace of "new" is in cluster "loop".
func trendRows() []TraceRow {
	var rows []TraceRow
	for _, run := range []struct {
		id     string
		imp    int64
		loops  int
		model  string
		prompt string
	}{{"new", 7, 2, "m-2", "p2"}, {"old", 3, 15, "m-1", "p1"}} {
		for task := range 20 {
			for seed := range 3 {
				r := row(fmt.Sprintf("T%02d", task), seed, triage.PassContract, true)
				r.RunID, r.Import, r.Model, r.PromptID = run.id, run.imp, run.model, run.prompt
				if task < run.loops {
					r = row(r.TaskID, seed, triage.ToolLoop, false)
					r.RunID, r.Import, r.Model, r.PromptID = run.id, run.imp, run.model, run.prompt
					r.Cluster = "loop"
				}
				rows = append(rows, r)
			}
		}
	}
	return rows
}

func TestReportTrendsAcrossRunsByImportOrder(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces = trendRows()
	in.Clustered = true
	r := Report(in)
	require.NotNil(t, r.Trend)
	require.Equal(t, TrendByRun, r.Trend.By)
	require.Equal(t, []string{"old", "new"}, r.Trend.Points, "ordered by first import, not by name")
	require.True(t, r.Trend.Clustered)
	loop := line(r.Trend.Lines, triage.ToolLoop)
	require.InDelta(t, 0.75, loop.Points[0].Estimate.Value, 1e-12)
	require.InDelta(t, 0.10, loop.Points[1].Estimate.Value, 1e-12)
	require.Equal(t, "down", loop.Points[1].Trend)
	var cl *TrendLine
	for i := range r.Trend.Lines {
		if r.Trend.Lines[i].Cluster {
			cl = &r.Trend.Lines[i]
		}
	}
	require.NotNil(t, cl, "the cluster's share is followed")
	require.Equal(t, "loop", cl.Figure)
	require.Equal(t, "down", cl.Points[1].Trend)

	// The same change inside the noise floor is not a trend.
	noisy := NewTrendRun("x")
	quiet := NewTrendRun("y")
	for _, row := range in.Traces {
		if row.RunID == "old" {
			noisy.Add(&row)
		} else {
			quiet.Add(&row)
		}
	}
	in.Noise, in.NoiseRuns = &[2]*TrendRun{noisy, quiet}, []string{"x", "y"}
	r = Report(in)
	require.Equal(t, "noise", line(r.Trend.Lines, triage.ToolLoop).Points[1].Trend)
	require.Equal(t, []string{"x", "y"}, r.Trend.NoiseRuns)

	for _, write := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return WriteText(b, r, 120, false) },
		func(b *bytes.Buffer) error { return WriteMarkdown(b, r) },
		func(b *bytes.Buffer) error { return WriteHTML(b, r) },
	} {
		var b bytes.Buffer
		require.NoError(t, write(&b))
		require.Contains(t, b.String(), "Trends by run")
		require.Contains(t, b.String(), "cluster loop")
	}
}

func TestReportTrendsByVersionField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		dim  string
		want []string
	}{{TrendByModel, []string{"m-1", "m-2"}}, {TrendByPrompt, []string{"p1", "p2"}}} {
		in := seedMix()
		in.Tally = NewTally().TrendBy(c.dim)
		for _, row := range trendRows() {
			in.Tally.Add(&row)
		}
		r := Report(in)
		require.NotNil(t, r.Trend)
		require.Equal(t, c.dim, r.Trend.By)
		require.Equal(t, c.want, r.Trend.Points)
		require.False(t, r.Trend.Clustered)
	}
	require.Nil(t, Report(seedMix()).Trend, "one run is no trend")
}

func TestReportBreakdownsByRepositoryTaskTypeAndTool(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces[0].TaskID = "django__django-11276"
	in.Traces[1].TaskID = "django__django-11276"
	in.Traces[2].TaskID = "pandas-dev__pandas.95280573.pr_53856"
	for i := range in.Traces[:4] {
		in.Traces[i].BodyRead = true
		in.Traces[i].Tools = []string{"bash", "edit"}
	}
	in.Traces[3].FailingTool = "bash"
	r := Report(in)
	keys := func(gs []Group) []string {
		var out []string
		for _, g := range gs {
			out = append(out, fmt.Sprintf("%s=%d", g.Key, g.Traces))
		}
		return out
	}
	require.Equal(t, []string{"(none)=7", "django/django=2", "pandas-dev/pandas=1"}, keys(r.ByRepository))
	require.Equal(t, []string{"(none)=7", "swe-bench=2", "swe-smith=1"}, keys(r.ByTaskType))
	require.Equal(t, []string{"bash=4", "edit=4"}, keys(r.ByTool))
	require.Equal(t, []string{"(none)=3", "bash=1"}, keys(r.ByFailingTool))
	require.Equal(t, 4, r.ToolsRead)
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, 120, false))
	require.Contains(t, b.String(), "over the 4 of 10 traces whose tool calls were read")
	require.Contains(t, b.String(), "django/django")
}

// heatRows: model a clears T1 on all 3 seeds, b clears it too; on T2
// a solves 1 of 3 and b none; T3 only a ran, and solved it on 2 of 3.
func heatRows() []TraceRow {
	var rows []TraceRow
	add := func(model, task string, solved, seeds int) {
		for s := range seeds {
			pass := s < solved
			primary := triage.ScorerRed
			if pass {
				primary = triage.PassContract
			}
			r := row(task, s, primary, pass)
			r.Model = model
			r.CostUSD = ptr(map[string]float64{"a": 0.5, "b": 0.1}[model])
			r.Tokens = &triage.Tokens{Input: 10, Output: 1}
			rows = append(rows, r)
		}
	}
	add("a", "T1", 3, 3)
	add("b", "T1", 3, 3)
	add("a", "T2", 1, 3)
	add("b", "T2", 0, 3)
	add("a", "T3", 2, 3)
	return rows
}

func TestReportHeatmapAndDumbbells(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces = heatRows()
	r := Report(in)
	h := r.Heatmap
	require.Equal(t, []string{"a", "b"}, h.Models)
	require.Equal(t, []HeatTask{{TaskID: "T1", Saturated: true}, {TaskID: "T2", Cold: true}, {TaskID: "T3", Cold: true}}, h.Tasks)
	require.Equal(t, 1, h.Cells[0][1].Solved)
	require.Equal(t, 3, h.Cells[0][1].Runs)
	require.Nil(t, h.Cells[1][2], "b never ran T3")
	require.Equal(t, []string{"r1/T2#0", "r1/T2#1", "r1/T2#2"}, h.Cells[0][1].Traces)

	require.Len(t, r.Dumbbells, 2)
	a := r.Dumbbells[0]
	require.Equal(t, "a", a.Model)
	require.InDelta(t, (1.0+1.0/3+2.0/3)/3, a.PassAt1, 1e-12)
	require.InDelta(t, 1.0/3, a.PassHatK, 1e-12)
	require.InDelta(t, a.PassAt1-a.PassHatK, a.Gap, 1e-12)
	require.InDelta(t, 4.5, *a.Dollars, 1e-12)
	require.Equal(t, int64(99), *a.Tokens)
	require.Nil(t, a.MedianWallS, "no wall-clock recorded")
	require.Len(t, a.Examples, MaxMarkTraces)

	var txt bytes.Buffer
	require.NoError(t, WriteText(&txt, r, 120, false))
	require.Contains(t, txt.String(), "|·······○━━━━━●·······|", "a's pass^k 0.33 hollow, pass@1 0.67 filled")
	require.Contains(t, txt.String(), "  T1    3/3  3/3  saturated")
	require.Contains(t, txt.String(), "  T3    2/3    ·       cold")

	var page bytes.Buffer
	require.NoError(t, WriteHTML(&page, r))
	html := page.String()
	requireValidXHTML(t, html)
	require.Contains(t, html, `data-model="a" data-task="T2" data-traces="r1&#47;T2#0 r1&#47;T2#1 r1&#47;T2#2"`, "each heatmap cell names its traces")
	require.Contains(t, html, `<title>a × T2: 1&#47;3 seeds solved (cold): r1&#47;T2#0, r1&#47;T2#1, r1&#47;T2#2</title>`)
	require.Equal(t, 2*2, strings.Count(html, `class="dumbbell"`), "one dumbbell per model on each axis with a recorded cost: dollars and tokens, not wall-clock")
	require.Contains(t, html, "not drawn (no median wall-clock recorded): a, b")
	require.Contains(t, html, "and 4 more", "a mark says how many traces it does not name")
	require.Contains(t, html, `data-mark="saturated">S</text>`)
	require.Contains(t, html, "S saturated · C cold")
	require.NotContains(t, html, "<td>saturated</td>", "the heatmap's picture, not a table repeating it")
}

func TestDashboardsEscapeHostileText(t *testing.T) {
	t.Parallel()
	in := hostileInput()
	for i := range in.Traces {
		in.Traces[i].BodyRead = true
		in.Traces[i].Tools = []string{`<script>x</script>//evil`}
		in.Traces[i].FailingTool = "\x1b[31mred"
		in.Traces[i].Cluster = "<b>c</b>https://x"
	}
	in.Traces[0].RunID = "other"
	in.Clustered = true
	r := Report(in)
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r))
	requireValidXHTML(t, b.String())
	for _, bad := range []string{"<script", "//", "\x1b", "<b>c"} {
		require.NotContains(t, b.String(), bad)
	}
	var txt bytes.Buffer
	require.NoError(t, WriteText(&txt, r, 100, false))
	require.NotContains(t, txt.String(), "\x1b")
	var m bytes.Buffer
	require.NoError(t, WriteMarkdown(&m, r))
	require.NotContains(t, m.String(), "<script")
}

// TestDashboardSectionsFitTheWidth: no line of the new sections is wider
// than the terminal at the widths the report chooses between.
func TestDashboardSectionsFitTheWidth(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces = append(trendRows(), heatRows()...)
	for i := range in.Traces {
		in.Traces[i].BodyRead = true
		in.Traces[i].Tools = []string{"bash"}
	}
	in.Clustered = true
	r := Report(in)
	for _, w := range []int{80, 100, 120, 140} {
		var b bytes.Buffer
		require.NoError(t, WriteText(&b, r, w, false))
		for _, l := range strings.Split(b.String(), "\n") {
			require.LessOrEqual(t, len([]rune(l)), w, "width %d: %q", w, l)
		}
	}
}

// TestTrendPassRatesLeaveOutUnknownOutcomesAsTheGridDoes: an attempt
// nobody recorded an outcome for is out of the trend's pass@1 and pass^k,
// as it is out of the report's, and each point says how many it left out.
func TestTrendPassRatesLeaveOutUnknownOutcomesAsTheGridDoes(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces = trendRows()
	for i := range in.Traces {
		r := &in.Traces[i]
		if r.RunID == "new" && r.Seed == 2 {
			r.ExitCode, r.Outcome = nil, triage.OutcomeUnknown
		}
		if r.RunID == "old" && r.TaskID == "T19" {
			r.Leftover = true
		}
	}
	r := Report(in)
	byRun := map[string]Group{}
	for _, g := range r.ByRun {
		byRun[g.Key] = g
	}
	p1 := line(r.Trend.Lines, TrendPassAt1)
	require.InDelta(t, byRun["new"].PassAt1, p1.Points[1].Estimate.Value, 1e-12, "the trend's pass@1 is the report's")
	require.InDelta(t, 0.9, p1.Points[1].Estimate.Value, 1e-12, "18 of 20 tasks solved on every known seed")
	require.InDelta(t, byRun["new"].PassHatK, line(r.Trend.Lines, TrendPassHatK).Points[1].Estimate.Value, 1e-12)
	require.Equal(t, 20, p1.Points[1].UnknownOutcome)
	require.Equal(t, 3, p1.Points[0].Leftovers)
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, 140, false))
	require.Contains(t, strings.Join(strings.Fields(b.String()), " "), // unwrapped
		"left out: old 3 of 60 traces leftovers (provisional labels), 0 with an unknown outcome (left out of pass@1; its task cannot clear pass^k); new 0 of 60")
}

// TestUnknownTaskIsNotColdNorUncleared: a task whose every attempt has
// no recorded outcome is not known to be hard, so the heatmap does not
// call it cold and the grid does not list it as one nobody clears; a
// task with a known failure beside it still is both.
func TestUnknownTaskIsNotColdNorUncleared(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces = nil
	for s := range 2 {
		r := row("UNK", s, "", false)
		r.ExitCode, r.Outcome, r.Decision = nil, triage.OutcomeUnknown, triage.DecisionLeftover
		in.Traces = append(in.Traces, r)
		in.Traces = append(in.Traces, row("RED", s, triage.ScorerRed, false))
	}
	r := Report(in)
	require.Equal(t, []HeatTask{{TaskID: "RED", Cold: true}, {TaskID: "UNK"}}, r.Heatmap.Tasks)
	require.Equal(t, []string{"RED"}, r.Grid.NobodyClears())
}

// TestGroupWithNoKnownOutcomeHasNoRates: a model none of whose outcomes
// was recorded has no pass@1 or pass^k in the breakdown and no mark in
// the dumbbell (it was drawn at 0, as if it had failed everything); a
// group with some unknown attempts says how many beside solved.
func TestGroupWithNoKnownOutcomeHasNoRates(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces = nil
	for s := range 3 {
		r := row("T1", s, "", false)
		r.Model, r.ExitCode, r.Outcome, r.Decision = "dark", nil, triage.OutcomeUnknown, triage.DecisionLeftover
		in.Traces = append(in.Traces, r)
		k := row("T1", s, triage.PassContract, true)
		k.Model = "lit"
		in.Traces = append(in.Traces, k)
	}
	r := Report(in)
	byModel := map[string]Group{}
	for _, g := range r.ByModel {
		byModel[g.Key] = g
	}
	require.False(t, byModel["dark"].Scored())
	require.Equal(t, 3, byModel["dark"].Unknown)
	require.True(t, byModel["lit"].Scored())
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, 140, false))
	out := b.String()
	require.Regexp(t, `(?m)^  dark\s+3\s+1\s+0 \?3\s+—\s+—\s`, out, "the breakdown")
	require.Regexp(t, `(?m)^  dark\s+\|\s*no known outcome\s*\|\s+—\s+—\s+—\s+—`, out, "the dumbbell")
	require.Regexp(t, `(?m)^  lit\s+3\s+1\s+3\s+1\.00\s+1\.00\s`, out)
	var h bytes.Buffer
	require.NoError(t, WriteHTML(&h, r))
	require.Contains(t, h.String(), "not drawn (no known outcome): dark")
	require.NotContains(t, h.String(), `data-model="dark" data-traces`, "no dumbbell mark for it")
}
