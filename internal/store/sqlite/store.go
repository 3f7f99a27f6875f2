// Package store owns every SQL string of triage: the connection and its
// pragmas, the embedded numbered migrations, transactions and the mapping
// of driver errors to sentinels. It takes and returns domain values from
// package triage; nothing above it sees a row or a sql.Null.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/store"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the triage store: one SQLite file.
type DB struct {
	db     *sql.DB
	path   string
	decode Decoder
	chunks lastChunk
	// queue and wait are how writers wait for one another (writers.go).
	queue writeQueue
	wait  waitState
	// Now is the clock; tests replace it.
	Now func() time.Time
	// readOnly: opened read-only, since this process may not write it.
	readOnly bool
	// wal is the WAL file this process writes through (wal.go).
	wal walWatch
	// batchBytes replaces store.BatchBytes when set (tests).
	batchBytes int
}

// batchBudget is the bytes of bodies a batch reader holds at once.
func (s *DB) batchBudget() int {
	if s.batchBytes > 0 {
		return s.batchBytes
	}
	return store.BatchBytes
}

// Open opens (creating if needed) the store at path and migrates it. A
// store this process may not write (its file or its directory read-only)
// is opened read-only instead: the read commands work, and a write fails
// saying the store is read-only. `report` and `traces` could not read one.
func Open(ctx context.Context, path string, decode Decoder) (*DB, error) {
	s, err := open(ctx, path, decode, false)
	if err != nil && readOnlyError(err) {
		if st, serr := os.Stat(path); serr == nil && st.Mode().IsRegular() {
			if ro, rerr := open(ctx, path, decode, true); rerr == nil {
				return ro, nil
			}
		}
	}
	return s, err
}

// readOnlyError says err is SQLite refusing to write the file or to make
// the WAL's files beside it (SQLITE_READONLY, SQLITE_CANTOPEN, any
// extended code of either).
func readOnlyError(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqlite3.SQLITE_READONLY || c == sqlite3.SQLITE_CANTOPEN
}

// open opens the store at path, read-only when readOnly: then nothing is
// switched, migrated or written, and where the WAL's shared memory cannot
// be made (a read-only directory with no -shm file) the file is read as
// immutable, as SQLite allows for a WAL database no one can write.
func open(ctx context.Context, path string, decode Decoder, readOnly bool) (*DB, error) {
	q := url.Values{}
	// journal_mode is not among them: switching a new file to WAL needs
	// the file to itself, and SQLite does not call the busy handler for
	// it, so two processes creating one store at once had one fail on
	// open. walMode makes the switch, waiting its turn.
	for _, p := range []string{"foreign_keys(1)", "busy_timeout(10000)", "synchronous(NORMAL)", fmt.Sprintf("cache_size(-%d)", cacheKiB)} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	if readOnly {
		// SQLite reads mode in the URI; a read transaction needs no
		// write lock.
		q.Set("mode", "ro")
		q.Del("_txlock")
		if _, err := os.Stat(path + "-shm"); err != nil {
			q.Set("immutable", "1")
		}
	}
	uri := uriPath.Replace(path)
	if strings.HasPrefix(uri, "/") {
		// An empty authority: "file://x" would name a host x, and an
		// absolute path that starts with "//" would too.
		uri = "//" + uri
	}
	dsn := "file:" + uri + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// One connection: SQLite serialises writers anyway, and a single
	// connection keeps pragmas and immediate transactions predictable.
	db.SetMaxOpenConns(1)
	s := &DB{db: db, path: path, decode: decode, queue: newWriteQueue(path), Now: func() time.Time { return time.Now().UTC() }, readOnly: readOnly}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, mapErr(err))
	}
	if !readOnly {
		if err := s.walMode(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("open store %s: %w", path, err)
		}
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s.walIntact() // records the WAL this connection reads through
	return s, nil
}

// ReadOnly says the store was opened read-only (this process may not
// write its file or directory).
func (s *DB) ReadOnly() bool { return s.readOnly }

// walWait is how long walMode keeps asking for WAL while other
// connections hold the file: busy_timeout's budget (a try may itself
// wait on the busy handler, so the whole can run somewhat longer).
const walWait = 10 * time.Second

