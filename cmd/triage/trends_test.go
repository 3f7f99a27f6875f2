package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/termtest"
)

func TestTrends(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	g := gateRows()
	// Run h: every seed-2 trace of g's now passes, so TOOL_LOOP drops.
	h := strings.ReplaceAll(g, `"run_id":"g"`, `"run_id":"h"`)
	var hb strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(h), "\n") {
		if strings.Contains(line, `"command":"ls"`) {
			line = line[:strings.Index(line, `"exit_code"`)] + `"exit_code":0,"written_tests":false,"tool_calls":[{"name":"read","args":{"path":"z"}}]}`
		}
		hb.WriteString(line + "\n")
	}
	for name, rows := range map[string]string{"g.jsonl": g, "h.jsonl": hb.String(), "g2.jsonl": strings.ReplaceAll(g, `"run_id":"g"`, `"run_id":"g2"`)} {
		code, _, errOut := c.run("", "import", c.file(name, rows))
		require.Equal(t, exitOK, code, errOut)
	}
	code, _, errOut := c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)

	code, out, errOut := c.run("", "trends", "--run", "g", "--run", "h", "--json")
	require.Equal(t, exitOK, code, errOut)
	lines := map[string]card.TrendLine{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var tl card.TrendLine
		require.NoError(t, json.Unmarshal([]byte(l), &tl))
		lines[tl.Figure] = tl
	}
	loop := lines["TOOL_LOOP"]
	require.Len(t, loop.Points, 2)
	require.InDelta(t, 0.25, loop.Points[0].Estimate.Value, 1e-9)
	require.InDelta(t, 0, loop.Points[1].Estimate.Value, 1e-9)
	require.Equal(t, "down", loop.Points[1].Trend, "every task's loop gone")
	require.Equal(t, "up", lines["PASS_CONTRACT"].Points[1].Trend)
	require.Contains(t, lines, card.TrendPassAt1)

	// Against a noise floor as wide as the change, it is noise.
	code, out, errOut = c.run("", "trends", "--run", "g", "--run", "h", "--noise", "g,h")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "noise floor: each figure's difference between g and h")
	require.Contains(t, out, "taxonomy trust: unmeasured (nobody has measured agreement on a blind slice)")
	require.NotContains(t, out, "↑ trend")
	require.NotContains(t, out, "↓ trend")
	// Two identical runs: a floor of zero, and no change.
	code, out, _ = c.run("", "trends", "--run", "g", "--run", "g2", "--noise", "g,g2")
	require.Equal(t, exitOK, code)
	require.Regexp(t, `(?m)^  TOOL_LOOP .* 0\.0 pts$`, out, "a noise floor of 0.0 pts")
	require.NotContains(t, out, "↑")

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"trends", "--run", "g"}, exitUsage, "at least two runs"},
		{[]string{"trends", "--run", "g", "--run", "g"}, exitUsage, "given twice"},
		{[]string{"trends", "--run", "g", "--run", "h", "--noise", "g"}, exitUsage, "want X,Y"},
		{[]string{"trends", "--run", "g", "--run", "nosuch"}, exitError, `run "nosuch": not found`},
		{[]string{"trends", "--run", "g", "--run", "h", "--noise", "g,nosuch"}, exitError, `run "nosuch": not found`},
	} {
		code, _, errOut := c.run("", tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
	}
	code, out, _ = c.run("", "trends", "--help")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "triage trends --run v1 --run v2 --noise v2,v2-rerun --json")
}

func TestTrendsKeepHostileRunNamesInert(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	f := newHostileFixture(t, c)
	code, _, errOut := c.run("", "import", f.traces)
	require.Equal(t, exitOK, code, errOut)
	for _, args := range [][]string{
		{"trends", "--run", f.runA, "--run", f.runB, "--noise", f.runA + "," + f.runB},
		{"trends", "--run", f.runA, "--run", f.runB, "--json"},
		{"trends", "--run", f.runA, "--run", "nope" + hostileName},
	} {
		_, out, errOut := c.run("", append([]string{"--taxonomy", f.tax}, args...)...)
		termtest.RequireInert(t, "trends stdout", out)
		termtest.RequireInert(t, "trends stderr", errOut)
	}
}
