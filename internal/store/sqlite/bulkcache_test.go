package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

// cacheSize is the cache_size pragma as q's connection sees it.
func cacheSize(t *testing.T, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) int {
	t.Helper()
	var n int
	require.NoError(t, q.QueryRowContext(context.Background(), `PRAGMA cache_size`).Scan(&n))
	return n
}

// TestBulkWritesUseTheSmallCache: an import and a rules run write with
// bulkCacheKiB of page cache, and give the connection back to the pool
// with the usual cacheKiB, whether they commit or roll back (the pragma
// is not transactional, so a rollback does not undo it by itself).
func TestBulkWritesUseTheSmallCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	require.Equal(t, -cacheKiB, cacheSize(t, db.db), "a new store's cache")

	im, err := db.beginImport(ctx, func(Added) error { return nil })
	require.NoError(t, err)
	require.Equal(t, -bulkCacheKiB, cacheSize(t, im.tx), "the import's cache")
	require.NoError(t, im.Add(ctx, trace("r", "T1", 0, "h1"), nil, "f.jsonl", 1))
	require.NoError(t, im.Commit(ctx))
	require.Equal(t, -cacheKiB, cacheSize(t, db.db), "after an import")

	im, err = db.beginImport(ctx, func(Added) error { return nil })
	require.NoError(t, err)
	require.NoError(t, im.Add(ctx, trace("r", "T2", 0, "h2"), nil, "f.jsonl", 2))
	require.NoError(t, im.Rollback())
	require.Equal(t, -cacheKiB, cacheSize(t, db.db), "after an import rolled back")

	labelled := 0
	_, err = db.LabelPending(ctx, "", "tax", "1", func(rows []StoredRow) ([]triage.LabelEvent, error) {
		labelled += len(rows)
		return nil, nil
	})
	require.NoError(t, err)
	require.Equal(t, 1, labelled)
	require.Equal(t, -cacheKiB, cacheSize(t, db.db), "after a rules run")
}

// TestImportOutOfOrderGrowsTheCache: traces in key order, or in a few
// long ascending sweeps (the one-run shape: seed after seed over the
// tasks), keep the small cache; a batch in no order gives the import
// the usual cache for the rest of it.
func TestImportOutOfOrderGrowsTheCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 3 * importBatch
	sweeps := make([]*triage.Trace, 0, n)
	for seed := range 3 {
		for task := range importBatch {
			sweeps = append(sweeps, trace("r", fmt.Sprintf("T%04d", task), seed, fmt.Sprintf("h%d-%d", task, seed)))
		}
	}
	// Sweeps a batch and a third long: the second and third batches each
	// hold a descent (a seed's sweep begins again at the first task).
	var long []*triage.Trace
	for seed := range 3 {
		for task := range importBatch + importBatch/3 {
			long = append(long, trace("r", fmt.Sprintf("T%04d", task), seed, fmt.Sprintf("l%d-%d", task, seed)))
		}
	}
	shuffled := slices.Clone(sweeps)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, c := range []struct {
		name   string
		traces []*triage.Trace
		// sweepRows, when set, lowers the import's bound on the traces
		// written before a descent grows the cache.
		sweepRows int
		want      int
	}{
		{"sweeps", sweeps, 0, -bulkCacheKiB},
		{"shuffled", shuffled, 0, -cacheKiB},
		// The third sweep comes back over keys written past the bound:
		// each lands beside an earlier one, all over the index.
		{"long sweeps", long, 0, -bulkCacheKiB},
		{"long sweeps past the bound", long, 2 * importBatch, -cacheKiB},
	} {
		db := openTest(t)
		im, err := db.beginImport(ctx, func(Added) error { return nil })
		require.NoError(t, err)
		if c.sweepRows > 0 {
			im.sweepRows = c.sweepRows
		}
		for i, tr := range c.traces {
			require.NoError(t, im.Add(ctx, tr, nil, "f.jsonl", i+1))
		}
		require.NoError(t, im.Flush(ctx))
		require.Equal(t, c.want, cacheSize(t, im.tx), c.name)
		require.NoError(t, im.Commit(ctx))
		require.Equal(t, -cacheKiB, cacheSize(t, db.db), "%s: after the import", c.name)
		var stored int
		require.NoError(t, db.db.QueryRowContext(ctx, `SELECT count(*) FROM traces`).Scan(&stored))
		require.Equal(t, len(c.traces), stored, c.name)
	}
}
