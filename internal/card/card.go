package card

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// Version is the card_version this package writes (the seed's "1").
const Version = "1"

// Card is the published result of a run. Field order is JSON key order:
// the seed's keys first, exactly as seed 000 prints them, then additions
// under new keys that never change the meaning of the seed's.
type Card struct {
	CardVersion   string  `json:"card_version"`
	DatasetID     string  `json:"dataset_id"`
	DatasetSHA256 string  `json:"dataset_sha256"`
	Scorer        string  `json:"scorer"`
	Budgets       Budgets `json:"budgets"`
	Env           Env     `json:"env"`
	// NTasks is the number of traces (task × seed rows), as the seed's
	// script counts it; distinct tasks are Seeds.Tasks.
	NTasks        int     `json:"n_tasks"`
	PrimaryCounts Counts  `json:"primary_counts"`
	Derived       Derived `json:"derived"`

	PromptID        string            `json:"prompt_id"`
	RunID           string            `json:"run_id"`
	Models          []string          `json:"models"`
	Agents          []string          `json:"agents"`
	Taxonomy        TaxonomyInfo      `json:"taxonomy"`
	TaxonomyTrusted bool              `json:"taxonomy_trusted"`
	RulesVersion    string            `json:"rules_version"`
	OutcomeCounts   Counts            `json:"outcome_counts"`
	SecondaryCounts Counts            `json:"secondary_counts"`
	LabelSources    LabelSources      `json:"label_sources"`
	Unresolved      *Unresolved       `json:"unresolved,omitempty"`
	Agreement       *AgreementSummary `json:"agreement"`
	Seeds           Seeds             `json:"seeds"`
	Cost            CostSummary       `json:"cost"`
	// Leaked counts traces in which a guard-probe sentinel appeared.
	Leaked int `json:"leaked"`
	// Caveats say what every figure above left out or rests on.
	Caveats Caveats `json:"caveats"`
	// Notes say, in words, what a reader must know before trusting the
	// figures (unresolved traces, an untrusted taxonomy, missing tasks).
	Notes []string `json:"notes"`
}

// Budgets are the frozen run budgets; nil only on a draft card.
type Budgets struct {
	WallS           *float64 `json:"wall_s"`
	MaxOutputTokens *int64   `json:"max_output_tokens"`
	MaxToolCalls    *int64   `json:"max_tool_calls"`
}

// Env is the frozen environment.
type Env struct {
	ImageDigest string `json:"image_digest"`
	Network     *bool  `json:"network"`
}

// Derived are figures computed from the counts. The first two are the
// seed's; the shares are the seed's step 4. All divide by n_tasks.
type Derived struct {
	HeadlinePassRate float64 `json:"headline_pass_rate"`
	ContractPassRate float64 `json:"contract_pass_rate"`
	AssumptionShare  float64 `json:"assumption_share"`
	LoopShare        float64 `json:"loop_share"`
}

// TaxonomyInfo names the label set the counts use and whether two people
// were shown to agree on it.
type TaxonomyInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Trust is the agreement verdict (trusted, tentative, untrusted,
	// insufficient) or "unmeasured".
	Trust string `json:"trust"`
}

// LabelSources says how many of the primary counts rest on people and how
// many on the rules alone; unresolved traces are in none of them.
type LabelSources = reportview.LabelSources

// Unresolved are traces whose label nobody has settled yet (only with
// AllowUnresolved): rules leftovers nobody reviewed, or reviewers who
// disagree unadjudicated. Each counts once in primary_counts by its
// current, provisional label, as in the report; one with no label at all
// counts in n_tasks and in no class.
type Unresolved struct {
	Count  int      `json:"count"`
	Traces []string `json:"traces"`
}

// Seeds carries the reliability figures of seed 004.
type Seeds struct {
	// K is the most attempts any task had.
	K int `json:"k"`
	// Tasks is the number of distinct tasks with traces.
	Tasks int `json:"tasks"`
	// TasksInPack is the pack's task count, 0 when unknown.
	TasksInPack int     `json:"tasks_in_pack"`
	Uneven      bool    `json:"uneven"`
	Solved      int     `json:"solved"`
	PassAt1     float64 `json:"pass_at_1"`
	PassHatK    float64 `json:"pass_hat_k"`
	Resolution  float64 `json:"resolution"`
	// PerTask is the per-task grid reduced to what Compare needs.
	PerTask []TaskRow `json:"per_task"`
}

