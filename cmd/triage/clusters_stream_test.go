package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// streamStore imports two planted runs (the newer with a novel cause),
// some failing traces with nothing to compare and some passing ones, and
// labels them with the rules.
func streamStore(t *testing.T, n int) *cli {
	t.Helper()
	c := newCLI(t)
	old, _ := plantedRows("run-a", n, false)
	newer, _ := plantedRows("run-b", n, true)
	var odd strings.Builder
	for i := range 40 {
		// Failing with no log (unclustered), or passing (not counted).
		fmt.Fprintf(&odd, `{"run_id":"run-%c","task_id":"U%02d","seed":%d,"exit_code":%d}`+"\n", "ab"[i%2], i%7, i, i%3%2)
	}
	for _, f := range []string{c.file("a.jsonl", old), c.file("b.jsonl", newer), c.file("odd.jsonl", odd.String())} {
		code, _, errOut := c.run("", "import", f)
		require.Equal(t, exitOK, code, errOut)
	}
	code, _, errOut := c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	return c
}

// streamOut runs clusters' streaming path as runClusters does, with its
// spills under conf, and says whether any spill went to a file.
func streamOut(t *testing.T, c *cli, db store.Store, o clusterOpts) (string, bool) {
	t.Helper()
	ctx := context.Background()
	a := &app{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, dbPath: c.db, isTerminal: func(any) bool { return false }}
	rd, err := a.storeRedactor(ctx, db, o.redact)
	require.NoError(t, err)
	cs, err := a.streamClusters(ctx, db, o.runs, o.baseline, o.spill)
	require.NoError(t, err)
	defer cs.Close()
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	if o.asJSON {
		require.NoError(t, writeStreamJSON(w, cs, o.baseline != "", rd))
	} else {
		require.NoError(t, writeStreamText(w, cs, o, rd))
	}
	require.NoError(t, w.Flush())
	require.NoError(t, cs.Close())
	return out.String(), cs.spilled
}

// oracleOut is what clusters printed before it streamed: the whole-list
// clustering (clusterRuns, the review screen's) through the old writers.
func oracleOut(t *testing.T, db store.Store, o clusterOpts) string {
	t.Helper()
	ctx := context.Background()
	a := &app{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, isTerminal: func(any) bool { return false }}
	rd, err := a.storeRedactor(ctx, db, o.redact)
	require.NoError(t, err)
	cs, err := a.clusterRuns(ctx, db, o.runs, o.baseline, false)
	require.NoError(t, err)
	views, unclustered, gone := cs.views()
	total := 0
	for _, v := range views {
		total += len(v.members)
	}
	for _, u := range unclustered {
		total += len(u)
	}
	var out bytes.Buffer
	if o.asJSON {
		require.NoError(t, writeClustersJSON(&out, cs, views, unclustered, total, o.baseline != "", rd))
	} else {
		require.NoError(t, writeClustersText(&out, cs, views, unclustered, gone, total, o, rd))
	}
	return out.String()
}

// TestClustersSpilledMatchesInMemory: the records spilled to temporary
// files (a limit of a few hundred bytes: dozens of runs a spill) print
// byte for byte what they print held in memory, and what the whole-list
// clustering the review screen uses printed, for every kind of output.
func TestClustersSpilledMatchesInMemory(t *testing.T) {
	t.Parallel()
	c := streamStore(t, 150)
	ctx := context.Background()
	db, err := openDB(ctx, c.db, decodeRow)
	require.NoError(t, err)
	defer db.Close()
	cases := []clusterOpts{
		{show: 5},
		{asJSON: true},
		{show: 0},
		{show: 50},
		{show: 5, redact: true},
		{asJSON: true, redact: true},
		{show: 5, runs: []string{"run-b"}, baseline: "run-a"},
		{asJSON: true, runs: []string{"run-b"}, baseline: "run-a"},
		{asJSON: true, runs: []string{"run-b", "run-a"}},
		{show: 3, baseline: "run-a"},
	}
	for _, o := range cases {
		name := fmt.Sprintf("%+v", o)
		want := oracleOut(t, db, o)
		mem, spilledMem := streamOut(t, c, db, o)
		require.False(t, spilledMem, name)
		require.Equal(t, want, mem, name)
		o.spill = spillConf{dir: t.TempDir(), limit: 300}
		got, spilled := streamOut(t, c, db, o)
		require.True(t, spilled, "%s: a 300-byte limit spills", name)
		require.Equal(t, want, got, name)
		entries, err := os.ReadDir(o.spill.dir)
		require.NoError(t, err)
		require.Empty(t, entries, "%s: no temporary file is left", name)
	}
	// The output has what the cases are meant to cover.
	out, _ := streamOut(t, c, db, clusterOpts{asJSON: true, runs: []string{"run-b"}, baseline: "run-a"})
	require.Contains(t, out, `"novel":true`)
	require.Contains(t, out, `"unclustered":true,"reason":"no cause found`)
}

// openSpills lists the files this process holds open under dir (an
// unlinked spill shows as "… (deleted)").
func openSpills(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd to list open files")
	}
	var out []string
	for _, fd := range fds {
		if p, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(p, dir) {
			out = append(out, p)
		}
	}
	return out
}

