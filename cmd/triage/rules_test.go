package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The rules read a run's task pack only when one of its traces is
// labelled: another run whose pack has moved away since card init, with
// nothing pending, must not stop them, while a run that has traces to
// label still names its missing pack.
func TestRulesRunLoadsOnlyThePacksItNeeds(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	imp := func(run, task string) {
		t.Helper()
		code, _, errOut := c.run(`{"task_id":"`+task+`","exit_code":0}`+"\n", "import", "--format", "jsonl", "--run", run, "-")
		require.Equal(t, exitOK, code, errOut)
	}
	for _, run := range []string{"a", "b"} {
		tasks := filepath.Join(c.dir, "pack-"+run, "tasks")
		c.file("pack-"+run+"/tasks/T01/prompt.md", "Write a client.\n")
		code, _, errOut := c.run("", "card", "init", "--run", run, "--pack", tasks)
		require.Equal(t, exitOK, code, errOut)
		imp(run, "T01")
	}
	code, out, errOut := c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "2 traces labelled by the rules")
	require.NoError(t, os.RemoveAll(filepath.Join(c.dir, "pack-a")))

	imp("b", "T02")
	code, out, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "1 trace labelled by the rules")
	require.NotContains(t, errOut, "no task pack", "run a was not labelled, so its pack is not missed")

	imp("a", "T02")
	imp("b", "T03")
	code, out, errOut = c.run("", "rules", "run", "--run", "b")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "1 trace labelled by the rules")

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