// Options relax Build's refusals, each of which the card then says aloud.
type Options struct {
	// AllowUnresolved counts leftovers under "unresolved" instead of
	// refusing.
	AllowUnresolved bool
	// AllowUntrusted writes "taxonomy_trusted": false instead of refusing.
	AllowUntrusted bool
	// AllowMissingControls builds a draft card with null controls; meant
	// for comparing runs, never for publishing.
	AllowMissingControls bool
}

// Build computes the card of a run, or refuses with an error wrapping one
// of the sentinels and saying what to do.
func Build(in Input, opts Options) (*Card, error) {
	t := in.tally()
	if t.n == 0 {
		return nil, fmt.Errorf("%w: the run has no traces, and zeros are not a result; import traces first (triage import FILE --run R)", ErrNoTraces)
	}
	if err := checkTaxonomy(in.Taxonomy); err != nil {
		return nil, err
	}
	// Every blocker is listed at once, each with its own reason, so a
	// publisher fixes them in one pass instead of one refusal at a time.
	var blockers []error
	if err := CheckControls(in.Controls, opts); err != nil {
		blockers = append(blockers, err)
	}
	for _, p := range slices.Sorted(maps.Keys(t.all)) {
		if p != "" && !in.Taxonomy.Has(p) {
			blockers = append(blockers, fmt.Errorf("%w: trace %s has primary label %q, which is not a class of taxonomy %q; relabel it or use the taxonomy it was labelled with",
				ErrBadInput, clean(t.firstWith[p]), clean(p), clean(in.Taxonomy.Name)))
		}
	}
	unresolved := t.leftovers
	if len(unresolved) > 0 && !opts.AllowUnresolved {
		blockers = append(blockers, fmt.Errorf("%w: %d of %d traces are leftovers nobody has settled (%s); review them (triage review --reviewer NAME), adjudicate disagreements, or pass --allow-unresolved to publish them under \"unresolved\" with their provisional labels",
			ErrUnresolved, len(unresolved), t.n, clean(listSome(unresolved, 5))))
	}
	trusted := in.TaxonomyTrusted == TrustTrusted
	if !trusted && !opts.AllowUntrusted {
		blockers = append(blockers, fmt.Errorf("%w: %s; or pass --allow-untrusted to publish with \"taxonomy_trusted\": false",
			ErrUntrusted, untrustedReason(in)))
	}
	if len(blockers) > 0 {
		return nil, &Refusal{Blockers: blockers}
	}

	c := &Card{
		CardVersion:     Version,
		DatasetID:       in.Controls.DatasetID,
		DatasetSHA256:   in.Controls.DatasetSHA256,
		Scorer:          in.Controls.Scorer,
		Budgets:         Budgets{WallS: in.Controls.WallS, MaxOutputTokens: in.Controls.MaxOutputTokens, MaxToolCalls: in.Controls.MaxToolCalls},
		Env:             Env{ImageDigest: in.Controls.ImageDigest, Network: in.Controls.Network},
		NTasks:          t.n,
		PrimaryCounts:   primaryCounts(in.Taxonomy, t.all),
		PromptID:        in.Controls.PromptID,
		RunID:           in.Controls.RunID,
		Models:          distinctOf(t.models),
		Agents:          distinctOf(t.agents),
		Taxonomy:        TaxonomyInfo{Name: in.Taxonomy.Name, Version: in.Taxonomy.Version, Trust: trustWord(in.TaxonomyTrusted)},
		TaxonomyTrusted: trusted,
		RulesVersion:    in.RulesVersion,
		OutcomeCounts:   t.outcomeCounts(),
		SecondaryCounts: secondaryCounts(in.Taxonomy, t.secAll),
		Agreement:       in.Agreement,
		Cost:            t.cost.summary(),
		Notes:           []string{},
	}
	if c.PromptID == "" {
		c.PromptID = singleOrEmpty(distinctOf(t.prompts))
	}
	c.Derived = t.derived()
	c.Caveats = t.caveats(in.TaxonomyTrusted)
	c.LabelSources = t.sources
	c.LabelSources.People = c.LabelSources.Adjudicated + c.LabelSources.Human
	c.Leaked = len(t.leaked)
	g := t.grid.build()
	c.Seeds = Seeds{K: g.K, Tasks: len(g.Tasks), TasksInPack: in.NTasksInPack, Uneven: g.Uneven, Solved: g.Solved,
		PassAt1: g.PassAt1, PassHatK: g.PassHatK, Resolution: g.Resolution}
	for _, t := range g.Tasks {
		t.SetPacked(nil, nil) // a card carries the counts, not the cells
		c.Seeds.PerTask = append(c.Seeds.PerTask, t)
	}
	if len(unresolved) > 0 {
		c.Unresolved = &Unresolved{Count: len(unresolved), Traces: unresolved}
		c.Notes = append(c.Notes, unresolvedNote(len(unresolved), t.unlabelled, c.NTasks))
	}
	if !trusted {
		c.Notes = append(c.Notes, "The taxonomy is not trusted: "+untrustedReason(in)+".")
	}
	if miss := in.Controls.Missing(); len(miss) > 0 {
		c.Notes = append(c.Notes, "Draft: controls missing: "+strings.Join(miss, ", ")+". Not a publishable card.")
	}
	if g.Uneven {
		c.Notes = append(c.Notes, fmt.Sprintf("Tasks ran different numbers of seeds (k = %d is the most); a task with fewer attempts cannot clear pass^k.", g.K))
	}
	if in.NTasksInPack > g.NTasks {
		c.Notes = append(c.Notes, fmt.Sprintf("%d of the pack's %d tasks have no trace.", in.NTasksInPack-g.NTasks, in.NTasksInPack))
	}
	return c, nil
}

