package card

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// TestLeakedTraceIsNeverCountedAsAPass: a PASS_* label on a trace whose
// guard probe found a sentinel (a person's, or an old rules version's)
// counts as SCORER_RED in the report, the card, the comparison and the
// grid, and LEAKED is counted beside "leaked" even when the label lacks it.
func TestLeakedTraceIsNeverCountedAsAPass(t *testing.T) {
	t.Parallel()
	in := seedMix()
	// T01#1 was a real pass; now it leaked and its outcome says so.
	in.Traces[1].Leaked = true
	in.Traces[1].Outcome = triage.OutcomeFailed
	in.Traces[1].Source = triage.SourceHuman

	c, err := Build(in, Options{})
	require.NoError(t, err)
	r := Report(in)
	for name, pc := range map[string]Counts{"card": c.PrimaryCounts, "report": r.PrimaryCounts} {
		n, _ := pc.Get(triage.PassContract)
		require.Equal(t, 1, n, name)
		n, _ = pc.Get(triage.ScorerRed)
		require.Equal(t, 1, n, name)
	}
	require.InDelta(t, 0.2, c.Derived.HeadlinePassRate, 1e-12)
	require.InDelta(t, 0.2, r.Rates.HeadlinePassRate, 1e-12)
	require.Equal(t, 1, c.Leaked)
	n, _ := c.SecondaryCounts.Get(triage.TagLeaked)
	require.Equal(t, 1, n, "secondary_counts LEAKED agrees with leaked")
	n, _ = r.SecondaryCounts.Get(triage.TagLeaked)
	require.Equal(t, 1, n)
	for _, cell := range r.Grid.Tasks[0].AllCells() {
		if cell.Seed == 1 {
			require.False(t, cell.Solved)
			require.Equal(t, triage.ScorerRed, cell.Primary, "the grid never prints a pass in a cell it draws as not solved")
		}
	}
	cmp, err := CompareInputs(in, in, CompareOptions{})
	require.NoError(t, err)
	for _, d := range cmp.ClassDeltas {
		if d.Code == triage.PassContract {
			require.Equal(t, 1, d.A)
		}
	}
}

// randomInput is a random run: any class, leftovers, leaks, unknown
// outcomes and exit codes, humans and adjudicators, several seeds.
func randomInput(rng *rand.Rand) Input {
	tax := seedTaxonomy()
	codes := append(tax.Codes(), "")
	outcomes := append([]triage.Outcome{triage.OutcomeUnknown}, triage.Outcomes...)
	sources := []triage.LabelSource{triage.SourceRules, triage.SourceHuman, triage.SourceAdjudicated}
	in := seedMix()
	in.Traces = nil
	in.TaxonomyTrusted = []string{"", TrustTrusted, TrustUntrusted, TrustTentative}[rng.IntN(4)]
	nTasks, nSeeds := 1+rng.IntN(6), 1+rng.IntN(4)
	for task := range nTasks {
		for seed := range nSeeds {
			if rng.IntN(8) == 0 {
				continue // uneven seeds
			}
			r := TraceRow{RunID: "r1", TaskID: fmt.Sprintf("T%02d", task), Seed: seed,
				Model: []string{"m1", "m2"}[rng.IntN(2)], Agent: "a1", PromptID: "p1",
				Outcome: outcomes[rng.IntN(len(outcomes))], Primary: codes[rng.IntN(len(codes))],
				Source: sources[rng.IntN(len(sources))], Decision: triage.DecisionCertain}
			if rng.IntN(4) > 0 {
				r.ExitCode = ptr(rng.IntN(2))
			}
			if r.Primary == "" || rng.IntN(4) == 0 {
				r.Leftover, r.Source, r.Decision = true, triage.SourceRules, triage.DecisionLeftover
			}
			if rng.IntN(5) == 0 {
				r.Leaked = true
				if rng.IntN(2) == 0 {
					r.Secondary = []string{triage.TagLeaked}
				}
			}
			if rng.IntN(3) == 0 {
				r.Secondary = append(r.Secondary, "FLAKY")
			}
			in.Traces = append(in.Traces, r)
		}
	}
	if len(in.Traces) == 0 {
		in.Traces = append(in.Traces, row("T00", 0, triage.PassContract, true))
	}
	return in
}

// TestReportCardAndCompareAreOneComputation: for random runs the report,
// the card and the comparison give the same counts and rates, because
// they come from one tally.
func TestReportCardAndCompareAreOneComputation(t *testing.T) {
	t.Parallel()
	for i := range 300 {
		rng := rand.New(rand.NewPCG(uint64(i), 16))
		in := randomInput(rng)
		r := Report(in)
		c, err := Build(in, Options{AllowUnresolved: true, AllowUntrusted: true})
		require.NoError(t, err, "case %d", i)
		cmp, err := CompareInputs(in, in, CompareOptions{})
		require.NoError(t, err, "case %d", i)

		require.Equal(t, r.NTraces, c.NTasks, "case %d", i)
		for _, pc := range c.PrimaryCounts {
			n, _ := r.PrimaryCounts.Get(pc.Key)
			require.Equal(t, n, pc.N, "case %d: %s", i, pc.Key)
		}
		require.Equal(t, r.SecondaryCounts, c.SecondaryCounts, "case %d", i)
		require.Equal(t, r.OutcomeCounts, c.OutcomeCounts, "case %d", i)
		require.Equal(t, r.Caveats, c.Caveats, "case %d", i)
		require.Equal(t, len(r.Leaked), c.Leaked, "case %d", i)
		lk, _ := c.SecondaryCounts.Get(triage.TagLeaked)
		require.Equal(t, c.Leaked, lk, "case %d: LEAKED tag and leaked count", i)
		require.Equal(t, Derived{HeadlinePassRate: r.Rates.HeadlinePassRate, ContractPassRate: r.Rates.ContractPassRate,
			AssumptionShare: r.Rates.AssumptionShare, LoopShare: r.Rates.LoopShare}, c.Derived, "case %d", i)
		require.Equal(t, r.Rates.PassAt1, c.Seeds.PassAt1, "case %d", i)
		require.Equal(t, r.Rates.PassHatK, c.Seeds.PassHatK, "case %d", i)
		for _, d := range cmp.ClassDeltas {
			n, _ := c.PrimaryCounts.Get(d.Code)
			require.Equal(t, n, d.A, "case %d: %s", i, d.Code)
		}
		want := map[string]float64{"headline_pass_rate": c.Derived.HeadlinePassRate, "contract_pass_rate": c.Derived.ContractPassRate,
			"assumption_share": c.Derived.AssumptionShare, "loop_share": c.Derived.LoopShare, "pass_at_1": r.Rates.PassAt1, "pass_hat_k": r.Rates.PassHatK}
		for _, rd := range cmp.RateDeltas {
			require.Equal(t, want[rd.Name], rd.A, "case %d: %s", i, rd.Name)
		}
		require.Equal(t, r.Caveats, cmp.A.Caveats, "case %d", i)
		// No grid cell shows a pass it draws as not solved because it leaked.
		for _, tr := range r.Grid.Tasks {
			for _, cell := range tr.AllCells() {
				if cell.Leaked {
					require.False(t, triage.IsPass(cell.Primary), "case %d", i)
				}
			}
		}
	}
}
