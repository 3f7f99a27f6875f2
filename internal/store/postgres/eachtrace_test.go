package postgres

import (
	"context"
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
