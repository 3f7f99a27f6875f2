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
	shuffled := slices.Clone(sweeps)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, c := range []struct {
		name   string
		traces []*triage.Trace
		want   int
	}{
		{"sweeps", sweeps, -bulkCacheKiB},
		{"shuffled", shuffled, -cacheKiB},
	} {
		db := openTest(t)
		im, err := db.beginImport(ctx, func(Added) error { return nil })
		require.NoError(t, err)
		for i, tr := range c.traces {
			require.NoError(t, im.Add(ctx, tr, nil, "f.jsonl", i+1))
		}
		require.NoError(t, im.Flush(ctx))
		require.Equal(t, c.want, cacheSize(t, im.tx), c.name)
		require.NoError(t, im.Commit(ctx))
		require.Equal(t, -cacheKiB, cacheSize(t, db.db), "%s: after the import", c.name)
		var stored int
		require.NoError(t, db.db.QueryRowContext(ctx, `SELECT count(*) FROM traces`).Scan(&stored))
		require.Equal(t, n, stored, c.name)
	}
}
