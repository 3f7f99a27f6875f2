package main

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/rules"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// decodeStore is a store whose Decode hands back prepared traces by row
// id; labelling calls nothing else on it.
type decodeStore struct {
	store.Store
	traces map[int64]*triage.Trace
}

func (d decodeStore) Decode(r store.StoredRow) (*triage.Trace, error) { return d.traces[r.ID], nil }

// batchOf makes a batch of n rows of run "r": one task for all of them,
// or a task of its own for each.
func batchOf(n int, distinct bool) (decodeStore, []store.StoredRow) {
	d := decodeStore{traces: map[int64]*triage.Trace{}}
	rows := make([]store.StoredRow, n)
	exit := 1
	for i := range n {
		task := "T0"
		if distinct {
			task = "T" + strconv.Itoa(i)
		}
		id := int64(i + 1)
		rows[i] = store.StoredRow{ID: id, RunID: "r"}
		d.traces[id] = &triage.Trace{ID: id, RunID: "r", TaskID: task, Seed: i, ExitCode: &exit,
			ToolCalls: []triage.ToolCall{{Name: "bash", Args: []byte(`{"cmd":"pytest -q"}`)}}}
	}
	return d, rows
}

// allocsPerRow labels the batch with a labeller made afresh each time (as
// each `rules run` is), and returns the allocations per row.
func allocsPerRow(t *testing.T, d decodeStore, rows []store.StoredRow, pk *triage.Pack) float64 {
	t.Helper()
	tax := rules.DefaultTaxonomy()
	base := rules.CompileTaxonomy(tax)
	allocs := testing.AllocsPerRun(5, func() {
		rr := &runRules{loaded: true, pack: pk}
		rr.once.Do(func() {})
		l := &labeller{db: d, tax: tax, base: base, tasks: newTaskCache(base), runs: map[string]*runRules{"r": rr}}
		events, err := l.label(rows)
		require.NoError(t, err)
		require.Len(t, events, len(rows))
	})
	return allocs / float64(len(rows))
}

// Labelling costs per row, not per distinct task: a batch whose 256 rows
// each have their own task (a large benchmark, one attempt each) allocates
// about what a batch of one task does. Before the taxonomy was compiled
// once, each new task compiled the taxonomy's test globs again (and kept
// them for the whole run): 76 allocations a row against 4.3. Not parallel:
// AllocsPerRun counts the whole process.
func TestRulesCostPerRowNotPerTask(t *testing.T) {
	d, rows := batchOf(256, false)
	same := allocsPerRow(t, d, rows, nil)
	d, rows = batchOf(256, true)
	distinct := allocsPerRow(t, d, rows, nil)
	require.Less(t, distinct, same*1.25+2, "allocations a row: one task %.1f, a task a row %.1f", same, distinct)

	// With a pack, only a task that has an entry compiles its own state,
	// once per batch, and tasks it does not name share the no-task state.
	pk := &triage.Pack{Tasks: map[string]*triage.Task{"T0": {ID: "T0", Allowlist: []string{"src/**"}}}}
	withPack := allocsPerRow(t, d, rows, pk)
	require.Less(t, withPack, same*1.25+2, "allocations a row with a pack naming one task: %.1f", withPack)

	// A pack entry for every row's task, 1,000 allowlist globs each (the
	// shape of a large benchmark): a task costs a few allocations, not a
	// compile per glob. Compiling every glob in ForTask cost about 3,000
	// allocations a row here, and 10,000 such tasks did not finish in
	// minutes (issue 27).
	big := &triage.Pack{Tasks: map[string]*triage.Task{}}
	for i := range 256 {
		task := &triage.Task{ID: "T" + strconv.Itoa(i), Allowlist: []string{"src/**"}}
		for g := 1; g < 1000; g++ {
			task.Allowlist = append(task.Allowlist, "m"+strconv.Itoa(i)+"/d"+strconv.Itoa(g)+"/*.py")
		}
		big.Tasks[task.ID] = task
	}
	withBig := allocsPerRow(t, d, rows, big)
	require.Less(t, withBig, same*1.25+10, "allocations a row, a task of 1,000 globs a row: %.1f (no pack %.1f)", withBig, same)
}

// A task with a pack entry is compiled once for all the batches of a
// command, not once a batch (a 1,000-task pack of 52 globs each cost 4.7×
// the CPU that way), and the cache stays within its weight: 100 tasks of
// 400 distinct globs each never hold more than maxTaskWeight.
func TestTaskCacheCompilesOnceAndStaysBounded(t *testing.T) {
	t.Parallel()
	c := newTaskCache(rules.CompileTaxonomy(nil))
	pk := &triage.Pack{Tasks: map[string]*triage.Task{}}
	for i := range 100 {
		task := &triage.Task{ID: "T" + strconv.Itoa(i)}
		for k := range 400 {
			task.Allowlist = append(task.Allowlist, "t"+strconv.Itoa(i)+"/d"+strconv.Itoa(k)+"/**")
		}
		pk.Tasks[task.ID] = task
	}
	first := c.forTask(pk, "T0")
	require.Same(t, first, c.forTask(pk, "T0"), "the second batch finds it")
	require.Same(t, c.forTask(nil, "T0"), c.forTask(pk, "none"), "no pack entry: the shared no-task state")
	for i := range 100 {
		c.forTask(pk, "T"+strconv.Itoa(i))
		require.LessOrEqual(t, c.weight, maxTaskWeight)
	}
	require.Less(t, len(c.m), 100)
}

