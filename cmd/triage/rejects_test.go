package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// rejects --raw shortens a long line on a character boundary: a cut
// through a multi-byte character would show as byte escapes the input
// never held.
func TestRejectsRawCutsOnACharacter(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	line := `{"task_id":` + strings.Repeat("€", 200) // 3 bytes each; not JSON
	code, _, errOut := c.run(line+"\n", "import", "--format", "jsonl", "--run", "r", "-")
	require.Equal(t, exitRejected, code, errOut)
	code, out, errOut := c.run("", "rejects", "--raw")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2, out)
	raw := strings.TrimPrefix(lines[1], "    ")
	require.NotContains(t, raw, "<0x", "no character is cut in two")
	require.True(t, strings.HasSuffix(raw, "€…"), raw)
	require.LessOrEqual(t, len(strings.TrimSuffix(raw, "…")), 400)
	require.True(t, strings.HasPrefix(line, strings.TrimSuffix(raw, "…")))
}
