package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// inspectLog is an Inspect EvalLog of task "pop" whose samples 1..n each
// answer ans at epochs 1..epochs.
func inspectLog(runID, ans string, n, epochs int) string {
	var s []string
	for id := 1; id <= n; id++ {
		for e := 1; e <= epochs; e++ {
			s = append(s, fmt.Sprintf(`{"id":%d,"epoch":%d,"input":"q%d","messages":[{"role":"user","content":"q%d"},{"role":"assistant","content":%q}],"output":{"model":"m"}}`, id, e, id, id, ans))
		}
	}
	return `{"version":2,"status":"success","eval":{"run_id":"` + runID + `","task":"pop","model":"m"},"samples":[` + strings.Join(s, ",") + `]}`
}

func TestInspectLogsOfOneTaskUnderOneRunTakeLaterSeeds(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	a := c.file("a.json", inspectLog("ra", "yes", 3, 2))
	b := c.file("b.json", inspectLog("rb", "no", 3, 1))

	code, out, errOut := c.run("", "import", "--run", "one", a, b)
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "9 imported, 0 duplicates, 0 rejected\n", out)
	require.Contains(t, errOut, "note: 3 Inspect samples stored under later seeds (one/pop:1#0 → seed 2)")

	code, out, _ = c.run("", "traces", "--json", "--run", "one")
	require.Equal(t, exitOK, code)
	seeds := map[string][]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct {
			Task string `json:"task_id"`
			Seed int    `json:"seed"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &row))
		seeds[row.Task] = append(seeds[row.Task], row.Seed)
	}
	for id := 1; id <= 3; id++ {
		require.ElementsMatch(t, []int{0, 1, 2}, seeds[fmt.Sprintf("pop:%d", id)], "a's two epochs, then b's one")
	}

	// The same logs again, in either order, are duplicates: a moved
	// sample finds itself at its later seed.
	code, out, errOut = c.run("", "import", "--run", "one", b, a)
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "0 imported, 9 duplicates, 0 rejected\n", out)
	require.NotContains(t, errOut, "later seeds")

	// Under their own run ids nothing collides.
	code, out, errOut = c.run("", "import", a, b)
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "9 imported, 0 duplicates, 0 rejected\n", out)
	require.NotContains(t, errOut, "later seeds")
}

func TestInspectReseedUnderStrictAndJSON(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	a := c.file("a.json", inspectLog("ra", "yes", 2, 1))
	b := c.file("b.json", inspectLog("rb", "no", 2, 1))
	code, out, errOut := c.run("", "import", "--strict", "--json", "--run", "one", a, b)
	require.Equal(t, exitOK, code, errOut)
	var sum importSummary
	require.NoError(t, json.Unmarshal([]byte(out), &sum))
	require.Equal(t, 4, sum.Imported)
	require.Equal(t, 2, sum.Reseeded)
	require.Equal(t, "one/pop:1#0 → seed 1", sum.ReseededExample)
}

func TestOtherFormatsStillConflict(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	a := c.file("a.jsonl", `{"task_id":"T","exit_code":0}`+"\n")
	b := c.file("b.jsonl", `{"task_id":"T","exit_code":1}`+"\n")
	code, out, errOut := c.run("", "import", "--run", "one", a, b)
	require.Equal(t, exitRejected, code, errOut)
	require.Equal(t, "1 imported, 0 duplicates, 1 rejected\n", out)
	require.Contains(t, errOut, "one/T#0 is already stored with different content")
}
