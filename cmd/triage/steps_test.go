package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStepsCommand: `triage steps` prints one line a step, and --json the
// array of DESIGN §4, with the index of the call in show --json.
func TestStepsCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	row := `{"run_id":"r","task_id":"T1","exit_code":1,"tool_calls":[` +
		`{"name":"bash","args":{"command":"cat > fix.py <<'EOF'\nprint(1)\nEOF"},"output":""},` +
		`{"name":"bash","args":{"command":"pytest -q | tail -3"},"output":"bash: pytest: command not found"},` +
		`{"name":"bash","args":{"command":"python -m pytest tests"},"output":"FAILED tests/test_a.py::test_b - assert 1 == 2\n1 failed, 2 passed in 0.1s","exit_code":1},` +
		`{"name":"bash","args":{"command":"python run.py"},"output":"Traceback (most recent call last):\n  File \"run.py\", line 1\nKeyError: 'X'","exit_code":1}]}` + "\n"
	code, _, errOut := c.run("", "import", c.file("t.jsonl", row))
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := c.run("", "steps", "--json", "r/T1#0")
	require.Equal(t, exitOK, code, errOut)
	var steps []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &steps))
	require.Len(t, steps, 4)
	for _, k := range []string{"index", "kind", "result", "command", "files", "summary", "errors"} {
		require.Contains(t, steps[0], k)
	}
	got := func(i int, k string) any { return steps[i][k] }
	require.Equal(t, []any{"edit", "none", []any{"fix.py"}}, []any{got(0, "kind"), got(0, "result"), got(0, "files")})
	require.Equal(t, []any{"test", "not_run"}, []any{got(1, "kind"), got(1, "result")})
	require.Equal(t, []any{"test", "failed", "1 failed, 2 passed"}, []any{got(2, "kind"), got(2, "result"), got(2, "summary")})
	require.Equal(t, float64(3), got(3, "index"))
	require.Equal(t, []any{map[string]any{"type": "KeyError", "message": "'X'", "ident": "X"}}, got(3, "errors"))

	code, out, errOut = c.run("", "steps", "r/T1#0")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Contains(t, lines[0], "edit")
	require.Contains(t, out, "not_run")
	require.Contains(t, out, "tests: 2 passed, 1 failed, 0 errors (tests/test_a.py::test_b)")
	require.Contains(t, out, "! KeyError: 'X'")

	code, _, _ = c.run("", "steps", "r/nope#0")
	require.NotEqual(t, exitOK, code)
}
