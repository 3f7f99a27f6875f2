package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// longTraceRow is one JSONL row of n tool calls.
func longTraceRow(task string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"task_id":%q,"exit_code":1,"tool_calls":[`, task)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"bash","args":{"cmd":"cat f%d"},"output":"x"}`, i)
	}
	b.WriteString("]}\n")
	return b.String()
}

// TestLongTracesAreReadUpToTheCallBound: a trace of more tool calls than
// maxReadToolCalls is read by rules run and rules explain up to the bound,
// and both say so; the budget on tool calls still counts every call (a
// run over max_tool_calls is TIMEOUT though its later calls are not read);
// show prints the stored row whole, and store copy copies it whole. One
// trace of a million calls took 0.75 GB in rules run, 1.08 GB in clusters
// and 2.4 GB in the review screen (docs/PERFORMANCE.md).
func TestLongTracesAreReadUpToTheCallBound(t *testing.T) {
	t.Parallel()
	n := maxReadToolCalls + 500
	c := newCLI(t)
	tasks := c.dir + "/pack/tasks"
	c.file("pack/tasks/L1/prompt.md", "Do it.\n")
	code, _, errOut := c.run("", "card", "init", "--run", "r", "--pack", tasks, "--max-tool-calls", fmt.Sprint(maxReadToolCalls+100))
	require.Equal(t, exitOK, code, errOut)
	row := longTraceRow("L1", n)
	code, _, errOut = c.run(row, "import", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)

	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, fmt.Sprintf("note: 1 traces have more than %d tool calls: the rules read the first %d of each", maxReadToolCalls, maxReadToolCalls))
	code, out, errOut := c.run("", "rules", "explain", "r/L1#0", "--json")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, fmt.Sprintf("only the first %d of its %d tool calls were read", maxReadToolCalls, n))
	var ex struct {
		Verdict struct {
			Primary  string `json:"primary"`
			Evidence []struct {
				Message string `json:"message"`
			} `json:"evidence"`
		} `json:"verdict"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ex))
	require.Equal(t, "TIMEOUT", ex.Verdict.Primary, "%d calls are over the budget of %d, though only %d were read", n, maxReadToolCalls+100, maxReadToolCalls)
	require.Contains(t, out, fmt.Sprintf("%d tool calls are at or over max_tool_calls %d", n, maxReadToolCalls+100))

	code, _, errOut = c.run("", "clusters")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, fmt.Sprintf("note: 1 traces have more than %d tool calls: their signatures are of the first %d", maxReadToolCalls, maxReadToolCalls))

	code, out, errOut = c.run("", "show", "r/L1#0", "--json")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, row, out, "show prints the stored row whole")

	// The review screen gets the reading: the raw tab lays out the
	// trace's JSON, which says what was cut, not the stored row whole
	// (a row of a million calls took it 2.26 GB and 20 s, now 129 MB).
	db, err := openDB(t.Context(), c.db, decodeRow)
	require.NoError(t, err)
	defer db.Close()
	id, err := db.FindTrace(t.Context(), "r", "L1", 0)
	require.NoError(t, err)
	tr, err := (&uiStore{db: db}).Trace(t.Context(), id)
	require.NoError(t, err)
	require.Len(t, tr.ToolCalls, maxReadToolCalls)
	require.Nil(t, tr.Raw)
	js, err := json.Marshal(tr)
	require.NoError(t, err)
	require.Contains(t, string(js), fmt.Sprintf(`"read_cut":{"kept":%d,"total":%d}`, maxReadToolCalls, n))

	cp := newCLI(t)
	code, _, errOut = c.run("", "store", "copy", "--from", c.db, "--to", cp.db)
	require.Equal(t, exitOK, code, errOut)
	_, traces, _ := cp.run("", "traces", "--json")
	require.Contains(t, traces, fmt.Sprintf(`"n_tool_calls":%d`, n))
	code, out, _ = cp.run("", "show", "r/L1#0", "--json")
	require.Equal(t, exitOK, code)
	require.Equal(t, row, out, "store copy copies the trace whole")
}
