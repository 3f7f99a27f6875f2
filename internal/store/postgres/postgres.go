// Package postgres is the triage store in a PostgreSQL database (13 or
// newer), for a team that shares one: the same store.Store as the SQLite
// file, with its own embedded numbered migrations, bulk import through
// COPY, and writers that retry what the server asks them to retry
// (serialization failures and deadlocks), so none fails because another
// writes.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the triage store in one PostgreSQL database.
type DB struct {
	pool   *pgxpool.Pool
	name   string // the URL without its password, for messages
	server string // host and port, or the socket directory
	decode store.Decoder
	onWait store.WaitFunc
	// Now is the clock; tests replace it.
	Now func() time.Time
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

var (
	_ store.Store       = (*DB)(nil)
	_ store.Import      = (*Import)(nil)
	_ store.TraceFinder = (*finder)(nil)
)

// Open connects to the database rawURL names (postgres:// or
// postgresql://, libpq's URL) and creates or migrates its schema.
func Open(ctx context.Context, rawURL string, decode store.Decoder) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("open store %s: not a PostgreSQL URL: %v", redact(rawURL), err)
	}
	s := &DB{name: redact(rawURL), decode: decode, Now: func() time.Time { return time.Now().UTC() }}
	s.server = serverOf(cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	cfg.MaxConns = max(cfg.MaxConns, 4)
	cfg.ConnConfig.RuntimeParams["application_name"] = "triage"
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.fail("connect", err)
	}
	s.pool = pool
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, s.fail("connect", err)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// serverOf names a server for messages: "host:port/db", or the socket
// directory for a Unix socket.
func serverOf(host string, port uint16, db string) string {
	if strings.HasPrefix(host, "/") {
		return fmt.Sprintf("%s (socket, port %d)/%s", host, port, db)
	}
	return fmt.Sprintf("%s/%s", net.JoinHostPort(host, fmt.Sprint(port)), db)
}

// redact drops the password from a URL.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the PostgreSQL URL"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Name is the store's URL without its password.
func (s *DB) Name() string { return s.name }

// Close closes the pool.
func (s *DB) Close() error {
	s.pool.Close()
	return nil
}

// OnWait sets what is told when a bulk write (an import, a rules run)
// has waited a second for another one.
func (s *DB) OnWait(f store.WaitFunc) { s.onWait = f }

// SetActivity implements store.Store; the server knows who writes.
func (s *DB) SetActivity(string) {}

// AllowConcurrentReads implements store.Store: the pool already serves
// several calls at once.
func (s *DB) AllowConcurrentReads(int) {}

func (s *DB) stamp() string { return store.Stamp(s.Now()) }

// fail wraps err with the server and what failed, in words a user can
// act on.
func (s *DB) fail(what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrFrozen) || errors.Is(err, store.ErrNewerStore) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "42501":
			return fmt.Errorf("PostgreSQL server %s: %s: the database user has no rights for it (%s); grant it CREATE on the database or schema, or use a database it owns", s.server, what, pe.Message)
		case pe.Code == "3D000":
			return fmt.Errorf("PostgreSQL server %s: %s: %s; create it first (createdb)", s.server, what, pe.Message)
		case pe.Code == "28P01" || pe.Code == "28000":
			return fmt.Errorf("PostgreSQL server %s: %s: %s", s.server, what, pe.Message)
		case strings.HasPrefix(pe.Code, "57P") || strings.HasPrefix(pe.Code, "08"):
			return fmt.Errorf("PostgreSQL server %s: %s: the server went away (%s); nothing of the unfinished transaction was kept, run the command again", s.server, what, pe.Message)
		}
		return fmt.Errorf("PostgreSQL server %s: %s: %s (SQLSTATE %s)", s.server, what, pe.Message, pe.Code)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", what, err)
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
		return fmt.Errorf("PostgreSQL server %s: %s: connection refused: is the server running there? (%v)", s.server, what, err)
	}
	if pgconn.SafeToRetry(err) || pgconn.Timeout(err) || isConnErr(err) {
		return fmt.Errorf("PostgreSQL server %s: %s: the connection failed (%v); nothing of the unfinished transaction was kept, run the command again", s.server, what, err)
	}
	return fmt.Errorf("PostgreSQL server %s: %s: %w", s.server, what, err)
}

func isConnErr(err error) bool {
	var ne net.Error
	var ce *pgconn.ConnectError
	return errors.As(err, &ne) || errors.As(err, &ce) || strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF")
}

