package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A directory of Gemini CLI sessions, ACP trajectories and a job of trial
// folders imports by content: every trial is one trace with the
// verifier's outcome, the job's own result.json is skipped with a reason,
// a re-import changes nothing, and the rules read what the decoders
// filled (a partial reward is red, an agent timeout is TIMEOUT).
func TestImportGeminiACPAndTrialFolders(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	inputs := []string{"import", "--json", "../../testdata/formats/trials", "../../testdata/formats/gemini-cli", "../../testdata/formats/acp"}
	code, out, errOut := c.run("", inputs...)
	require.Equal(t, exitOK, code, errOut)
	var sum importSummary
	require.NoError(t, json.Unmarshal([]byte(out), &sum))
	require.Equal(t, 8, sum.Imported, out)
	require.Zero(t, sum.Rejected, out)
	require.Contains(t, out, `trials/tb2-sonnet/result.json`)

	code, list, errOut := c.run("", "traces", "--json")
	require.Equal(t, exitOK, code, errOut)
	type row struct {
		Run      string `json:"run_id"`
		Task     string `json:"task_id"`
		Seed     int    `json:"seed"`
		Exit     *int   `json:"exit_code"`
		Outcome  string `json:"outcome"`
		Calls    int    `json:"n_tool_calls"`
		Primary  string `json:"primary"`
		Decision string `json:"decision"`
		File     string `json:"source_file"`
	}
	rows := map[string]row{}
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		var r row
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		rows[r.Run+"/"+r.Task+"#"+string(rune('0'+r.Seed))] = r
	}
	require.Len(t, rows, 8)
	full := rows["tb2-sonnet/fix-regex#0"]
	require.Equal(t, 0, *full.Exit)
	require.Equal(t, 3, full.Calls)
	require.True(t, strings.HasSuffix(full.File, "fix-regex__A1b2C3d"), full.File)
	partial := rows["tb2-sonnet/fix-regex#1"]
	require.Equal(t, 1, *partial.Exit)
	require.Equal(t, 4, partial.Calls)
	require.Equal(t, 1, *rows["tb2-sonnet/build-cache#0"].Exit)
	require.Equal(t, "failed", rows["tb2-sonnet/build-cache#0"].Outcome, "the verifier's reward 0; the timeout is the stop reason")
	require.Equal(t, 0, *rows["tb2-sonnet/count-words#0"].Exit)
	require.Equal(t, 5, rows["tb2-sonnet/count-words#0"].Calls)

	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	for ref, want := range map[string]string{
		"tb2-sonnet/fix-regex#0":   "PASS_CONTRACT",
		"tb2-sonnet/fix-regex#1":   "SCORER_RED", // 0.55 of 1
		"tb2-sonnet/build-cache#0": "TIMEOUT",
		"tb2-sonnet/count-words#0": "PASS_CONTRACT",
	} {
		code, ex, errOut := c.run("", "rules", "explain", "--json", ref)
		require.Equal(t, exitOK, code, errOut)
		var v struct {
			Verdict struct {
				Primary string `json:"primary"`
			} `json:"verdict"`
		}
		require.NoError(t, json.Unmarshal([]byte(ex), &v), ex)
		require.Equal(t, want, v.Verdict.Primary, ref)
	}

	code, out, errOut = c.run("", inputs...)
	require.Equal(t, exitOK, code, errOut)
	sum = importSummary{}
	require.NoError(t, json.Unmarshal([]byte(out), &sum))
	require.Zero(t, sum.Imported)
	require.Equal(t, 8, sum.Duplicates)
}
