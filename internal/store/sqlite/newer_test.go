package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNewerStoreIsRefused: a store a newer triage has migrated (its
// user_version raised, or a migration row this binary does not know) is
// refused with both schema versions named, and not written into.
func TestNewerStoreIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name, sql, want string
	}{
		{"user_version", `PRAGMA user_version = 99`, "its schema is version 99 (pragma user_version), this triage's is version 7"},
		{"unknown migration", `INSERT INTO migrations (name, applied_at) VALUES ('migrations/0099_future.sql', 'x')`, "its schema is version 8 (it has migration migrations/0099_future.sql, which this triage does not know), this triage's is version 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "t.db")
			db, err := Open(ctx, path, testDecode)
			require.NoError(t, err)
			var v int
			require.NoError(t, db.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v))
			require.Equal(t, SchemaVersion(), v, "a new store records its schema version")
			require.NoError(t, db.Close())
			// The newer triage: raise the version with a plain connection.
			raw, err := sql.Open("sqlite", path)
			require.NoError(t, err)
			_, err = raw.ExecContext(ctx, tc.sql)
			require.NoError(t, err)
			require.NoError(t, raw.Close())
			before := fileSum(t, path)

			_, err = Open(ctx, path, testDecode)
			require.ErrorIs(t, err, ErrNewerStore)
			require.ErrorContains(t, err, tc.want)
			require.Equal(t, before, fileSum(t, path), "a refused store is not written into")
		})
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(b)
}
