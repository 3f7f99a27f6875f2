package rules

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/pack"
	"github.com/triage-dev/triage/internal/triage"
)

// TestAbsurdAllowlistIsFast: an allowlist of {*,*} 26 times and a b,
// which pack check accepts, once made the rules take 46 s on three traces
// (issue 17, item 12). Globs now match in linear time.
func TestAbsurdAllowlistIsFast(t *testing.T) {
	t.Parallel()
	task := &triage.Task{ID: "T01", Allowlist: []string{strings.Repeat("{*,*}", 26) + "b"}, HiddenTests: []string{"h.py"}}
	c := Compile(nil, task)
	done := make(chan []string, 1)
	go func() {
		var fired []string
		for _, name := range []string{strings.Repeat("a", 80), "src/" + strings.Repeat("a", 60) + "c", strings.Repeat("ab", 40)} {
			diff := "diff --git a/" + name + " b/" + name + "\n--- a/" + name + "\n+++ b/" + name + "\n@@ -1 +1 @@\n-x\n+y\n"
			exit := 0
			v := c.Classify(Budgets{}, &triage.Trace{TaskID: "T01", ExitCode: &exit, Diff: &diff})
			fired = append(fired, v.Fired...)
		}
		done <- fired
	}()
	select {
	case fired := <-done:
		n := 0
		for _, f := range fired {
			if f == triage.ScopeSlip {
				n++
			}
		}
		if n != 2 {
			t.Fatalf("SCOPE_SLIP fired on %d traces, want the 2 whose paths do not end in b: %v", n, fired)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("three traces took more than 5 s against the allowlist")
	}
}

// A taxonomy is compiled once for every task: each task's Compiled shares
// the taxonomy's test globs, and every trace whose task is not in a pack
// shares one Compiled, so classifying many tasks costs nothing per task
// that the task's own pack entry does not need. Not parallel: AllocsPerRun.
func TestForTaskSharesTheTaxonomy(t *testing.T) {
	base := CompileTaxonomy(nil)
	require.Same(t, base.ForTask(nil), base.ForTask(nil))
	require.Same(t, base, CompileTaxonomy(nil), "the default taxonomy is compiled once a process")
	a := base.ForTask(&triage.Task{ID: "a", Allowlist: []string{"src/**", "["}})
	b := base.ForTask(&triage.Task{ID: "b"})
	require.Same(t, a.taxState, b.taxState)
	require.Same(t, a.taxState, base.ForTask(nil).taxState)
	require.NotEmpty(t, a.testGlobs)
	require.Len(t, a.allow, 1)
	require.Equal(t, []string{"["}, a.badAllow)
	require.Zero(t, testing.AllocsPerRun(10, func() { base.ForTask(nil) }))
}

// The tasks of a pack share their allowlist's compiled globs by pattern.
func TestForTaskSharesGlobsByPattern(t *testing.T) {
	t.Parallel()
	base := CompileTaxonomy(&triage.Taxonomy{Version: "t"})
	a := base.ForTask(&triage.Task{ID: "a", Allowlist: []string{"src/**", "x/*.py"}})
	b := base.ForTask(&triage.Task{ID: "b", Allowlist: []string{"./src/**"}})
	require.True(t, a.allowed("src/x.py"))
	require.True(t, b.allowed("src/y.py"))
	require.Same(t, a.allow[0].g.Load(), b.allow[0].g.Load())
	require.Equal(t, 3, a.Weight())
}

// A task's allowlist is compiled by what its traces' paths need, not by
// its length: ForTask compiles none of a task's 1,000 globs, a trace
// compiles only the globs whose literal prefix its paths have, once, and
// more traces of the task compile nothing more. Compiling every glob in
// ForTask made a pack of 10,000 such tasks ten million compiles (issue
// 27). The verdicts are those of globs compiled up front.
func TestAllowlistCompilesWhatThePathsNeed(t *testing.T) {
	t.Parallel()
	base := compileTaxonomy(DefaultTaxonomy())
	task := &triage.Task{ID: "T7", Allowlist: []string{"src/**"}}
	for g := 1; g < 1000; g++ {
		task.Allowlist = append(task.Allowlist, "m7/d"+strconv.Itoa(g)+"/*.py")
	}
	c := base.ForTask(task)
	require.Zero(t, base.globCompiles.Load(), "ForTask compiles no glob")
	require.Len(t, c.allow, 1000)
	exit := 0
	classify := func(names ...string) []string {
		var diff strings.Builder
		for _, n := range names {
			diff.WriteString("diff --git a/" + n + " b/" + n + "\n--- a/" + n + "\n+++ b/" + n + "\n@@ -1 +1 @@\n-x\n+y\n")
		}
		d := diff.String()
		return c.Classify(Budgets{}, &triage.Trace{TaskID: "T7", ExitCode: &exit, Diff: &d}).Fired
	}
	fired := classify("src/a.py", "m7/d5/x.py", "m7/d50/x.txt", "tests/t.py")
	// "m7/d5/x.py" has the prefixes of d5 only; "m7/d50/x.txt" of d50;
	// "src/a.py" of src/**; "tests/t.py" of none.
	require.Equal(t, int64(3), base.globCompiles.Load(), "compiles for four paths")
	require.Contains(t, fired, triage.ScopeSlip, "m7/d50/x.txt and tests/t.py are outside")
	for range 100 {
		classify("src/a.py", "m7/d5/x.py", "m7/d50/x.txt", "tests/t.py")
	}
	require.Equal(t, int64(3), base.globCompiles.Load(), "the task's later traces compile nothing")

	// The same verdicts as globs compiled up front.
	for _, name := range []string{"src/a.py", "src", "m7/d5/x.py", "m7/d5/x.txt", "m7/d999/y.py", "m7/d1000/y.py", "m7/d5/sub/x.py", "tests/t.py"} {
		want := false
		for _, p := range task.Allowlist {
			g, err := pack.CompileGlob(p)
			require.NoError(t, err)
			want = want || g.Match(name)
		}
		require.Equal(t, want, c.allowed(name), name)
	}
}
