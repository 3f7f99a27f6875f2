package triage

// The seed article's eight primary classes, in its order.
const (
	PassContract = "PASS_CONTRACT"
	PassWeak     = "PASS_WEAK"
	AssumeAPI    = "ASSUME_API"
	ToolLoop     = "TOOL_LOOP"
	MissingAsk   = "MISSING_ASK"
	ScopeSlip    = "SCOPE_SLIP"
	Timeout      = "TIMEOUT"
	ScorerRed    = "SCORER_RED"
)

// TagLeaked marks a trace in which a guard-probe sentinel appeared.
const TagLeaked = "LEAKED"

// Class is one primary class of a taxonomy with the seed's text: when to
// apply it and what to do when it dominates the mix.
type Class struct {
	Code      string `json:"code" toml:"code" yaml:"code"`
	Name      string `json:"name" toml:"name" yaml:"name"`
	ApplyWhen string `json:"apply_when" toml:"apply_when" yaml:"apply_when"`
	DoNot     string `json:"do_not,omitempty" toml:"do_not" yaml:"do_not"`
	DoThis    string `json:"do_this,omitempty" toml:"do_this" yaml:"do_this"`
}

// LeftoverPolicy says which verdicts go to people instead of counting as
// certain.
type LeftoverPolicy struct {
	MultipleFired bool `json:"multiple_fired" toml:"multiple_fired" yaml:"multiple_fired"`
	Unevaluated   bool `json:"unevaluated" toml:"unevaluated" yaml:"unevaluated"`
	ScorerRed     bool `json:"scorer_red" toml:"scorer_red" yaml:"scorer_red"`
	HeldOut       bool `json:"held_out" toml:"held_out" yaml:"held_out"`
}

// Taxonomy is a team's label set and the knobs of the rules that apply it.
// Version is the hash of its canonical form; every label records it.
type Taxonomy struct {
	Name          string         `json:"name" toml:"name" yaml:"name"`
	Classes       []Class        `json:"classes" toml:"classes" yaml:"classes"`
	SecondaryTags []string       `json:"secondary_tags" toml:"secondary_tags" yaml:"secondary_tags"`
	LoopN         int            `json:"loop_n" toml:"loop_n" yaml:"loop_n"`
	TestGlobs     []string       `json:"test_globs" toml:"test_globs" yaml:"test_globs"`
	Leftover      LeftoverPolicy `json:"leftover" toml:"leftover" yaml:"leftover"`
	Version       string         `json:"-" toml:"-" yaml:"-"`
}

// Codes returns the class codes in taxonomy order.
func (t *Taxonomy) Codes() []string {
	out := make([]string, len(t.Classes))
	for i, c := range t.Classes {
		out[i] = c.Code
	}
	return out
}

// Class returns the class with the given code, or nil.
func (t *Taxonomy) Class(code string) *Class {
	for i := range t.Classes {
		if t.Classes[i].Code == code {
			return &t.Classes[i]
		}
	}
	return nil
}

// Has reports whether code is a primary class of t.
func (t *Taxonomy) Has(code string) bool { return t.Class(code) != nil }