// walMode puts the store in WAL mode, which reads beside a write need.
// The mode is kept in the file, so once any process has switched it there
// is nothing to do and no lock to take; until then the switch is retried,
// backing off, for as long as busy_timeout would wait, and a switch that
// another process made meanwhile counts as done.
func (s *DB) walMode(ctx context.Context) error {
	deadline := time.Now().Add(walWait)
	pause := time.Millisecond
	for {
		var mode string
		err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode)
		if err == nil && (mode == "wal" || mode == "memory") {
			return nil
		}
		if err == nil {
			// The switch answers with the mode in force, or with
			// SQLITE_BUSY while another connection holds the file. A
			// database that cannot be WAL (a temporary one) answers its
			// own mode: it is used in that mode, as before the switch
			// moved out of the DSN.
			err = s.db.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
			if err == nil {
				return nil
			}
		}
		err = mapErr(err)
		if !errors.Is(err, ErrBusy) {
			return fmt.Errorf("journal mode: %w", err)
		}
		if time.Now().Add(pause).After(deadline) {
			return fmt.Errorf("journal mode: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// uriPath escapes what a file: URI would read in a path: '?' would start
// the query and '#' a fragment, so "runs#2.db" opened "runs", and '%'
// would start an escape.
var uriPath = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// AllowConcurrentReads lets up to n calls use the store at once, each on
// its own connection: in WAL mode reads then proceed beside one another
// and beside a write, while writes still take turns (busy_timeout). The
// review screen needs it: it reads its whole queue, seconds on a large
// store, while the reviewer opens a trace from the first page.
func (s *DB) AllowConcurrentReads(n int) { s.db.SetMaxOpenConns(max(n, 1)) }

// Close closes the store. The last process to close it (SQLite removed
// the WAL: no other connection is open) removes the writer queue's file
// too, which every writer of an open store can make again.
func (s *DB) Close() error {
	err := s.db.Close()
	s.queue.removeIfUnused(s.path)
	return err
}

// Path is the store's file.
func (s *DB) Path() string { return s.path }

// Name is the store's file, for messages.
func (s *DB) Name() string { return s.path }

func (s *DB) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	applied, err := s.applied(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	// A store a newer triage has migrated further is refused before
	// anything is written: this binary would write rows the newer schema
	// may not allow, or miss what its tables now require.
	if err := newerSchema(names, applied, s.userVersion(ctx)); err != nil {
		return err
	}
	// A store with every migration needs no write, and a read does not
	// wait for the write lock: opening a store (a list command, a second
	// reviewer) while an import holds that lock for a whole file must not
	// block until busy_timeout runs out.
	if all(names, applied) {
		return nil
	}
	if s.readOnly {
		return fmt.Errorf("the store is read-only to this process, and older than this triage (its schema needs migrating, which writes): open it once where it can be written")
	}
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL) STRICT`); err != nil {
		return fmt.Errorf("migrate: %w", mapErr(err))
	}
	for i, name := range names {
		if err := s.migrateFile(ctx, name, i+1); err != nil {
			return fmt.Errorf("migrate %s: %w", name, err)
		}
	}
	return nil
}

// SchemaVersion is the schema this binary writes: the number of its
// migrations, kept in the store's user_version as each is applied.
func SchemaVersion() int {
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	return len(names)
}

// newerSchema refuses a store that records a migration this binary does
// not have, or a user_version past its own, naming both versions.
func newerSchema(names []string, applied map[string]bool, userVersion int) error {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	var unknown []string
	for n := range applied {
		if !known[n] {
			unknown = append(unknown, n)
		}
	}
	sort.Strings(unknown)
	theirs := max(userVersion, len(applied))
	switch {
	case len(unknown) > 0:
		return fmt.Errorf("%w: its schema is version %d (it has migration %s, which this triage does not know), this triage's is version %d; upgrade triage to use it", ErrNewerStore, theirs, strings.Join(unknown, ", "), len(names))
	case userVersion > len(names):
		return fmt.Errorf("%w: its schema is version %d (pragma user_version), this triage's is version %d; upgrade triage to use it", ErrNewerStore, userVersion, len(names))
	}
	return nil
}

// userVersion is the store's pragma user_version (0 on a store made
// before it was kept, or on any error).
func (s *DB) userVersion(ctx context.Context) int {
	var v int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return 0
	}
	return v
}

// all reports whether every migration in names is applied.
func all(names []string, applied map[string]bool) bool {
	for _, n := range names {
		if !applied[n] {
			return false
		}
	}
	return true
}

// applied lists the migrations the store records as applied; a new file
// has no migrations table, and so none.
func (s *DB) applied(ctx context.Context) (map[string]bool, error) {
	applied := map[string]bool{}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'migrations'`).Scan(&n); err != nil {
		return nil, mapErr(err)
	}
	if n == 0 {
		return applied, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM migrations`)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, mapErr(err)
		}
		applied[n] = true
	}
	return applied, mapErr(rows.Err())
}

// migrateFile applies one migration, the version-th, in its own
// transaction, and records it with the schema version it brings.
func (s *DB) migrateFile(ctx context.Context, name string, version int) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return mapErr(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM migrations WHERE name = ?`, name).Scan(&n); err != nil {
		return mapErr(err)
	}
	if n > 0 {
		return nil
	}
	body, err := fs.ReadFile(migrations, name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return mapErr(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO migrations (name, applied_at) VALUES (?, ?)`, name, s.stamp()); err != nil {
		return mapErr(err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, version)); err != nil {
		return mapErr(err)
	}
	return tx.Commit()
}

func (s *DB) stamp() string { return s.Now().UTC().Format(time.RFC3339Nano) }

// mapErr turns driver errors into the store's sentinels.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %s", ErrConflict, se.Error())
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: %s", ErrNotFound, se.Error())
		}
		if se.Code()&0xff == sqlite3.SQLITE_BUSY {
			return fmt.Errorf("%w (%s)", ErrBusy, se.Error())
		}
		if se.Code()&0xff == sqlite3.SQLITE_READONLY {
			return fmt.Errorf("the store is read-only to this process (its file or its directory cannot be written): %w", err)
		}
	}
	return err
}

func nullInt64(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func nullFloat(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func nullBool(p *bool) any {
	if p == nil {
		return nil
	}
	if *p {
		return 1
	}
	return 0
}

func intPtr(v sql.NullInt64) *int {
	if !v.Valid {
		return nil
	}
	n := int(v.Int64)
	return &n
}

func int64Ptr(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	n := v.Int64
	return &n
}

func floatPtr(v sql.NullFloat64) *float64 {
	if !v.Valid {
		return nil
	}
	f := v.Float64
	return &f
}

func boolPtr(v sql.NullInt64) *bool {
	if !v.Valid {
		return nil
	}
	b := v.Int64 != 0
	return &b
}

// idArgs is ids as query arguments, for an IN list of placeholders(len(ids)).
func idArgs(ids []int64) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return args
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// snapshot runs read in one read-only transaction, so that the several
// queries of one read (the rule verdicts, then the traces and their
// events) see one state of the store while an import or a rules run
// commits beside them. A read-only transaction is deferred: it takes no
// write lock, and WAL lets writers go on.
func (s *DB) snapshot(ctx context.Context, read func(db querier) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return mapErr(err)
	}
	defer tx.Rollback()
	return read(tx)
}
