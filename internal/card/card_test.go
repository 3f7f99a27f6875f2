package card

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

func TestBuildGoldenCard(t *testing.T) {
	t.Parallel()
	c, err := Build(seedMix(), Options{})
	require.NoError(t, err)
	b, err := c.MarshalIndent()
	require.NoError(t, err)
	checkGolden(t, "card.golden.json", b)

	keys, vals, err := objectKeys(b)
	require.NoError(t, err)
	require.Equal(t, seedKeys, keys[:len(seedKeys)], "the seed's keys first, in order")
	require.Equal(t, []string{
		"prompt_id", "run_id", "models", "agents", "taxonomy", "taxonomy_trusted", "rules_version",
		"outcome_counts", "secondary_counts", "label_sources", "agreement", "seeds", "cost", "leaked", "caveats", "notes",
	}, keys[len(seedKeys):])
	pk, _, err := objectKeys(vals["primary_counts"])
	require.NoError(t, err)
	require.Equal(t, seedTaxonomy().Codes(), pk, "every class in taxonomy order")
	dk, _, err := objectKeys(vals["derived"])
	require.NoError(t, err)
	require.Equal(t, []string{"headline_pass_rate", "contract_pass_rate", "assumption_share", "loop_share"}, dk)

	// Types: the seed's fields keep the seed's JSON types.
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	require.IsType(t, "", m["card_version"])
	require.IsType(t, float64(0), m["n_tasks"])
	require.IsType(t, map[string]any{}, m["budgets"])
	require.IsType(t, false, m["env"].(map[string]any)["network"])
	require.IsType(t, float64(0), m["derived"].(map[string]any)["headline_pass_rate"])
	require.Empty(t, Verify(b, "abc123"))
}

func TestBuildDerivedFigures(t *testing.T) {
	t.Parallel()
	c, err := Build(seedMix(), Options{})
	require.NoError(t, err)
	// The seed's mix: 10 traces, 2 PC, 1 PW, 3 AA, 2 TL, 2 TO.
	require.Equal(t, 10, c.NTasks)
	require.InDelta(t, 0.3, c.Derived.HeadlinePassRate, 1e-12)
	require.InDelta(t, 0.2, c.Derived.ContractPassRate, 1e-12)
	require.InDelta(t, 0.3, c.Derived.AssumptionShare, 1e-12)
	require.InDelta(t, 0.2, c.Derived.LoopShare, 1e-12)
	require.Equal(t, Counts{{Key: "success", N: 3}, {Key: "incomplete", N: 1}, {Key: "failed", N: 5}, {Key: "blocked", N: 1}}, c.OutcomeCounts)
	require.Equal(t, Counts{{Key: triage.TagLeaked, N: 0}, {Key: "FLAKY", N: 1}}, c.SecondaryCounts)
	require.Equal(t, LabelSources{Adjudicated: 1, Human: 1, Rules: 8, People: 2}, c.LabelSources)

	// Seeds: T01 2/2, T02 1/2, others 0/2; k = 2, five tasks.
	require.Equal(t, 2, c.Seeds.K)
	require.Equal(t, 5, c.Seeds.Tasks)
	require.Equal(t, 3, c.Seeds.Solved)
	require.InDelta(t, (1+0.5)/5, c.Seeds.PassAt1, 1e-12)
	require.InDelta(t, 1.0/5, c.Seeds.PassHatK, 1e-12)
	require.InDelta(t, 0.2, c.Seeds.Resolution, 1e-12)

	// Cost: tokens 1000..10000 and 100..1000; dollars 0.01..0.10; walls 10..100.
	require.Equal(t, int64(55000), c.Cost.InputTokens)
	require.Equal(t, int64(5500), c.Cost.OutputTokens)
	require.InDelta(t, 0.55, *c.Cost.Dollars, 1e-12)
	require.InDelta(t, 55.0, *c.Cost.MedianWallS, 1e-12)
	require.InDelta(t, 0.55/3, *c.Cost.DollarsPerSolved, 1e-12)
}

