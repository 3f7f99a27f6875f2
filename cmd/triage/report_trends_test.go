package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/card"
)

// trendStore imports run h (gateRows with every loop gone), then g
// (gateRows), then g2 (g again), in that order, and runs the rules.
func trendStore(t *testing.T) *cli {
	t.Helper()
	c := newCLI(t)
	g := gateRows()
	var hb strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(strings.ReplaceAll(g, `"run_id":"g"`, `"run_id":"h"`)), "\n") {
		if strings.Contains(line, `"command":"ls"`) {
			line = line[:strings.Index(line, `"exit_code"`)] + `"exit_code":0,"written_tests":false,"tool_calls":[{"name":"read","args":{"path":"z"}}]}`
		}
		hb.WriteString(line + "\n")
	}
	for _, f := range []struct{ name, rows string }{
		{"h.jsonl", hb.String()}, {"g.jsonl", g}, {"g2.jsonl", strings.ReplaceAll(g, `"run_id":"g"`, `"run_id":"g2"`)},
	} {
		code, _, errOut := c.run("", "import", c.file(f.name, f.rows))
		require.Equal(t, exitOK, code, errOut)
	}
	code, _, errOut := c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	return c
}

func trendLineOf(t *testing.T, tr *card.TrendReport, fig string) card.TrendLine {
	t.Helper()
	for _, l := range tr.Lines {
		if l.Figure == fig {
			return l
		}
	}
	t.Fatalf("no trend line %s", fig)
	return card.TrendLine{}
}

