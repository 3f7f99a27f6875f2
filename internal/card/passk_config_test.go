package card

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// pass^k counts one model and agent's attempts at a task: two models that
// ran a task of one name are two rows of the grid, not six attempts of
// one task (model A solving 3 of 3 and model B 0 of 3 was "no task clears
// on k = 6"; it is one configuration clearing and one not).
func TestPassHatKWithinOneModelAndAgent(t *testing.T) {
	t.Parallel()
	var rows []TraceRow
	for _, m := range []string{"model-a", "model-b"} {
		for s := range 3 {
			exit, out := 1, triage.OutcomeFailed
			if m == "model-a" {
				exit, out = 0, triage.OutcomeSuccess
			}
			rows = append(rows, TraceRow{RunID: "r", TaskID: "T1", Seed: s, Model: m, Agent: "ag", ExitCode: &exit, Outcome: out})
		}
		exit := 0
		rows = append(rows, TraceRow{RunID: "r", TaskID: "T2", Seed: 0, Model: "model-a", Agent: "ag", ExitCode: &exit, Outcome: triage.OutcomeSuccess})
	}
	g := TallyRows(rows).grid.build()
	require.Equal(t, 3, g.K, "the most attempts one configuration made")
	require.Equal(t, 2, g.NTasks)
	var ids []string
	for _, r := range g.Tasks {
		ids = append(ids, r.TaskID)
	}
	require.Equal(t, []string{"T1 [model-a · ag]", "T1 [model-b · ag]", "T2"}, ids)
	require.True(t, g.Tasks[0].PassHatK)
	require.False(t, g.Tasks[1].PassHatK)
	require.False(t, g.Tasks[2].PassHatK, "T2: 2 of k = 3 attempts")
	require.InDelta(t, 1.0/3, g.PassHatK, 1e-12)

	tr := NewTrendRun("r")
	for i := range rows {
		tr.Add(&rows[i])
	}
	require.Equal(t, 3, tr.k)
	require.InDelta(t, 1.0/3, tr.passHatK().Value, 1e-12)
}
