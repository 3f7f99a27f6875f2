package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/termtest"
)

// plantedCauses are the failing causes plantedRows draws from: an
// exception with its test, varied in every volatile detail. The last is
// only in the newer run.
var plantedCauses = []struct{ exc, test string }{
	{"AttributeError: '%s' object has no attribute '%s'", "tests/test_client.py::test_get_invoice"},
	{"KeyError: '%s_%s'", "tests/test_totals.py::test_total"},
	{"ConnectionRefusedError: [Errno 111] Connection refused %s at %s", "tests/test_db.py::test_connect"},
	{"ValueError: invalid literal for int() with base 10: '%s%s'", "tests/test_parse.py::test_amount"},
	{"TypeError: unsupported operand type(s) for +: '%s' and '%s'", "tests/test_tax.py::test_rounding"},
}

// plantedRows writes n failing JSONL traces of run, each from one cause
// (returned by trace name), with temp paths, numbers, hex addresses,
// quoted names, timestamps and the agent's wandering varied.
func plantedRows(run string, n int, withNovel bool) (string, map[string]int) {
	r := rand.New(rand.NewPCG(uint64(len(run)), uint64(run[len(run)-1])))
	k := len(plantedCauses) - 1
	if withNovel {
		k++
	}
	var b strings.Builder
	truth := map[string]int{}
	words := []string{"Client", "Api", "invoice", "total", "amount", "3f9a", "x1", "net"}
	for i := range n {
		cause := r.IntN(k)
		c := plantedCauses[cause]
		exc := fmt.Sprintf(c.exc, words[r.IntN(len(words))]+fmt.Sprint(r.IntN(99)), words[r.IntN(len(words))])
		if cause == 2 {
			exc = fmt.Sprintf(c.exc, fmt.Sprintf("2026-03-%02dT10:%02d:00Z", 1+r.IntN(27), r.IntN(60)), fmt.Sprintf("0x%x", r.Uint64()))
		}
		out := fmt.Sprintf("Traceback (most recent call last):\n  File \"/tmp/pytest-of-ci/pytest-%d/test_%d.py\", line %d, in test\n%s\nFAILED %s - boom\n==== 1 failed, %d passed in %d.%02ds ====\n",
			r.IntN(999), r.IntN(99), 1+r.IntN(400), exc, c.test, r.IntN(20), r.IntN(5), r.IntN(99))
		var calls []string
		for range r.IntN(4) {
			calls = append(calls, fmt.Sprintf(`{"name":"bash","args":{"command":"cat src/m%d.py"},"output":"…"}`, r.IntN(9)))
		}
		calls = append(calls, `{"name":"bash","args":{"command":"sed -i 's/a/b/' src/client.py"},"output":""}`)
		calls = append(calls, fmt.Sprintf(`{"name":"bash","args":{"command":"pytest -q tests"},"output":%s,"exit_code":1}`, jsonString(out)))
		calls = append(calls, `{"name":"submit","args":{}}`)
		task := fmt.Sprintf("T%02d", r.IntN(12))
		fmt.Fprintf(&b, `{"run_id":%q,"task_id":%q,"seed":%d,"exit_code":1,"tool_calls":[%s],"test_output":%s}`+"\n",
			run, task, i, strings.Join(calls, ","), jsonString("FAILED "+c.test+" - "+exc+"\n"))
		truth[fmt.Sprintf("%s/%s#%d", run, task, i)] = cause
	}
	return b.String(), truth
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// clusterLines decodes `clusters --json`.
func clusterLines(t *testing.T, out string) []clusterJSON {
	t.Helper()
	var rows []clusterJSON
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var row clusterJSON
		require.NoError(t, json.Unmarshal([]byte(line), &row), line)
		rows = append(rows, row)
	}
	return rows
}

