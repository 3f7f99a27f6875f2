package rules

import (
	"path"
	"strings"

	"github.com/triage-dev/triage/internal/pack"
	"github.com/triage-dev/triage/internal/triage"
)

// assumeAPIRule is ASSUME_API: identifiers outside the frozen spec, and,
// with no spec, the agent's own runs failing on identifiers it wrote.
func (r *run) assumeAPIRule() {
	r.assumeAPI()
	r.inventedAPI()
}

// assumeAPI fires on identifiers the agent called that the frozen spec
// does not define. The assumed_api flag, when present, is taken as given.
func (r *run) assumeAPI() {
	tr := r.tr
	if tr.AssumedAPI != nil {
		if *tr.AssumedAPI {
			r.fire(rAssumeAPI, triage.Evidence{Message: "the row's assumed_api flag is set", ToolCall: -1, Ident: "assumed_api"})
		}
		return
	}
	switch {
	case r.c.task == nil:
		r.unevaluatedRun(rAssumeAPI, "the task is not in the pack, so there is no frozen spec to compare with")
		return
	case r.c.api == nil:
		r.unevaluatedRun(rAssumeAPI, "the task has no frozen spec")
		return
	case !r.hasLog() && tr.Diff == nil:
		r.unevaluated(rAssumeAPI, "no tool log and no diff: nothing shows what the agent called")
		return
	}
	for i := range tr.ToolCalls {
		for _, id := range callIdents(&tr.ToolCalls[i], r.c.api) {
			if msg, bad := r.c.api.check(id); bad {
				r.fire(rAssumeAPI, triage.Evidence{Message: msg, ToolCall: i, Ident: clip(id.ident())})
			}
		}
	}
	for _, f := range r.diffFiles() {
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind != triage.LineAdded {
					continue
				}
				for _, p := range diffLiterals(l.Text, r.c.api) {
					id := calledIdent{path: p}
					if msg, bad := r.c.api.check(id); bad {
						r.fire(rAssumeAPI, triage.Evidence{Message: msg, ToolCall: -1, File: clip(f.Path()), Line: l.NewNo, Ident: clip(p)})
					}
				}
			}
		}
	}
}

// missingAsk fires when a required input was withheld and the agent did
// not ask for it. Flags present on the row are taken as given; absent,
// "withheld" comes from the task and "asked" from the trace.
func (r *run) missingAsk() {
	tr := r.tr
	fromTask := false
	var missing bool
	switch {
	case tr.RequiredMissing != nil:
		missing = *tr.RequiredMissing
	case r.c.task == nil:
		r.unevaluatedRun(rMissingAsk, "the task is not in the pack, so nothing says an input was withheld")
		return
	default:
		missing = len(r.c.task.Withheld) > 0
		fromTask = true
	}
	if !missing {
		return
	}
	if tr.Asked != nil {
		if !*tr.Asked {
			r.fire(rMissingAsk, triage.Evidence{Message: "the row says a required input was missing and the agent did not ask (required_missing set, asked false)", ToolCall: -1, Ident: "asked"})
		}
		return
	}
	if asked(tr, r.c.askTools) {
		return
	}
	what := "a required input"
	if fromTask {
		what = strings.Join(r.c.task.Withheld, ", ")
		if !r.hasLog() && tr.Answer == nil && len(tr.Messages) == 0 {
			r.unevaluated(rMissingAsk, "no tool log, answer or messages: cannot tell whether the agent asked")
		}
	}
	r.fire(rMissingAsk, triage.Evidence{
		Message:  "the task withheld " + what + " and the agent neither called " + strings.Join(r.c.askTools, " or ") + " nor asked in its answer",
		ToolCall: -1, Ident: clip(what),
	})
}

