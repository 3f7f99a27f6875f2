package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The rules label with the pack card init froze, and say so when the pack
// on disk is another: `rules run` and `import --rules` refuse a pack whose
// dataset hash is no longer the run's dataset_sha256 (they computed the
// hash on every load and never compared it), naming the file changed, and
// label again once the pack is back. The check reads the whole pack only
// when its files' stats changed (pack.CachedHash).
func TestRulesRefuseAPackChangedSinceCardInit(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	tasks := filepath.Join(c.dir, "pack", "tasks")
	c.file("pack/tasks/T01/prompt.md", "Write a client.\n")
	settings := `{"allowlist": ["src/**"]}`
	c.file("pack/tasks/T01/task.json", settings)
	code, _, errOut := c.run("", "card", "init", "--run", "r", "--pack", tasks)
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run(`{"task_id":"T01","seed":1}`+"\n", "import", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)

	c.file("pack/tasks/T01/task.json", `{"allowlist": ["lib/**"]}`)
	code, _, errOut = c.run(`{"task_id":"T01","seed":2}`+"\n", "import", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitError, code, errOut)
	require.Contains(t, errOut, "not to the dataset_sha256")
	require.Contains(t, errOut, "tasks/T01/task.json")
	require.Contains(t, errOut, "the rules cannot label by them")
	code, _, errOut = c.run(`{"task_id":"T01","seed":3}`+"\n", "import", "--rules", "--run", "r", "-")
	require.NotEqual(t, exitOK, code, errOut)
	require.Contains(t, errOut, "not to the dataset_sha256")

	c.file("pack/tasks/T01/task.json", settings)
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
}
