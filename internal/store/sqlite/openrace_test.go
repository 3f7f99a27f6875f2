package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Processes that create one store at once all open it: the switch to WAL
// (which SQLite makes without its busy handler) waits its turn instead of
// failing one of them as busy. CI saw this as an import of
// TestTwoImportsAndTwoRulesRunsAtOnce exiting 1; before the fix this test
// failed in about two runs of five.
func TestManyOpensOfOneNewStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for round := range 40 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("r%d.db", round))
		var wg sync.WaitGroup
		errs := make([]error, 12)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := Open(ctx, path, testDecode)
				if err == nil {
					err = db.Close()
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "round %d, open %d", round, i)
		}
		db, err := Open(ctx, path, testDecode)
		require.NoError(t, err)
		var mode string
		require.NoError(t, db.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode))
		require.Equal(t, "wal", mode)
		require.NoError(t, db.Close())
	}
}

// A database that cannot be WAL (SQLite's temporary one) opens at once in
// its own mode: only a busy file is waited for.
func TestOpenOfADatabaseThatCannotBeWAL(t *testing.T) {
	t.Parallel()
	start := time.Now()
	db, err := Open(context.Background(), "", testDecode)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	require.Less(t, time.Since(start), 2*time.Second)
}
