package sqlite

import (
	"context"
	"database/sql"
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
