package card

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/card")

// goldenDir holds this package's golden files (the repository's testdata).
const goldenDir = "../../testdata/card"

// checkGolden compares got with the named golden file, rewriting it under
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/card -update to create %s", path)
	require.Equal(t, string(want), string(got))
}

// seedTaxonomy is the seed's eight classes with its decision table.
func seedTaxonomy() *triage.Taxonomy {
	return &triage.Taxonomy{
		Name:    "seed-000",
		Version: "tax-v1",
		Classes: []triage.Class{
			{Code: triage.PassContract, Name: "Real pass"},
			{Code: triage.PassWeak, Name: "Lucky pass", DoNot: "Celebrate the pass rate", DoThis: "Hide tests; forbid agent-authored tests in the scorer"},
			{Code: triage.AssumeAPI, Name: "Invented surface", DoNot: "Add more samples of the same task", DoThis: "Inject the spec as a required read; fail closed on unknown paths"},
			{Code: triage.ToolLoop, Name: "Repeated tool", DoNot: "Raise the retry cap", DoThis: "Deduplicate tool args; stop at N repeats"},
			{Code: triage.MissingAsk, Name: "Should have asked", DoNot: "Fine-tune for \"confidence\"", DoThis: "Add an ask/abort tool and score it as success when the file is absent"},
			{Code: triage.ScopeSlip, Name: "Extra work", DoNot: "Blame the model", DoThis: "Enforce an allowlist in the runner, not in the prompt"},
			{Code: triage.Timeout, Name: "Budget kill", DoNot: "Switch models first", DoThis: "Lower the task, or raise one budget and record it on the card"},
			{Code: triage.ScorerRed, Name: "Honest fail"},
		},
		SecondaryTags: []string{triage.TagLeaked, "FLAKY"},
	}
}

func fullControls() triage.Controls {
	return triage.Controls{
		RunID:           "r1",
		DatasetID:       "invoice-client-v3",
		DatasetSHA256:   "abc123",
		Scorer:          "pytest -q --tb=no",
		WallS:           ptr(180.0),
		MaxOutputTokens: ptr(int64(4096)),
		MaxToolCalls:    ptr(int64(12)),
		ImageDigest:     "sha256:feed",
		Network:         ptr(false),
		PromptID:        "p1",
	}
}

// row builds a trace row: green exit code and success outcome when pass.
func row(task string, seed int, primary string, pass bool) TraceRow {
	exit, out := 1, triage.OutcomeFailed
	if pass {
		exit, out = 0, triage.OutcomeSuccess
	}
	return TraceRow{
		RunID: "r1", TaskID: task, Seed: seed, Model: "m1", Agent: "a1", PromptID: "p1",
		ExitCode: ptr(exit), Outcome: out, Primary: primary, Source: triage.SourceRules,
		Decision: triage.DecisionCertain,
	}
}

// seedMix is the seed's illustrative mix (2 PC, 1 PW, 3 AA, 2 TL, 2 TO)
// over five tasks × two seeds, with costs.
func seedMix() Input {
	rows := []TraceRow{
		row("T01", 0, triage.PassContract, true),
		row("T01", 1, triage.PassContract, true),
		row("T02", 0, triage.PassWeak, true),
		row("T02", 1, triage.AssumeAPI, false),
		row("T03", 0, triage.AssumeAPI, false),
		row("T03", 1, triage.AssumeAPI, false),
		row("T04", 0, triage.ToolLoop, false),
		row("T04", 1, triage.ToolLoop, false),
		row("T05", 0, triage.Timeout, false),
		row("T05", 1, triage.Timeout, false),
	}
	for i := range rows {
		rows[i].Tokens = &triage.Tokens{Input: int64(1000 * (i + 1)), Output: int64(100 * (i + 1))}
		rows[i].CostUSD = ptr(0.01 * float64(i+1))
		rows[i].WallS = ptr(float64(10 * (i + 1)))
	}
	rows[0].Source = triage.SourceAdjudicated
	rows[2].Source = triage.SourceHuman
	rows[3].Secondary = []string{"FLAKY"}
	rows[3].Outcome = triage.OutcomeIncomplete
	rows[8].Outcome = triage.OutcomeBlocked
	return Input{
		Controls:        fullControls(),
		Taxonomy:        seedTaxonomy(),
		TaxonomyTrusted: TrustTrusted,
		RulesVersion:    "rules-1",
		Traces:          rows,
		Agreement: &AgreementSummary{
			Slice: "s1", Units: 40, Alpha: ptr(0.82), CI95: &[2]float64{0.71, 0.9},
			Verdict: TrustTrusted, Reasons: []string{"alpha ≥ 0.80 with 40 units"},
		},
		NTasksInPack: 5,
	}
}