// adjustedRandIndex of two labelings given as maps from item to label.
func adjustedRandIndex(truth, got map[string]int) float64 {
	type pair struct{ a, b int }
	nij, ai, bj := map[pair]int{}, map[int]int{}, map[int]int{}
	n := 0
	for k, a := range truth {
		b, ok := got[k]
		if !ok {
			b = -1 - n // missing items are singletons
		}
		nij[pair{a, b}]++
		ai[a]++
		bj[b]++
		n++
	}
	c2 := func(k int) float64 { return float64(k) * float64(k-1) / 2 }
	var sij, sa, sb float64
	for _, v := range nij {
		sij += c2(v)
	}
	for _, v := range ai {
		sa += c2(v)
	}
	for _, v := range bj {
		sb += c2(v)
	}
	exp := sa * sb / c2(n)
	return (sij - exp) / ((sa+sb)/2 - exp)
}

// TestClustersRecoverPlantedCausesAndFlagTheNovelOne is issue 19's
// targets through the command: planted JSONL traces imported and labelled
// by the rules, clustered with an adjusted Rand index ≥ 0.9, and the cause
// only the newer run has flagged novel for ≥ 90 % of its traces with ≤ 5 %
// of the others flagged.
func TestClustersRecoverPlantedCausesAndFlagTheNovelOne(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	old, _ := plantedRows("run-a", 300, false)
	newer, truth := plantedRows("run-b", 300, true)
	for _, f := range []string{c.file("a.jsonl", old), c.file("b.jsonl", newer)} {
		code, _, errOut := c.run("", "import", f)
		require.Equal(t, exitOK, code, errOut)
	}
	code, _, errOut := c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)

	code, out, errOut := c.run("", "clusters", "--run", "run-b", "--baseline", "run-a", "--json")
	require.Equal(t, exitOK, code, errOut)
	rows := clusterLines(t, out)
	require.NotEmpty(t, rows)
	got := map[string]int{}
	novel := map[string]bool{}
	for i, row := range rows {
		require.False(t, row.Unclustered, "every planted trace has a signature: %+v", row)
		require.Equal(t, i+1, row.ID)
		require.Equal(t, len(row.Members), row.Size)
		require.NotNil(t, row.Signature)
		require.NotNil(t, row.Novel, "--baseline gives novel")
		require.Contains(t, row.Members, row.Representative)
		if i > 0 {
			require.GreaterOrEqual(t, rows[i-1].Size, row.Size, "largest first")
		}
		for _, m := range row.Members {
			require.True(t, strings.HasPrefix(m, "run-b/"), "only the newer run's members: %s", m)
			got[m] = row.ID
			novel[m] = *row.Novel
		}
	}
	ari := adjustedRandIndex(truth, got)
	var novelN, novelHit, otherN, otherHit int
	for k, cause := range truth {
		if cause == len(plantedCauses)-1 {
			novelN++
			if novel[k] {
				novelHit++
			}
		} else {
			otherN++
			if novel[k] {
				otherHit++
			}
		}
	}
	t.Logf("ARI %.3f, %d clusters; novel cause flagged %d/%d, others %d/%d", ari, len(rows), novelHit, novelN, otherHit, otherN)
	require.GreaterOrEqual(t, ari, 0.9)
	require.Positive(t, novelN)
	require.GreaterOrEqual(t, float64(novelHit)/float64(novelN), 0.9)
	require.LessOrEqual(t, float64(otherHit)/float64(otherN), 0.05)

	// The table names the novel cluster by its exception.
	code, out, errOut = c.run("", "clusters", "--run", "run-b", "--baseline", "run-a")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "NOVEL")
	require.Contains(t, out, "TypeError: unsupported operand type(s) for +: <q> and <q>")
	require.Contains(t, out, "baseline run-a: 1 novel")

	// Without a baseline there is no novel key; every run is clustered.
	code, out, _ = c.run("", "clusters", "--json")
	require.Equal(t, exitOK, code)
	require.NotContains(t, out, `"novel"`)
	require.Contains(t, out, "run-a/")
}

