package card

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// A breakdown's group reads the tally's own grid and cost while it is
// the breakdown's only key, and takes a copy when a second key arrives.
// Each group must equal a tally of its rows alone, whether its key came
// first (it was sole, then split) or later, for every breakdown that
// files a row under one key, and the dumbbells that read the groups too.
func TestGroupsEqualTheirRowsAlone(t *testing.T) {
	t.Parallel()
	classes := []string{triage.PassContract, triage.PassWeak, triage.AssumeAPI, triage.Timeout, ""}
	var rows []TraceRow
	for i := range 400 {
		r := row(fmt.Sprintf("django__django-%d", i%23), i/23, classes[i%len(classes)], i%3 != 1)
		// Every key is the only one for a while: the second model from
		// row 100, the second run from 200, the second agent from 300;
		// one prompt throughout, and two repositories from the start.
		r.Model = []string{"m0", "m1"}[min(i/100, 1)*(i%2)]
		r.RunID = fmt.Sprintf("r%d", min(i/200, 1)*(i%3))
		r.Agent = []string{"a0", "a1"}[min(i/300, 1)]
		if i%4 == 0 {
			r.TaskID = fmt.Sprintf("sympy__sympy-%d", i%7)
		}
		r.CostUSD, r.WallS = ptr(float64(i%9)/10), ptr(float64(i%13))
		if i%11 == 0 {
			r.Outcome, r.ExitCode = "", nil
		}
		rows = append(rows, r)
	}
	full := Report(Input{Traces: rows})
	alone := func(keep func(*TraceRow) bool) *ReportData {
		var part []TraceRow
		for i := range rows {
			if keep(&rows[i]) {
				part = append(part, rows[i])
			}
		}
		return Report(Input{Traces: part})
	}
	check := func(what string, groups []Group, key func(*TraceRow) string) {
		require.NotEmpty(t, groups, what)
		for _, g := range groups {
			r := alone(func(x *TraceRow) bool { return key(x) == g.Key })
			require.Len(t, r.ByPrompt, 1, what)
			want := r.ByPrompt[0] // one prompt throughout: the part's whole figures
			want.Key = g.Key
			require.Equal(t, want, g, "%s %s", what, g.Key)
		}
	}
	check("model", full.ByModel, func(r *TraceRow) string { return r.Model })
	check("agent", full.ByAgent, func(r *TraceRow) string { return r.Agent })
	check("prompt", full.ByPrompt, func(r *TraceRow) string { return r.PromptID })
	check("run", full.ByRun, func(r *TraceRow) string { return r.RunID })
	check("repository", full.ByRepository, func(r *TraceRow) string { return triage.RepoOf(r.TaskID) })
	require.Len(t, full.ByModel, 2)
	require.Len(t, full.ByRun, 3)
	require.Len(t, full.ByAgent, 2)
	require.Len(t, full.ByRepository, 2)
	m0 := alone(func(r *TraceRow) bool { return r.Model == "m0" })
	require.Equal(t, m0.Dumbbells[0], full.Dumbbells[0])
}

// A breakdown with one key keeps no copy of the tally's grid or wall
// times: on a store of one run, model, agent and prompt, six breakdowns
// each held every unit's counts and every wall time. The copy is taken
// when a second key arrives, and then holds what came before it.
func TestSoleGroupKeepsNoCopy(t *testing.T) {
	t.Parallel()
	tl := NewTally()
	for i := range 300 {
		r := row(fmt.Sprintf("django__django-%d", i), 0, triage.PassContract, i%2 == 0)
		r.WallS = ptr(float64(i))
		tl.Add(&r)
	}
	breakdowns := map[string]map[string]*groupAcc{
		"model": tl.byModel, "agent": tl.byAgent, "prompt": tl.byPrompt, "run": tl.byRun,
		"repository": tl.dash.byRepo, "task type": tl.dash.byTaskType,
	}
	for name, m := range breakdowns {
		require.Len(t, m, 1, name)
		for _, g := range m {
			require.Same(t, tl, g.sole, name)
			require.Empty(t, g.grid.tasks, "%s: a copy of the tally's grid", name)
			require.Empty(t, g.cost.walls, "%s: a copy of the tally's wall times", name)
			require.Len(t, g.gridOf().tasks, 300, name)
		}
	}
	r := row("django__django-0", 1, triage.PassWeak, false)
	r.Model = "m2"
	tl.Add(&r)
	m1, m2 := tl.byModel["m1"], tl.byModel["m2"]
	require.Nil(t, m1.sole)
	require.Nil(t, m2.sole)
	require.Len(t, m1.grid.tasks, 300)
	require.Len(t, m1.cost.walls, 300)
	require.Len(t, m2.grid.tasks, 1)
	require.Same(t, tl, tl.byAgent["a1"].sole, "a breakdown still on one key")
}
