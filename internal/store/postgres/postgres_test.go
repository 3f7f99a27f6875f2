package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/pgtest"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

func decodeJSON(row []byte, run string) (*triage.Trace, error) {
	return &triage.Trace{RunID: run, Raw: row}, nil
}

func openTest(t *testing.T) (*DB, string) {
	t.Helper()
	url := pgtest.NewDB(t)
	db, err := Open(t.Context(), url, decodeJSON)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db, url
}

// importN imports n traces of run into db in one import.
func importN(t *testing.T, db *DB, run string, n int) {
	t.Helper()
	ctx := t.Context()
	im, err := db.BeginImport(ctx, func(store.Added) error { return nil })
	require.NoError(t, err)
	for i := range n {
		raw := fmt.Appendf(nil, `{"task_id":"T%05d"}`, i)
		require.NoError(t, im.Add(ctx, &triage.Trace{RunID: run, TaskID: fmt.Sprintf("T%05d", i), Raw: raw, Source: "jsonl", ContentHash: fmt.Sprint(i)}, nil, "f.jsonl", i+1))
	}
	require.NoError(t, im.Commit(ctx))
}

// TestEightWritersLoseNothing: 8 writers × 1,000 labels on one database,
// each label its own transaction: 8,000 labels, no error.
func TestEightWritersLoseNothing(t *testing.T) {
	db, url := openTest(t)
	importN(t, db, "r", 100)
	ctx := t.Context()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each writer is its own store, as a reviewer's process is.
			s, err := Open(ctx, url, decodeJSON)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			for i := range 1000 {
				_, err := s.AppendLabel(ctx, triage.LabelEvent{TraceID: int64(i%100 + 1), Actor: fmt.Sprintf("w%d", w), Kind: triage.KindHuman, Primary: "SCORER_RED", Note: fmt.Sprint(i)})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	t.Logf("8 writers × 1,000 labels: %v", time.Since(start))
	evs, err := db.HumanEvents(ctx, "", "")
	require.NoError(t, err)
	require.Len(t, evs, 8000)
}

// TestNewerSchemaIsRefused: a database a newer triage migrated further is
// refused with both versions.
func TestNewerSchemaIsRefused(t *testing.T) {
	db, url := openTest(t)
	_, err := db.pool.Exec(t.Context(), `INSERT INTO triage_schema (version, name, applied_at) VALUES (99, '0099_future.sql', 'x')`)
	require.NoError(t, err)
	_, err = Open(t.Context(), url, decodeJSON)
	require.ErrorIs(t, err, store.ErrNewerStore)
	require.ErrorContains(t, err, "version 99")
	require.ErrorContains(t, err, fmt.Sprintf("version %d", SchemaVersion()))
}

// TestBadURLsSayWhatFailed: a refused connection, a missing database and
// a user without the right to create tables each name the server.
func TestBadURLsSayWhatFailed(t *testing.T) {
	ctx := t.Context()
	_, err := Open(ctx, "postgres://nobody@127.0.0.1:1/db?connect_timeout=5", decodeJSON)
	require.ErrorContains(t, err, "127.0.0.1:1/db")
	require.ErrorContains(t, err, "connection refused")
	c := pgtest.Get(t)
	_, err = Open(ctx, c.URL("no_such_db"), decodeJSON)
	require.ErrorContains(t, err, "no_such_db")
	require.ErrorContains(t, err, "createdb")
	url := pgtest.NewDB(t)
	require.NoError(t, c.Exec(ctx, `DO $$ BEGIN CREATE ROLE weak LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`))
	owner, err := Open(ctx, url, decodeJSON) // makes the schema as its owner
	require.NoError(t, err)
	owner.Close()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `DROP TABLE triage_schema; REVOKE CREATE ON SCHEMA public FROM PUBLIC`)
	conn.Close(ctx)
	require.NoError(t, err)
	weak := strings.Replace(url, "postgres://postgres@", "postgres://weak@", 1)
	_, err = Open(ctx, weak, decodeJSON)
	require.ErrorContains(t, err, "no rights")
	require.ErrorContains(t, err, "create the schema")
}

// TestImportCutOffLeavesWholeFiles: the server stopped during an import
// leaves the files committed before, whole, and none of the one it cut;
// the next import completes it.
func TestImportCutOffLeavesWholeFiles(t *testing.T) {
	db, _ := openTest(t)
	ctx := t.Context()
	importN(t, db, "whole", 10)
	im, err := db.BeginImport(ctx, func(store.Added) error { return nil })
	require.NoError(t, err)
	for i := range 5000 {
		raw := fmt.Appendf(nil, `{"task_id":"T%05d"}`, i)
		require.NoError(t, im.Add(ctx, &triage.Trace{RunID: "cut", TaskID: fmt.Sprintf("T%05d", i), Raw: raw, Source: "jsonl", ContentHash: fmt.Sprint(i)}, nil, "g.jsonl", i+1))
	}
	c := pgtest.Get(t)
	require.NoError(t, c.StopNow())
	err = im.Commit(ctx)
	require.Error(t, err)
	require.ErrorContains(t, err, "PostgreSQL server")
	require.NoError(t, c.Start())
	db2, err := Open(ctx, db.name, decodeJSON)
	if err != nil && errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	require.NoError(t, err)
	defer db2.Close()
	all, err := db2.Summaries(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, 10, "only the whole file before the cut")
	importN(t, db2, "cut", 5000)
	all, err = db2.Summaries(ctx, "cut")
	require.NoError(t, err)
	require.Len(t, all, 5000)
}

// TestSimultaneousSliceCreatesDoNotReplaceEachOther: two creators of one
// slice name who both saw no slice: the first lands, the second is a
// conflict naming the slice (both said they succeeded, and one silently
// replaced the other); the same draw again changes nothing, and a
// re-draw over the slice its creator read replaces it.
func TestSimultaneousSliceCreatesDoNotReplaceEachOther(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	importN(t, db, "r", 4)
	sums, err := db.Summaries(ctx, "r")
	require.NoError(t, err)
	a := store.Slice{Name: "s", RunID: "r", Size: 2, Seed: 1, Items: []int64{sums[0].ID, sums[1].ID}}
	b := store.Slice{Name: "s", RunID: "r", Size: 2, Seed: 2, Items: []int64{sums[2].ID, sums[3].ID}}
	errs := make(chan error, 2)
	for _, sl := range []store.Slice{a, b} {
		go func() { errs <- db.CreateSlice(ctx, sl) }()
	}
	e1, e2 := <-errs, <-errs
	require.True(t, (e1 == nil) != (e2 == nil), "exactly one of two creators lands: %v, %v", e1, e2)
	lost := e1
	if lost == nil {
		lost = e2
	}
	require.ErrorIs(t, lost, store.ErrConflict)
	require.ErrorContains(t, lost, `slice "s" was created by another process`)
	got, err := db.Slice(ctx, "s")
	require.NoError(t, err)
	won := a
	if got.Seed == b.Seed {
		won = b
	}
	require.Equal(t, won.Items, got.Items)
	require.NoError(t, db.CreateSlice(ctx, won), "the same draw again")
	c := store.Slice{Name: "s", RunID: "r", Size: 1, Seed: 3, Items: []int64{sums[3].ID}, Replaces: got.CreatedAt}
	require.NoError(t, db.CreateSlice(ctx, c))
	got, err = db.Slice(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, c.Items, got.Items)
}
