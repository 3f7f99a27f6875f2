package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// store copy streams the rows in id order while the summaries come in key
// order: traces imported out of key order, over many runs, with their
// verdicts (more than one batch of them), copy whole and read back the
// same. The first streaming build stopped at the first trace out of key
// order ("read out of order").
func TestStoreCopyOutOfKeyOrder(t *testing.T) {
	t.Parallel()
	src, dst := newCLI(t), newCLI(t)
	var rows strings.Builder
	for i := 5000; i > 0; i-- {
		fmt.Fprintf(&rows, `{"run_id":"r%d","task_id":"T%05d","exit_code":%d}`+"\n", i%7, i, i%2)
	}
	code, _, errOut := src.run(rows.String(), "import", "--rules", "--format", "jsonl", "-")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = src.run("", "store", "copy", "--from", src.db, "--to", dst.db)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "5000 traces, 0 rejects, 5000 rule verdicts")
	for _, args := range [][]string{{"traces", "--json"}, {"report", "--json"}} {
		_, want, _ := src.run("", args...)
		_, got, _ := dst.run("", args...)
		require.Equal(t, want, got, "%v", args)
	}
}
