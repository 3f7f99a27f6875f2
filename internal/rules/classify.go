package rules

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/triage"
)

// maxEvidencePerRule bounds evidence lists so a hostile trace with a
// million invented paths still gives a readable verdict.
const maxEvidencePerRule = 50

// ruleLeaked indexes the guard probe's evidence count.
const ruleLeaked = nRules

// run is the state of classifying one trace, kept from trace to trace
// (runs). Evidence lives in an array in it while the rules run and is
// copied once into the verdict, into one allocation of its size (see
// verdict.go).
type run struct {
	c  *Compiled
	tr *triage.Trace
	// fired and uneval hold a bit per rule (1<<rule), so the verdict's
	// labels and the policy's masks come from bit operations rather than
	// loops over every rule.
	b      Budgets
	fired  ruleSet
	uneval ruleSet
	nEv    [nRules + 1]int // the last counts LEAKED evidence
	// The evidence so far: evArr, then more when a trace has more. No
	// slice points into evArr, since a struct pointing into itself is
	// moved to the heap.
	evArr     [4]triage.Evidence
	nEvs      int
	more      []triage.Evidence
	unWhy     [nRules]string
	files     []triage.FileDiff
	filesDone bool
	// runLevel marks unevaluated rules whose reason holds for the whole
	// run or task (no pack, no spec, no allowlist): reported once for the
	// run, they do not on their own send each trace to people.
	runLevel ruleSet
	// tagged holds secondary-only classes (see tag).
	tagged ruleSet
	// unknownOutcome: no scorer verdict, so no PASS_* and no SCORER_RED.
	unknownOutcome bool
	// The scorer's classes read these, set once by prepareTerminal.
	terminalReady bool
	leaked        bool
	outcomeV      triage.Outcome
	failedBar     string
	// explained: the log shows why a red run failed.
	explained bool
	// amb are reasons the log is ambiguous and people must decide.
	amb []string
	// act is the trace's activity, read on first use (actDone); steps
	// keeps the array of its steps for the next trace the run is used
	// for (runs).
	act     triage.Activity
	actDone bool
	steps   []triage.Step
}

// runs keeps runs from one trace to the next: a run moves to the heap
// (table's checks are called through function values) and with its
// activity was a fifth of the bytes `import --rules` allocated
// (docs/PERFORMANCE.md, issue 21). A verdict holds nothing of its run:
// build copies the evidence out.
var runs = sync.Pool{New: func() any { return new(run) }}

// maxPooledSteps keeps a trace of very many calls from pinning its array
// of steps in the pool.
const maxPooledSteps = 1024

func getRun(c *Compiled, tr *triage.Trace, b Budgets) *run {
	r := runs.Get().(*run)
	steps := r.steps
	*r = run{c: c, tr: tr, b: b, steps: steps}
	return r
}

func putRun(r *run) {
	steps := r.steps
	if cap(steps) > maxPooledSteps {
		steps = nil
	}
	clear(steps) // the steps used (the rest is clear): no trace's strings kept alive by the pool
	*r = run{steps: steps[:0]}
	runs.Put(r)
}

func (r *run) fire(rule int, e triage.Evidence) {
	r.fired |= bit(rule)
	r.add(rule, e)
}

func (r *run) add(rule int, e triage.Evidence) {
	if r.nEv[rule] >= maxEvidencePerRule {
		return
	}
	r.nEv[rule]++
	if e.Rule == "" {
		e.Rule = table[rule].code
	}
	if r.nEvs < len(r.evArr) {
		r.evArr[r.nEvs] = e
	} else {
		r.more = append(r.more, e)
	}
	r.nEvs++
}

// unevaluatedRun records that rule cannot apply to any trace of the run
// or task (no pack, spec or allowlist): said once for the run, it does not
// by itself make a trace a leftover.
func (r *run) unevaluatedRun(rule int, why string) {
	r.unevaluated(rule, why)
	r.runLevel |= bit(rule)
}

// unevaluated records that rule lacked evidence; at most once per rule.
func (r *run) unevaluated(rule int, why string) {
	if r.uneval.has(rule) {
		return
	}
	r.uneval |= bit(rule)
	r.unWhy[rule] = why
}

func (r *run) hasLog() bool { return r.tr.HasToolLog || len(r.tr.ToolCalls) > 0 }

// diffFiles parses the trace's diff once, on first use.
func (r *run) diffFiles() []triage.FileDiff {
	if !r.filesDone {
		r.filesDone = true
		if r.tr.Diff != nil {
			r.files = triage.ParseDiff(*r.tr.Diff)
		}
	}
	return r.files
}

// anyFiredBefore reports whether an enabled rule before rule fired.
func (r *run) anyFiredBefore(rule int) bool {
	return r.fired&r.c.enabledMask&before(rule) != 0
}

