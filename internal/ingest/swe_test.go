package ingest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

func TestSWEAgentRealFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file       string
		model      string
		calls      int
		firstTool  string
		lastTool   string
		diffPrefix string
		diffLen    int
		answer     string
		tokens     *triage.Tokens
		cost       float64
	}{
		{file: "6e44b9__sweagenttestrepo-1c2844.traj", model: "gpt-4o", calls: 5, firstTool: "find_file", lastTool: "submit",
			diffPrefix: "diff --git a/tests/missing_colon.py", diffLen: 313, tokens: &triage.Tokens{Input: 7141, Output: 243}, cost: 0.01952},
		{file: "swe-agent__test-repo-i1.traj", calls: 5, firstTool: "find_file", lastTool: "submit",
			diffPrefix: "diff --git a/tests/missing_colon.py", diffLen: 300, tokens: &triage.Tokens{Input: 52861, Output: 326}, cost: 0.53839},
		{file: "pydicom__pydicom-1458.traj", calls: 12, firstTool: "create", lastTool: "submit",
			diffPrefix: "diff --git a/pydicom/pixel_data_handlers/numpy_handler.py", diffLen: 802, tokens: &triage.Tokens{Input: 122612, Output: 1369}, cost: 1.26719},
		{file: "marshmallow-code__marshmallow-1867.traj", model: "gpt-4o", calls: 11, firstTool: "create", lastTool: "submit",
			diffPrefix: "diff --git a/src/marshmallow/fields.py", diffLen: 585, tokens: &triage.Tokens{}, cost: 0},
		{file: "networking_1.traj", calls: 4, firstTool: "tshark", lastTool: "submit",
			answer: "flag{d316759c281bf925d600be698a4973d5}", tokens: &triage.Tokens{}, cost: 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			path := fixture(t, "swe-agent", tc.file)
			require.True(t, detectSWEAgent(path, head(t, path)))
			tr := onlyTrace(t, decodeWith(t, SWEAgentFormat, path, Options{}))
			require.Equal(t, strings.TrimSuffix(tc.file, ".traj"), tr.TaskID)
			require.Equal(t, "swe-agent", tr.RunID, "run from the parent directory")
			require.Equal(t, tc.model, tr.Model)
			require.Len(t, tr.ToolCalls, tc.calls)
			require.Equal(t, tc.firstTool, tr.ToolCalls[0].Name)
			require.Equal(t, tc.lastTool, tr.ToolCalls[len(tr.ToolCalls)-1].Name)
			var args struct{ Command string }
			require.NoError(t, json.Unmarshal(tr.ToolCalls[0].Args, &args))
			require.True(t, strings.HasPrefix(args.Command, tc.firstTool))
			require.NotEmpty(t, tr.ToolCalls[0].Output)
			// The problem statement, then one thought per step.
			require.Equal(t, "user", tr.Messages[0].Role)
			require.Len(t, tr.Messages, tc.calls+1)
			require.NotContains(t, tr.Messages[0].Content, "Here is a demonstration", "demonstrations are dropped")
			if tc.diffPrefix != "" {
				require.NotNil(t, tr.Diff)
				require.True(t, strings.HasPrefix(*tr.Diff, tc.diffPrefix), *tr.Diff)
				require.Len(t, *tr.Diff, tc.diffLen)
				require.Nil(t, tr.Answer)
			} else {
				require.Nil(t, tr.Diff)
				require.Equal(t, tc.answer, *tr.Answer)
			}
			require.Equal(t, tc.tokens, tr.Tokens)
			require.InDelta(t, tc.cost, *tr.CostUSD, 1e-9)
			require.Equal(t, triage.OutcomeUnknown, tr.Outcome, "submitted: the scorer decides")
			require.False(t, *tr.Timeout)
			require.Nil(t, tr.ExitCode, "no report: exit code unknown")
			require.True(t, tr.HasToolLog)
			require.Equal(t, "swe-agent", tr.Source)
		})
	}
}

func TestSWEAgentExitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status  string
		outcome triage.Outcome
		timeout *bool
	}{
		{"submitted", triage.OutcomeUnknown, ptr(false)},
		// Budget kills: the stop reason; the outcome is the scorer's.
		{"exit_cost", triage.OutcomeUnknown, ptr(true)},
		{"exit_context", triage.OutcomeUnknown, ptr(true)},
		{"exit_total_execution_time", triage.OutcomeUnknown, ptr(true)},
		{"exit_command_timeout", triage.OutcomeUnknown, ptr(true)},
		{"submitted (exit_cost)", triage.OutcomeUnknown, ptr(true)},
		{"submitted (exit_format)", triage.OutcomeFailed, ptr(false)},
		{"exit_forfeit", triage.OutcomeIncomplete, ptr(false)},
		{"exit_error", triage.OutcomeFailed, ptr(false)},
		{"exit_api", triage.OutcomeFailed, ptr(false)},
		{"exit_environment_error", triage.OutcomeFailed, ptr(false)},
		{"something_new", triage.OutcomeUnknown, nil},
	}
	for _, tc := range tests {
		o, to := sweExitOutcome(tc.status)
		require.Equal(t, tc.outcome, o, tc.status)
		require.Equal(t, tc.timeout, to, tc.status)
	}
}

func TestSWEAgentFromStream(t *testing.T) {
	t.Parallel()
	// Without a file name the instance id comes from replay_config, and
	// the run from --run.
	data := readFixture(t, "swe-agent", "6e44b9__sweagenttestrepo-1c2844.traj")
	var recs []Record
	err := SWEAgentFormat.Decode(t.Context(), Source{Name: "-", R: strings.NewReader(string(data)), Opts: Options{RunID: "r1"}}, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	require.NoError(t, err)
	tr := onlyTrace(t, recs)
	require.Equal(t, "SWE-agent__test-repo-i1", tr.TaskID)
	require.Equal(t, "r1", tr.RunID)

	// A v0 file on stdin names no instance: rejected with the reason.
	recs, err = decodeBytes(SWEAgentFormat, "-", readFixture(t, "swe-agent", "networking_1.traj"))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.NotNil(t, recs[0].Reject)
	require.Contains(t, recs[0].Reject.Reason, "no instance id")
}