// mapErr turns server errors into the store's sentinels.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505":
			return fmt.Errorf("%w: %s", store.ErrConflict, pe.Message)
		case "23503":
			return fmt.Errorf("%w: %s", store.ErrNotFound, pe.Message)
		}
	}
	return err
}

// retryable says the server asks for the transaction to be tried
// again: a serialization failure or a deadlock.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// write runs fn in a transaction and commits it, again from the start
// while the server reports a serialization failure or a deadlock, so
// that no writer fails because another writes.
func (s *DB) write(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := pgx.BeginFunc(ctx, s.pool, fn)
		if err == nil || !retryable(err) || ctx.Err() != nil {
			return s.fail(what, mapErr(err))
		}
		time.Sleep(time.Duration(min(attempt+1, 50)) * 2 * time.Millisecond)
	}
}

// read runs fn in one read-only repeatable-read transaction, so that
// the several queries of one read see one state of the store.
func (s *DB) read(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
	return s.fail(what, mapErr(err))
}

// bulkLock is the advisory lock imports and rules runs hold for their
// transaction: they take turns, as on SQLite, so two imports of the
// same keys never deadlock and two rules runs never label one trace
// twice. Label writes do not take it.
const bulkLock = 2020_0020

// lockBulk takes bulkLock in tx, saying so through OnWait after a
// second of waiting.
func (s *DB) lockBulk(ctx context.Context, tx pgx.Tx) error {
	start := time.Now()
	told := false
	for {
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, bulkLock).Scan(&ok); err != nil {
			return err
		}
		if ok {
			return nil
		}
		if !told && time.Since(start) > time.Second && s.onWait != nil {
			told = true
			s.onWait("another triage import or rules run on " + s.server)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// SchemaVersion is the schema this binary writes: its migrations.
func SchemaVersion() int {
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	return len(names)
}

// migrate applies the migrations this database lacks, each in its own
// transaction under an advisory lock (two first users at once migrate
// once), and refuses a database a newer triage migrated further.
func (s *DB) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	var version int
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('triage_schema') IS NOT NULL`).Scan(&exists); err != nil {
		return s.fail("read the schema version", err)
	}
	if exists {
		if err := s.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM triage_schema`).Scan(&version); err != nil {
			return s.fail("read the schema version", err)
		}
	}
	if version > len(names) {
		return fmt.Errorf("open store %s: %w: its schema is version %d (table triage_schema), this triage's is version %d; upgrade triage to use it", s.name, store.ErrNewerStore, version, len(names))
	}
	if version == len(names) {
		return nil
	}
	for i, name := range names {
		v := i + 1
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, bulkLock+1); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS triage_schema (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)`); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM triage_schema WHERE version >= $1`, v).Scan(&n); err != nil || n > 0 {
				return err
			}
			body, err := fs.ReadFile(migrations, name)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO triage_schema (version, name, applied_at) VALUES ($1, $2, $3)`, v, name, s.stamp())
			return err
		})
		if err != nil {
			return s.fail("create the schema ("+name+")", err)
		}
	}
	return nil
}

// Check reports traces without a body and rule verdicts whose evidence
// does not decode: what an import or rules run cut off could leave if
// its transaction were not whole.
func (s *DB) Check(ctx context.Context) ([]string, error) {
	var problems []string
	err := s.read(ctx, "check the store", func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM traces t WHERE t.raw IS NULL OR NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = t.run_id)`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			problems = append(problems, fmt.Sprintf("%d traces have no stored row or no run", n))
		}
		rows, err := tx.Query(ctx, `SELECT id, rest FROM rule_verdicts`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var rest []byte
			if err := rows.Scan(&id, &rest); err != nil {
				return err
			}
			if _, err := store.UnpackRow(rest); err != nil {
				problems = append(problems, fmt.Sprintf("rule verdict %d: %v", id, err))
			}
		}
		return rows.Err()
	})
	return problems, err
}

// Decode turns a stored row into a trace with the store's decoder.
func (s *DB) Decode(r store.StoredRow) (*triage.Trace, error) {
	row := r.Raw
	if r.Norm != nil {
		row = r.Norm
	}
	t, err := s.decode(row, r.RunID)
	if err != nil {
		return nil, fmt.Errorf("trace %d: stored row does not decode: %w", r.ID, err)
	}
	t.ID, t.RunID, t.ContentHash, t.Source, t.Raw = r.ID, r.RunID, r.Hash, r.Source, r.Raw
	return t, nil
}