func TestSolvedDefinition(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		exit *int
		out  triage.Outcome
		leak bool
		want bool
	}{
		{"success green", ptr(0), triage.OutcomeSuccess, false, true},
		{"success no exit code", nil, triage.OutcomeSuccess, false, true},
		{"success but red scorer", ptr(1), triage.OutcomeSuccess, false, false},
		{"unknown outcome green", ptr(0), triage.OutcomeUnknown, false, true},
		{"unknown outcome unknown exit", nil, triage.OutcomeUnknown, false, false},
		{"green but incomplete", ptr(0), triage.OutcomeIncomplete, false, false},
		{"safe give-up blocked", nil, triage.OutcomeBlocked, false, false},
		{"leaked success", ptr(0), triage.OutcomeSuccess, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := TraceRow{ExitCode: tc.exit, Outcome: tc.out, Leaked: tc.leak}
			require.Equal(t, tc.want, r.Solved())
		})
	}
}

func TestSeedsUnevenAndMedianEven(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces = []TraceRow{
		row("A", 0, triage.PassContract, true),
		row("A", 1, triage.PassContract, true),
		row("A", 2, triage.PassContract, true),
		row("B", 0, triage.PassContract, true),
		row("B", 1, triage.PassContract, true),
	}
	for i, w := range []float64{5, 1, 3, 9} {
		in.Traces[i].WallS = ptr(w)
	}
	c, err := Build(in, Options{})
	require.NoError(t, err)
	require.Equal(t, 3, c.Seeds.K)
	require.True(t, c.Seeds.Uneven)
	require.InDelta(t, 1.0, c.Seeds.PassAt1, 1e-12)
	require.InDelta(t, 0.5, c.Seeds.PassHatK, 1e-12, "B ran 2 of 3 seeds and cannot clear pass^k")
	require.InDelta(t, 4.0, *c.Cost.MedianWallS, 1e-12)
	require.Equal(t, 4, c.Cost.WallKnown)
	require.Nil(t, c.Cost.Dollars, "no trace recorded a cost")
	require.Nil(t, c.Cost.DollarsPerSolved)
	require.Contains(t, strings.Join(c.Notes, " "), "different numbers of seeds")
	require.Contains(t, strings.Join(c.Notes, " "), "3 of the pack's 5 tasks have no trace")
}

func TestBuildRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		mutate func(*Input)
		opts   Options
		want   error
		says   []string
	}{
		{"no traces", func(in *Input) { in.Traces = nil }, Options{}, ErrNoTraces, []string{"zeros are not a result"}},
		{"control missing", func(in *Input) { in.Controls.Scorer = ""; in.Controls.Network = nil }, Options{}, ErrMissingControls,
			[]string{"scorer (--scorer)", "env.network (--network)", "triage card init --run r1"}},
		{"unresolved", func(in *Input) { in.Traces[4].Leftover = true }, Options{}, ErrUnresolved,
			[]string{"1 of 10", "r1/T03#0", "--allow-unresolved"}},
		{"untrusted", func(in *Input) { in.TaxonomyTrusted = TrustTentative }, Options{}, ErrUntrusted,
			[]string{"verdict tentative", "--allow-untrusted"}},
		{"unmeasured", func(in *Input) { in.TaxonomyTrusted = "" }, Options{}, ErrUntrusted, []string{"unmeasured"}},
		{"no taxonomy", func(in *Input) { in.Taxonomy = nil }, Options{AllowUntrusted: true}, ErrBadInput, []string{"taxonomy"}},
		{"label outside taxonomy", func(in *Input) { in.Traces[0].Primary = "BOGUS\x1b[2J" }, Options{}, ErrBadInput,
			[]string{`"BOGUS␛[2J"`, "r1/T01#0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := seedMix()
			tc.mutate(&in)
			c, err := Build(in, tc.opts)
			require.Nil(t, c)
			require.ErrorIs(t, err, tc.want)
			for _, s := range tc.says {
				require.Contains(t, err.Error(), s)
			}
			require.NotContains(t, err.Error(), "\x1b")
		})
	}
}