// failingTraces is a store whose EachTrace fails once it has read some
// traces, after checking that the spills are there.
type failingTraces struct {
	store.Store
	t     *testing.T
	dir   string
	after int
	seen  int
}

var errBodies = errors.New("the bodies table is gone")

func (f *failingTraces) EachTrace(ctx context.Context, refs []store.TraceRef, fn func(*triage.Trace, *triage.Verdict) error) error {
	return f.Store.EachTrace(ctx, refs, func(tr *triage.Trace, v *triage.Verdict) error {
		f.seen++
		if f.seen > f.after {
			require.NotEmpty(f.t, openSpills(f.t, f.dir), "the spill is open while the run reads")
			return errBodies
		}
		return fn(tr, v)
	})
}

// TestClustersSpillsRemovedOnSuccessAndOnError: the temporary files are
// neither left in the directory nor held open once clusters returns,
// whether it printed or failed half-way.
func TestClustersSpillsRemovedOnSuccessAndOnError(t *testing.T) {
	c := streamStore(t, 150)
	ctx := context.Background()
	db, err := openDB(ctx, c.db, decodeRow)
	require.NoError(t, err)
	defer db.Close()
	dir := t.TempDir()
	conf := spillConf{dir: dir, limit: 300}
	a := &app{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, isTerminal: func(any) bool { return false }}

	cs, err := a.streamClusters(ctx, db, nil, "", conf)
	require.NoError(t, err)
	require.True(t, cs.spilled)
	require.NotEmpty(t, openSpills(t, dir), "the members' spill is open until Close")
	require.NoError(t, writeStreamJSON(&bytes.Buffer{}, cs, false, nil))
	require.NoError(t, cs.Close())
	require.Empty(t, openSpills(t, dir))

	// Failing in the signatures' pass, after two chunks of records were
	// spilled: the error comes back, and nothing is left.
	fdb := &failingTraces{Store: db, t: t, dir: dir, after: 100}
	_, err = a.streamClusters(ctx, fdb, nil, "", conf)
	require.ErrorIs(t, err, errBodies)
	require.Empty(t, openSpills(t, dir), "a failed run closes its spills")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)

	// A directory it cannot write to is a clear error, not a panic.
	_, err = a.streamClusters(ctx, db, nil, "", spillConf{dir: filepath.Join(dir, "nosuch"), limit: 300})
	require.ErrorContains(t, err, "a temporary file for the traces")
}

// heapAtLastTrace is a store that measures the live heap each time
// EachTrace has handed out a chunk's traces, and keeps the largest: at
// the last, the old clusters held every failing trace's record.
type heapAtLastTrace struct {
	store.Store
	live uint64
}

func (h *heapAtLastTrace) EachTrace(ctx context.Context, refs []store.TraceRef, fn func(*triage.Trace, *triage.Verdict) error) error {
	err := h.Store.EachTrace(ctx, refs, fn)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.live = max(h.live, ms.HeapAlloc)
	return err
}

// TestClustersMemoryDoesNotGrowWithTheTraces: with spills of 4 KiB (and
// chunks of 256 traces for the store, which hold a chunk's records), the
// live heap at the end of the signatures' pass is the same for 4N failing
// traces as for N (a few distinct signatures each): nothing is held per
// trace. The whole-list clustering, which holds a record a trace, is
// measured the same way to show the test can tell.
func TestClustersMemoryDoesNotGrowWithTheTraces(t *testing.T) {
	const n = 1500
	ctx := context.Background()
	measure := func(rows int, whole bool) uint64 {
		c := streamStore(t, rows)
		db, err := openDB(ctx, c.db, decodeRow)
		require.NoError(t, err)
		defer db.Close()
		a := &app{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, isTerminal: func(any) bool { return false }}
		h := &heapAtLastTrace{Store: db}
		if whole {
			_, err = a.clusterRuns(ctx, h, nil, "", false)
		} else {
			var cs *clusterStream
			cs, err = a.streamClusters(ctx, h, nil, "", spillConf{dir: t.TempDir(), limit: 4 << 10, chunk: 256})
			if err == nil {
				require.True(t, cs.spilled)
				cs.Close()
			}
		}
		require.NoError(t, err)
		require.NotZero(t, h.live)
		return h.live
	}
	small, large := measure(n, false), measure(4*n, false)
	grew := int64(large) - int64(small)
	t.Logf("streamed: live heap %d B at %d rows, %d B at %d: %+d B, %.1f B a trace", small, 2*n, large, 8*n, grew, float64(grew)/float64(6*n))
	wSmall, wLarge := measure(n, true), measure(4*n, true)
	wGrew := int64(wLarge) - int64(wSmall)
	t.Logf("whole list: %+d B, %.1f B a trace", wGrew, float64(wGrew)/float64(6*n))
	require.Greater(t, wGrew, int64(6*n*128), "the whole list holds a record a trace (144 bytes and its key): the measure can tell")
	require.Less(t, grew, int64(6*n*64), "streamed, less than 64 bytes a trace held (the store and the collector leave some noise)")
}
