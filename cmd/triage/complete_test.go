package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompletionOffersStoreNames: shell completion offers the store's
// runs (for --run and a trace's first half), traces (show, rules explain)
// and slices (--slice, agree, slice show) (issue 29: it offered none).
func TestCompletionOffersStoreNames(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	rows := `{"task_id":"T1","run_id":"alpha","exit_code":1}
{"task_id":"T2","run_id":"alpha","exit_code":1}
{"task_id":"T1","run_id":"beta","exit_code":0}
`
	code, _, errOut := c.run(rows, "import", "--rules", "--format", "jsonl", "-")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "slice", "create", "s1", "--size", "2", "--run", "alpha")
	require.Equal(t, exitOK, code, errOut)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"show", ""}, []string{"alpha/", "beta/"}},
		{[]string{"show", "alpha/"}, []string{"alpha/T1#0", "alpha/T2#0"}},
		{[]string{"rules", "explain", "beta/"}, []string{"beta/T1#0"}},
		{[]string{"review", "--run", "a"}, []string{"alpha"}},
		{[]string{"review", "--slice", ""}, []string{"s1"}},
		{[]string{"agree", ""}, []string{"s1"}},
		{[]string{"slice", "show", ""}, []string{"s1"}},
	} {
		_, out, _ := c.run("", append([]string{"__complete"}, tc.args...)...)
		for _, w := range tc.want {
			require.Contains(t, out, w+"\n", "%v", tc.args)
		}
	}
}
