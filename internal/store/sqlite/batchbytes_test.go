package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// bigTrace is a trace whose row is about size bytes.
func bigTrace(seed, size int) *triage.Trace {
	tr := trace("r", "T", seed, fmt.Sprint("big", seed))
	tr.Raw = fmt.Appendf(nil, `{"task_id":"T","seed":%d,"pad":%q}`, seed, strings.Repeat("x", size))
	return tr
}

// batchBytes is the bytes of bodies in rows.
func batchBytes(rows []StoredRow) int {
	n := 0
	for _, r := range rows {
		n += len(r.Raw) + len(r.Norm)
	}
	return n
}

// requireWithinBudget checks that a batch's bodies pass budget only at its
// last row (the row that ends the batch), and that a batch holds a row.
func requireWithinBudget(t *testing.T, rows []StoredRow, budget int) {
	t.Helper()
	require.NotEmpty(t, rows, "a batch holds at least one row")
	require.LessOrEqual(t, batchBytes(rows[:len(rows)-1]), budget, "a batch of %d rows, %d bytes, holds more than its budget before its last row", len(rows), batchBytes(rows))
}

// A batch reader ends a batch once its rows' bodies pass the byte budget,
// not only at its row bound: 12 traces of 400 KiB (two to a chunk, two in
// trace_rows as a store from before chunks keeps them) under a budget of 1 MiB come in batches of at most 3 rows,
// each trace once, in id order, through LabelPending, EachRow and
// EachTrace. Without the bound every batch held all 12 (4.8 MB): ten
// traces of a million tool calls were held at once (issue 30).
func TestBatchReadersAreBoundedByBytes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	const size, budget = 400 << 10, 1 << 20
	var ts []*triage.Trace
	for i := range 12 {
		ts = append(ts, bigTrace(i, size))
	}
	importAll(t, db, ts...)
	// Traces 5 and 6 (one chunk) as a store from before chunks keeps them.
	c, err := chunkOf(ctx, db.db, traceChunks, 5)
	require.NoError(t, err)
	require.Equal(t, [2]int64{5, 6}, [2]int64{c.first, c.last}, "two traces a chunk")
	_, err = db.db.ExecContext(ctx, `DELETE FROM trace_chunks WHERE first_id = 5`)
	require.NoError(t, err)
	for _, id := range []int64{5, 6} {
		_, err = db.db.ExecContext(ctx, `INSERT INTO trace_rows (trace_id, raw, norm) VALUES (?, ?, NULL)`, id, packRow(ts[id-1].Raw))
		require.NoError(t, err)
	}
	db.batchBytes = budget
	sums, err := db.Summaries(ctx, "r")
	require.NoError(t, err)
	require.Len(t, sums, 12)
	refs := make([]store.TraceRef, len(sums))
	for i, s := range sums {
		refs[i] = store.TraceRef{ID: s.ID, RunID: "r"}
	}

	// LabelPending labels a batch while the one before is written: the
	// callbacks may overlap, so they only record what they were handed.
	var mu sync.Mutex
	var handed [][]StoredRow
	_, err = db.LabelPending(ctx, "", "tax", "1", func(rows []StoredRow) ([]triage.LabelEvent, error) {
		mu.Lock()
		defer mu.Unlock()
		handed = append(handed, slices.Clone(rows))
		return nil, nil
	})
	require.NoError(t, err)
	var batches, seen []int
	for _, rows := range handed {
		requireWithinBudget(t, rows, budget)
		batches = append(batches, len(rows))
		for _, r := range rows {
			require.Equal(t, string(ts[r.ID-1].Raw), string(r.Raw), "trace %d", r.ID)
			seen = append(seen, int(r.ID))
		}
	}
	slices.Sort(seen)
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, seen)
	require.Greater(t, len(batches), 3, "batches of %v rows", batches)
	for _, n := range batches {
		require.LessOrEqual(t, n, 3, "batches of %v rows", batches)
	}

	batches, seen = nil, nil
	require.NoError(t, db.snapshot(ctx, func(q querier) error {
		return db.eachBatch(ctx, q, refs, func(rows []StoredRow) error {
			requireWithinBudget(t, rows, budget)
			batches = append(batches, len(rows))
			for _, r := range rows {
				require.Equal(t, string(ts[r.ID-1].Raw), string(r.Raw), "trace %d", r.ID)
				seen = append(seen, int(r.ID))
			}
			return nil
		})
	}))
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, seen)
	for _, n := range batches {
		require.LessOrEqual(t, n, 3, "batches of %v rows", batches)
	}

	// EachRow and EachTrace read through eachBatch: every trace once.
	seen = nil
	require.NoError(t, db.EachRow(ctx, refs, func(r StoredRow) error {
		require.Equal(t, string(ts[r.ID-1].Raw), string(r.Raw))
		seen = append(seen, int(r.ID))
		return nil
	}))
	require.Len(t, seen, 12)
	seen = nil
	require.NoError(t, db.EachTrace(ctx, refs, func(tr *triage.Trace, _ *triage.Verdict) error {
		seen = append(seen, int(tr.ID))
		return nil
	}))
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, seen)

	// One row over the budget is a batch of its own; no budget is the row
	// bound alone.
	rows := []StoredRow{{ID: 1}, {ID: 2}}
	n, err := fillBodies(ctx, db.db, rows, 1)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Nil(t, rows[1].Raw, "the rows after the batch are left empty")
	rows = make([]StoredRow, 12)
	for i := range rows {
		rows[i].ID = int64(i + 1)
	}
	n, err = fillBodies(ctx, db.db, rows, 0)
	require.NoError(t, err)
	require.Equal(t, 12, n)
}
