package triage

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseDiff feeds arbitrary text to the diff parser, which never
// fails: no input may panic; every line is one of the three kinds with no
// line break in its text; an added line has no old number and a removed
// line no new number; statuses are the four known ones; and parsing is
// deterministic.
func FuzzParseDiff(f *testing.F) {
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n")
	f.Add("@@ -1 +1 @@\n")
	f.Add("--- \n+++ \n@@ -99999999999,1 +1,-1 @@\n")
	f.Fuzz(func(t *testing.T, s string) {
		files := ParseDiff(s)
		for _, fd := range files {
			require.Contains(t, []FileStatus{FileModified, FileAdded, FileDeleted, FileRenamed}, fd.Status)
			require.NotEmpty(t, fd.Paths())
			for _, h := range fd.Hunks {
				for _, l := range h.Lines {
					switch l.Kind {
					case LineAdded:
						require.Zero(t, l.OldNo, "added line %q has an old number", l.Text)
					case LineRemoved:
						require.Zero(t, l.NewNo, "removed line %q has a new number", l.Text)
					case LineContext:
					default:
						t.Fatalf("bad kind %q", l.Kind)
					}
					require.False(t, strings.ContainsAny(l.Text, "\n"), "line text %q holds a line break", l.Text)
				}
			}
		}
		require.Equal(t, files, ParseDiff(s), "parsing is deterministic")
	})
}
