package store

import (
	"context"
	"fmt"
)

// Check reports what is wrong with the store file, nil when nothing is:
// SQLite's integrity_check and foreign_key_check, and traces written
// without their stored row (import writes both in one transaction, so a
// crash must leave neither or both). It answers "can this store be
// trusted after a crash" (a killed import, a power cut) without changing
// anything.
func (s *DB) Check(ctx context.Context) ([]string, error) {
	var problems []string
	rows, err := s.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return nil, fmt.Errorf("integrity check: %w", mapErr(err))
	}
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			rows.Close()
			return nil, fmt.Errorf("integrity check: %w", mapErr(err))
		}
		if msg != "ok" {
			problems = append(problems, "integrity: "+msg)
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("integrity check: %w", mapErr(err))
	}

	rows, err = s.db.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return nil, fmt.Errorf("foreign key check: %w", mapErr(err))
	}
	for rows.Next() {
		var table, parent string
		var rowid, fk any
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			rows.Close()
			return nil, fmt.Errorf("foreign key check: %w", mapErr(err))
		}
		problems = append(problems, fmt.Sprintf("foreign key: %s row %v points at a missing %s", table, rowid, parent))
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("foreign key check: %w", mapErr(err))
	}

	more, err := s.checkBodies(ctx)
	if err != nil {
		return nil, fmt.Errorf("trace bodies check: %w", err)
	}
	return append(problems, more...), nil
}

// checkBodies proves every trace has exactly one stored body: chunk
// headers parse, name only traces in their own range, and cover every
// trace in that range; a trace outside every chunk has a row in
// trace_rows (stores from before chunks). It reads headers only.
func (s *DB) checkBodies(ctx context.Context) ([]string, error) {
	var problems []string
	rows, err := s.db.QueryContext(ctx, `SELECT c.first_id, c.last_id, c.body,
		(SELECT count(*) FROM traces t WHERE t.id BETWEEN c.first_id AND c.last_id)
		FROM trace_chunks c ORDER BY c.first_id`)
	if err != nil {
		return nil, mapErr(err)
	}
	prevLast := int64(0)
	for rows.Next() {
		var first, last, traces int64
		var body []byte
		if err := rows.Scan(&first, &last, &body, &traces); err != nil {
			rows.Close()
			return nil, mapErr(err)
		}
		ids, _, err := headerIDs(first, body)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		case len(ids) == 0 || ids[0] != first || ids[len(ids)-1] != last:
			problems = append(problems, fmt.Sprintf("chunk %d: its ids do not span %d..%d", first, first, last))
		case int64(len(ids)) != traces:
			problems = append(problems, fmt.Sprintf("chunk %d: holds %d bodies for %d traces in %d..%d", first, len(ids), traces, first, last))
		case first <= prevLast:
			problems = append(problems, fmt.Sprintf("chunk %d overlaps the chunk before it", first))
		}
		prevLast = last
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, mapErr(err)
	}
	// Counted per chunk above: ids are distinct and in range, so a chunk
	// that holds as many as its range has traces holds each of them.
	var orphans int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM traces t
		WHERE NOT EXISTS (SELECT 1 FROM trace_rows r WHERE r.trace_id = t.id)
		AND NOT EXISTS (SELECT 1 FROM trace_chunks c WHERE c.first_id = (SELECT max(first_id) FROM trace_chunks WHERE first_id <= t.id) AND c.last_id >= t.id)`).Scan(&orphans); err != nil {
		return nil, mapErr(err)
	}
	if orphans > 0 {
		problems = append(problems, fmt.Sprintf("%d traces have no stored row", orphans))
	}
	return problems, nil
}
