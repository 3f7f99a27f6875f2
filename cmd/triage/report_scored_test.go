package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/shareddata"
	"github.com/triage-dev/triage/internal/triage"
)

// A Terminal-Bench run imports with the harness's verdicts, pass@1 per
// run equals the harness's resolved rate on the same trials (its
// results.json: 2 resolved of the 3 it lists), the trial nobody scored
// is left out of it, the report says how much of the mix has no
// outcome, and --scored counts the scored trials alone.
func TestReportTerminalBenchResolvedRateAndScored(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, out, errOut := c.run("", "import", "--json", "../../testdata/formats/terminal-bench")
	require.Equal(t, exitRejected, code, "the corrupt trial results.json is rejected by file and line: %s", errOut)
	var sum importSummary
	require.NoError(t, json.Unmarshal([]byte(out), &sum))
	require.Equal(t, 4, sum.Imported, out)
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)

	type report struct {
		NTraces int `json:"n_traces"`
		Rates   struct {
			PassAt1 float64 `json:"pass_at_1"`
		} `json:"rates"`
		ByRun    []struct{ Key string } `json:"by_run"`
		Unscored struct {
			Traces  int     `json:"traces"`
			Share   float64 `json:"share"`
			LeftOut int     `json:"left_out"`
		} `json:"unscored"`
	}
	code, out, errOut = c.run("", "report", "--json", "--run", "2025-06-01__12-00-00")
	require.Equal(t, exitOK, code, errOut)
	var all report
	require.NoError(t, json.Unmarshal([]byte(out), &all), out)
	require.Equal(t, 4, all.NTraces)
	require.InDelta(t, 2.0/3, all.Rates.PassAt1, 1e-9, "n_resolved / trials in the run's results.json")
	require.Equal(t, 1, all.Unscored.Traces, "sort-csv: no results.json anywhere")
	require.InDelta(t, 0.25, all.Unscored.Share, 1e-9)
	code, text, errOut := c.run("", "report", "--width", "200")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, text, "1 of 4 traces (25.0%) have no recorded outcome: nobody scored them; triage report --scored shows the scored runs alone.")

	code, out, errOut = c.run("", "report", "--json", "--scored")
	require.Equal(t, exitOK, code, errOut)
	var scored report
	require.NoError(t, json.Unmarshal([]byte(out), &scored), out)
	require.Equal(t, 3, scored.NTraces)
	require.Equal(t, 1, scored.Unscored.LeftOut)
	require.Zero(t, scored.Unscored.Traces)
	require.InDelta(t, 2.0/3, scored.Rates.PassAt1, 1e-9)
}

// On a SWE-bench layout (SWE-agent trajectories and the run's
// results.json), pass@1 per run equals the harness's resolved rate on
// the same runs, a run resolved after "submitted (exit_cost)" included:
// its outcome is the scorer's, PASS_*, with TIMEOUT secondary.
func TestReportSWEBenchResolvedRate(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join(shareddata.SWEAgentDir(t), "marshmallow-code__marshmallow-1867.traj"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "swe-run")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for iid, status := range map[string]string{"a__a-1": "submitted (exit_cost)", "b__b-2": "submitted", "c__c-3": "submitted (exit_cost)", "d__d-4": "exit_format"} {
		var traj map[string]any
		require.NoError(t, json.Unmarshal(src, &traj))
		traj["info"].(map[string]any)["exit_status"] = status
		b, err := json.Marshal(traj)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, iid+".traj"), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.json"),
		[]byte(`{"resolved_ids":["a__a-1","b__b-2"],"unresolved_ids":["c__c-3","d__d-4"]}`), 0o644))
	c := newCLI(t)
	code, _, errOut := c.run("", "import", dir)
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := c.run("", "report", "--json")
	require.Equal(t, exitOK, code, errOut)
	var r struct {
		NTraces int `json:"n_traces"`
		Rates   struct {
			PassAt1 float64 `json:"pass_at_1"`
		} `json:"rates"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	require.Equal(t, 4, r.NTraces)
	require.InDelta(t, 0.5, r.Rates.PassAt1, 1e-9, "2 resolved of the 4 the results.json lists")

	code, ex, errOut := c.run("", "rules", "explain", "--json", "swe-run/a__a-1#0")
	require.Equal(t, exitOK, code, errOut)
	var v struct {
		Verdict struct {
			Primary   string   `json:"primary"`
			Secondary []string `json:"secondary"`
			Outcome   string   `json:"outcome"`
		} `json:"verdict"`
	}
	require.NoError(t, json.Unmarshal([]byte(ex), &v), ex)
	require.True(t, triage.IsPass(v.Verdict.Primary), v.Verdict.Primary)
	require.Contains(t, v.Verdict.Secondary, triage.Timeout)
	require.Equal(t, "success", v.Verdict.Outcome)
}
