package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The committed traces.jsonl must be exactly what the generator makes, so
// a reviewer can trust the scenarios in the source.
func TestCommittedTracesAreGenerated(t *testing.T) {
	t.Parallel()
	got, err := render("../pack/tasks")
	require.NoError(t, err)
	want, err := os.ReadFile("../traces.jsonl")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "run `go generate ./internal/sample`")
	again, err := render("../pack/tasks")
	require.NoError(t, err)
	require.Equal(t, got, again)
}

func TestDiffHelpersCountLines(t *testing.T) {
	t.Parallel()
	old := "a\nb\nc\nd\ne\n"
	require.Equal(t, "diff --git a/f b/f\nindex "+blobID(old)+".."+blobID(old+"x\n")+" 100644\n--- a/f\n+++ b/f\n@@ -3,3 +3,4 @@\n c\n d\n e\n+x\n",
		appendDiff("f", old, []string{"x"}))
	d := replaceDiff("f", old, []string{"c"}, []string{"C1", "C2"})
	require.Contains(t, d, "@@ -1,5 +1,6 @@\n a\n b\n-c\n+C1\n+C2\n d\n e\n")
	require.Contains(t, newFileDiff("n", []string{"1", "2"}), "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+1\n+2\n")
	require.Panics(t, func() { replaceDiff("f", old, []string{"zz"}, nil) })
}

// The README's table of traces is the generator's, so what it says each
// trace shows cannot drift from the scenarios.
func TestReadmeTableIsGenerated(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	require.Contains(t, string(readme), notesTable(env{dir: "../pack/tasks"}),
		"run `go run ./gen -notes` in internal/sample and paste the table into README.md")
}