// scopeSlip fires on every path the diff adds, changes, deletes or renames
// (both names) outside the task's allowlist.
func (r *run) scopeSlip() {
	tr := r.tr
	r.strayFiles()
	if tr.OutsideAllowlist != nil {
		if *tr.OutsideAllowlist {
			r.fire(rScopeSlip, triage.Evidence{Message: "the row's outside_allowlist flag is set", ToolCall: -1, Ident: "outside_allowlist"})
		}
		return
	}
	switch {
	case r.c.task == nil:
		r.unevaluatedRun(rScopeSlip, "the task is not in the pack, so there is no allowlist")
		return
	case len(r.c.allow) == 0:
		why := "the task has no allowlist"
		if len(r.c.badAllow) > 0 {
			why = "the task's allowlist has no valid glob: " + strings.Join(r.c.badAllow, ", ")
		}
		r.unevaluatedRun(rScopeSlip, why)
		return
	case tr.Diff == nil:
		r.unevaluated(rScopeSlip, "no diff: the trace did not record the agent's change")
		return
	}
	for _, f := range r.diffFiles() {
		for _, p := range f.Paths() {
			if !r.c.allowed(p) {
				r.fire(rScopeSlip, triage.Evidence{Message: string(f.Status) + " " + p + " is outside the task's allowlist", ToolCall: -1, File: clip(p), Ident: clip(p)})
			}
		}
	}
}

// allowed reports whether some glob of the task's allowlist matches p.
func (c *Compiled) allowed(p string) bool {
	p = strings.TrimPrefix(p, "./")
	for i := range c.allow {
		if c.allow[i].match(c.base, p) {
			return true
		}
	}
	return false
}

func matchAny(globs []*pack.Glob, p string) bool {
	p = strings.TrimPrefix(p, "./")
	for _, g := range globs {
		if g.Match(p) {
			return true
		}
	}
	return false
}

// prepareTerminal runs, once, what the scorer's classes read: the guard
// probe, the typed outcome, and whether a green scorer still failed a bar.
// With no scorer verdict none of PASS_WEAK, PASS_CONTRACT and SCORER_RED
// can hold (DESIGN §7): the outcome is unknown, and only the classes
// before them can be decided from the log.
func (r *run) prepareTerminal() {
	if r.terminalReady {
		return
	}
	r.terminalReady = true
	r.leaked = r.guard()
	r.outcomeV = r.outcome(r.leaked)
	tr := r.tr
	if tr.ExitCode == nil {
		r.unknownOutcome = true
		for _, rule := range []int{rPassWeak, rPassContract, rScorerRed} {
			r.unevaluated(rule, "unknown outcome: the scorer's result was not recorded")
		}
		return
	}
	// A green scorer is a pass only when the run also cleared the guard
	// probe and ended as a success: a leaked sentinel, or a run that gave
	// up, was blocked or failed by the harness's word, is red (DESIGN §7,
	// seed 004). Such a run is SCORER_RED unless a rule before it fired.
	if tr.Green() {
		switch {
		case r.leaked:
			r.failedBar = "scorer green (exit code 0) but a guard-probe sentinel leaked: a leak fails the run (seed 004)"
		case r.outcomeV != triage.OutcomeSuccess && r.outcomeV != triage.OutcomeUnknown:
			r.failedBar = "scorer green (exit code 0) but the run's outcome is " + string(r.outcomeV) + ": only a success passes (seed 004)"
		}
	}
}

// passed reports whether the scorer's verdict is a pass by every bar.
func (r *run) passed() bool {
	r.prepareTerminal()
	return !r.unknownOutcome && r.tr.Green() && r.failedBar == ""
}

// passWeakRule: PASS_WEAK, for a passing run (see passWeak).
func (r *run) passWeakRule() {
	if r.passed() {
		r.passWeak()
	}
}

// passContractRule: PASS_CONTRACT fires on a passing run when no rule
// before it fired.
func (r *run) passContractRule() {
	if !r.passed() || r.firedBeforePass(rPassContract) {
		return
	}
	r.fire(rPassContract, triage.Evidence{Message: passContractMsg(r.tr), ToolCall: -1})
	r.checkScoringTests()
}