func TestClustersBadInput(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, errOut := c.run("", "clusters")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "no store at")

	rows, _ := plantedRows("run-a", 5, false)
	code, _, errOut = c.run("", "import", c.file("a.jsonl", rows))
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "clusters", "--baseline", "nosuch")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, `--baseline: run "nosuch": not found; runs in this store: run-a`)
	code, _, errOut = c.run("", "clusters", "--run", "nosuch")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, `run "nosuch": not found`)
	code, _, errOut = c.run("", "clusters", "--run", "run-a", "--baseline", "run-a")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "also the --baseline")
	code, _, errOut = c.run("", "clusters", "--run", "run-a", "--run", "run-a")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "given twice")
	code, _, _ = c.run("", "clusters", "--members", "-1")
	require.Equal(t, exitUsage, code)
	code, _, _ = c.run("", "clusters", "extra")
	require.Equal(t, exitUsage, code)

	// Before the rules run the traces still cluster from their logs.
	code, out, errOut := c.run("", "clusters")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "5 failing traces")

	code, out, _ = c.run("", "clusters", "--help")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "triage clusters --run run-b --baseline run-a")
}

// TestClustersListUnclusteredWithTheReason: a failing trace whose log
// shows nothing (no verdict, no tool call, no test output) is listed as
// unclustered, with why, not dropped.
func TestClustersListUnclusteredWithTheReason(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, errOut := c.run("", "import", c.file("r.jsonl", `{"run_id":"r","task_id":"T1","exit_code":1}`+"\n"+`{"run_id":"r","task_id":"T2","exit_code":0}`+"\n"))
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := c.run("", "clusters", "--json")
	require.Equal(t, exitOK, code, errOut)
	rows := clusterLines(t, out)
	require.Len(t, rows, 1)
	require.True(t, rows[0].Unclustered)
	require.Equal(t, []string{"r/T1#0"}, rows[0].Members)
	require.Contains(t, rows[0].Reason, "nothing to compare")
	code, out, _ = c.run("", "clusters")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "unclustered: 1 traces")

	// Labelled by the rules, its verdict names its class but no cause (a
	// red exit code and nothing else): it is listed apart as "no cause
	// found", never a catch-all cluster of everything that shares a class.
	code, _, _ = c.run("", "rules", "run")
	require.Equal(t, exitOK, code)
	code, out, _ = c.run("", "clusters", "--json")
	require.Equal(t, exitOK, code)
	rows = clusterLines(t, out)
	require.Len(t, rows, 1)
	require.True(t, rows[0].Unclustered)
	require.Contains(t, rows[0].Reason, "no cause found")
	code, out, _ = c.run("", "clusters")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "unclustered: 1 traces · no cause found")
}

// TestClustersKeepHostileTextInert: trace text in names, members and
// signatures cannot drive the terminal, in the table and in --json.
func TestClustersKeepHostileTextInert(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	f := newHostileFixture(t, c)
	code, _, errOut := c.run("", "import", f.traces)
	require.Equal(t, exitOK, code, errOut)
	exc := jsonString("Traceback\nValueError: " + hostileText + " '" + hostileText + "'\n")
	row := `{"run_id":` + js(f.runB) + `,"task_id":` + js("T9"+hostileTask) + `,"exit_code":1,"tool_calls":[{"name":"bash","args":{"command":"pytest"},"output":` + exc + `,"exit_code":1}],"test_output":` + jsonString("FAILED tests/t"+hostileText+"::x - e\n") + `}`
	code, _, errOut = c.run("", "import", c.file("h.jsonl", row+"\n"))
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	for _, args := range [][]string{
		{"clusters"},
		{"clusters", "--json"},
		{"clusters", "--run", f.runB, "--baseline", f.runA},
		{"clusters", "--run", f.runB, "--baseline", f.runA, "--json"},
		{"clusters", "--baseline", "nope" + hostileName},
		{"clusters", "--redact"},
	} {
		code, out, errOut := c.run("", append([]string{"--taxonomy", f.tax}, args...)...)
		termtest.RequireInert(t, strings.Join(args, " ")+" stdout", out)
		termtest.RequireInert(t, strings.Join(args, " ")+" stderr", errOut)
		if args[len(args)-1] == "--json" {
			require.Equal(t, exitOK, code, errOut)
			requireJSONEscaped(t, "clusters --json", out)
		}
	}
}

