package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/triage-dev/triage/internal/triage"
)

// Outcome of adding one trace to an import.
type AddResult int

// The ways a trace lands: new, already there with the same content, or
// already there with different content (a conflict, never overwritten).
const (
	Imported AddResult = iota
	Duplicate
	Conflict
)

// Reject is a line that could not become a trace, kept with its bytes.
type Reject struct {
	ID        int64  `json:"id"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Reason    string `json:"reason"`
	Raw       []byte `json:"-"`
	CreatedAt string `json:"created_at"`
}

// Import is one write transaction over many traces: callers add traces
// and rejects, then Commit (or Rollback, as --strict does on bad input).
// It is not safe for concurrent use.
type Import struct {
	s      *DB
	tx     *sql.Tx
	ins    *sql.Stmt
	dup    *sql.Stmt
	rej    *sql.Stmt
	runs   map[string]bool
	stamp  string
	closed bool
}

// BeginImport starts an import transaction. The transaction is immediate:
// a second writer waits (busy_timeout) instead of failing.
func (s *DB) BeginImport(ctx context.Context) (*Import, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin import: %w", mapErr(err))
	}
	im := &Import{s: s, tx: tx, runs: map[string]bool{}, stamp: s.stamp()}
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, q)
		return st
	}
	im.ins = prep(`INSERT INTO traces (run_id, task_id, seed, model, agent, prompt_id, exit_code, outcome, n_tool_calls, wall_s, tokens_in, tokens_out, cost_usd, source, content_hash, raw, norm, file, line, imported_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (run_id, task_id, seed) DO NOTHING`)
	im.dup = prep(`SELECT content_hash FROM traces WHERE run_id = ? AND task_id = ? AND seed = ?`)
	im.rej = prep(`INSERT INTO rejects (file, line, reason, raw, raw_sha256, created_at) VALUES (?,?,?,?,?,?) ON CONFLICT DO NOTHING`)
	if err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("begin import: %w", mapErr(err))
	}
	return im, nil
}

// Add stores t unless a trace with its run, task and seed exists. norm is
// the normalised row to keep beside Raw when the source was not our JSONL
// (nil otherwise).
func (im *Import) Add(ctx context.Context, t *triage.Trace, norm []byte, file string, line int) (AddResult, error) {
	if !im.runs[t.RunID] {
		if _, err := im.tx.ExecContext(ctx, `INSERT INTO runs (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`, t.RunID, im.stamp); err != nil {
			return 0, mapErr(err)
		}
		im.runs[t.RunID] = true
	}
	var tin, tout any
	if t.Tokens != nil {
		tin, tout = t.Tokens.Input, t.Tokens.Output
	}
	var raw any
	if t.Raw != nil {
		raw = t.Raw
	}
	var nrm any
	if norm != nil {
		nrm = norm
	}
	res, err := im.ins.ExecContext(ctx, t.RunID, t.TaskID, t.Seed, t.Model, t.Agent, t.PromptID, nullInt(t.ExitCode), string(t.Outcome),
		len(t.ToolCalls), nullFloat(t.WallS), tin, tout, nullFloat(t.CostUSD), t.Source, t.ContentHash, raw, nrm, file, line, im.stamp)
	if err != nil {
		return 0, mapErr(err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return Imported, nil
	}
	var have string
	if err := im.dup.QueryRowContext(ctx, t.RunID, t.TaskID, t.Seed).Scan(&have); err != nil {
		return 0, mapErr(err)
	}
	if have == t.ContentHash {
		return Duplicate, nil
	}
	return Conflict, nil
}

// Reject files a line that could not be imported.
func (im *Import) Reject(ctx context.Context, r Reject) error {
	sum := sha256.Sum256(r.Raw)
	raw := r.Raw
	if raw == nil {
		raw = []byte{}
	}
	_, err := im.rej.ExecContext(ctx, r.File, r.Line, r.Reason, raw, hex.EncodeToString(sum[:]), im.stamp)
	return mapErr(err)
}

// Commit makes the import durable.
func (im *Import) Commit() error {
	if im.closed {
		return errors.New("import already closed")
	}
	im.closed = true
	return mapErr(im.tx.Commit())
}

// Rollback discards the import; it is safe after Commit.
func (im *Import) Rollback() error {
	if im.closed {
		return nil
	}
	im.closed = true
	return im.tx.Rollback()
}

// Rejects lists filed rejects, newest import last; file filters when set.
func (s *DB) Rejects(ctx context.Context, file string) ([]Reject, error) {
	q := `SELECT id, file, line, reason, raw, created_at FROM rejects`
	var args []any
	if file != "" {
		q += ` WHERE file = ?`
		args = append(args, file)
	}
	q += ` ORDER BY id`
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []Reject
	for rows.Next() {
		var r Reject
		if err := rows.Scan(&r.ID, &r.File, &r.Line, &r.Reason, &r.Raw, &r.CreatedAt); err != nil {
			return nil, mapErr(err)
		}
		out = append(out, r)
	}
	return out, mapErr(rows.Err())
}