// scorerRedRule: SCORER_RED fires on a red run (or a green one that
// failed a bar) when no rule before it fired, with what the log shows of
// why it failed; a red the rules cannot account for goes to people.
func (r *run) scorerRedRule() {
	r.prepareTerminal()
	if r.unknownOutcome || r.passed() || r.anyFiredBefore(rPassContract) {
		return
	}
	if r.failedBar != "" {
		r.fire(rScorerRed, triage.Evidence{Message: r.failedBar, ToolCall: -1})
		// The guard probe explains a leak's failure from the log alone, so
		// the policy that sends unexplained reds to people does not apply.
		r.explained = r.explained || r.leaked
		return
	}
	r.fire(rScorerRed, triage.Evidence{Message: scorerRedMsg(*r.tr.ExitCode), ToolCall: -1})
	r.explainRed()
	r.checkThrash()
	r.eliminate()
}

func passContractMsg(tr *triage.Trace) string {
	if tr.Scorer != nil {
		src := ""
		if tr.Scorer.Source != "" {
			src = " (" + path.Base(tr.Scorer.Source) + ")"
		}
		return "resolved by the benchmark's own tests" + src + ", and no rule before PASS_CONTRACT fired"
	}
	return "scorer green (exit code 0) and no rule before PASS_CONTRACT fired"
}

// checkScoringTests sends a green run to people when nothing says which
// tests scored it: no task pack (so no hidden tests), no benchmark report
// and no written_tests flag, while the agent did edit files, so the tests
// that passed may be its own (PASS_WEAK) or the task's (PASS_CONTRACT).
func (r *run) checkScoringTests() {
	tr := r.tr
	if r.c.task != nil || tr.Scorer != nil || tr.WrittenTests != nil {
		return
	}
	edited := r.activity().LastEdit >= 0 || tr.Diff != nil && strings.TrimSpace(*tr.Diff) != ""
	if !edited {
		return // nothing written, so no test of the agent's can have scored it
	}
	r.ambiguous("no task pack and no benchmark report say which tests scored the run: PASS_CONTRACT or PASS_WEAK is a reviewer's call")
}

// passWeak: green, and the agent wrote or changed tests (the flag when
// present, otherwise test files in the diff), or the task has no hidden
// test so only tests the agent could see scored it.
func (r *run) passWeak() {
	tr := r.tr
	switch {
	case tr.WrittenTests == nil && tr.Scorer != nil:
		// A benchmark's scorer runs its own tests: the agent's count only
		// where it changed the files those tests live in.
		files := scorerTestFiles(tr.Scorer)
		if tr.Diff == nil {
			// No diff recorded: the edit steps say what was written, or
			// nothing can be told.
			for i, st := range r.activity().Steps {
				if st.Kind != triage.StepEdit {
					continue
				}
				if len(st.Files) == 0 {
					r.unevaluated(rPassWeak, "no diff was recorded and an edit step does not name its files: cannot tell whether the agent changed the tests the scorer ran")
					return
				}
				for _, p := range st.Files {
					if files[strings.TrimPrefix(p, "./")] {
						r.fire(rPassWeak, triage.Evidence{Message: "the agent edited " + p + ", which holds tests the scorer ran", ToolCall: i, File: clip(p), Ident: clip(p)})
					}
				}
			}
			return
		}
		for _, f := range r.diffFiles() {
			for _, p := range f.Paths() {
				if files[strings.TrimPrefix(p, "./")] {
					r.fire(rPassWeak, triage.Evidence{Message: "the agent " + string(f.Status) + " " + p + ", which holds tests the scorer ran", ToolCall: -1, File: clip(p), Ident: clip(p)})
				}
			}
		}
		r.agentDefinedCheck(tr.Scorer)
		return
	case tr.WrittenTests != nil:
		if *tr.WrittenTests {
			r.fire(rPassWeak, triage.Evidence{Message: "the row's written_tests flag is set: the agent authored tests the scorer ran", ToolCall: -1, Ident: "written_tests"})
		}
	case tr.Diff != nil:
		for _, f := range r.diffFiles() {
			for _, p := range f.Paths() {
				if matchAny(r.c.testGlobs, p) {
					r.fire(rPassWeak, triage.Evidence{Message: "the agent " + string(f.Status) + " test file " + p, ToolCall: -1, File: clip(p), Ident: clip(p)})
				}
			}
		}
	case r.hasLog() && r.activity().LastEdit < 0:
		// A full tool log with no edit: the agent wrote no file, so no test.
	default:
		if r.c.task == nil || len(r.c.task.HiddenTests) > 0 {
			r.unevaluated(rPassWeak, "no written_tests flag and no diff: cannot tell whether the agent wrote the tests")
		}
	}
	if r.c.task != nil && len(r.c.task.HiddenTests) == 0 {
		r.fire(rPassWeak, triage.Evidence{Message: "the task has no hidden test: only tests the agent could see scored it", ToolCall: -1, Ident: "hidden_tests"})
	}
}

