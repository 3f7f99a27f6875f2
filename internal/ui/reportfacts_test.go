package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// factsReport is sampleReport with what card.View adds beside the mix
// and the grid: the outcomes, secondary tags, label sources, leftovers,
// leaked traces, a run's note, two root causes (one with its traces, one
// with only its examples), the cost and the definitions.
func factsReport() *reportview.Report {
	r := sampleReport()
	outcome := map[string]triage.Outcome{"T01": triage.OutcomeSuccess, "T02": triage.OutcomeFailed}
	for i := range r.Grid.Tasks {
		t := &r.Grid.Tasks[i]
		for j := range t.Cells {
			t.Cells[j].Outcome = outcome[t.TaskID]
		}
	}
	r.Outcomes = []reportview.Count{{Key: "success", N: 2}, {Key: "incomplete"}, {Key: "failed", N: 2}, {Key: "blocked"}, {Key: "unknown", N: 1}}
	r.Secondary = []reportview.Count{{Key: triage.TagLeaked, N: 1}, {Key: "FLAKY"}}
	r.Labels = reportview.LabelSources{Rules: 3, Human: 1, Adjudicated: 1}
	r.LeftoverTraces = []string{"r1/T02#1"}
	r.Leaked = []string{"r1/T03#0"}
	r.NotChecked = &reportview.Section{Title: "Not checked for the whole run", Notes: []string{"r1 · allowlist: no pack (5 traces)"}, List: true}
	r.RootCauses = []reportview.RootCause{
		{Cause: "ASSUME_API: called /v2/invoices, not in openapi.yaml, at step <n>", Count: 2, Traces: []string{"r1/T02#0"}, Keys: []string{"r1/T02#0", "r1/T03#0"}},
		{Cause: "TOOL_LOOP: bash called <n> times with the same arguments", Count: 1, Traces: []string{"r1/T02#1"}},
	}
	r.Sections = []reportview.Section{
		{Title: "Cost", Notes: []string{"recorded by 5 (tokens), 5 (dollars), 5 (wall) of 5 traces"},
			Head: []string{"input tokens", "output tokens", "dollars", "median wall", "$/solved"}, Rows: [][]string{{"55,000", "5,500", "$0.55", "55.0 s", "$0.28"}}},
		{Title: "Definitions", List: true, Notes: []string{"pass@1 = mean over tasks of solved seeds / seeds whose outcome is known."}},
	}
	return r
}

func factsConfig() Config {
	cfg := reportConfig()
	cfg.Report = factsReport()
	return cfg
}

// TestReportFactsOpenTheirTraces: each outcome opens the grid's attempts
// with that outcome (none recorded: unknown), the leftovers and the
// leaked their traces, a root cause all its traces, or its examples when
// only they are known; the secondary tags and label sources open nothing.
func TestReportFactsOpenTheirTraces(t *testing.T) {
	t.Parallel()
	p := renderReport(DefaultStyles(), factsReport(), 100)
	opens := map[string][]string{}
	for _, tg := range p.targets {
		opens[tg.drill.title] = tg.drill.keys
		cut := ansi.Cut(ansi.Strip(p.lines[tg.line]), tg.col, tg.col+tg.width)
		require.NotEmpty(t, strings.TrimSpace(cut), "target %q is drawn where it says", tg.drill.title)
	}
	require.Equal(t, []string{"r1/T01#0", "r1/T01#1"}, opens["outcome success"])
	require.Equal(t, []string{"r1/T02#0", "r1/T02#1"}, opens["outcome failed"])
	require.Equal(t, []string{"r1/T03\x1b[2J#0"}, opens["outcome unknown"])
	require.Contains(t, opens, "outcome blocked")
	require.Empty(t, opens["outcome blocked"])
	require.Equal(t, []string{"r1/T02#1"}, opens["leftovers"])
	require.Equal(t, []string{"r1/T03#0"}, opens["leaked"])
	require.Equal(t, []string{"r1/T02#0", "r1/T03#0"}, opens["root cause ASSUME_API: called /v2/invoices, not in…"])
	require.Equal(t, []string{"r1/T02#1"}, opens["root cause TOOL_LOOP: bash called <n> times with t…"], "only the examples are known")
	out := ansi.Strip(strings.Join(p.lines, "\n"))
	for _, want := range []string{
		"Outcomes success 2 · incomplete 0 · failed 2 · blocked 0 · unknown 1",
		"  secondary LEAKED 1 · FLAKY 0",
		"  labels    3 rules · 1 human · 1 adjudicated",
		"  leftovers 1 (r1/T02#1)",
		"  leaked    1 (r1/T03#0)",
		"Not checked for the whole run\n  - r1 · allowlist: no pack (5 traces)",
		"Root causes of failing traces\n      2  ASSUME_API: called /v2/invoices, not in openapi.yaml, at step <n>\n         e.g. r1/T02#0",
		"Cost\n  recorded by 5 (tokens)",
		"Definitions\n  - pass@1 = mean",
	} {
		require.Contains(t, out, want)
	}
	require.Less(t, strings.Index(out, "Root causes"), strings.Index(out, "Per task × seed"), "in the text report's order")
}

// TestReportFactsWrapInTheWidth: at a narrow width the outcomes wrap
// under their first figure, each target still on its figure, and no line
// but the grid's rows (which scroll sideways) is wider than the screen.
func TestReportFactsWrapInTheWidth(t *testing.T) {
	t.Parallel()
	for _, w := range []int{30, 44, 60} {
		p := renderReport(DefaultStyles(), factsReport(), w)
		for i, l := range p.lines {
			if p.frozenAt(i) == 0 {
				require.LessOrEqual(t, ansi.StringWidth(l), w, "%q", l)
			}
		}
		n := 0
		for _, tg := range p.targets {
			if strings.HasPrefix(tg.drill.title, "outcome ") {
				n++
				key := strings.TrimPrefix(tg.drill.title, "outcome ")
				require.Equal(t, key, ansi.Cut(ansi.Strip(p.lines[tg.line]), tg.col, tg.col+len(key)), "width %d", w)
			}
		}
		require.Equal(t, 5, n)
	}
}

// TestReportRootCauseOpensItsTraces drives the screen: down to the first
// root cause, enter opens its traces in the queue, esc comes back to it.
func TestReportRootCauseOpensItsTraces(t *testing.T) {
	t.Parallel()
	m := started(t, newFake(3), factsConfig(), 140, 45)
	for range 20 {
		if strings.HasPrefix(cursorTitle(m), "root cause ASSUME_API") {
			break
		}
		m = press(t, m, "j")
	}
	require.True(t, strings.HasPrefix(cursorTitle(m), "root cause ASSUME_API"), cursorTitle(m))
	require.Contains(t, m.View(), "enter opens root cause ASSUME_API: called /v2/invoices, not in… (2)")
	m = press(t, m, "enter")
	require.Equal(t, screenQueue, m.screen)
	var keys []string
	for _, i := range m.queue.view {
		keys = append(keys, m.queue.all[i].Key())
	}
	require.Equal(t, []string{"r1/T02#0", "r1/T03#0"}, keys)
	m = press(t, m, "esc")
	require.Equal(t, screenReport, m.screen)
	require.True(t, strings.HasPrefix(cursorTitle(m), "root cause ASSUME_API"))
}
