package pack

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
