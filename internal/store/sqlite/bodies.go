package sqlite

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// eachTraceBatch is how many traces EachTrace reads and decodes at once,
// fewer when their bodies pass the batch budget (store.BatchBytes).
const eachTraceBatch = 1024

// EachTrace implements store.Traces: it streams the given traces, decoded, each with the rules' full
// verdict on it (evidence included; nil when the rules have not run on
// it), in id order, a batch at a time in one snapshot: memory holds one
// batch of traces (at most eachTraceBatch, and bodies of about
// store.BatchBytes), never the whole list (clusters reads 100,000 failing
// traces this way). The decoded trace belongs to fn only for the call.
func (s *DB) EachTrace(ctx context.Context, refs []store.TraceRef, fn func(*triage.Trace, *triage.Verdict) error) error {
	return s.snapshot(ctx, func(db querier) error {
		ids := make([]int64, 0, eachTraceBatch)
		return s.eachBatch(ctx, db, refs, func(rows []StoredRow) error {
			ids = ids[:0]
			for _, r := range rows {
				ids = append(ids, r.ID)
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
			return nil
		})
	})
}

// EachRow implements store.Traces: the rows of a batch of traces come
// from their chunks (one read a chunk of 64) in one snapshot.
func (s *DB) EachRow(ctx context.Context, refs []store.TraceRef, fn func(StoredRow) error) error {
	return s.snapshot(ctx, func(db querier) error {
		return s.eachBatch(ctx, db, refs, func(rows []StoredRow) error {
			for i := range rows {
				if err := fn(rows[i]); err != nil {
					return err
				}
				rows[i] = StoredRow{}
			}
			return nil
		})
	})
}

// EachStored implements store.Traces: in one snapshot, a page of
// eachTraceBatch summaries by id (an index walk, no sort), then their
// bodies through eachBatch.
func (s *DB) EachStored(ctx context.Context, fn func(TraceSummary, StoredRow) error) error {
	return s.snapshot(ctx, func(db querier) error {
		page := make([]TraceSummary, 0, eachTraceBatch)
		refs := make([]store.TraceRef, 0, eachTraceBatch)
		for after := int64(-1 << 63); ; {
			rows, err := db.QueryContext(ctx, `SELECT `+summaryCols+` FROM traces WHERE id > ? ORDER BY id LIMIT ?`, after, eachTraceBatch)
			if err != nil {
				return mapErr(err)
			}
			page, refs = page[:0], refs[:0]
			for rows.Next() {
				t, err := scanSummary(rows)
				if err != nil {
					rows.Close()
					return mapErr(err)
				}
				page, refs = append(page, t), append(refs, store.TraceRef{ID: t.ID, RunID: t.RunID})
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return mapErr(err)
			}
			if len(page) == 0 {
				return nil
			}
			after = page[len(page)-1].ID
			j := 0
			if err := s.eachBatch(ctx, db, refs, func(rows []StoredRow) error {
				for i := range rows {
					for j < len(page) && page[j].ID != rows[i].ID {
						j++
					}
					if j == len(page) {
						return fmt.Errorf("trace %d: read out of order", rows[i].ID)
					}
					rows[i].Hash, rows[i].Source = page[j].ContentHash, page[j].Source
					if err := fn(page[j], rows[i]); err != nil {
						return err
					}
					rows[i] = StoredRow{}
				}
				return nil
			}); err != nil {
				return err
			}
		}
	})
}

// eachBatch hands fn the rows of refs with their bodies, in id order, a
// batch at a time: up to eachTraceBatch rows, ended early once their
// bodies pass the batch budget (at least one row a batch), so ten traces
// of 64 MiB are not held at once. The rows belong to fn for the call.
func (s *DB) eachBatch(ctx context.Context, db querier, refs []store.TraceRef, fn func([]StoredRow) error) error {
	refs = slices.Clone(refs)
	slices.SortFunc(refs, func(a, b store.TraceRef) int { return cmp.Compare(a.ID, b.ID) })
	rows := make([]StoredRow, 0, eachTraceBatch)
	for lo := 0; lo < len(refs); {
		rows = rows[:0]
		for _, r := range refs[lo:min(lo+eachTraceBatch, len(refs))] {
			rows = append(rows, StoredRow{ID: r.ID, RunID: r.RunID})
		}
		n, err := fillBodies(ctx, db, rows, s.batchBudget())
		if err != nil {
			return err
		}
		lo += n
		if err := fn(rows[:n]); err != nil {
			return err
		}
	}
	return nil
}
