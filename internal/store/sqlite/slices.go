package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/triage-dev/triage/internal/store"
)

// sliceLabelled counts the people's label events on the slice that name
// (an SQL expression) names: a slice with any is frozen. It reads the
// partial index of people's events (migration 0002), so it never scans
// the rule verdicts, one a trace, that make up most of label_events in a
// store labelled before migration 0005: a review or adjudication of a
// slice asks it on every open.
func sliceLabelled(name string) string {
	return `(SELECT count(*) FROM label_events INDEXED BY label_events_human WHERE kind != 'rule' AND slice = ` + name + `)`
}

// CreateSlice stores a slice. Re-creating a slice is allowed only while
// no label has landed on it, and only over the slice its creator read
// (sl.Replaces: one made meanwhile is a conflict, the same draw is left as
// it is); then its items are replaced. Afterwards it
// is refused with ErrFrozen.
func (s *DB) CreateSlice(ctx context.Context, sl Slice) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return mapErr(err)
	}
	defer tx.Rollback()
	var labelled int
	if err := tx.QueryRowContext(ctx, `SELECT `+sliceLabelled("?"), sl.Name).Scan(&labelled); err != nil {
		return mapErr(err)
	}
	if labelled > 0 {
		return frozen(fmt.Sprintf("slice %q already has %d label events, so its items cannot change: create a new slice with another name", sl.Name, labelled))
	}
	// The slice as it is now, inside the write lock: one created since
	// the creator looked is not replaced.
	var have Slice
	var seed int64
	err = tx.QueryRowContext(ctx, `SELECT name, run_id, size, seed, stratify, source, created_at FROM slices WHERE name = ?`, sl.Name).
		Scan(&have.Name, &have.RunID, &have.Size, &seed, &have.Stratify, &have.Source, &have.CreatedAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return mapErr(err)
	default:
		have.Seed = uint64(seed)
		if have.Items, err = queryIDs(ctx, tx, `SELECT trace_id FROM slice_items WHERE slice = ? ORDER BY pos`, sl.Name); err != nil {
			return err
		}
		if have.SameDraw(&sl) {
			return nil // drawn already, as it is
		}
		if have.CreatedAt != sl.Replaces {
			return store.SliceRaced(sl.Name, have.CreatedAt)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM slice_items WHERE slice = ?`, sl.Name); err != nil {
		return mapErr(err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM slices WHERE name = ?`, sl.Name); err != nil {
		return mapErr(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO slices (name, run_id, size, seed, stratify, source, created_at) VALUES (?,?,?,?,?,?,?)`,
		sl.Name, sl.RunID, sl.Size, int64(sl.Seed), sl.Stratify, sl.Source, s.stamp()); err != nil {
		return mapErr(err)
	}
	for i, id := range sl.Items {
		if _, err := tx.ExecContext(ctx, `INSERT INTO slice_items (slice, trace_id, pos) VALUES (?,?,?)`, sl.Name, id, i); err != nil {
			return mapErr(err)
		}
	}
	return mapErr(tx.Commit())
}

// Slice returns one slice with its items.
func (s *DB) Slice(ctx context.Context, name string) (Slice, error) {
	var sl Slice
	var seed int64
	err := s.db.QueryRowContext(ctx, `SELECT name, run_id, size, seed, stratify, source, created_at, `+sliceLabelled("slices.name")+`
		FROM slices WHERE name = ?`, name).
		Scan(&sl.Name, &sl.RunID, &sl.Size, &seed, &sl.Stratify, &sl.Source, &sl.CreatedAt, &sl.Labelled)
	if err != nil {
		return sl, fmt.Errorf("slice %q: %w", name, mapErr(err))
	}
	sl.Seed = uint64(seed)
	sl.Items, err = queryIDs(ctx, s.db, `SELECT trace_id FROM slice_items WHERE slice = ? ORDER BY pos`, name)
	return sl, err
}

// Slices lists every slice (without items).
func (s *DB) Slices(ctx context.Context) ([]Slice, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, run_id, size, seed, stratify, source, created_at, `+sliceLabelled("slices.name")+`
		FROM slices ORDER BY created_at, name`)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []Slice
	for rows.Next() {
		var sl Slice
		var seed int64
		if err := rows.Scan(&sl.Name, &sl.RunID, &sl.Size, &seed, &sl.Stratify, &sl.Source, &sl.CreatedAt, &sl.Labelled); err != nil {
			return nil, mapErr(err)
		}
		sl.Seed = uint64(seed)
		out = append(out, sl)
	}
	return out, mapErr(rows.Err())
}

// HeldOut returns the ids of every trace in any slice: the rules send
// them to people whatever they decide.
func (s *DB) HeldOut(ctx context.Context) (map[int64]bool, error) {
	ids, err := queryIDs(ctx, s.db, `SELECT DISTINCT trace_id FROM slice_items`)
	if err != nil {
		return nil, err
	}
	m := make(map[int64]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m, nil
}

// SaveTrust records a trust verdict of a taxonomy version on a slice.
// Like every write it begins through begin, so it waits behind a long
// import (which steps aside for it) instead of failing as busy.
func (s *DB) SaveTrust(ctx context.Context, taxonomyVersion, slice, status string, alpha, lo, hi *float64, units int, reasons string) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO trust (taxonomy_version, slice, status, alpha, ci_lo, ci_hi, units, reasons, created_at) VALUES (?,?,?,?,?,?,?,?,?)`,
		taxonomyVersion, slice, status, nullFloat(alpha), nullFloat(lo), nullFloat(hi), units, reasons, s.stamp()); err != nil {
		return mapErr(err)
	}
	return mapErr(tx.Commit())
}

// Trusts lists every trust verdict, oldest first.
func (s *DB) Trusts(ctx context.Context) ([]Trust, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT taxonomy_version, slice, status, alpha, ci_lo, ci_hi, units, reasons, created_at FROM trust ORDER BY id`)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []Trust
	for rows.Next() {
		var t Trust
		var a, lo, hi sql.NullFloat64
		if err := rows.Scan(&t.TaxonomyVersion, &t.Slice, &t.Status, &a, &lo, &hi, &t.Units, &t.Reasons, &t.CreatedAt); err != nil {
			return nil, mapErr(err)
		}
		t.Alpha, t.CILo, t.CIHi = floatPtr(a), floatPtr(lo), floatPtr(hi)
		out = append(out, t)
	}
	return out, mapErr(rows.Err())
}

// LatestTrust returns the newest trust verdict of a taxonomy version.
func (s *DB) LatestTrust(ctx context.Context, taxonomyVersion string) (Trust, error) {
	var t Trust
	var a, lo, hi sql.NullFloat64
	err := s.db.QueryRowContext(ctx, `SELECT taxonomy_version, slice, status, alpha, ci_lo, ci_hi, units, reasons, created_at FROM trust WHERE taxonomy_version = ? ORDER BY id DESC LIMIT 1`, taxonomyVersion).
		Scan(&t.TaxonomyVersion, &t.Slice, &t.Status, &a, &lo, &hi, &t.Units, &t.Reasons, &t.CreatedAt)
	if err != nil {
		return t, mapErr(err)
	}
	t.Alpha, t.CILo, t.CIHi = floatPtr(a), floatPtr(lo), floatPtr(hi)
	return t, nil
}
