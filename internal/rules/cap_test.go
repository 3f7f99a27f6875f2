package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// TestCapCodebook holds DESIGN §7's reading of a budget kill (issue 28):
// the outcome is the scorer's; a cap that ended an unresolved run is the
// primary, the loop a secondary; a resolved run is PASS_* with TIMEOUT a
// secondary; a capped run nobody scored has an unknown outcome.
func TestCapCodebook(t *testing.T) {
	t.Parallel()
	looped := func(tr *triage.Trace) {
		tr.Timeout = ptr(true)
		tr.StopReason = "exit_cost"
		c := call("bash", `{"command":"pytest -x"}`)
		tr.ToolCalls = []triage.ToolCall{c, c, c, c}
	}
	for _, tc := range []struct {
		name      string
		exit      *int
		primary   string
		secondary []string
		outcome   triage.Outcome
	}{
		{"unresolved: TIMEOUT, the loop secondary", ptr(1), triage.Timeout, []string{triage.ToolLoop}, triage.OutcomeFailed},
		{"never scored: TIMEOUT, outcome unknown", nil, triage.Timeout, []string{triage.ToolLoop}, triage.OutcomeUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := base()
			looped(tr)
			tr.ExitCode = tc.exit
			v := Classify(nil, Budgets{}, nil, tr)
			require.Equal(t, tc.primary, v.Primary)
			require.Equal(t, tc.secondary, v.Secondary)
			require.Equal(t, tc.outcome, v.Outcome)
			require.Contains(t, v.Fired, triage.Timeout)
			require.NotEmpty(t, evidenceFor(v, triage.Timeout), "the cap's evidence is kept as a secondary's")
		})
	}
	t.Run("resolved: the pass, TIMEOUT secondary", func(t *testing.T) {
		t.Parallel()
		tr := base()
		tr.Timeout = ptr(true)
		tr.StopReason = "submitted (exit_cost)"
		v := Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.PassContract, v.Primary)
		require.Equal(t, []string{triage.Timeout}, v.Secondary)
		require.Equal(t, triage.OutcomeSuccess, v.Outcome)
		require.Equal(t, triage.DecisionCertain, v.Decision, "the codebook's reading, not two classes to choose from: %s", v.Reason)
	})
}