// TestWritePlantedTraces writes planted failing traces for measuring
// `clusters` at scale (docs/PERFORMANCE.md): TRIAGE_PLANTED_OUT=FILE and
// TRIAGE_PLANTED_N (default 100000) traces of run TRIAGE_PLANTED_RUN
// (default run-b, which has the novel cause; run-a has not). Skipped
// unless TRIAGE_PLANTED_OUT is set.
func TestWritePlantedTraces(t *testing.T) {
	out := os.Getenv("TRIAGE_PLANTED_OUT")
	if out == "" {
		t.Skip("TRIAGE_PLANTED_OUT not set")
	}
	n, run := 100_000, cmp.Or(os.Getenv("TRIAGE_PLANTED_RUN"), "run-b")
	if s := os.Getenv("TRIAGE_PLANTED_N"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err)
	}
	rows, _ := plantedRows(run, n, run != "run-a")
	require.NoError(t, os.WriteFile(out, []byte(rows), 0o644))
}

func TestRepoOf(t *testing.T) {
	t.Parallel()
	for task, want := range map[string]string{
		"django__django-11276":                 "django/django",
		"scikit-learn__scikit-learn-13135":     "scikit-learn/scikit-learn",
		"pandas-dev__pandas.95280573.pr_53856": "pandas-dev/pandas",
		"ponylang__ponyc-4595":                 "ponylang/ponyc",
		"T04":                                  "",
		"popularity:3":                         "",
	} {
		require.Equal(t, want, repoOf(task), task)
	}
}

// TestClustersBreakDownByToolAndRepository: each cluster says which
// tool's call failed and which repositories its tasks are from.
func TestClustersBreakDownByToolAndRepository(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	rows, _ := plantedRows("r", 20, false)
	rows = strings.ReplaceAll(rows, `"task_id":"T`, `"task_id":"acme__billing-`)
	code, _, errOut := c.run("", "import", c.file("r.jsonl", rows))
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := c.run("", "clusters", "--json")
	require.Equal(t, exitOK, code, errOut)
	for _, row := range clusterLines(t, out) {
		require.Equal(t, []keyCount{{"acme/billing", row.Size}}, row.Repositories)
		require.Equal(t, []keyCount{{"bash", row.Size}}, row.FailingTools, "the pytest run failed")
	}
	code, out, _ = c.run("", "clusters")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "· failing bash ")
	require.Contains(t, out, "· repos acme/billing ")
}

// TestClustersJSONSaysWhatItDidNotCount: the traces not known to have
// failed are in no cluster and no share; --json says how many on a last
// line, as the text output says in its head.
func TestClustersJSONSaysWhatItDidNotCount(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	rows := `{"task_id":"T1","exit_code":1,"test_output":"E   AssertionError: boom","tool_calls":[{"name":"bash","args":{"cmd":"pytest"},"output":"FAILED t::a"}]}
{"task_id":"T2","answer":"done","tool_calls":[{"name":"bash","args":{"cmd":"ls"},"output":"x"}]}
`
	code, _, errOut := c.run(rows, "import", "--rules", "--format", "jsonl", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := c.run("", "clusters", "--json")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct {
		NotCounted bool    `json:"not_counted"`
		Size       int     `json:"size"`
		Share      float64 `json:"share"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last))
	require.True(t, last.NotCounted, out)
	require.Equal(t, 1, last.Size)
	code, out, _ = c.run("", "clusters")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "(1 trace is not counted")
}

// TestClusterSetSharesToolSets holds clusters to one copy of each set of
// tools (issue 27: a slice per failing trace was a fifth of its record):
// equal sets share their array, unequal ones do not, and the shared copy
// is clipped so that an append to it cannot write into another's.
func TestClusterSetSharesToolSets(t *testing.T) {
	t.Parallel()
	cs := &clusterSet{intern: map[string]string{}, tools: map[string][]string{}}
	a := cs.toolSet(append(make([]string, 0, 8), "bash", "edit"))
	b := cs.toolSet([]string{"bash", "edit"})
	c := cs.toolSet([]string{"bash"})
	d := cs.toolSet([]string{"bash\x00edit"})
	require.Equal(t, []string{"bash", "edit"}, b)
	require.Same(t, &a[0], &b[0], "equal sets share one array")
	require.NotSame(t, &a[0], &c[0])
	require.Equal(t, []string{"bash\x00edit"}, d, "a name with the separator in it is not another set")
	require.Equal(t, len(a), cap(a), "the shared copy is clipped")
	require.Len(t, cs.tools, 3)
}
