package sqlite

import (
	"cmp"
	"context"
	"slices"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// eachTraceBatch is how many traces EachTrace reads and decodes at once.
const eachTraceBatch = 1024

// EachTrace implements store.Traces: it streams the given traces, decoded, each with the rules' full
// verdict on it (evidence included; nil when the rules have not run on
// it), in id order, a batch at a time in one snapshot: memory holds one
// batch of traces, never the whole list (clusters reads 100,000 failing
// traces this way). The decoded trace belongs to fn only for the call.
func (s *DB) EachTrace(ctx context.Context, refs []store.TraceRef, fn func(*triage.Trace, *triage.Verdict) error) error {
	refs = slices.Clone(refs)
	slices.SortFunc(refs, func(a, b store.TraceRef) int { return cmp.Compare(a.ID, b.ID) })
	return s.snapshot(ctx, func(db querier) error {
		rows := make([]StoredRow, 0, eachTraceBatch)
		ids := make([]int64, 0, eachTraceBatch)
		for lo := 0; lo < len(refs); lo += eachTraceBatch {
			part := refs[lo:min(lo+eachTraceBatch, len(refs))]
			rows, ids = rows[:0], ids[:0]
			for _, r := range part {
				rows = append(rows, StoredRow{ID: r.ID, RunID: r.RunID})
				ids = append(ids, r.ID)
			}
			if err := fillBodies(ctx, db, rows); err != nil {
				return err
			}
			vs, err := verdicts(ctx, db, ids)
			if err != nil {
				return err
			}
			for i := range rows {
				tr, err := s.Decode(rows[i])
				if err != nil {
					return err
				}
				if err := fn(tr, vs[rows[i].ID]); err != nil {
					return err
				}
				rows[i] = StoredRow{}
			}
		}
		return nil
	})
}

// EachRow implements store.Traces: the rows of a batch of traces come
// from their chunks (one read a chunk of 64) in one snapshot.
func (s *DB) EachRow(ctx context.Context, refs []store.TraceRef, fn func(StoredRow) error) error {
	refs = slices.Clone(refs)
	slices.SortFunc(refs, func(a, b store.TraceRef) int { return cmp.Compare(a.ID, b.ID) })
	return s.snapshot(ctx, func(db querier) error {
		rows := make([]StoredRow, 0, eachTraceBatch)
		for lo := 0; lo < len(refs); lo += eachTraceBatch {
			rows = rows[:0]
			for _, r := range refs[lo:min(lo+eachTraceBatch, len(refs))] {
				rows = append(rows, StoredRow{ID: r.ID, RunID: r.RunID})
			}
			if err := fillBodies(ctx, db, rows); err != nil {
				return err
			}
			for i := range rows {
				if err := fn(rows[i]); err != nil {
					return err
				}
				rows[i] = StoredRow{}
			}
		}
		return nil
	})
}
