package card

import (
	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// Input is everything a card or report is computed from. The command layer
// fills it from the store; this package never reads storage itself.
type Input struct {
	// Controls are the run's frozen controls (card init).
	Controls triage.Controls
	// Taxonomy gives the primary classes and their order; required.
	Taxonomy *triage.Taxonomy
	// TaxonomyTrusted is the agreement verdict on the taxonomy: trusted,
	// tentative, untrusted, insufficient, or "" when nobody measured it.
	TaxonomyTrusted string
	// RulesVersion names the rules that produced the rule verdicts.
	RulesVersion string
	// Traces are one row per trace with its final label already chosen
	// (adjudicated, then agreed human, then single human, then rules).
	// Ignored when Tally is set.
	Traces []TraceRow
	// Tally is the rows already folded (NewTally, Add): how a caller with
	// many traces streams them instead of holding them all.
	Tally *Tally
	// ReportOnce says the tally is read by one Report and then dropped:
	// Report lets go of each part of it once the sections that read it
	// are built, so that a report on 100,000 tasks never holds the tally
	// and the sections whole side by side (87 MB of a 195 MB peak).
	ReportOnce bool
	// Agreement is the agreement measured on a held-out slice, if any.
	Agreement *AgreementSummary
	// NTasksInPack is the number of tasks in the pack (0 when unknown), so
	// a report can say how many tasks have no trace at all.
	NTasksInPack int
	// NotChecked are the rules that could not apply to a whole run (no
	// task pack: no spec, allowlist or withheld input to check against),
	// said once for the run rather than on every trace.
	NotChecked []RunNote
	// RootCauses are the failing traces' root causes, grouped (the
	// command layer groups triage.RootCause lines with their volatile
	// details normalised), largest first; nil when not computed.
	RootCauses []RootCauseGroup
	// Noise is two runs of one configuration (seed 004) whose
	// differences are the trends' noise floor; nil when none was given.
	Noise *[2]*TrendRun
	// NoiseRuns names them, for the report to say.
	NoiseRuns []string
	// Clustered says the rows carry their failure clusters (TraceRow
	// Cluster), so the trends follow clusters too.
	Clustered bool
	// UnscoredLeftOut counts the traces with no recorded outcome the
	// caller left out (report --scored: the scored runs alone), so the
	// report says what it is not counting.
	UnscoredLeftOut int
}

// RootCauseGroup is one root cause shared by failing traces: the line
// with its volatile details normalised, how many traces have it, a few
// of them, and (not in the JSON report) all of them.
type RootCauseGroup = reportview.RootCause

// tally returns the input's rows folded.
func (in *Input) tally() *Tally {
	if in.Tally != nil {
		return in.Tally
	}
	return TallyRows(in.Traces)
}

// TraceRow is one trace as the card sees it: its identity, what ran, how
// the scorer and the harness ended it, its final label and what it cost.
type TraceRow struct {
	RunID    string
	TaskID   string
	Seed     int
	Model    string
	Agent    string
	PromptID string
	// ExitCode is the scorer's exit code, nil when unknown.
	ExitCode *int
	Outcome  triage.Outcome
	// Primary and Secondary are the final label.
	Primary   string
	Secondary []string
	// Source says whose label Primary is: adjudicated, human or rules.
	Source   triage.LabelSource
	Decision triage.Decision
	// Leftover is true when the trace is unresolved: the rules left it to
	// people and no human or adjudicated label exists yet.
	Leftover bool
	Tokens   *triage.Tokens
	CostUSD  *float64
	WallS    *float64
	// Leaked is true when a guard-probe sentinel appeared in the trace.
	Leaked bool
	// Import is the import that stored the trace (0 when unknown): the
	// trends order runs by their first import, the order they arrived in.
	Import int64
	// Cluster is the failure cluster the trace is in (its name), "" when
	// it is in none or clusters were not computed.
	Cluster string
	// BodyRead is true when the trace's tool calls were read: only then
	// do Tools (the distinct tools it called, sorted) and FailingTool (the
	// tool whose call failed last, "" when none did) say anything, and
	// only such rows enter the tool breakdowns.
	BodyRead    bool
	Tools       []string
	FailingTool string
}

// Key names the trace as RUN/TASK#SEED.
func (r *TraceRow) Key() string { return triage.TraceKey(r.RunID, r.TaskID, r.Seed) }

// CountedPrimary is the primary class the row counts under: its label,
// except that a leaked trace is never a pass (seed 004), so a PASS_* label
// on it counts as SCORER_RED.
func (r *TraceRow) CountedPrimary() string {
	if r.Leaked && triage.IsPass(r.Primary) {
		return triage.ScorerRed
	}
	return r.Primary
}

// Unknown reports whether nobody recorded how the run ended: no scorer
// verdict and no typed outcome. Such a run is neither solved nor not
// solved; pass@1, pass^k and the grid count it apart and say how many.
func (r *TraceRow) Unknown() bool {
	return !r.Leaked && r.ExitCode == nil && r.Outcome == triage.OutcomeUnknown
}

// Solved reports whether the run counts as solved for pass@1 and pass^k
// (seed 004): the typed outcome is success, or unknown with a green scorer;
// a known red scorer is never solved; a leaked sentinel fails the run
// whatever else it did. Labels do not enter: the pass rates from labels are
// reported separately.
func (r *TraceRow) Solved() bool {
	if r.Leaked {
		return false
	}
	green := r.ExitCode != nil && *r.ExitCode == 0
	switch r.Outcome {
	case triage.OutcomeSuccess:
		return r.ExitCode == nil || green
	case triage.OutcomeUnknown:
		return green
	}
	return false
}

// AgreementSummary is the few agreement figures a card carries. It mirrors
// the agreement package's result without importing it, so the card does
// not depend on how agreement is computed.
type AgreementSummary struct {
	Slice   string      `json:"slice"`
	Units   int         `json:"units"`
	Alpha   *float64    `json:"alpha"`
	CI95    *[2]float64 `json:"ci95"`
	Verdict string      `json:"verdict"`
	Reasons []string    `json:"reasons"`
}

// Taxonomy trust verdicts as the agreement step names them.
const (
	TrustTrusted      = "trusted"
	TrustTentative    = "tentative"
	TrustUntrusted    = "untrusted"
	TrustInsufficient = "insufficient"
)
