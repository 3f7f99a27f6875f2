package rules

import (
	"strings"
	"sync"
	"sync/atomic"

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
// globs validated, the spec matcher built, sentinels collected. It is safe
// for concurrent use and immutable but for its allowlist globs, each
// compiled once when a path first needs it (allowGlob). Its taxonomy-level
// part is shared with every other Compiled of the same Base, so a Compiled
// per task costs only what that task's pack entry needs.
type Compiled struct {
	*taxState
	base      *Base // compiles and shares the allowlist's globs
	task      *triage.Task
	allow     []allowGlob
	badAllow  []string
	askTools  []string
	sentinels []string
	api       *apiMatcher
}

// taxState is what classifying needs from the taxonomy alone: compiled
// once per Base, whatever the number of runs and tasks. A profile of
// `rules run` over 2,000 runs × 50 tasks spent 60 % of its time compiling
// the taxonomy's test globs again for each (run, task), and the copies
// held per task took 1.6 GB.
type taxState struct {
	tax        *triage.Taxonomy
	taxVersion string
	enabled    [nRules]bool
	// enabledMask holds rule i when enabled[i].
	enabledMask ruleSet
	loopN       int
	testGlobs   []*pack.Glob
}

// Base is a taxonomy compiled once for classifying traces of any task:
// ForTask adds a task's own state to it. It is immutable and safe for
// concurrent use.
type Base struct {
	ts *taxState
	// noTask is the one Compiled of every trace whose task is not in a
	// pack, shared so that such traces cost nothing per task.
	noTask *Compiled
	// globs shares compiled allowlist globs between tasks by pattern:
	// the tasks of a pack mostly repeat the same few ("src/**"), and a
	// compiled glob is about 1.3 KB. Bounded by maxSharedGlobs; past it,
	// a pattern is compiled for its task alone.
	globMu sync.Mutex
	globs  map[string]sharedGlob
	// globCompiles counts allowlist globs compiled, for the tests that
	// hold compile work to what the traces' paths need.
	globCompiles atomic.Int64
}

type sharedGlob struct {
	g   *pack.Glob
	err error
}

// allowGlob is one valid allowlist glob of a task, compiled the first
// time a path has its literal prefix. A task of 1,000 globs is mostly
// globs no path of its traces comes near ("m5/d37/*.py"): compiling them
// all in ForTask made 10,000 such tasks ten million compiles, which did
// not finish in minutes (issue 27); now ForTask only validates them, and
// what is compiled is what the traces' paths need.
type allowGlob struct {
	pattern string
	prefix  string // pack.LiteralPrefix(pattern)
	g       atomic.Pointer[pack.Glob]
}

// match reports whether the glob matches p, compiling it (once, shared by
// pattern through b) when p has its prefix.
func (a *allowGlob) match(b *Base, p string) bool {
	if !pack.CouldMatch(a.prefix, p) {
		return false
	}
	g := a.g.Load()
	if g == nil {
		var err error
		if g, err = b.glob(a.pattern); err != nil {
			// ForTask validated it, and CompileGlob accepts what
			// ValidGlob does (TestLiteralPrefixRulesOutOnlyNonMatches).
			return false
		}
		a.g.Store(g)
	}
	return g.Match(p)
}

// maxSharedGlobs bounds Base.globs (about 10 MB of compiled globs).
const maxSharedGlobs = 1 << 13

// glob compiles pattern once for every task that names it.
func (b *Base) glob(pattern string) (*pack.Glob, error) {
	b.globMu.Lock()
	sg, ok := b.globs[pattern]
	b.globMu.Unlock()
	if ok {
		return sg.g, sg.err
	}
	g, err := pack.CompileGlob(pattern)
	b.globCompiles.Add(1)
	b.globMu.Lock()
	defer b.globMu.Unlock()
	if b.globs == nil {
		b.globs = map[string]sharedGlob{}
	}
	if len(b.globs) < maxSharedGlobs {
		b.globs[pattern] = sharedGlob{g, err}
	}
	return g, err
}

var defaultTax = sync.OnceValue(DefaultTaxonomy)

// defaultBase is the default taxonomy compiled once for the process.
var defaultBase = sync.OnceValue(func() *Base { return compileTaxonomy(defaultTax()) })

// CompileTaxonomy prepares tax (nil: the default taxonomy) for classifying
// traces of any task. A class the taxonomy lacks is never produced; a class
// the rules do not know can only be set by people.
func CompileTaxonomy(tax *triage.Taxonomy) *Base {
	if tax == nil {
		return defaultBase()
	}
	return compileTaxonomy(tax)
}

func compileTaxonomy(tax *triage.Taxonomy) *Base {
	ts := &taxState{tax: tax, taxVersion: tax.Version, loopN: tax.LoopN}
	if ts.taxVersion == "" {
		ts.taxVersion = Version(tax)
	}
	if ts.loopN < 2 {
		ts.loopN = defaultLoopN
	}
	for i, d := range table {
		ts.enabled[i] = tax.Has(d.code)
		if ts.enabled[i] {
			ts.enabledMask |= bit(i)
		}
	}
	for _, g := range tax.TestGlobs {
		if cg, err := pack.CompileGlob(g); err == nil {
			ts.testGlobs = append(ts.testGlobs, cg)
		}
	}
	return &Base{ts: ts, noTask: &Compiled{taxState: ts, askTools: defaultAskTools}}
}

// Taxonomy returns the taxonomy b classifies into.
func (b *Base) Taxonomy() *triage.Taxonomy { return b.ts.tax }

// ForTask returns b prepared for one task (nil: the trace's task is not in
// the pack, so rules that need it cannot be evaluated). A nil task costs
// nothing: every such trace shares one Compiled. A task's spec and
// sentinels are prepared on each call; its allowlist globs are validated,
// and compiled (shared by pattern) only when a path needs them. Keep the
// result in a bounded cache, not one per task of the store. Weight says
// how much it can come to hold, every glob compiled.
func (b *Base) ForTask(task *triage.Task) *Compiled {
	if task == nil {
		return b.noTask
	}
	c := &Compiled{taxState: b.ts, base: b, task: task, askTools: defaultAskTools}
	c.allow = make([]allowGlob, 0, len(task.Allowlist))
	for _, g := range task.Allowlist {
		g = strings.TrimPrefix(g, "./")
		// Globs match in linear time, whatever the pattern: the
		// backtracking matcher once took 46 s on three traces. They are
		// compiled when a path first needs them (allowGlob).
		if g != "" && pack.ValidGlob(g) {
			c.allow = append(c.allow, allowGlob{pattern: g, prefix: pack.LiteralPrefix(g)})
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
	return c
}

// Compile prepares tax (nil: the default taxonomy) and task (nil: the
// trace's task is not in the pack, so rules that need it cannot be
// evaluated) for Classify: CompileTaxonomy(tax).ForTask(task). When
// classifying traces of many tasks, compile the taxonomy once with
// CompileTaxonomy and call ForTask per task.
func Compile(tax *triage.Taxonomy, task *triage.Task) *Compiled {
	return CompileTaxonomy(tax).ForTask(task)
}

// Weight is how much c holds beyond what its Base shares, in units of
// about a compiled glob or an API path: a cache of Compiled values bounds
// the sum.
func (c *Compiled) Weight() int {
	n := 1 + len(c.allow) + len(c.badAllow) + len(c.sentinels)
	if c.api != nil {
		n += len(c.api.templates)
	}
	return n
}

// Taxonomy returns the taxonomy c classifies into.
func (c *Compiled) Taxonomy() *triage.Taxonomy { return c.tax }

// Classify labels one trace with the taxonomy's rules: a shortcut for
// Compile(tax, task).Classify(budgets, tr, opts...). When classifying many
// traces, compile the taxonomy once (CompileTaxonomy) instead.
func Classify(tax *triage.Taxonomy, budgets Budgets, task *triage.Task, tr *triage.Trace, opts ...Option) triage.Verdict {
	return Compile(tax, task).Classify(budgets, tr, opts...)
}
