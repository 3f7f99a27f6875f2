package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Expand turns a directory into its trace files, sorted, leaving out
// reports (read beside their trajectories), other files and hidden
// directories; a compressed trace file counts like its plain twin.
func TestExpandDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, name := range []string{
		"b/run.jsonl", "a/x.traj", "a/x.traj.gz", "a/log.eval", "a/log.eval.gz",
		"a/rows.jsonl.gz", "a/t.json", "a/t.json.gz", "a/x.report.json", "a/report.json",
		"results_summary.json", "a/notes.md", "a/fix.patch", "a/spec.yaml", "a/data.csv",
		".git/objects.json", "a/.cache/c.jsonl",
	} {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
	got, err := expandFiles([]string{"-", filepath.Join(root, "missing.jsonl"), root})
	require.NoError(t, err)
	var want []string
	for _, name := range []string{"a/log.eval", "a/log.eval.gz", "a/rows.jsonl.gz", "a/t.json", "a/t.json.gz", "a/x.traj", "a/x.traj.gz", "b/run.jsonl"} {
		want = append(want, filepath.Join(root, name))
	}
	require.Equal(t, append([]string{"-", filepath.Join(root, "missing.jsonl")}, want...), got)
}

// expandFiles is the files ExpandWalk finds: a directory becomes every
// trace file under it (recursively, sorted), other paths stay.
func expandFiles(paths []string) ([]string, error) {
	w, err := ExpandWalk(paths)
	return w.Files, err
}