func TestReportTrendsAndToolBreakdowns(t *testing.T) {
	t.Parallel()
	c := trendStore(t)
	code, out, errOut := c.run("", "report", "--json", "--clusters")
	require.Equal(t, exitOK, code, errOut)
	var r card.ReportData
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.NotNil(t, r.Trend)
	require.Equal(t, []string{"h", "g", "g2"}, r.Trend.Points, "oldest import first, not by name")
	require.True(t, r.Trend.Clustered)
	loop := trendLineOf(t, r.Trend, "TOOL_LOOP")
	require.Equal(t, "up", loop.Points[1].Trend, "h → g: the loops came back on every task")
	require.Equal(t, "noise", loop.Points[2].Trend, "g → g2: the same rows")
	var cluster *card.TrendLine
	for i, l := range r.Trend.Lines {
		if l.Cluster && l.Points[0].Estimate.Value == 0 && l.Points[1].Estimate.Value > 0.2 {
			cluster = &r.Trend.Lines[i]
		}
	}
	require.NotNil(t, cluster, "the loop cluster's share is followed: %+v", r.Trend.Lines)
	require.True(t, strings.HasPrefix(cluster.Figure, "#"), cluster.Figure)
	require.Equal(t, "up", cluster.Points[1].Trend)
	tools := map[string]int{}
	for _, g := range r.ByTool {
		tools[g.Key] = g.Traces
	}
	require.Equal(t, 20, tools["bash"], "g's and g2's ten loops each called bash")
	require.Equal(t, 50, r.ToolsRead, "the failing traces: h's 10 timeouts, g's and g2's 20 each")
	require.NotEmpty(t, r.ByFailingTool)

	// Without --clusters no body is read: no cluster lines, no tools.
	code, out, errOut = c.run("", "report", "--json")
	require.Equal(t, exitOK, code, errOut)
	r = card.ReportData{}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.False(t, r.Trend.Clustered)
	require.Zero(t, r.ToolsRead)
	for _, l := range r.Trend.Lines {
		require.False(t, l.Cluster)
	}

	// A noise floor as wide as the change: not a trend.
	code, out, errOut = c.run("", "report", "--json", "--noise", "h,g")
	require.Equal(t, exitOK, code, errOut)
	r = card.ReportData{}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Equal(t, []string{"h", "g"}, r.Trend.NoiseRuns)
	require.Equal(t, "noise", trendLineOf(t, r.Trend, "TOOL_LOOP").Points[1].Trend)

	// One run is no trend; every format says the trends when there are.
	code, out, _ = c.run("", "report", "--run", "g", "--json")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"trend": null`)
	for _, f := range []string{"text", "md", "html"} {
		code, out, errOut = c.run("", "report", "--format", f, "--clusters")
		require.Equal(t, exitOK, code, errOut)
		require.Contains(t, out, "Trends by run", f)
		require.Contains(t, out, "By failing tool", f)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report", "--trend-by", "colour"}, exitUsage, "--trend-by"},
		{[]string{"report", "--noise", "g"}, exitUsage, "want X,Y"},
		{[]string{"report", "--noise", "g,nosuch"}, exitError, `run "nosuch": not found`},
	} {
		code, _, errOut := c.run("", tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
	}
}

func TestCompareTrend(t *testing.T) {
	t.Parallel()
	c := trendStore(t)
	code, out, errOut := c.run("", "compare", "h", "g", "--json", "--clusters")
	require.Equal(t, exitOK, code, errOut)
	var cmp card.Comparison
	require.NoError(t, json.Unmarshal([]byte(out), &cmp))
	require.NotNil(t, cmp.Trend)
	require.Equal(t, []string{"h", "g"}, cmp.Trend.Points)
	require.Equal(t, "up", trendLineOf(t, cmp.Trend, "TOOL_LOOP").Points[1].Trend)
	require.True(t, cmp.Trend.Clustered)

	code, out, errOut = c.run("", "compare", "h", "g", "--noise", "g,h")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "Trends by run")
	require.Contains(t, out, "noise floor: each figure's difference between g and h")
	require.NotContains(t, out, "↑ trend")
}

func TestTrendsFollowClusters(t *testing.T) {
	t.Parallel()
	c := trendStore(t)
	code, out, errOut := c.run("", "trends", "--run", "h", "--run", "g", "--clusters", "--json")
	require.Equal(t, exitOK, code, errOut)
	var up []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var tl card.TrendLine
		require.NoError(t, json.Unmarshal([]byte(l), &tl))
		if tl.Cluster && tl.Points[1].Trend == "up" {
			up = append(up, tl.Figure)
		}
	}
	require.Len(t, up, 1, "the loop cluster appears in g only")
	code, out, errOut = c.run("", "trends", "--run", "h", "--run", "g", "--clusters")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "cluster #")
	require.Contains(t, out, "h 40 traces, 10 tasks · g 40 traces, 10 tasks")
	require.Contains(t, out, "left out: nothing (no point has leftovers or unknown outcomes)", "the points say what they left out")
}

// TestReportViewCarriesSections: report --tui shows the sections the
// text report shows (one view-model, card.View).
func TestReportViewCarriesSections(t *testing.T) {
	t.Parallel()
	in := card.Input{Traces: []card.TraceRow{
		{RunID: "a", TaskID: "T1", Model: "m", Import: 1, Primary: "PASS_CONTRACT"},
		{RunID: "b", TaskID: "T1", Model: "m", Import: 2, Primary: "TOOL_LOOP"},
	}}
	r := card.Report(in)
	v := card.View(r)
	var titles []string
	for _, s := range v.Sections {
		titles = append(titles, s.Title)
	}
	require.Equal(t, []string{"Cost", "By run", "By model", "By agent", "By prompt", "Trends by run", "By repository", "By task type", "By tool used", "By failing tool",
		"Capability × reliability by model", "Model × task: solved seeds out of k", "Definitions"}, titles)
}

// TestReportRedactsClusterNamesAndTools: with --redact, a secret in the
// failing output a cluster is named from, or in a tool's name, is masked
// in the trends and the breakdowns like every other string.
func TestReportRedactsClusterNamesAndTools(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var b strings.Builder
	for _, run := range []string{"a", "b"} {
		for i := range 6 {
			if run == "a" && i < 3 {
				fmt.Fprintf(&b, `{"run_id":%q,"task_id":"T%d","seed":0,"exit_code":0,"tool_calls":[{"name":"read","args":{"path":"x"}}]}`+"\n", run, i)
				continue
			}
			fmt.Fprintf(&b, `{"run_id":%q,"task_id":"T%d","seed":0,"exit_code":1,"tool_calls":[{"name":"tool-%s","args":{"command":"python -c 1"},"output":"Traceback\nValueError: bad key %s","exit_code":1}]}`+"\n",
				run, i, redactAWS, redactOpenAI)
		}
	}
	code, _, errOut := c.run("", "import", c.file("r.jsonl", b.String()))
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	for _, f := range []string{"json", "text", "html"} {
		code, out, errOut := c.run("", "report", "--format", f, "--clusters", "--redact")
		require.Equal(t, exitOK, code, errOut)
		require.False(t, strings.Contains(out, redactAWS) || strings.Contains(out, redactOpenAI), "%s: a secret is shown", f)
		require.True(t, strings.Contains(out, "[REDACTED:api-key]"), "%s: the cluster and the tool are shown, masked", f)
	}
}

// TestReportTrendSaysWhenRunsRanOtherDatasets: a trend across runs of
// different datasets says so beside its figures.
func TestReportTrendSaysWhenRunsRanOtherDatasets(t *testing.T) {
	t.Parallel()
	c := trendStore(t)
	code, out, errOut := c.run("", "report")
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, out, "different datasets", "no run froze a dataset: one (unknown) dataset")
	pack, err := filepath.Abs("../../testdata/sample/pack/tasks")
	require.NoError(t, err)
	code, _, errOut = c.run("", "card", "init", "--run", "p", "--pack", pack)
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "import", c.file("p.jsonl", strings.ReplaceAll(gateRows(), `"run_id":"g"`, `"run_id":"p"`)))
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut = c.run("", "report")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "the runs ran 2 different datasets")
}
