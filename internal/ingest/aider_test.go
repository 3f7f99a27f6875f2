package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each "# aider chat started at" session is one trace: the user's
// commands and the model's SEARCH/REPLACE edits are its calls, settled by
// aider's own reports, and the diff holds the edits it applied.
func TestAiderSample(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "aider", "sample.aider.chat.history.md")
	require.True(t, detectAider(path, head(t, path)))
	recs := decodeWith(t, AiderFormat, path, Options{})
	require.Len(t, recs, 2)
	a, b := recs[0].Trace, recs[1].Trace
	require.Equal(t, "aider/2025-01-02T10:00:00#0", a.Key())
	require.Equal(t, 2, recs[0].Line, "the session's header line")
	require.Equal(t, "claude-3-5-sonnet-20241022", a.Model)
	require.Equal(t, []string{"edit", "edit", "test"}, callNames(a))
	require.JSONEq(t, `{"path":"src/calc.py","search":"def add(a, b):\n    return a - b","replace":"def add(a, b):\n    return a + b"}`, string(a.ToolCalls[0].Args))
	require.Equal(t, "Applied edit to src/calc.py", a.ToolCalls[0].Output)
	require.Contains(t, a.ToolCalls[1].Error, "SearchReplaceNoExactMatch")
	require.JSONEq(t, `{"command":"pytest -q"}`, string(a.ToolCalls[2].Args))
	require.Equal(t, "F\n=================================== FAILURES ===================================\nE   assert 1 == 2\n1 failed in 0.01s\nAdded 4 lines of output to the chat.", a.ToolCalls[2].Output)
	require.Nil(t, a.ToolCalls[2].ExitCode, "the history records no exit code")
	require.Equal(t, "diff --git a/src/calc.py b/src/calc.py\n--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n", *a.Diff)
	require.Equal(t, int64(2400+1200), a.Tokens.Input)
	require.Equal(t, int64(85), a.Tokens.Output)
	require.InDelta(t, 0.02, *a.CostUSD, 1e-9)
	require.Equal(t, "fix add: it subtracts", a.Messages[0].Content)
	require.Equal(t, "user", a.Messages[len(a.Messages)-1].Role, "/drop is the user steering aider, not a tool")
	require.Equal(t, []string{"run"}, callNames(b))
	require.Equal(t, "calc.py", b.ToolCalls[0].Output)
	require.Nil(t, b.Diff)
}

// The real history (aider's own fixture, 4.1 MB, 1133 sessions and the
// tail of one whose header is cut off) imports whole: every session a
// trace, the edits and commands found, none of the SEARCH blocks quoted
// in aider's failure reports or pasted by the user taken as edits.
func TestAiderRealHistory(t *testing.T) {
	t.Parallel()
	path := realLog(t, "aider", "chat-history.md")
	require.True(t, detectAider(path, head(t, path)))
	recs := decodeReal(t, path)
	require.Len(t, recs, 1134)
	byName := map[string]int{}
	failed, diffs := 0, 0
	for _, r := range recs {
		require.NotNil(t, r.Trace, "%v", r.Reject)
		for _, c := range r.Trace.ToolCalls {
			byName[c.Name]++
			if c.Name == "edit" && c.Error != "" {
				failed++
			}
		}
		if r.Trace.Diff != nil {
			diffs++
		}
	}
	require.Equal(t, map[string]int{"edit": 666, "run": 39, "test": 12, "lint": 55}, byName)
	require.Equal(t, 51, failed)
	require.Equal(t, 155, diffs)
	first := recs[0].Trace
	require.Equal(t, "chat-history", first.TaskID, "the headless tail before the first session")
	s := recs[2].Trace
	require.Equal(t, "aider/2024-08-05T19:33:32#0", s.Key())
	require.Equal(t, []string{"aider/utils.py"}, diffFiles(*s.Diff))
	require.Equal(t, "claude-3-5-sonnet-20240620", s.Model)
}

// A directory walk finds aider histories by name, or a Markdown file by a
// session header in its head; other Markdown stays out.
func TestExpandFindsAiderHistory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		"a/.aider.chat.history.md": "",
		"b/chat-history.md":        "-*- mode: fundamental -*-\n> tail  \n\n# aider chat started at 2025-01-01 00:00:00\n",
		"c/README.md":              "# A readme\n",
	} {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	got, err := expandFiles([]string{root})
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(root, "a", ".aider.chat.history.md"), filepath.Join(root, "b", "chat-history.md")}, got)
}