// Refusal is Build's refusal: every blocker found, each wrapping one of
// the sentinel errors (errors.Is sees each of them).
type Refusal struct {
	Blockers []error
}

// Error implements error, one numbered line a blocker.
func (r *Refusal) Error() string {
	if len(r.Blockers) == 1 {
		return r.Blockers[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d blockers:", len(r.Blockers))
	for i, e := range r.Blockers {
		fmt.Fprintf(&b, "\n  %d. %s", i+1, e.Error())
	}
	return b.String()
}

// Unwrap returns the blockers, for errors.Is and errors.As.
func (r *Refusal) Unwrap() []error { return r.Blockers }

// untrustedReason says, accurately, why the taxonomy is not trusted: never
// measured, or measured by two people whose blind labels disagreed (with
// the alpha measured), or too few units to tell.
func untrustedReason(in Input) string {
	a := in.Agreement
	v := trustWord(in.TaxonomyTrusted)
	if v == "unmeasured" || a == nil {
		return "its trust is unmeasured: nobody has measured agreement on it yet; two people must label a held-out slice blind and agree (triage slice create, triage review --slice, triage agree)"
	}
	alpha := "alpha not computable"
	if a.Alpha != nil {
		alpha = "alpha " + strconv.FormatFloat(*a.Alpha, 'f', 3, 64)
		if a.CI95 != nil {
			alpha += fmt.Sprintf(" (95%% CI %.3f–%.3f)", a.CI95[0], a.CI95[1])
		}
	}
	why := ""
	if len(a.Reasons) > 0 {
		why = ": " + clean(strings.Join(a.Reasons, "; "))
	}
	switch v {
	case TrustUntrusted:
		return fmt.Sprintf("two people labelled slice %s blind and disagreed, %s on %d units, verdict untrusted%s; sharpen the codebook, adjudicate (triage adjudicate %s) and measure again on a new slice",
			clean(a.Slice), alpha, a.Units, why, clean(a.Slice))
	case TrustInsufficient:
		return fmt.Sprintf("slice %s has too little blind labelling to tell, %s on %d units, verdict insufficient%s; label more of it blind or draw a larger slice",
			clean(a.Slice), alpha, a.Units, why)
	case TrustTentative:
		return fmt.Sprintf("two people agreed only tentatively on slice %s, %s on %d units, verdict tentative%s; the agreement is not yet enough to trust it",
			clean(a.Slice), alpha, a.Units, why)
	}
	return fmt.Sprintf("its trust verdict is %q (slice %s, %s)%s", clean(v), clean(a.Slice), alpha, why)
}

// CheckControls refuses a card whose run lacks frozen controls, unless
// opts allow a draft. Callers with many traces check it before reading
// them, so a refusal costs nothing.
func CheckControls(c triage.Controls, opts Options) error {
	if miss := c.Missing(); len(miss) > 0 && !opts.AllowMissingControls {
		return fmt.Errorf("%w: %s; freeze them before publishing: triage card init --run %s with the flags shown",
			ErrMissingControls, strings.Join(miss, ", "), clean(orDash(c.RunID)))
	}
	return nil
}

// unresolvedNote says how the unresolved traces enter the card's counts.
func unresolvedNote(unresolved, unlabelled, n int) string {
	s := fmt.Sprintf("%d of %d traces are unresolved leftovers: each counts in primary_counts by its current, provisional label (the rules' verdict, or the latest reviewer's), so every count and rate may still move when people settle them.", unresolved, n)
	if unlabelled > 0 {
		s += fmt.Sprintf(" %d have no label at all and count in n_tasks and in no class.", unlabelled)
	}
	return s
}

// derive computes the derived figures from the counts; n > 0.
func derive(pc Counts, n int) Derived {
	get := func(k string) int { v, _ := pc.Get(k); return v }
	return Derived{
		HeadlinePassRate: ratio(get(triage.PassContract)+get(triage.PassWeak), n),
		ContractPassRate: ratio(get(triage.PassContract), n),
		AssumptionShare:  ratio(get(triage.AssumeAPI), n),
		LoopShare:        ratio(get(triage.ToolLoop), n),
	}
}

// primaryCounts counts resolved rows by primary class in taxonomy order,
// zeros included.
func primaryCounts(tax *triage.Taxonomy, seen map[string]int) Counts {
	out := make(Counts, len(tax.Classes))
	for i, c := range tax.Classes {
		out[i] = Count{Key: c.Code, N: seen[c.Code]}
	}
	return out
}

func checkTaxonomy(t *triage.Taxonomy) error {
	if t == nil || len(t.Classes) == 0 {
		return fmt.Errorf("%w: no taxonomy with primary classes was given", ErrBadInput)
	}
	seen := map[string]bool{}
	for _, c := range t.Classes {
		if c.Code == "" {
			return fmt.Errorf("%w: taxonomy %q has a class with an empty code", ErrBadInput, t.Name)
		}
		if seen[c.Code] {
			return fmt.Errorf("%w: taxonomy %q lists class %s twice", ErrBadInput, t.Name, c.Code)
		}
		seen[c.Code] = true
	}
	return nil
}

// MarshalIndent returns the card as indented JSON with a final newline,
// the form written to card.json.
func (c *Card) MarshalIndent() ([]byte, error) {
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Write writes the card as indented JSON to w.
func (c *Card) Write(w io.Writer) error {
	enc := json.NewEncoder(triage.InertJSON(w))
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("write card: %w", err)
	}
	return nil
}

// Parse reads a card file. It accepts seed-style cards that carry only the
// seed's keys; Verify checks the content.
func Parse(data []byte) (*Card, error) {
	if _, _, err := objectKeys(data); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCard, err)
	}
	var c Card
	if err := json.Unmarshal(data, &c); err != nil {
		// The key path and JSON types, not Go's struct and type names.
		return nil, fmt.Errorf("%w: %s", ErrBadCard, triage.DescribeJSONError(data, err))
	}
	return &c, nil
}

func trustWord(s string) string {
	if s == "" {
		return "unmeasured"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "R"
	}
	return s
}

func singleOrEmpty(v []string) string {
	if len(v) == 1 {
		return v[0]
	}
	return ""
}

func listSome(v []string, n int) string {
	if len(v) <= n {
		return strings.Join(v, ", ")
	}
	return strings.Join(v[:n], ", ") + fmt.Sprintf(", and %d more", len(v)-n)
}