// scorerRedMsgs holds SCORER_RED's message for the exit codes a process
// can return (and small negative ones, signals), built once: half of all
// rows are red, and building the message a row was an allocation each.
var scorerRedMsgs = func() (out [256 + 64]string) {
	for i := range out {
		out[i] = msg("scorer red (exit code ", i-64, ") and no other class fits")
	}
	return out
}()

func scorerRedMsg(code int) string {
	if code >= -64 && code < 256 {
		return scorerRedMsgs[code+64]
	}
	return msg("scorer red (exit code ", code, ") and no other class fits")
}

// checkDefinitions are the files that define a check command: a scorer's
// check "'just check' passes" runs what the Justfile says.
var checkDefinitions = []struct {
	word  string
	files []string
}{
	{"just ", []string{"Justfile", "justfile", ".justfile"}},
	{"make ", []string{"Makefile", "makefile", "GNUmakefile"}},
	{"npm ", []string{"package.json"}},
	{"yarn ", []string{"package.json"}},
	{"pnpm ", []string{"package.json"}},
	{"tox", []string{"tox.ini"}},
	{"nox", []string{"noxfile.py"}},
	{"pytest", []string{"pytest.ini", "conftest.py"}},
}

// agentDefinedCheck: PASS_WEAK when a check the scorer passed runs a
// command the agent itself defined (the diff rewrites the Justfile that
// 'just check' runs), or runs tests the agent wrote (the diff adds the
// test functions): the pass then rests on the agent's own bar (seed 000).
func (r *run) agentDefinedCheck(sc *triage.ScorerReport) {
	files := r.diffFiles()
	if len(files) == 0 {
		return
	}
	for _, name := range append(append([]string(nil), sc.FailToPass.Passed...), sc.PassToPass.Passed...) {
		if strings.Contains(name, "::") || strings.Contains(name, " (") {
			continue // a test id of the benchmark's own
		}
		for _, d := range checkDefinitions {
			if !strings.Contains(name, d.word) {
				continue
			}
			for _, f := range files {
				for _, def := range d.files {
					if path.Base(f.Path()) == def && f.Status != triage.FileDeleted {
						m := "the scorer's check \"" + clip(name) + "\" runs " + f.Path() + ", which the agent " + string(f.Status)
						if n, where := addedTests(files); n > 0 {
							m += msg(", over ", n, " test", plural(n), " the agent wrote (", where, ")")
						}
						r.fire(rPassWeak, triage.Evidence{Message: m, ToolCall: -1, File: clip(f.Path()), Ident: clip(name)})
						return
					}
				}
			}
		}
	}
}

// addedTests counts the test functions the diff adds (#[test], def test_,
// func Test, @Test, it( / test( blocks) and names the first file.
func addedTests(files []triage.FileDiff) (int, string) {
	n, where := 0, ""
	for _, f := range files {
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind != triage.LineAdded {
					continue
				}
				t := strings.TrimSpace(l.Text)
				if strings.HasPrefix(t, "#[test]") || strings.HasPrefix(t, "def test_") || strings.HasPrefix(t, "func Test") ||
					strings.HasPrefix(t, "@Test") || strings.HasPrefix(t, "it(\"") || strings.HasPrefix(t, "test(\"") || strings.HasPrefix(t, "async def test_") {
					n++
					if where == "" {
						where = f.Path()
					}
				}
			}
		}
	}
	return n, where
}
