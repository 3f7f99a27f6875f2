package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// TestDeletedWALIsReported: the WAL deleted by another program while an
// import writes, with a reader holding the store open (so no one
// checkpoints it back): the commit that went into the unlinked WAL is
// reported as lost, and so is a label write after it. Before, the import
// said every row was imported (exit 0) while a fresh open of the store
// held only the rows committed before the deletion, and check said ok.
func TestDeletedWALIsReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	w, err := Open(ctx, path, testDecode)
	require.NoError(t, err)
	defer w.Close()
	r, err := Open(ctx, path, testDecode)
	require.NoError(t, err)
	defer r.Close()
	batch := func(from, n int) []*triage.Trace {
		var ts []*triage.Trace
		for i := from; i < from+n; i++ {
			ts = append(ts, trace("r", fmt.Sprintf("T%03d", i), 0, fmt.Sprint(i)))
		}
		return ts
	}
	importAll(t, w, batch(0, 10)...)
	sums, err := r.Summaries(ctx, "")
	require.NoError(t, err)
	require.Len(t, sums, 10)

	require.NoError(t, os.Remove(path+"-wal"))
	im, err := w.beginImport(ctx, func(Added) error { return nil })
	require.NoError(t, err)
	for i, tr := range batch(10, 10) {
		require.NoError(t, im.Add(ctx, tr, nil, "f.jsonl", i+1))
	}
	err = im.Commit(ctx)
	require.ErrorIs(t, err, ErrWALLost)
	require.ErrorContains(t, err, path+"-wal was deleted while this process wrote to the store")
	_, err = w.AppendLabel(ctx, triage.LabelEvent{TraceID: sums[0].ID, Actor: "ann", Kind: triage.KindHuman, Primary: triage.Timeout})
	require.ErrorIs(t, err, ErrWALLost, "every later write is reported too")
}
