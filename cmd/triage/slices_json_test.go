package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSliceListAndShowJSON: slice list and slice show take --json, as
// every read command does (issue 29): a line per slice, and one object
// with the slice's items.
func TestSliceListAndShowJSON(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	rows := `{"task_id":"T1","run_id":"r","exit_code":1}
{"task_id":"T2","run_id":"r","exit_code":1}
{"task_id":"T3","run_id":"r","exit_code":1}
`
	code, _, errOut := c.run(rows, "import", "--rules", "--format", "jsonl", "-")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "slice", "create", "s1", "--size", "2", "--run", "r", "--seed", "7")
	require.Equal(t, exitOK, code, errOut)

	code, out, errOut := c.run("", "slice", "list", "--json")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 1)
	var row sliceRow
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &row))
	require.Equal(t, "s1", row.Name)
	require.Equal(t, 2, row.Size)
	require.Equal(t, "r", row.RunID)
	require.Equal(t, uint64(7), row.Seed)
	require.False(t, row.Frozen)

	code, out, errOut = c.run("", "slice", "show", "s1", "--json")
	require.Equal(t, exitOK, code, errOut)
	var show sliceShowJSON
	require.NoError(t, json.Unmarshal([]byte(out), &show))
	require.Equal(t, "s1", show.Name)
	require.Len(t, show.Items, 2)
	for _, it := range show.Items {
		require.True(t, strings.HasPrefix(it.Trace, "r/T"), it.Trace)
		require.NotNil(t, it.Labels)
	}
}
