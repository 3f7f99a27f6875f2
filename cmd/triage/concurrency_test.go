//go:build unix

package main

// Two triage processes writing one store at once, through the command
// line: two imports of the same files, and two rules runs. Each must exit
// 0 with every line accounted for exactly once between them (DESIGN §6:
// two processes writing the same file lose nothing). The store-level proof
// with two reviewers and a reader is internal/store's
// TestTwoWritersAndAReaderLoseNothing.

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// startTriage starts triage in a child with its outputs captured.
func startTriage(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := triageCommand(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	return cmd, &out, &errb
}

func TestTwoImportsAndTwoRulesRunsAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files, want := crashFiles(t, dir, 3, 1000)
	total := 0
	for _, ks := range want {
		slices.Sort(ks)
		total += len(ks)
	}
	db := filepath.Join(dir, "t.db")
	// Both create the store; the files go in opposite orders so that
	// each process finds some the other wrote.
	rev := slices.Clone(files)
	slices.Reverse(rev)
	var sums [2]importSummary
	var cmds [2]*exec.Cmd
	var outs, errs [2]*bytes.Buffer
	for i, fs := range [][]string{files, rev} {
		cmds[i], outs[i], errs[i] = startTriage(t, append([]string{"--db", db, "import", "--json"}, fs...)...)
	}
	for i, c := range cmds {
		require.NoError(t, c.Wait(), "import %d: %s", i, errs[i])
		require.NoError(t, json.Unmarshal(outs[i].Bytes(), &sums[i]))
		require.Zero(t, sums[i].Rejected, "import %d", i)
		require.Equal(t, total, sums[i].Imported+sums[i].Duplicates, "import %d accounts for every line", i)
	}
	require.Equal(t, total, sums[0].Imported+sums[1].Imported, "each trace imported once between them")
	require.Equal(t, want, checkStore(t, db))
	t.Logf("imported %d and %d of %d traces", sums[0].Imported, sums[1].Imported, total)

	for i := range cmds {
		cmds[i], outs[i], errs[i] = startTriage(t, "--db", db, "rules", "run")
	}
	for i, c := range cmds {
		require.NoError(t, c.Wait(), "rules run %d: %s", i, errs[i])
	}
	counts := ruleEvents(t, db)
	require.Len(t, counts, total, "every trace has a verdict")
	for id, n := range counts {
		require.Equal(t, 1, n, "trace %d has one verdict, however many runs raced", id)
	}
	t.Logf("rules runs said %q and %q", outs[0].String(), outs[1].String())
}
