package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// The import reports each trace's id in the store (Added.ID, what store
// copy maps verdicts, slices and labels through): the new row's when
// Imported, whichever path the batch took (one INSERT, or a lookup first
// after a batch of nothing but duplicates, or a lookup after an INSERT
// that did not land them all), the stored row's when Duplicate, none on
// a Conflict.
func TestAddedCarriesTheStoredID(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	add := func(ts ...*triage.Trace) []Added {
		var got []Added
		im, err := db.beginImport(ctx, func(a Added) error { got = append(got, a); return nil })
		require.NoError(t, err)
		for i, tr := range ts {
			require.NoError(t, im.Add(ctx, tr, nil, "f.jsonl", i+1))
		}
		require.NoError(t, im.Commit(ctx))
		return got
	}
	check := func(got []Added, want ...AddResult) {
		t.Helper()
		require.Len(t, got, len(want))
		for i, a := range got {
			require.Equal(t, want[i], a.Result, "trace %d", i)
			if a.Result == Conflict {
				require.Zero(t, a.ID)
				continue
			}
			id, err := db.FindTrace(ctx, a.Trace.RunID, a.Trace.TaskID, a.Trace.Seed)
			require.NoError(t, err)
			require.Equal(t, id, a.ID, "trace %d (%s)", i, a.Trace.Key())
		}
	}
	// A repeat in a batch that landed whole: its first's id.
	check(add(trace("r", "A", 0, "a"), trace("r", "A", 0, "a"), trace("r", "A", 0, "b")), Imported, Duplicate, Conflict)
	var many []*triage.Trace
	var imported, dup []AddResult
	for i := range 600 {
		many = append(many, trace("r", "M", 600-i, fmt.Sprint(i)))
		imported, dup = append(imported, Imported), append(dup, Duplicate)
	}
	check(add(many...), imported...)
	// All stored already (a lookup first from the second batch on),
	// then some new after them.
	check(add(many...), dup...)
	mixed := append([]*triage.Trace{trace("r", "M", 5, "595"), trace("r", "M", 6, "changed")}, trace("r", "N", 1, "n1"), trace("r", "N", 1, "n1"), trace("r", "N", 2, "n2"))
	check(add(mixed...), Duplicate, Conflict, Imported, Duplicate, Imported)
}

// EachStored gives every trace once, in id order, with its summary and
// its stored row, across batches (3 pages of eachTraceBatch).
func TestEachStoredGivesSummaryAndRow(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	var ts []*triage.Trace
	for i := range 2*eachTraceBatch + 10 {
		ts = append(ts, trace(fmt.Sprintf("r%d", i%3), fmt.Sprintf("T%d", 5000-i), 0, fmt.Sprint(i)))
	}
	importAll(t, db, ts...)
	// Checked after the walk: the snapshot holds the store's connection.
	var sums []TraceSummary
	var rows []StoredRow
	require.NoError(t, db.EachStored(ctx, func(s TraceSummary, row StoredRow) error {
		sums, rows = append(sums, s), append(rows, row)
		return nil
	}))
	require.Len(t, sums, len(ts))
	for i, s := range sums {
		if i > 0 {
			require.Less(t, sums[i-1].ID, s.ID)
		}
		want, err := db.Summary(ctx, s.ID)
		require.NoError(t, err)
		require.Equal(t, want, s)
		body, _, err := db.Row(ctx, s.ID)
		require.NoError(t, err)
		row := rows[i]
		require.Equal(t, body, row.Raw)
		require.Equal(t, [4]any{s.ID, s.RunID, s.ContentHash, s.Source}, [4]any{row.ID, row.RunID, row.Hash, row.Source})
	}
}
