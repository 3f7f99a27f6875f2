package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// countQueries counts the statements a pool sends.
type countQueries struct{ n atomic.Int64 }

func (c *countQueries) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *countQueries) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// EachTrace reads a batch of traces in one query for their bodies' sizes
// (the batch's byte bound), one for their bodies and one for their
// verdicts, not a query (two, through Trace) for each trace: on
// 2,500 traces that was 5,003 statements. Every trace comes back once, in
// id order, a ref named twice twice, and a ref to no trace is an error
// naming it.
func TestEachTraceQueriesABatchAtATime(t *testing.T) {
	db, url := openTest(t)
	importN(t, db, "r", 2500)
	ctx := t.Context()
	sums, err := db.Summaries(ctx, "r")
	require.NoError(t, err)
	refs := make([]store.TraceRef, 0, len(sums)+1)
	for i := len(sums) - 1; i >= 0; i-- { // out of order on purpose
		refs = append(refs, store.TraceRef{ID: sums[i].ID, RunID: "r"})
	}
	refs = append(refs, refs[0])

	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(t, err)
	var count countQueries
	cfg.ConnConfig.Tracer = &count
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	defer pool.Close()
	counted := *db
	counted.pool = pool

	var got []int64
	require.NoError(t, counted.EachTrace(ctx, refs, func(tr *triage.Trace, v *triage.Verdict) error {
		require.Nil(t, v)
		require.NotEmpty(t, tr.Raw)
		got = append(got, tr.ID)
		return nil
	}))
	require.Len(t, got, 2501)
	require.Equal(t, sums[0].ID, got[0])
	require.Equal(t, got[len(got)-1], got[len(got)-2], "the ref named twice")
	for i := 1; i < len(got); i++ {
		require.LessOrEqual(t, got[i-1], got[i])
	}
	require.LessOrEqual(t, count.n.Load(), int64(9), "3 batches: a query for sizes, one for bodies and one for verdicts each")

	err = counted.EachTrace(ctx, []store.TraceRef{{ID: sums[0].ID}, {ID: 1 << 40}}, func(*triage.Trace, *triage.Verdict) error { return nil })
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorContains(t, err, "trace 1099511627776")
}

// countedDB is db on a pool that counts its statements.
func countedDB(t *testing.T, db *DB, url string) (*DB, *countQueries) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(t, err)
	count := &countQueries{}
	cfg.ConnConfig.Tracer = count
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	c := *db
	c.pool = pool
	return &c, count
}

// store copy's reads and writes: EachRow reads a batch of rows in one
// query (after one for their sizes, the batch's byte bound), and AppendLabels writes a run of rule verdicts in one COPY after
// one query checking their traces (it was an INSERT a verdict); a verdict
// on no stored trace is refused by its id, with nothing written.
func TestCopyPathsQueryABatchAtATime(t *testing.T) {
	db, url := openTest(t)
	importN(t, db, "r", 1500)
	ctx := t.Context()
	sums, err := db.Summaries(ctx, "r")
	require.NoError(t, err)
	refs := make([]store.TraceRef, len(sums))
	for i, s := range sums {
		refs[i] = store.TraceRef{ID: s.ID, RunID: "r"}
	}
	c, count := countedDB(t, db, url)
	var seen int
	require.NoError(t, c.EachRow(ctx, refs, func(r store.StoredRow) error {
		require.Equal(t, sums[seen].ID, r.ID)
		require.NotEmpty(t, r.Raw)
		seen++
		return nil
	}))
	require.Equal(t, len(sums), seen)
	require.LessOrEqual(t, count.n.Load(), int64(4), "two batches: their sizes and their rows")

	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	events := make([]triage.LabelEvent, len(sums))
	for i, s := range sums {
		v := &triage.Verdict{Primary: triage.Timeout, TaxonomyVersion: "tv", RulesVersion: "4", Decision: triage.DecisionCertain,
			Evidence: []triage.Evidence{{Rule: "TIMEOUT", Message: "capped", ToolCall: i % 5}}}
		events[i] = triage.LabelEvent{TraceID: s.ID, Actor: triage.ActorRules, Kind: triage.KindRule, Primary: v.Primary, TaxonomyVersion: "tv", Verdict: v, CreatedAt: at}
	}
	count.n.Store(0)
	n, err := c.AppendLabels(ctx, events)
	require.NoError(t, err)
	require.Equal(t, len(events), n)
	require.LessOrEqual(t, count.n.Load(), int64(8), "a transaction, a check and a COPY, not a statement a verdict")
	got, err := db.Verdicts(ctx, []int64{sums[0].ID, sums[1499].ID})
	require.NoError(t, err)
	require.Equal(t, events[1499].Verdict.Evidence, got[sums[1499].ID].Evidence)

	var before int
	require.NoError(t, db.pool.QueryRow(ctx, `SELECT count(*) FROM rule_verdicts`).Scan(&before))
	bad := []triage.LabelEvent{events[0], events[1]}
	bad[1].TraceID = 1 << 40
	_, err = db.AppendLabels(ctx, bad)
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorContains(t, err, "trace 1099511627776")
	var after int
	require.NoError(t, db.pool.QueryRow(ctx, `SELECT count(*) FROM rule_verdicts`).Scan(&after))
	require.Equal(t, before, after)
}

