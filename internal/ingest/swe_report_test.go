package ingest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// TestSWEAgentResultsSupplyTheVerdict: a SWE-agent trajectory records no
// scorer verdict; a SWE-bench results summary given with --results does.
func TestSWEAgentResultsSupplyTheVerdict(t *testing.T) {
	t.Parallel()
	path := fixture(t, "swe-agent", "marshmallow-code__marshmallow-1867.traj")
	tr := onlyTrace(t, decodeWith(t, SWEAgentFormat, path, Options{}))
	require.Nil(t, tr.ExitCode, "no report: the exit code stays unknown")

	results := filepath.Join(t.TempDir(), "results_summary.json")
	require.NoError(t, os.WriteFile(results, []byte(`{"resolved_ids":["marshmallow-code__marshmallow-1867"],"unresolved_ids":[]}`), 0o644))
	tr = onlyTrace(t, decodeWith(t, SWEAgentFormat, path, Options{Results: results}))
	require.NotNil(t, tr.ExitCode)
	require.Equal(t, 0, *tr.ExitCode, "resolved means green")

	require.NoError(t, os.WriteFile(results, []byte(`{"resolved_ids":[],"unresolved_ids":["marshmallow-code__marshmallow-1867"]}`), 0o644))
	tr = onlyTrace(t, decodeWith(t, SWEAgentFormat, path, Options{Results: results}))
	require.Equal(t, 1, *tr.ExitCode)
}

// A SWE-agent run that ended "submitted (exit_cost)" and that the
// harness's results.json lists as resolved is resolved: the outcome is
// the scorer's, and the budget kill is the stop reason (it was stored as
// incomplete, so pass@1 disagreed with the benchmark's resolved rate).
func TestSWEAgentResolvedAfterBudgetKill(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(fixture(t, "swe-agent", "marshmallow-code__marshmallow-1867.traj"))
	require.NoError(t, err)
	var traj map[string]any
	require.NoError(t, json.Unmarshal(data, &traj))
	traj["info"].(map[string]any)["exit_status"] = "submitted (exit_cost)"
	data, err = json.Marshal(traj)
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "marshmallow-code__marshmallow-1867.traj")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	tr := onlyTrace(t, decodeWith(t, SWEAgentFormat, path, Options{}))
	require.Equal(t, triage.OutcomeUnknown, tr.Outcome, "no verdict: unknown, not incomplete")
	require.Equal(t, ptr(true), tr.Timeout)

	for _, tc := range []struct {
		list string
		exit int
		want triage.Outcome
	}{
		{`{"resolved_ids":["marshmallow-code__marshmallow-1867"],"unresolved_ids":[]}`, 0, triage.OutcomeSuccess},
		{`{"resolved_ids":[],"unresolved_ids":["marshmallow-code__marshmallow-1867"]}`, 1, triage.OutcomeFailed},
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "results.json"), []byte(tc.list), 0o644))
		tr := onlyTrace(t, decodeWith(t, SWEAgentFormat, path, Options{Outcomes: NewOutcomes()}))
		require.Equal(t, ptr(tc.exit), tr.ExitCode, tc.list)
		require.Equal(t, tc.want, tr.Outcome, tc.list)
		require.Equal(t, ptr(true), tr.Timeout, "the kill stays the stop reason")
		require.Equal(t, "submitted (exit_cost)", tr.StopReason)
	}
}
