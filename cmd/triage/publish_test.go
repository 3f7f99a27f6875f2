package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A report refused for its --format must leave the --out file alone: the
// format is checked before the file is created (it used to be truncated
// first, losing a previous report to a typo).
func TestReportBadFormatKeepsOutFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, errOut := c.run("", "import", "--run", "r1", filepath.Join(ruleCheckData, "traces.jsonl"))
	require.Equal(t, exitOK, code, errOut)
	out := c.file("report.md", "previous report\n")
	code, _, errOut = c.run("", "report", "--format", "pdf", "--out", out)
	require.Equal(t, exitUsage, code, errOut)
	require.Contains(t, errOut, `--format "pdf"`)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "previous report\n", string(data))

	code, _, errOut = c.run("", "report", "--format", "md", "--out", out)
	require.Equal(t, exitOK, code, errOut)
	data, err = os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(data), "|", "the markdown report replaced the old file")
}
