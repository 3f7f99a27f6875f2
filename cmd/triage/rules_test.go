package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// `rules run --run B` reads B's task pack only: another run whose pack
// has moved away since card init must not stop it, while a run over
// every run still names the missing pack.
func TestRulesRunLoadsOnlyTheChosenRunsPack(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, run := range []string{"a", "b"} {
		tasks := filepath.Join(c.dir, "pack-"+run, "tasks")
		c.file("pack-"+run+"/tasks/T01/prompt.md", "Write a client.\n")
		code, _, errOut := c.run("", "card", "init", "--run", run, "--pack", tasks)
		require.Equal(t, exitOK, code, errOut)
		code, _, errOut = c.run(`{"task_id":"T01","exit_code":0}`+"\n", "import", "--run", run, "-")
		require.Equal(t, exitOK, code, errOut)
	}
	require.NoError(t, os.RemoveAll(filepath.Join(c.dir, "pack-a")))

	code, out, errOut := c.run("", "rules", "run", "--run", "b")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "1 traces labelled by the rules")

	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "run a: task pack "+filepath.Join(c.dir, "pack-a", "tasks"))
}

// rules explain reads back the RUN/TASK#SEED key that TraceKey writes,
// also for a task id holding a '#'.
func TestExplainFindsATaskWithAHash(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, errOut := c.run(`{"task_id":"issue#12","seed":2,"exit_code":0}`+"\n", "import", "--format", "jsonl", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	for _, tc := range []struct {
		ref, want string
		code      int
	}{
		{"r/issue#12#2", `"trace": "r/issue#12#2"`, exitOK},
		{"r/issue#12#x", `seed "x" is not a non-negative integer`, exitUsage},
		{"r/issue#12", "trace r/issue#12: not found", exitError},
	} {
		code, out, errOut := c.run("", "rules", "explain", "--json", tc.ref)
		require.Equal(t, tc.code, code, tc.ref+": "+errOut)
		require.Contains(t, out+errOut, tc.want, tc.ref)
	}
}