// Classify labels one trace. It never fails: what it cannot decide it
// says, in Unevaluated and in the decision's reason.
func (c *Compiled) Classify(b Budgets, tr *triage.Trace, opts ...Option) triage.Verdict {
	v := triage.Verdict{TaxonomyVersion: c.taxVersion, RulesVersion: RulesVersion}
	if tr == nil {
		v.Decision = triage.DecisionLeftover
		v.Reason = "no trace"
		return v
	}
	heldOut := false
	for _, o := range opts {
		heldOut = heldOut || o&HeldOut != 0
	}
	r := getRun(c, tr, b)
	defer putRun(r)
	for i := range table {
		if c.enabled[i] {
			table[i].check(r)
		}
	}
	// With every scorer class disabled, the guard and outcome still run.
	r.prepareTerminal()
	leaked := r.leaked
	v.Outcome = r.outcomeV

	fired := r.fired & c.enabledMask
	nFired := fired.count()
	primary := r.capPrimary(fired, fired.first())
	r.build(&v, primary, nFired, leaked)
	v.Decision, v.Reason = r.decide(primary, capPolicyCount(fired, primary, nFired), heldOut)
	return v
}

const scorerRedReason = "SCORER_RED: no rule explained the failure"

// unknownOutcomeReason is why a run with no scorer verdict and no
// log-only class goes to people (DESIGN §7: only classes 1–5 can be
// decided from the log alone).
const unknownOutcomeReason = "outcome unknown: no scorer verdict was recorded (import its results with --results), and no class the log alone can show (TIMEOUT, TOOL_LOOP, ASSUME_API, MISSING_ASK, SCOPE_SLIP) fired"

// decide applies the taxonomy's leftover policy.
func (r *run) decide(primary, nFired int, heldOut bool) (triage.Decision, string) {
	p := r.c.tax.Leftover
	var reasons [5]string
	n := 0
	var mask ruleSet
	if primary < 0 {
		if r.unknownOutcome {
			reasons[n] = unknownOutcomeReason
		} else {
			reasons[n] = "no class of the taxonomy fits: a person must label it"
		}
		n++
	}
	if p.MultipleFired && nFired > 1 {
		reasons[n] = "more than one class fired"
		n++
	}
	if p.Unevaluated {
		limit := primary
		if limit < 0 {
			limit = nRules
		}
		drop := r.runLevel
		if r.unknownOutcome {
			// The outcome's absence is said once, above.
			drop |= bit(rPassWeak) | bit(rPassContract) | bit(rScorerRed)
		}
		mask = r.uneval & r.c.enabledMask & before(limit) &^ drop
		if mask != 0 {
			reasons[n] = uncheckedReason(mask, false)
			n++
		}
	}
	if p.ScorerRed && primary == rScorerRed && !r.explained {
		if n == 1 && mask != 0 && !heldOut && len(r.amb) == 0 {
			// The usual pair, joined ahead of time.
			return triage.DecisionLeftover, uncheckedReason(mask, true)
		}
		reasons[n] = scorerRedReason
		n++
	}
	var all []string
	if len(r.amb) > 0 {
		all = append(append(all, reasons[:n]...), r.amb...)
	}
	if p.HeldOut && heldOut {
		if all != nil {
			all = append(all, "in a held-out slice")
		} else {
			reasons[n] = "in a held-out slice"
			n++
		}
	}
	if all != nil {
		return triage.DecisionLeftover, strings.Join(all, "; ")
	}
	switch n {
	case 0:
		return triage.DecisionCertain, ""
	case 1:
		return triage.DecisionLeftover, reasons[0]
	}
	return triage.DecisionLeftover, strings.Join(reasons[:n], "; ")
}

func appendNum(b []byte, x float64) []byte {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.AppendInt(b, int64(x), 10) // fast and exact
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// msg builds an evidence message in one allocation from text pieces and
// numbers (float64, int, int64), without fmt.
func msg(parts ...any) string {
	var buf [160]byte
	b := buf[:0]
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			b = append(b, x...)
		case float64:
			b = appendNum(b, x)
		case int:
			b = strconv.AppendInt(b, int64(x), 10)
		case int64:
			b = strconv.AppendInt(b, x, 10)
		}
	}
	return string(b)
}

