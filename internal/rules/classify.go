package rules

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// maxEvidencePerRule bounds evidence lists so a hostile trace with a
// million invented paths still gives a readable verdict.
const maxEvidencePerRule = 50

// ruleLeaked indexes the guard probe's evidence count.
const ruleLeaked = nRules

// run is the state of classifying one trace.
type run struct {
	c         *Compiled
	tr        *triage.Trace
	fired     [nRules]bool
	uneval    [nRules]bool
	nEv       [nRules + 1]int // the last counts LEAKED evidence
	evidence  []triage.Evidence
	unevalEv  []triage.Evidence
	files     []triage.FileDiff
	filesDone bool
}

func (r *run) fire(rule int, e triage.Evidence) {
	r.fired[rule] = true
	r.add(rule, e)
}

func (r *run) add(rule int, e triage.Evidence) {
	if r.nEv[rule] >= maxEvidencePerRule {
		return
	}
	r.nEv[rule]++
	if e.Rule == "" {
		e.Rule = ruleCodes[rule]
	}
	if r.evidence == nil {
		r.evidence = make([]triage.Evidence, 0, 2)
	}
	r.evidence = append(r.evidence, e)
}

func (r *run) unevaluated(rule int, why string) {
	if r.uneval[rule] {
		return
	}
	r.uneval[rule] = true
	r.unevalEv = append(r.unevalEv, triage.Evidence{Rule: ruleCodes[rule], Message: why, ToolCall: -1})
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
	for i := 0; i < rule; i++ {
		if r.fired[i] && r.c.enabled[i] {
			return true
		}
	}
	return false
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
	r := run{c: c, tr: tr}
	if c.enabled[rTimeout] {
		r.timeout(b)
	}
	if c.enabled[rToolLoop] {
		r.toolLoop()
	}
	if c.enabled[rAssumeAPI] {
		r.assumeAPI()
	}
	if c.enabled[rMissingAsk] {
		r.missingAsk()
	}
	if c.enabled[rScopeSlip] {
		r.scopeSlip()
	}
	r.terminal()
	leaked := r.guard()
	v.Outcome = r.outcome(leaked)

	primary := -1
	nFired := 0
	for i := range nRules {
		if r.fired[i] && c.enabled[i] {
			nFired++
			if primary < 0 {
				primary = i
			}
		}
	}
	if nFired > 0 {
		v.Fired = make([]string, 0, nFired)
		for i := range nRules {
			if r.fired[i] && c.enabled[i] {
				v.Fired = append(v.Fired, ruleCodes[i])
			}
		}
		v.Primary = ruleCodes[primary]
		if nFired > 1 || leaked {
			v.Secondary = make([]string, 0, nFired)
			v.Secondary = append(v.Secondary, v.Fired[1:]...)
		}
	}
	if leaked {
		v.Secondary = append(v.Secondary, triage.TagLeaked)
	}
	if v.Secondary == nil {
		v.Secondary = []string{}
	}
	if v.Fired == nil {
		v.Fired = []string{}
	}
	v.Evidence = r.evidence
	if v.Evidence == nil {
		v.Evidence = []triage.Evidence{}
	}
	v.Unevaluated = r.unevalEv
	v.Decision, v.Reason = r.decide(primary, nFired, heldOut)
	return v
}

