package pack

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// bigPack writes tasks T000… each with globs distinct allowlist globs.
func bigPack(t *testing.T, tasks, globs int) string {
	t.Helper()
	root := t.TempDir()
	for i := range tasks {
		dir := filepath.Join(root, "tasks", fmt.Sprintf("T%03d", i))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("fix it\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "tests", "test_h.py"), []byte("def test_h(): pass\n"), 0o644))
		var b strings.Builder
		fmt.Fprintf(&b, `{"hidden_tests": ["tests/test_h.py"], "sentinels": ["CANARY-%d"], "allowlist": ["src/**"`, i)
		for g := 1; g < globs; g++ {
			fmt.Fprintf(&b, `, "module%d/dir%d/*.py"`, i, g)
		}
		b.WriteString("]}\n")
		require.NoError(t, os.WriteFile(filepath.Join(dir, TaskFile), []byte(b.String()), 0o644))
	}
	return root
}

// TestOpenReadsTasksOnDemand: Open's pack answers as Load's tasks would,
// one task at a time, and an id the pack does not hold is nil.
func TestOpenReadsTasksOnDemand(t *testing.T) {
	t.Parallel()
	root := bigPack(t, 12, 5)
	whole, probs, err := LoadFS(os.DirFS(root), ".")
	require.NoError(t, err)
	require.Empty(t, probs)
	p, err := Open(root)
	require.NoError(t, err)
	require.Equal(t, whole.SHA256, p.SHA256)
	require.Equal(t, 12, p.Len())
	for id, want := range whole.Tasks {
		require.Equal(t, want, p.Task(id), id)
	}
	require.Nil(t, p.Task("T999"))
	require.Nil(t, p.Task("../tasks/T001"), "an id is a directory name, not a path")
	var ids []string
	require.NoError(t, p.Each(func(tk *triage.Task) error {
		ids = append(ids, tk.ID)
		return nil
	}))
	require.Equal(t, []string{"T000", "T001", "T002", "T003", "T004", "T005", "T006", "T007", "T008", "T009", "T010", "T011"}, ids)
}

// TestOpenHoldsTheCacheNotThePack is issue 27's bad input at a size a
// test runs: a pack whose allowlists are several times the source's cache
// bound costs the cache, not the pack, however many of its tasks are
// asked for. Reading the pack whole (as Load did before) holds all of it.
func TestOpenHoldsTheCacheNotThePack(t *testing.T) {
	old := sourceWeight
	sourceWeight = 1 << 20
	defer func() { sourceWeight = old }()
	const tasks, globs = 200, 2000 // 400k globs, about 14 MiB held as strings
	root := bigPack(t, tasks, globs)

	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	p, err := Open(root)
	require.NoError(t, err)
	for round := range 2 {
		for i := range tasks {
			tk := p.Task(fmt.Sprintf("T%03d", i))
			require.NotNil(t, tk, "round %d task %d", round, i)
			require.Len(t, tk.Allowlist, globs)
		}
	}
	grew := int64(heap()) - int64(before)
	runtime.KeepAlive(p)
	require.Less(t, grew, int64(6<<20), "Open's pack holds %d bytes after every task was read twice", grew)
}

// CachedHash reads the pack only when its files' stats are not those of
// the last full read: a second load of an unchanged pack reads no file,
// and a removed file, or a file rewritten at the same size with its
// modification time put back, is seen (the change time moved) and the
// pack read again, to the hash Hash gives. An edit too recent to trust a
// stat for (settleTime) is read again on every load until it settles.
// Not parallel: it sets the package's cache directory.
func TestCachedHashReadsOnlyWhenStatsChange(t *testing.T) {
	SetCacheDir(t.TempDir())
	defer SetCacheDir("")
	root := bigPack(t, 20, 5)
	time.Sleep(settleTime + 100*time.Millisecond)

	first, how, err := CachedHash(root)
	require.NoError(t, err)
	require.Equal(t, HashRead, how, "no record yet")
	want, err := Hash(root)
	require.NoError(t, err)
	require.Equal(t, want, first)
	again, how, err := CachedHash(root)
	require.NoError(t, err)
	require.Equal(t, HashRecorded, how, "the stats are those of the last read")
	require.Equal(t, first, again)

	require.NoError(t, os.Remove(filepath.Join(root, "tasks", "T010", "tests", "test_h.py")))
	removed, how, err := CachedHash(root)
	require.NoError(t, err)
	require.Equal(t, HashRead, how, "a file removed")
	require.NotEqual(t, first, removed)
	_, how, err = CachedHash(root)
	require.NoError(t, err)
	require.Equal(t, HashRecorded, how, "the read after the removal was recorded: every file is old")

	// Same size, same modification time: only the change time tells.
	prompt := filepath.Join(root, "tasks", "T003", "prompt.md")
	fi, err := os.Stat(prompt)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(prompt, []byte("fix IT\n"), 0o644))
	require.NoError(t, os.Chtimes(prompt, fi.ModTime(), fi.ModTime()))
	fi2, err := os.Stat(prompt)
	require.NoError(t, err)
	require.Equal(t, fi.Size(), fi2.Size())
	require.Equal(t, fi.ModTime(), fi2.ModTime())
	edited, how, err := CachedHash(root)
	require.NoError(t, err)
	if runtime.GOOS == "linux" {
		require.Equal(t, HashRead, how, "a file rewritten with its size and time put back")
		want, err = Hash(root)
		require.NoError(t, err)
		require.Equal(t, want, edited)
		require.NotEqual(t, removed, edited)
		_, how, err = CachedHash(root)
		require.NoError(t, err)
		require.Equal(t, HashRead, how, "an edit this recent is not recorded")
	}

	SetCacheDir("")
	_, how, err = CachedHash(root)
	require.NoError(t, err)
	require.Equal(t, HashRead, how, "no cache directory: every load reads")
}

