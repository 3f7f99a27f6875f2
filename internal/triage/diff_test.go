package triage

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseDiffGit(t *testing.T) {
	t.Parallel()
	d := "diff --git a/src/client.py b/src/client.py\nindex 1..2 100644\n--- a/src/client.py\n+++ b/src/client.py\n@@ -1,3 +1,4 @@ def x\n import os\n-BASE = '/v1'\n+BASE = '/v2'\n+-- not a header\n keep\n" +
		"diff --git a/tests/test_x.py b/tests/test_x.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_x.py\n@@ -0,0 +1 @@\n+def test(): pass\n" +
		"diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n" +
		"diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
	files := ParseDiff(d)
	require.Len(t, files, 4)
	require.Equal(t, "src/client.py", files[0].Path())
	require.Equal(t, FileModified, files[0].Status)
	require.Len(t, files[0].Hunks, 1)
	lines := files[0].Hunks[0].Lines
	require.Len(t, lines, 5)
	require.Equal(t, DiffLine{Kind: LineRemoved, Text: "BASE = '/v1'", OldNo: 2}, lines[1])
	require.Equal(t, DiffLine{Kind: LineAdded, Text: "BASE = '/v2'", NewNo: 2}, lines[2])
	require.Equal(t, DiffLine{Kind: LineAdded, Text: "-- not a header", NewNo: 3}, lines[3])
	require.Equal(t, DiffLine{Kind: LineContext, Text: "keep", OldNo: 3, NewNo: 4}, lines[4])
	require.Equal(t, FileAdded, files[1].Status)
	require.Equal(t, "tests/test_x.py", files[1].Path())
	require.Equal(t, FileRenamed, files[2].Status)
	require.Equal(t, []string{"old.txt", "new.txt"}, files[2].Paths())
	require.Equal(t, FileDeleted, files[3].Status)
	require.Equal(t, "gone.py", files[3].Path())
}

func TestParseDiffPlain(t *testing.T) {
	t.Parallel()
	d := "--- a.go\t2024-01-01\n+++ a.go\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n--- b.go\n+++ b.go\n@@ -5,0 +6,1 @@\n+c\n"
	files := ParseDiff(d)
	require.Len(t, files, 2)
	require.Equal(t, "a.go", files[0].Path())
	require.Equal(t, "b.go", files[1].Path())
	require.Equal(t, 6, files[1].Hunks[0].Lines[0].NewNo)
}
