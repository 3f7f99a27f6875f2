package rules

import (
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/pack"
	"github.com/triage-dev/triage/internal/triage"
)

// RulesVersion names the rule logic. Bump it whenever a rule's behaviour
// changes, so stored verdicts can be re-labelled and old ones kept.
const RulesVersion = "5"

// Budgets are a run's frozen budgets (seed 000, control 3). A nil field
// was not frozen and is not checked.
type Budgets struct {
	WallS           *float64
	MaxOutputTokens *int64
	MaxToolCalls    *int64
}

// BudgetsFromControls takes the budgets of a run's frozen controls.
func BudgetsFromControls(c *triage.Controls) Budgets {
	if c == nil {
		return Budgets{}
	}
	return Budgets{WallS: c.WallS, MaxOutputTokens: c.MaxOutputTokens, MaxToolCalls: c.MaxToolCalls}
}

// Option changes how one trace is classified.
type Option uint8

// HeldOut marks a trace of a held-out slice: under the default policy its
// verdict is a leftover, so people label it blind.
const HeldOut Option = 1

// The rules, in the seed's order. The order is the precedence of the
// primary label whatever order the taxonomy lists its classes in.
const (
	rTimeout = iota
	rToolLoop
	rAssumeAPI
	rMissingAsk
	rScopeSlip
	rPassWeak
	rPassContract
	rScorerRed
	nRules
)

// RuleOrder returns the rule codes in precedence order (the seed's).
func RuleOrder() []string {
	out := make([]string, nRules)
	for i, d := range table {
		out[i] = d.code
	}
	return out
}

// DefaultAskTools are the tools that count as asking when a task does not
// name its own.
var defaultAskTools = []string{"ask_user"}

// Compiled is a taxonomy and a task prepared for classifying many traces:
// globs validated, the spec matcher built, sentinels collected. It is
// immutable and safe for concurrent use; cache one per task.
type Compiled struct {
	tax        *triage.Taxonomy
	taxVersion string
	enabled    [nRules]bool
	// enabledMask holds rule i when enabled[i].
	enabledMask ruleSet
	loopN       int
	testGlobs   []*pack.Glob
	task        *triage.Task
	allow       []*pack.Glob
	badAllow    []string
	askTools    []string
	sentinels   []string
	api         *apiMatcher
}

var defaultTax = sync.OnceValue(DefaultTaxonomy)

// Compile prepares tax (nil: the default taxonomy) and task (nil: the
// trace's task is not in the pack, so rules that need it cannot be
// evaluated) for Classify. A class the taxonomy lacks is never produced;
// a class the rules do not know can only be set by people.
func Compile(tax *triage.Taxonomy, task *triage.Task) *Compiled {
	if tax == nil {
		tax = defaultTax()
	}
	c := &Compiled{tax: tax, taxVersion: tax.Version, loopN: tax.LoopN, task: task}
	if c.taxVersion == "" {
		c.taxVersion = Version(tax)
	}
	if c.loopN < 2 {
		c.loopN = defaultLoopN
	}
	for i, d := range table {
		c.enabled[i] = tax.Has(d.code)
		if c.enabled[i] {
			c.enabledMask |= bit(i)
		}
	}
	for _, g := range tax.TestGlobs {
		if cg, err := pack.CompileGlob(g); err == nil {
			c.testGlobs = append(c.testGlobs, cg)
		}
	}
	c.askTools = defaultAskTools
	if task != nil {
		for _, g := range task.Allowlist {
			g = strings.TrimPrefix(g, "./")
			// Globs match in linear time, whatever the pattern: the
			// backtracking matcher once took 46 s on three traces.
			if cg, err := pack.CompileGlob(g); g != "" && err == nil {
				c.allow = append(c.allow, cg)
			} else {
				c.badAllow = append(c.badAllow, g)
			}
		}
		if len(task.AskTools) > 0 {
			c.askTools = task.AskTools
		}
		for _, s := range task.Sentinels {
			if s != "" {
				c.sentinels = append(c.sentinels, s)
			}
		}
		if task.API != nil {
			c.api = newAPIMatcher(task.API)
		}
	}
	return c
}

// Taxonomy returns the taxonomy c classifies into.
func (c *Compiled) Taxonomy() *triage.Taxonomy { return c.tax }

// Classify labels one trace with the default taxonomy's rules: a shortcut
// for Compile(tax, task).Classify(budgets, tr, opts...). Cache Compile's
// result per task when classifying many traces.
func Classify(tax *triage.Taxonomy, budgets Budgets, task *triage.Task, tr *triage.Trace, opts ...Option) triage.Verdict {
	return Compile(tax, task).Classify(budgets, tr, opts...)
}