// store copy's reads and the ids it maps through: EachStored gives every
// trace once, in id order, with its summary and stored row, in a query
// for a page's summaries and two for its bodies (not the whole store's
// summaries at once); the import reports each trace's id in the store
// (Added.ID), the stored one for a duplicate and none for a conflict.
func TestEachStoredAndAddedIDs(t *testing.T) {
	db, url := openTest(t)
	ctx := t.Context()
	add := func(ts ...*triage.Trace) []store.Added {
		var got []store.Added
		im, err := db.BeginImport(ctx, func(a store.Added) error { got = append(got, a); return nil })
		require.NoError(t, err)
		for i, tr := range ts {
			require.NoError(t, im.Add(ctx, tr, nil, "f.jsonl", i+1))
		}
		require.NoError(t, im.Commit(ctx))
		return got
	}
	mk := func(task, hash string) *triage.Trace {
		return &triage.Trace{RunID: "r", TaskID: task, Raw: []byte(`{"task_id":"` + task + `","h":"` + hash + `"}`), Source: "jsonl", ContentHash: hash}
	}
	var ts []*triage.Trace
	for i := range 2500 {
		ts = append(ts, mk(fmt.Sprintf("T%05d", 2500-i), fmt.Sprint(i)))
	}
	ts = append(ts, mk("T00001", "2499"), mk("T00002", "other")) // a repeat and a conflict in the batch
	got := add(ts...)
	require.Len(t, got, 2502)
	for _, a := range got[:2500] {
		require.Equal(t, store.Imported, a.Result)
		id, err := db.FindTrace(ctx, "r", a.Trace.TaskID, 0)
		require.NoError(t, err)
		require.Equal(t, id, a.ID, a.Trace.TaskID)
	}
	require.Equal(t, store.Duplicate, got[2500].Result)
	require.Equal(t, got[2499].ID, got[2500].ID, "a repeat in the batch: its first's id")
	require.Equal(t, store.Conflict, got[2501].Result)
	require.Zero(t, got[2501].ID)
	again := add(mk("T00007", "2493"), mk("T00008", "nope"), mk("NEW", "n"))
	require.Equal(t, []store.AddResult{store.Duplicate, store.Conflict, store.Imported}, []store.AddResult{again[0].Result, again[1].Result, again[2].Result})
	require.Equal(t, got[2493].ID, again[0].ID, "a key stored by an earlier import: the stored id")
	require.Zero(t, again[1].ID)
	require.NotZero(t, again[2].ID)

	c, count := countedDB(t, db, url)
	var ids []int64
	require.NoError(t, c.EachStored(ctx, func(s store.TraceSummary, row store.StoredRow) error {
		want, err := db.Summary(ctx, s.ID)
		require.NoError(t, err)
		require.Equal(t, want, s)
		body, _, err := db.Row(ctx, s.ID)
		require.NoError(t, err)
		require.Equal(t, body, row.Raw)
		require.Equal(t, s.ID, row.ID)
		require.Equal(t, [3]string{"r", s.ContentHash, "jsonl"}, [3]string{row.RunID, row.Hash, row.Source})
		ids = append(ids, s.ID)
		return nil
	}))
	require.Len(t, ids, 2501)
	for i := 1; i < len(ids); i++ {
		require.Less(t, ids[i-1], ids[i])
	}
	// Summary and Row above go through db, not c: c counted EachStored's
	// own statements, 3 pages and the empty one that ends them.
	require.LessOrEqual(t, count.n.Load(), int64(3*3+1), "a page's summaries, sizes and bodies")
}

// AppendLabels writes a run of people's events in one query for their
// traces and one INSERT, in the events' order (an undo at the instant of
// what it undoes still follows it), setting each new event's id; the same
// events again add nothing, and an event on no stored trace is refused by
// its id with nothing written.
func TestAppendPeopleEventsInOneStatement(t *testing.T) {
	db, url := openTest(t)
	importN(t, db, "r", 1500)
	ctx := t.Context()
	sums, err := db.Summaries(ctx, "r")
	require.NoError(t, err)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var events []triage.LabelEvent
	for i, s := range sums {
		events = append(events, triage.LabelEvent{TraceID: s.ID, Actor: "ann", Kind: triage.KindHuman, Primary: triage.Timeout, Note: fmt.Sprint(i), CreatedAt: at})
	}
	events = append(events, triage.LabelEvent{TraceID: sums[0].ID, Actor: "ann", Kind: triage.KindUndo, CreatedAt: at}, events[1])
	c, count := countedDB(t, db, url)
	n, err := c.AppendLabels(ctx, events)
	require.NoError(t, err)
	require.Equal(t, 1501, n, "the repeat of events[1] is not new")
	require.LessOrEqual(t, count.n.Load(), int64(4), "a transaction, the traces' hashes and one INSERT")
	for i := 1; i < 1501; i++ {
		require.Less(t, events[i-1].ID, events[i].ID, "ids in the events' order")
	}
	st, err := db.LabelStatesOf(ctx, []int64{sums[0].ID, sums[1].ID})
	require.NoError(t, err)
	require.Nil(t, st[sums[0].ID].Humans["ann"], "the undo came after the label it undoes")
	require.Equal(t, triage.Timeout, st[sums[1].ID].Humans["ann"].Primary)

	n, err = db.AppendLabels(ctx, events)
	require.NoError(t, err)
	require.Zero(t, n)
	bad := []triage.LabelEvent{{TraceID: sums[0].ID, Actor: "bob", Kind: triage.KindHuman, Primary: triage.Timeout, CreatedAt: at}, {TraceID: 1 << 40, Actor: "bob", Kind: triage.KindHuman, CreatedAt: at}}
	_, err = db.AppendLabels(ctx, bad)
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorContains(t, err, "trace 1099511627776")
	hist, err := db.History(ctx, sums[0].ID, "bob")
	require.NoError(t, err)
	require.Empty(t, hist)
}