// The hash walks the pack a directory at a time: what it holds at once is
// the entries of the directories it is inside (here the 200 task
// directories, one task's 3 entries and its tests/), not the list of the
// pack's 600 files that card init once kept and sorted (most of its
// 143 MiB on 100k tasks, issue 27). Not parallel: it counts the walk's
// entries process-wide.
func TestHashHoldsADirectoryNotThePack(t *testing.T) {
	root := bigPack(t, 200, 2)
	walkHeld.Lock()
	walkHeld.on, walkHeld.now, walkHeld.peak = true, 0, 0
	walkHeld.Unlock()
	sum, n, err := hashWalk(fsTree(os.DirFS(root)), "tasks", nil)
	walkHeld.Lock()
	peak := walkHeld.peak
	walkHeld.on = false
	walkHeld.Unlock()
	require.NoError(t, err)
	require.Equal(t, 600, n)
	require.LessOrEqual(t, peak, 200+3+1, "entries held at once")
	want, err := Hash(root)
	require.NoError(t, err)
	require.Equal(t, want, sum)
}

// BenchmarkLoadTaskThousandGlobs reads one task of 1,000 allowlist globs,
// what a rules run does for every task its rows name (issue 27).
func BenchmarkLoadTaskThousandGlobs(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	sb.WriteString(`{"hidden_tests": ["tests/test_h.py"], "sentinels": ["CANARY-1"], "allowlist": ["src/**"`)
	for g := 1; g < 1000; g++ {
		fmt.Fprintf(&sb, `, "m1/d%d/*.py"`, g)
	}
	sb.WriteString("]}\n")
	dir := filepath.Join(root, "tasks", "T001")
	require.NoError(b, os.MkdirAll(filepath.Join(dir, "tests"), 0o755))
	require.NoError(b, os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("fix it\n"), 0o644))
	require.NoError(b, os.WriteFile(filepath.Join(dir, "tests", "test_h.py"), []byte("def test_h(): pass\n"), 0o644))
	require.NoError(b, os.WriteFile(filepath.Join(dir, TaskFile), []byte(sb.String()), 0o644))
	fsys := os.DirFS(root)
	b.ReportAllocs()
	for b.Loop() {
		t, probs := loadTask(fsys, "tasks/T001", "T001")
		if len(t.Allowlist) != 1000 || len(probs) != 0 {
			b.Fatalf("%d globs, %v", len(t.Allowlist), probs)
		}
	}
}
