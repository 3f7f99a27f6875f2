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

	var orphans int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM traces t WHERE NOT EXISTS (SELECT 1 FROM trace_rows r WHERE r.trace_id = t.id)`).Scan(&orphans); err != nil {
		return nil, fmt.Errorf("trace rows check: %w", mapErr(err))
	}
	if orphans > 0 {
		problems = append(problems, fmt.Sprintf("%d traces have no stored row", orphans))
	}
	return problems, nil
}