// decide applies the taxonomy's leftover policy.
func (r *run) decide(primary, nFired int, heldOut bool) (triage.Decision, string) {
	p := r.c.tax.Leftover
	var reasons []string
	if primary < 0 {
		reasons = append(reasons, "no class of the taxonomy fits: a person must label it")
	}
	if p.MultipleFired && nFired > 1 {
		reasons = append(reasons, "more than one class fired")
	}
	if p.Unevaluated {
		limit := primary
		if limit < 0 {
			limit = nRules
		}
		var missing []string
		for i := 0; i < limit; i++ {
			if r.uneval[i] && r.c.enabled[i] {
				missing = append(missing, ruleCodes[i])
			}
		}
		if len(missing) > 0 {
			reasons = append(reasons, "could not evaluate "+strings.Join(missing, ", ")+", which rank before the primary")
		}
	}
	if p.ScorerRed && primary == rScorerRed {
		reasons = append(reasons, "SCORER_RED: no rule explained the failure")
	}
	if p.HeldOut && heldOut {
		reasons = append(reasons, "in a held-out slice")
	}
	switch len(reasons) {
	case 0:
		return triage.DecisionCertain, ""
	case 1:
		return triage.DecisionLeftover, reasons[0]
	}
	return triage.DecisionLeftover, strings.Join(reasons, "; ")
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// timeout follows the seed exactly (timeout flag, or wall_s, read as 0
// when absent, at or over wall_cap, read as 10**9 when absent). When the
// row has no timeout flag, the run's frozen budgets are checked too; a
// timeout flag present on the row is taken as the harness's word.
func (r *run) timeout(b Budgets) {
	tr := r.tr
	if tr.Timeout != nil && *tr.Timeout {
		r.fire(rTimeout, triage.Evidence{Message: "the harness killed the run on a budget (timeout flag)", ToolCall: -1, Ident: "timeout"})
	}
	ws, wallCap := 0.0, 1e9
	if tr.WallS != nil {
		ws = *tr.WallS
	}
	if tr.WallCap != nil {
		wallCap = *tr.WallCap
	}
	if ws >= wallCap {
		r.fire(rTimeout, triage.Evidence{Message: "wall_s " + fmtNum(ws) + " is at or over wall_cap " + fmtNum(wallCap), ToolCall: -1, Ident: "wall_cap"})
	}
	if tr.Timeout != nil {
		return
	}
	if b.WallS != nil && tr.WallS != nil && *tr.WallS >= *b.WallS {
		r.fire(rTimeout, triage.Evidence{Message: "wall_s " + fmtNum(*tr.WallS) + " is at or over the run's wall_s budget " + fmtNum(*b.WallS), ToolCall: -1, Ident: "wall_s"})
	}
	if b.MaxOutputTokens != nil && tr.Tokens != nil && tr.Tokens.Output >= *b.MaxOutputTokens {
		r.fire(rTimeout, triage.Evidence{Message: "output tokens " + strconv.FormatInt(tr.Tokens.Output, 10) + " are at or over max_output_tokens " + strconv.FormatInt(*b.MaxOutputTokens, 10), ToolCall: -1, Ident: "max_output_tokens"})
	}
	if b.MaxToolCalls != nil && r.hasLog() && int64(len(tr.ToolCalls)) >= *b.MaxToolCalls {
		r.fire(rTimeout, triage.Evidence{Message: strconv.Itoa(len(tr.ToolCalls)) + " tool calls are at or over max_tool_calls " + strconv.FormatInt(*b.MaxToolCalls, 10), ToolCall: -1, Ident: "max_tool_calls"})
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
	var ka, kb []byte
	start := 0
	for i := 1; i <= len(calls); i++ {
		if i < len(calls) {
			var same bool
			same, ka, kb = sameCall(&calls[i-1], &calls[i], ka, kb)
			if same {
				continue
			}
		}
		if n := i - start; n >= r.c.loopN {
			r.loopEvidence(start, i)
		}
		start = i
	}
}

// sameCall compares two calls as the seed does: name and canonical args.
// It uses the importer's ArgsKey when both calls carry one, and otherwise
// canonicalises into the reusable buffers ka and kb.
func sameCall(a, b *triage.ToolCall, ka, kb []byte) (bool, []byte, []byte) {
	if a.Name != b.Name {
		return false, ka, kb
	}
	if a.ArgsKey != "" && b.ArgsKey != "" {
		return a.ArgsKey == b.ArgsKey, ka, kb
	}
	if bytes.Equal(a.Args, b.Args) {
		return true, ka, kb
	}
	ka = appendArgsKey(ka[:0], a.Args)
	kb = appendArgsKey(kb[:0], b.Args)
	return bytes.Equal(ka, kb), ka, kb
}

// appendArgsKey is triage.ArgsKey into a buffer.
func appendArgsKey(dst, raw []byte) []byte {
	if len(raw) == 0 {
		return append(dst, "{}"...)
	}
	out, err := triage.AppendCanonicalJSON(dst, raw)
	if err != nil {
		out = append(dst[:0], "!invalid:"...)
		out = append(out, raw...)
	}
	return out
}

func (r *run) loopEvidence(start, end int) {
	calls := r.tr.ToolCalls
	identical := true
	for i := start + 1; i < end; i++ {
		if calls[i].Output != calls[start].Output || calls[i].Error != calls[start].Error {
			identical = false
			break
		}
	}
	var idx strings.Builder
	for i := start; i < end; i++ {
		if i > start {
			idx.WriteString(", ")
		}
		if end-start > 8 && i == start+3 {
			idx.WriteString("…, ")
			i = end - 2
			continue
		}
		idx.WriteString(strconv.Itoa(i))
	}
	msg := calls[start].Name + " called " + strconv.Itoa(end-start) + " times in a row with the same arguments (calls " + idx.String() + "); "
	if identical {
		msg += "outputs identical: no new evidence"
	} else {
		msg += "outputs differ"
	}
	r.fire(rToolLoop, triage.Evidence{Message: msg, ToolCall: start, Ident: clip(calls[start].Name)})
}

// clip bounds an identifier copied from the trace into evidence.
func clip(s string) string {
	const maxIdent = 200
	if len(s) <= maxIdent {
		return s
	}
	cut := maxIdent
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
