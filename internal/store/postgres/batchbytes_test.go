package postgres

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// A batch reader ends a batch once its rows' bodies (unpacked) pass the
// byte budget, not only at its row bound: 12 traces of 400 KiB under a
// budget of 1 MiB come in batches of at most 3 rows, each trace once,
// through LabelPending, EachRow and EachTrace; batchEnd weighs rows by
// their headers, without reading them. Without the bound a batch held all
// 12: ten traces of a million tool calls were held at once (issue 30).
func TestBatchReadersAreBoundedByBytes(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := t.Context()
	const size, budget = 400 << 10, 1 << 20
	raws := map[int64]string{}
	im, err := db.BeginImport(ctx, func(store.Added) error { return nil })
	require.NoError(t, err)
	for i := range 12 {
		raw := fmt.Appendf(nil, `{"task_id":"T%02d","pad":%q}`, i, strings.Repeat("x", size))
		require.NoError(t, im.Add(ctx, &triage.Trace{RunID: "r", TaskID: fmt.Sprintf("T%02d", i), Raw: raw, Source: "jsonl", ContentHash: fmt.Sprint(i)}, nil, "f.jsonl", i+1))
	}
	require.NoError(t, im.Commit(ctx))
	sums, err := db.Summaries(ctx, "r")
	require.NoError(t, err)
	require.Len(t, sums, 12)
	refs := make([]store.TraceRef, len(sums))
	ids := make([]int64, len(sums))
	for i, s := range sums {
		refs[i], ids[i] = store.TraceRef{ID: s.ID, RunID: "r"}, s.ID
		raw, _, err := db.Row(ctx, s.ID)
		require.NoError(t, err)
		raws[s.ID] = string(raw)
	}
	slices.Sort(ids)
	db.batchBytes = budget

	n, err := db.batchEnd(ctx, db.pool, ids)
	require.NoError(t, err)
	require.Equal(t, 3, n, "the third row of 400 KiB passes 1 MiB")
	n, err = db.batchEnd(ctx, db.pool, []int64{ids[0], ids[0], ids[1], ids[2], ids[3]})
	require.NoError(t, err)
	require.Equal(t, 4, n, "a trace named twice is counted at each place")

	var mu sync.Mutex
	var handed [][]store.StoredRow
	_, err = db.LabelPending(ctx, "", "tax", "1", func(rows []store.StoredRow) ([]triage.LabelEvent, error) {
		mu.Lock()
		defer mu.Unlock()
		handed = append(handed, slices.Clone(rows))
		return nil, nil
	})
	require.NoError(t, err)
	var seen []int64
	for _, rows := range handed {
		require.NotEmpty(t, rows)
		require.LessOrEqual(t, len(rows), 3, "a batch of %d rows", len(rows))
		for _, r := range rows {
			require.Equal(t, raws[r.ID], string(r.Raw))
			seen = append(seen, r.ID)
		}
	}
	slices.Sort(seen)
	require.Equal(t, ids, seen)

	seen = nil
	require.NoError(t, db.EachRow(ctx, refs, func(r store.StoredRow) error {
		require.Equal(t, raws[r.ID], string(r.Raw))
		seen = append(seen, r.ID)
		return nil
	}))
	require.Equal(t, ids, seen)
	seen = nil
	require.NoError(t, db.EachTrace(ctx, refs, func(tr *triage.Trace, _ *triage.Verdict) error {
		seen = append(seen, tr.ID)
		return nil
	}))
	require.Equal(t, ids, seen)
}