// interleaved makes n rows of run "r" alternating between tasks A and B,
// and a pack whose two entries each weigh more than half of maxTaskWeight,
// so that the cache cannot hold both.
func interleaved(n int) (decodeStore, []store.StoredRow, *triage.Pack) {
	d := decodeStore{traces: map[int64]*triage.Trace{}}
	pk := &triage.Pack{Tasks: map[string]*triage.Task{}}
	for _, id := range []string{"A", "B"} {
		task := &triage.Task{ID: id}
		for k := range maxTaskWeight*3/5 + 1 {
			task.Allowlist = append(task.Allowlist, id+"/d"+strconv.Itoa(k)+"/**")
		}
		pk.Tasks[id] = task
	}
	rows := make([]store.StoredRow, n)
	exit := 1
	for i := range n {
		id := int64(i + 1)
		rows[i] = store.StoredRow{ID: id, RunID: "r"}
		d.traces[id] = &triage.Trace{ID: id, RunID: "r", TaskID: []string{"A", "B"}[i%2], Seed: i, ExitCode: &exit,
			ToolCalls: []triage.ToolCall{{Name: "edit_file", Args: []byte(`{"path":"A/d1/x.py"}`)}}}
	}
	return d, rows, pk
}

// No order of rows makes compile work repeat a row: rows alternating
// between two tasks that together outweigh the cache compiled a task for
// every row (the cache emptied itself at each), 200 compiles for 200 rows;
// now each task is compiled at most twice a batch (`rules run`) and once
// (`import --rules`), and the verdicts are those of a cache that holds
// both. Not parallel: it shrinks maxTaskWeight and GOMAXPROCS.
func TestCompileNeverRepeatsPerRow(t *testing.T) {
	defer func(w int) { maxTaskWeight = w }(maxTaskWeight)
	maxTaskWeight = 100
	// One worker takes the rows in their order, A, B, A, B: with two,
	// each may take one task's rows alone.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	d, rows, pk := interleaved(200)
	tax := rules.DefaultTaxonomy()
	base := rules.CompileTaxonomy(tax)
	rr := &runRules{loaded: true, pack: pk}
	rr.once.Do(func() {})
	l := &labeller{db: d, tax: tax, base: base, tasks: newTaskCache(base), runs: map[string]*runRules{"r": rr}}
	events, err := l.label(rows)
	require.NoError(t, err)
	require.Len(t, events, len(rows))
	require.LessOrEqual(t, l.tasks.compiles.Load(), int64(4), "rules run: compiles for %d rows of two tasks", len(rows))
	for i, e := range events {
		want := base.ForTask(pk.Task(d.traces[rows[i].ID].TaskID)).Classify(rules.Budgets{}, d.traces[rows[i].ID])
		require.Equal(t, rows[i].ID, e.TraceID)
		require.Equal(t, want.Primary, e.Primary, "row %d", i)
		require.Equal(t, want.Secondary, e.Secondary, "row %d", i)
	}

	batch := make([]store.Added, len(rows))
	for i, r := range rows {
		batch[i] = store.Added{Trace: d.traces[r.ID]}
	}
	l = &labeller{db: d, tax: tax, base: base, tasks: newTaskCache(base), runs: map[string]*runRules{"r": rr}}
	ir := &importRules{l: l}
	verdicts, err := ir.label(batch)
	require.NoError(t, err)
	require.LessOrEqual(t, l.tasks.compiles.Load(), int64(2), "import --rules: compiles for %d rows of two tasks", len(rows))
	for i, v := range verdicts {
		require.Equal(t, events[i].Primary, v.Primary, "row %d", i)
	}
}

// rereadSource is a pack read on demand whose every read is a new value,
// as pack.Open's is once its own cache has dropped the task.
type rereadSource struct{ reads int }

func (s *rereadSource) Task(id string) *triage.Task {
	if id != "T0" {
		return nil
	}
	s.reads++
	return &triage.Task{ID: "T0", Allowlist: []string{"src/**", "lib/*.py"}}
}
func (s *rereadSource) Len() int { return 1 }
func (s *rereadSource) Each(fn func(*triage.Task) error) error {
	return fn(s.Task("T0"))
}

// A task whose pack reads it again (a new *triage.Task each time) is still
// compiled once: the cache knows a task by its pack and id, not by the
// value the pack last returned.
func TestTaskCacheKnowsATaskReadAgain(t *testing.T) {
	t.Parallel()
	c := newTaskCache(rules.CompileTaxonomy(nil))
	src := &rereadSource{}
	pk := &triage.Pack{Source: src}
	first := c.forTask(pk, "T0")
	for range 50 {
		require.Same(t, first, c.forTask(pk, "T0"))
	}
	require.Equal(t, int64(1), c.compiles.Load())
	require.Equal(t, 1, src.reads, "a cached task is not read from the pack again")
	ct, ok := c.cached(pk, "T9")
	require.True(t, ok, "no pack entry needs no compiling")
	require.Same(t, c.forTask(nil, "T0"), ct)
}
