package reportview

// Unlabelled is the mix's key for traces that carry no label at all, so
// that every trace is still counted once.
const Unlabelled = "UNLABELLED"

// Report is a report as its sections: what the text, Markdown and HTML
// writers and the report screen all draw, each its own way. Package card
// builds it from its figures (card.View); nothing here is computed.
type Report struct {
	// Title names what is reported on a screen's title line, e.g.
	// "run demo · invoice-client-v3".
	Title  string
	Traces int
	Rates  Rates
	// Leftovers counts the traces whose label is a rules leftover
	// nobody resolved.
	Leftovers int
	// Caveats says beside the figures what they left out or rest on:
	// the unlabelled leftovers, the unknown outcomes and the taxonomy's
	// trust state; CaveatsWarn that one of them is worth a warning.
	Caveats     string
	CaveatsWarn bool
	// Mix is every trace once by its current label: the taxonomy's
	// classes in order (zeros included), labels outside it, then
	// Unlabelled.
	Mix []MixRow
	// MixNote says under the mix how much of it nobody scored, and what
	// was left out ("" when every trace has an outcome).
	MixNote string
	// Dominant is the largest failure class with the seed's advice, nil
	// when nothing failed.
	Dominant *Dominant
	// Outcomes counts the traces by typed outcome, then unknown;
	// Secondary the secondary tags, nil when no trace carries one.
	Outcomes, Secondary []Count
	// Labels says where the current labels came from.
	Labels LabelSources
	// LeftoverTraces are the leftovers' trace keys (Leftovers of them);
	// Leaked the traces that leaked a guard-probe sentinel.
	LeftoverTraces, Leaked []string
	// NotChecked is the rules that could not apply to a run as a whole,
	// a list section; nil when every rule could.
	NotChecked *Section
	// RootCauses are the failing traces' root causes, largest first;
	// RootCausesNote says what the list leaves out ("" when nothing).
	RootCauses     []RootCause
	RootCausesNote string
	Grid           Grid
	// NobodyClears and Saturated are the grid's tasks no attempt solved
	// and those solved on every seed; TasksInPack is the pack's task
	// count, 0 when unknown.
	NobodyClears []string
	Saturated    []string
	TasksInPack  int
	// Sections are the report's further sections in order: the cost,
	// the breakdowns by run, model, agent and prompt, the trends, the
	// breakdowns by repository, task type and tool, the dumbbell, the
	// heatmap, the agreement and the definitions.
	Sections []Section
}

// MixRow is one class of the failure mix.
type MixRow struct {
	Code, Name string
	Count      int
}

// Rates are the label-based and outcome-based pass figures side by side.
type Rates struct {
	HeadlinePassRate float64 `json:"headline_pass_rate"`
	ContractPassRate float64 `json:"contract_pass_rate"`
	AssumptionShare  float64 `json:"assumption_share"`
	LoopShare        float64 `json:"loop_share"`
	PassAt1          float64 `json:"pass_at_1"`
	PassHatK         float64 `json:"pass_hat_k"`
	Resolution       float64 `json:"resolution"`
	K                int     `json:"k"`
}

// Dominant is the largest class of the mix other than PASS_CONTRACT (a
// real pass is not a mistake to fix), with the seed's decision-table
// advice from the taxonomy.
type Dominant struct {
	Code   string  `json:"code"`
	Name   string  `json:"name"`
	Count  int     `json:"count"`
	Share  float64 `json:"share"`
	DoNot  string  `json:"do_not"`
	DoThis string  `json:"do_this"`
}

// Count is one named count of an ordered list (outcomes, secondary tags).
type Count struct {
	Key string
	N   int
}

// LabelSources says how many of the primary counts rest on people and how
// many on the rules alone; unresolved traces are in none of them.
type LabelSources struct {
	Adjudicated int `json:"adjudicated"`
	Human       int `json:"human"`
	Rules       int `json:"rules"`
	// People is Adjudicated + Human.
	People int `json:"people"`
}

// RootCause is one root cause shared by failing traces: the line with
// its volatile details normalised, how many traces have it, and a few of
// them.
type RootCause struct {
	Cause string `json:"cause"`
	Count int    `json:"count"`
	// Traces are a few of its traces, the examples a report names.
	Traces []string `json:"traces"`
	// Keys are all Count of its traces, which the report screen opens;
	// nil when only the examples are known. The JSON report keeps to
	// the examples.
	Keys []string `json:"-"`
}
