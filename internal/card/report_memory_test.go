package card

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// mixedRows are rows over many tasks, models, agents, runs and seeds,
// with unknown outcomes, leaks and wall times: every section of a
// report has something to count.
func mixedRows(seed uint64, n int) []TraceRow {
	rnd := rand.New(rand.NewPCG(seed, 11))
	classes := []string{triage.PassContract, triage.PassWeak, triage.AssumeAPI, triage.ToolLoop, triage.Timeout, ""}
	rows := make([]TraceRow, 0, n)
	for i := range n {
		r := row(fmt.Sprintf("owner__repo%d-%d", rnd.IntN(3), rnd.IntN(60)), rnd.IntN(4), classes[rnd.IntN(len(classes))], rnd.IntN(3) == 0)
		r.Model = []string{"m1", "m2", ""}[rnd.IntN(3)]
		r.Agent = []string{"a1", "a2"}[rnd.IntN(2)]
		r.RunID = fmt.Sprintf("r%d", rnd.IntN(3))
		r.WallS, r.CostUSD = ptr(float64(rnd.IntN(90))), ptr(float64(i%7)/10)
		r.Leaked = rnd.IntN(17) == 0
		r.Leftover = rnd.IntN(5) == 0
		if rnd.IntN(9) == 0 {
			r.Outcome, r.ExitCode = "", nil
		}
		rows = append(rows, r)
	}
	return rows
}

// A report whose tally is read once (ReportOnce) lets go of the tally's
// parts as it builds its sections; the report must be the same as one
// built from a tally kept whole.
func TestReportOnceIsTheSameReport(t *testing.T) {
	t.Parallel()
	for seed := range uint64(8) {
		rows := mixedRows(seed, 600)
		tally := func() *Tally {
			tl := NewTally()
			for i := range rows {
				tl.Add(&rows[i])
			}
			return tl
		}
		want := Report(Input{Tally: tally()})
		got := Report(Input{Tally: tally(), ReportOnce: true})
		require.NotEmpty(t, want.Heatmap.Tasks)
		require.Len(t, want.ByModel, 3)
		require.Equal(t, want, got, "seed %d", seed)
	}
}

// The heatmap is read from the grid's units: each cell counts the
// model's attempts at the task, under every agent, and with one agent
// names the first attempts in the order they were added, as the map it
// replaced did.
func TestHeatmapFromTheGrid(t *testing.T) {
	t.Parallel()
	rows := mixedRows(3, 900)
	type cell struct{ runs, solved, unknown int }
	want := map[[2]string]*cell{}
	first := map[[2]string][]string{}
	for i := range rows {
		r := &rows[i]
		k := [2]string{heatModel(r.Model), r.TaskID}
		c := want[k]
		if c == nil {
			c = &cell{}
			want[k] = c
		}
		c.runs++
		switch {
		case r.Unknown():
			c.unknown++
		case r.Solved():
			c.solved++
		}
		if r.Agent == "a1" && len(first[k]) < MaxMarkTraces {
			first[k] = append(first[k], r.Key())
		}
	}
	h := Report(Input{Traces: rows}).Heatmap
	n := 0
	for i, m := range h.Models {
		for j, task := range h.Tasks {
			c := h.Cells[i][j]
			w := want[[2]string{m, task.TaskID}]
			if w == nil {
				require.Nil(t, c, "%s × %s ran nothing", m, task.TaskID)
				continue
			}
			n++
			require.Equal(t, *w, cell{c.Runs, c.Solved, c.Unknown}, "%s × %s", m, task.TaskID)
			require.Equal(t, c.Runs-len(c.Traces), c.More)
			require.LessOrEqual(t, len(c.Traces), MaxMarkTraces)
		}
	}
	require.Len(t, want, n, "every model × task that ran has its cell")

	// One agent: the traces named are the first added.
	var one []TraceRow
	for _, r := range rows {
		if r.Agent == "a1" {
			one = append(one, r)
		}
	}
	h = Report(Input{Traces: one}).Heatmap
	for i, m := range h.Models {
		for j, task := range h.Tasks {
			if c := h.Cells[i][j]; c != nil {
				require.Equal(t, first[[2]string{m, task.TaskID}], c.Traces, "%s × %s", m, task.TaskID)
			}
		}
	}
}

// A report's tally on a store of a task a row (a large benchmark, one
// attempt each) costs a bounded number of bytes a task. Before the
// units were numbered, the heatmap read from the grid and the trend left
// out of a one-run report, it held about 900 bytes a task (the live
// heap of a 100,000-task report peaked at 87 MB); now about 410.
func TestReportTallyBytesPerTask(t *testing.T) {
	const n = 40_000
	rows := make([]TraceRow, n)
	for i := range rows {
		rows[i] = row(fmt.Sprintf("T%07d", i), 0, triage.AssumeAPI, i%3 == 0)
		rows[i].Model = []string{"m1", "m2"}[i%2]
		rows[i].WallS = ptr(float64(i % 50))
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	tl := NewTally().WithoutTrend()
	for i := range rows {
		tl.Add(&rows[i])
	}
	after := heap()
	runtime.KeepAlive(tl)
	runtime.KeepAlive(rows)
	perTask := float64(after-before) / n
	t.Logf("%.0f bytes a task", perTask)
	require.Less(t, perTask, 500.0, "the tally's memory a task")
}