func TestBuildAllowed(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces[4].Leftover = true // T03#0, an ASSUME_API
	in.Traces[5].Leftover = true
	in.TaxonomyTrusted = TrustInsufficient
	c, err := Build(in, Options{AllowUnresolved: true, AllowUntrusted: true})
	require.NoError(t, err)
	require.False(t, c.TaxonomyTrusted)
	require.Equal(t, "insufficient", c.Taxonomy.Trust)
	require.Equal(t, &Unresolved{Count: 2, Traces: []string{"r1/T03#0", "r1/T03#1"}}, c.Unresolved)
	require.Equal(t, 10, c.NTasks)
	n, _ := c.PrimaryCounts.Get(triage.AssumeAPI)
	require.Equal(t, 3, n, "an unresolved trace counts by its provisional label, as in the report")
	require.Equal(t, 10, c.PrimaryCounts.Sum())
	require.Equal(t, Caveats{Traces: 10, Leftovers: 2, Trust: "insufficient"}, c.Caveats)
	require.InDelta(t, 0.3, c.Derived.HeadlinePassRate, 1e-12, "unresolved traces stay in the denominator")
	notes := strings.Join(c.Notes, " ")
	require.Contains(t, notes, "2 of 10 traces are unresolved")
	require.Contains(t, notes, "not trusted")
	b, err := c.MarshalIndent()
	require.NoError(t, err)
	require.Contains(t, string(b), `"taxonomy_trusted": false`)
	require.Empty(t, Verify(b, "abc123"))
}

func TestBuildDraftWithMissingControls(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Controls = triage.Controls{RunID: "r1"}
	c, err := Build(in, Options{AllowMissingControls: true})
	require.NoError(t, err)
	require.Nil(t, c.Budgets.WallS)
	require.Equal(t, "p1", c.PromptID, "prompt id falls back to the traces' single prompt")
	require.Contains(t, strings.Join(c.Notes, " "), "Draft")
	b, err := c.MarshalIndent()
	require.NoError(t, err)
	require.NotEmpty(t, Verify(b, "abc123"), "a draft card never verifies")
}

func TestParseRoundTrip(t *testing.T) {
	t.Parallel()
	c, err := Build(seedMix(), Options{})
	require.NoError(t, err)
	b, err := c.MarshalIndent()
	require.NoError(t, err)
	back, err := Parse(b)
	require.NoError(t, err)
	require.Equal(t, c, back)

	_, err = Parse([]byte(`{"primary_counts": {"A": -1}}`))
	require.True(t, errors.Is(err, ErrBadCard))
	_, err = Parse([]byte(`[1]`))
	require.ErrorIs(t, err, ErrBadCard)
}

// TestBuildListsEveryBlocker: a card refused for several reasons says all
// of them at once, and after two people labelled blind and disagreed it
// says so with the alpha they measured.
func TestBuildListsEveryBlocker(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Controls.Scorer = ""
	in.Traces[4].Leftover = true
	in.TaxonomyTrusted = TrustUntrusted
	in.Agreement = &AgreementSummary{Slice: "s1", Units: 40, Alpha: ptr(0.234), Verdict: TrustUntrusted, Reasons: []string{"alpha < 0.667"}}
	_, err := Build(in, Options{})
	require.Error(t, err)
	for _, want := range []error{ErrMissingControls, ErrUnresolved, ErrUntrusted} {
		require.ErrorIs(t, err, want)
	}
	msg := err.Error()
	require.Contains(t, msg, "3 blockers:")
	require.Contains(t, msg, "scorer")
	require.Contains(t, msg, "1 of 10 traces are leftovers")
	require.Contains(t, msg, "two people labelled slice s1 blind and disagreed, alpha 0.234")
	require.NotContains(t, msg, "must agree on a held-out slice first")

	c, err := Build(in, Options{AllowUnresolved: true, AllowUntrusted: true, AllowMissingControls: true})
	require.NoError(t, err)
	notes := strings.Join(c.Notes, " ")
	require.Contains(t, notes, "disagreed, alpha 0.234")
	require.NotContains(t, notes, "have not yet agreed")
}