// timeout follows the seed exactly (timeout flag, or wall_s, read as 0
// when absent, at or over wall_cap, read as 10**9 when absent). When the
// row has no timeout flag, the run's frozen budgets are checked too; a
// timeout flag present on the row is taken as the harness's word.
func (r *run) timeout() {
	tr, b := r.tr, r.b
	if tr.Timeout != nil && *tr.Timeout {
		m := "the harness killed the run on a budget (timeout flag)"
		at := -1
		if tr.StopReason != "" {
			m = "the harness ended the run on a budget: " + clip(tr.StopReason)
			if n := len(tr.ToolCalls); n > 0 {
				at = n - 1
				m += msg(" after ", n, " tool calls")
			}
		}
		r.fire(rTimeout, triage.Evidence{Message: m, ToolCall: at, Ident: "timeout"})
	}
	ws, wallCap := 0.0, 1e9
	if tr.WallS != nil {
		ws = *tr.WallS
	}
	if tr.WallCap != nil {
		wallCap = *tr.WallCap
	}
	if ws >= wallCap {
		r.fire(rTimeout, triage.Evidence{Message: msg("wall_s ", ws, " is at or over wall_cap ", wallCap), ToolCall: -1, Ident: "wall_cap"})
	}
	if tr.Timeout != nil {
		return
	}
	if b.WallS != nil && tr.WallS != nil && *tr.WallS >= *b.WallS {
		r.fire(rTimeout, triage.Evidence{Message: msg("wall_s ", *tr.WallS, " is at or over the run's wall_s budget ", *b.WallS), ToolCall: -1, Ident: "wall_s"})
	}
	if b.MaxOutputTokens != nil && tr.Tokens != nil && tr.Tokens.Output >= *b.MaxOutputTokens {
		r.fire(rTimeout, triage.Evidence{Message: msg("output tokens ", tr.Tokens.Output, " are at or over max_output_tokens ", *b.MaxOutputTokens), ToolCall: -1, Ident: "max_output_tokens"})
	}
	if b.MaxToolCalls != nil && r.hasLog() && int64(tr.CallCount()) >= *b.MaxToolCalls {
		r.fire(rTimeout, triage.Evidence{Message: msg(tr.CallCount(), " tool calls are at or over max_tool_calls ", *b.MaxToolCalls), ToolCall: -1, Ident: "max_tool_calls"})
	}
}

// toolLoop fires on the same tool with the same arguments (canonical
// JSON, so key order and spacing do not matter) LoopN times in a row, as
// the seed's repeated_tools does, and reports every maximal run.
func (r *run) toolLoop() {
	if !r.hasLog() {
		r.unevaluated(rToolLoop, "no tool log: the trace did not record its tool calls")
		return
	}
	calls := r.tr.ToolCalls
	if len(calls) < r.c.loopN {
		return
	}
	// Each call's canonical arguments are computed at most once: a run of
	// calls compares each with the one before, and keeping the previous
	// key halves the canonicalising, half of classification's time.
	// prev is calls[i-1]'s key when havePrev: its raw arguments when they
	// are already canonical, else keys.b[p]; the next key is built in the
	// other buffer and the two then swap roles, so prev is never
	// overwritten. The buffers come from a pool on first need, which
	// arguments already canonical never have.
	var keys *keyBuf
	var prev []byte
	p := 0
	havePrev := false
	start := 0
	for i := 1; i <= len(calls); i++ {
		if i < len(calls) {
			a, b := &calls[i-1], &calls[i]
			same := false
			switch {
			case a.Name != b.Name:
				havePrev = false
			case len(a.Args) == 0 && r.tr.Source != "" && r.tr.Source != "jsonl":
				// A harness that recorded no arguments (an ACP call titled
				// only "bash"): nothing says the calls were the same.
				havePrev = false
			case bytes.Equal(a.Args, b.Args):
				same = true // and a's key, if kept, is b's
			default:
				if !havePrev {
					prev = loopKey(&keys, p, a.Args)
				}
				p = 1 - p
				cur := loopKey(&keys, p, b.Args)
				same = bytes.Equal(prev, cur)
				prev = cur
				havePrev = true
			}
			if same {
				continue
			}
		}
		if n := i - start; n >= r.c.loopN && sameOutputs(calls[start:i]) {
			r.loopEvidence(start, i)
		}
		start = i
	}
	keys.release()
}

// keyBuf holds the loop detector's two canonical keys.
type keyBuf struct{ b [2][]byte }

// release returns k, if any, to the pool unless a huge argument grew it.
func (k *keyBuf) release() {
	if k != nil && cap(k.b[0]) <= 1<<16 && cap(k.b[1]) <= 1<<16 {
		keyBufs.Put(k)
	}
}

var keyBufs = sync.Pool{New: func() any { return new(keyBuf) }}

// sameOutputs reports whether every call of a run of repeats got what the
// first got: a loop is repeats that brought no new evidence. Polling a
// process (the same write_stdin until it finishes) gets new output each
// time and is not one.
func sameOutputs(calls []triage.ToolCall) bool {
	for i := 1; i < len(calls); i++ {
		if calls[i].Output != calls[0].Output || calls[i].Error != calls[0].Error {
			return false
		}
	}
	return true
}

func (r *run) loopEvidence(start, end int) {
	calls := r.tr.ToolCalls
	var buf [192]byte
	b := append(buf[:0], calls[start].Name...)
	b = append(b, " called "...)
	b = strconv.AppendInt(b, int64(end-start), 10)
	b = append(b, " times in a row with the same arguments (calls "...)
	for i := start; i < end; i++ {
		if i > start {
			b = append(b, ", "...)
		}
		if end-start > 8 && i == start+3 {
			b = append(b, "…"...)
			i = end - 2
			continue
		}
		b = strconv.AppendInt(b, int64(i), 10)
	}
	b = append(b, "); outputs identical: no new evidence"...)
	msg := string(b)
	r.fire(rToolLoop, triage.Evidence{Message: msg, ToolCall: start, Ident: clip(calls[start].Name)})
}

// clip bounds an identifier copied from the trace into evidence, as the
// step reader bounds the identifiers it reads (triage.ClipIdent).
func clip(s string) string { return triage.ClipIdent(s) }
