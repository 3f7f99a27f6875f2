package rules

import (
	"bytes"
	"cmp"
	"hash/maphash"
	"path"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// The rules in this file read what real harness logs carry (DESIGN §7):
// the steps of the agent's activity (triage.ReadActivity), the harness's
// stop reason and the scorer's per-test report. They explain a red run
// (nothing submitted, a regression, submitted on red…), say when a green
// run's scoring tests are unknown, and tag the agent's runtime errors on
// identifiers it introduced as ASSUME_API evidence. Each evidence item
// points at the step that shows it.

// activity reads the trace's steps once, on first use, into the run's
// array of steps from the trace before.
func (r *run) activity() *triage.Activity {
	if !r.actDone {
		r.act = triage.ReadActivityInto(r.tr, r.steps)
		r.steps, r.actDone = r.act.Steps, true
	}
	return &r.act
}

// ambiguous sends the trace to people with why, whatever the rules found.
func (r *run) ambiguous(why string) {
	if len(r.amb) < 4 {
		r.amb = append(r.amb, why)
	}
}

// tag adds a secondary tag that does not compete for the primary: a
// mistake the log shows but that need not be what decided the outcome
// (DESIGN §7). Its evidence is kept like a fired rule's.
func (r *run) tag(rule int, e triage.Evidence) {
	if !r.c.enabled[rule] {
		return
	}
	r.tagged |= bit(rule)
	r.add(rule, e)
}

// stepRef names step i for evidence, 1-based as people count.
func stepRef(i int) string { return "step " + strconv.Itoa(i+1) }

// explainRed adds what the log shows about why a red run failed, as
// SCORER_RED evidence, and records whether anything did. Without one of
// these the run is a red the rules cannot account for, and goes to people.
func (r *run) explainRed() {
	tr := r.tr
	sc := tr.Scorer
	src := ""
	if sc != nil && sc.Source != "" {
		src = " (" + path.Base(sc.Source) + ")"
	}
	explain := func(e triage.Evidence) {
		r.add(rScorerRed, e)
		r.explained = true
	}
	if sc != nil && sc.PatchApplied != nil && !*sc.PatchApplied {
		explain(triage.Evidence{Message: "the scorer could not apply the submitted patch" + src, ToolCall: -1, Ident: "patch_successfully_applied"})
	}
	if sc != nil && sc.NoPatch || tr.Diff != nil && strings.TrimSpace(*tr.Diff) == "" && r.hasLog() {
		explain(triage.Evidence{Message: "no fix was submitted: the final diff is empty", ToolCall: r.activity().Submit})
	} else if files := r.diffFiles(); len(files) > 0 {
		var paths []string
		allScratch := true
		for _, f := range files {
			p := f.Path()
			paths = append(paths, p)
			if !(triage.IsScratchFile(p) || f.Status == triage.FileAdded && triage.IsTestPath(p)) {
				allScratch = false
			}
		}
		if allScratch {
			explain(triage.Evidence{Message: "no fix was submitted: the final diff holds no source file, only " + joinClipped(paths, 4), ToolCall: r.activity().Submit, File: clip(paths[0])})
		}
	}
	if sc != nil && len(sc.PassToPass.Failed) > 0 {
		n := len(sc.PassToPass.Failed)
		verb := " now fail: "
		if n == 1 {
			verb = " now fails: "
		}
		explain(triage.Evidence{Message: msg("a regression: ", n, " existing test", plural(n), " (PASS_TO_PASS)", verb) + joinClipped(sc.PassToPass.Failed, 3) + src, ToolCall: -1, Ident: clip(sc.PassToPass.Failed[0])})
	}
	if sc == nil || !sc.HarnessTests {
		r.explainRuns()
	}
	switch {
	case sc != nil && sc.HarnessTests && len(sc.FailToPass.Failed) > 0:
		// The harness's last run names what failed, not how many passed.
		explain(triage.Evidence{Message: "the tests still failed after the last try: " + joinClipped(sc.FailToPass.Failed, 3) + src, ToolCall: -1, Ident: clip(sc.FailToPass.Failed[0])})
	case sc != nil && len(sc.FailToPass.Failed) > 0:
		n, all := len(sc.FailToPass.Failed), len(sc.FailToPass.Failed)+len(sc.FailToPass.Passed)
		explain(triage.Evidence{Message: msg("the fix fell short: ", n, " of ", all, " FAIL_TO_PASS tests still fail: ") + joinClipped(sc.FailToPass.Failed, 3) + src, ToolCall: -1, Ident: clip(sc.FailToPass.Failed[0])})
	}
	if r.hasLog() && len(tr.ToolCalls) == 0 && tr.Diff == nil {
		explain(triage.Evidence{Message: "no tool was called: the answer alone was scored, and the scorer marked it wrong", ToolCall: -1})
	}
}

// explainRuns reads the agent's own test and script runs against its
// last edit (DESIGN §8: "tests failed" only from a test step whose result
// is failed): submitted after its tests failed or errored; its tests
// never ran; edited and ran nothing after. Each evidence item cites the
// step that shows it.
func (r *run) explainRuns() {
	a := r.activity()
	if len(a.Steps) == 0 {
		return
	}
	end := a.Submit
	if end < 0 {
		end = len(a.Steps)
	}
	lastEdit, lastCheck, lastTest, notRun := -1, -1, -1, -1
	for i := 0; i < end; i++ {
		s := &a.Steps[i]
		if s.Checks() && (!s.Writes || s.CheckedWrite) {
			lastCheck = i
		}
		if s.Kind == triage.StepTest {
			if s.Result == triage.ResultNotRun {
				notRun = i
			} else {
				lastTest = i
			}
		}
	}
	// The last edit of the submitted work, found from the end: most
	// steps are never asked whether they touched it.
	inDiff := r.diffHas()
	for i := end - 1; i >= 0; i-- {
		if s := &a.Steps[i]; workEdit(s, inDiff) {
			lastEdit = i
			if s.CheckedWrite && lastCheck < i {
				lastCheck = i
			}
			break
		}
	}
	explain := func(e triage.Evidence) {
		r.add(rScorerRed, e)
		r.explained = true
	}
	if lastTest >= 0 && lastTest >= lastEdit {
		st := &a.Steps[lastTest]
		switch st.Result {
		case triage.ResultFailed:
			explain(r.pointAtDiff(triage.Evidence{Message: "submitted after the project's tests failed at " + stepRef(lastTest) + ": " + clip(st.Summary), ToolCall: lastTest}))
			return
		case triage.ResultError:
			explain(r.pointAtDiff(triage.Evidence{Message: "submitted after the project's tests errored at " + stepRef(lastTest) + ": " + clip(st.Summary), ToolCall: lastTest}))
			return
		}
	}
	if notRun >= 0 && lastTest < 0 {
		// Every test command the agent tried failed to start: it never
		// saw its tests run (pytest: command not found, No module named
		// pytest).
		r.add(rScorerRed, triage.Evidence{Message: "the tests never ran: " + clip(a.Steps[notRun].Summary) + " (" + stepRef(notRun) + ")", ToolCall: notRun})
	}
	if lastEdit >= 0 && lastCheck < lastEdit {
		m := "nothing was run after the last edit at " + stepRef(lastEdit)
		if lastCheck >= 0 {
			if st := &a.Steps[lastCheck]; st.Result == triage.ResultFailed || st.Result == triage.ResultError {
				m += ", and the last check before it (" + stepRef(lastCheck) + ") " + st.Result.String() + ": " + clip(st.Summary)
			}
		}
		explain(triage.Evidence{Message: m, ToolCall: lastEdit})
	}
}

// workEdit reports whether step s changed the submitted work. When the
// trace has its final diff, a write counts only if it touched a file the
// diff holds (writing and deleting reproducers is not a change a check
// must follow); without one, a write whose files are all scratch does
// not count.
func workEdit(s *triage.Step, inDiff func(string) bool) bool {
	if !s.Writes {
		return false
	}
	if len(s.Files) == 0 {
		return true
	}
	for _, f := range s.Files {
		if inDiff != nil {
			if inDiff(f) {
				return true
			}
			continue
		}
		base := f[strings.LastIndexByte(f, '/')+1:]
		if !triage.IsScratchFile(base) && !strings.HasPrefix(f, "/tmp/") {
			return true
		}
	}
	return false
}

// diffHas is a test of whether a path a step names (absolute, or
// relative to wherever the agent stood) is a file of the final diff, or
// nil when the trace has no diff.
func (r *run) diffHas() func(string) bool {
	if r.tr.Diff == nil {
		return nil
	}
	files := r.diffFiles()
	return func(p string) bool {
		p = strings.TrimPrefix(p, "./")
		for _, f := range files {
			for _, q := range f.Paths() {
				if q == p || strings.HasSuffix(p, "/"+q) || strings.HasSuffix(q, "/"+p) {
					return true
				}
			}
		}
		return false
	}
}

// pointAtDiff adds to evidence about a failing step the part of the
// submitted diff its output points at: the last traceback frame or
// diagnostic in a file the diff changes.
func (r *run) pointAtDiff(e triage.Evidence) triage.Evidence {
	if e.ToolCall < 0 || e.ToolCall >= len(r.tr.ToolCalls) {
		return e
	}
	files := r.diffFiles()
	if len(files) == 0 {
		return e
	}
	paths := make([]string, 0, len(files))
	for _, f := range files {
		paths = append(paths, f.Path())
	}
	if f, n := triage.LastFrameIn(r.tr.ToolCalls[e.ToolCall].Output, paths); f != "" {
		e.File, e.Line = clip(f), n
		e.Message += msg("; it points at ", clip(f), ":", n, ", which the diff changes")
	}
	return e
}

// lastFailingCheck is the last test or run step before end whose result is
// failed or error, or -1.
func lastFailingCheck(a *triage.Activity, end int) int {
	if end < 0 || end > len(a.Steps) {
		end = len(a.Steps)
	}
	for i := end - 1; i >= 0; i-- {
		s := &a.Steps[i]
		if (s.Kind == triage.StepTest || s.Kind == triage.StepRun) && (s.Result == triage.ResultFailed || s.Result == triage.ResultError) {
			return i
		}
	}
	return -1
}

// lastCheck is the last test or run step before end that started, or -1.
func lastCheck(a *triage.Activity, end int) int {
	if end < 0 || end > len(a.Steps) {
		end = len(a.Steps)
	}
	for i := end - 1; i >= 0; i-- {
		if a.Steps[i].Checks() {
			return i
		}
	}
	return -1
}

// abnormalStops are words of a harness's stop reason that say the run did
// not end by submitting: a crash, a format or context error, a limit.
// SWE-agent's early_exit (the agent quit before its budget, without
// submitting) is one too: it does not end with "exit_".
var abnormalStops = []string{"error", "exit_", "early_exit", "cost", "context", "format", "limit", "max", "crash", "cancel", "timeout", "killed", "interrupt", "exception", "fail"}

// submittedNothing reports whether a run of a harness that records its
// submission (SWE-agent's and mini-swe-agent's info.submission, which
// ingest keeps as the diff, or as the answer for a CTF flag) submitted
// nothing: ingest leaves both unset for an empty submission. Other
// harnesses' traces often carry no diff at all, so a missing one says
// nothing there.
func submittedNothing(tr *triage.Trace) bool {
	return (tr.Source == "swe-agent" || tr.Source == "mini-swe-agent") && tr.Diff == nil && tr.Answer == nil
}

// normalStop reports whether the harness says the run ended as runs do
// (submitted, finished, or nothing recorded).
func normalStop(reason string) bool {
	l := strings.ToLower(reason)
	for _, w := range abnormalStops {
		if strings.Contains(l, w) {
			return false
		}
	}
	return true
}

// eliminate decides a red run no evidence explained: with a normal stop,
// no loop and no other class, SCORER_RED is the only class left (the
// seed's order), and its evidence is the last failing check, or the
// scorer's failing tests, or that no check ran after the last edit. An
// abnormal stop stays with people, with the stop named.
func (r *run) eliminate() {
	if r.explained {
		return
	}
	tr := r.tr
	if !normalStop(tr.StopReason) {
		r.ambiguous("the harness stopped the run abnormally (" + clip(tr.StopReason) + "): SCORER_RED by elimination is a reviewer's call")
		return
	}
	if submittedNothing(tr) {
		// An empty submission is no work the scorer failed: why the
		// agent gave up is a reviewer's reading (DESIGN §7, unknown
		// goes to people), not SCORER_RED by elimination.
		r.ambiguous("the agent submitted an empty patch: there is no work for the scorer to have failed, so SCORER_RED by elimination is a reviewer's call")
		return
	}
	const by = "SCORER_RED by elimination (a red run, a normal stop, no other class): "
	a := r.activity()
	if i := lastFailingCheck(a, a.Submit); i >= 0 {
		r.add(rScorerRed, r.pointAtDiff(triage.Evidence{Message: by + "the last failing check is " + stepRef(i) + ": " + clip(a.Steps[i].Summary), ToolCall: i}))
		r.explained = true
		return
	}
	if sc := tr.Scorer; sc != nil && len(sc.FailToPass.Failed)+len(sc.PassToPass.Failed) > 0 {
		failed := append(append([]string(nil), sc.FailToPass.Failed...), sc.PassToPass.Failed...)
		r.add(rScorerRed, triage.Evidence{Message: by + "the scorer's failing tests: " + joinClipped(failed, 3), ToolCall: -1, Ident: clip(failed[0])})
		r.explained = true
		return
	}
	if tr.Scorer != nil && tr.Scorer.HarnessTests {
		// The harness ran the tests after each try and names no failure:
		// the agent's own steps cannot say more.
		r.ambiguous("the harness ran the tests after each try but its report names no failing test")
		return
	}
	if last := lastCheck(a, a.Submit); last >= 0 && (a.LastEdit < 0 || last > a.LastEdit) {
		r.add(rScorerRed, triage.Evidence{Message: by + "the agent's last check passed (" + stepRef(last) + ": " + clip(cmp.Or(a.Steps[last].Summary, a.Steps[last].Result.String())) + "), and the scorer failed the run", ToolCall: last})
		r.explained = true
		return
	}
	if a.LastEdit >= 0 {
		r.add(rScorerRed, triage.Evidence{Message: by + "no check ran after the last edit at " + stepRef(a.LastEdit), ToolCall: a.LastEdit})
		r.explained = true
	}
}

// thrashAt is how many times one command may repeat with the same output,
// not in a row, before the run reads as thrashing rather than working.
const thrashAt = 8

// selfErrorsAt is how many syntax errors of the agent's own making (after
// an edit) make a run read as thrashing.
const selfErrorsAt = 5

// checkThrash sends a red run to people when it repeats itself without
// looping in a row (the seed's TOOL_LOOP needs consecutive calls): the
// same command with the same output many times, or edits that keep
// breaking the file they edit. A reviewer decides TOOL_LOOP or SCORER_RED.
func (r *run) checkThrash() {
	calls := r.tr.ToolCalls
	if len(calls) < thrashAt {
		return
	}
	// Calls are keyed by a hash of name, arguments and output: a key
	// holding the output itself would copy every megabyte of it.
	seen := make(map[uint64]int, len(calls))
	worst, at := 0, -1
	var h maphash.Hash
	for i := range calls {
		h.Reset()
		h.WriteString(calls[i].Name)
		h.WriteByte(0)
		h.Write(calls[i].Args)
		h.WriteByte(0)
		h.WriteString(calls[i].Output)
		k := h.Sum64()
		seen[k]++
		if seen[k] > worst {
			worst, at = seen[k], i
		}
	}
	a := r.activity()
	selfErr := 0
	first := -1
	for i, s := range a.Steps {
		for _, e := range s.Errors {
			if (e.Type == "SyntaxError" || e.Type == "IndentationError") && a.LastEdit >= 0 && i > 0 {
				selfErr++
				if first < 0 {
					first = i
				}
				break
			}
		}
	}
	switch {
	case worst >= thrashAt:
		r.ambiguous("thrashing: " + calls[at].Name + " ran " + strconv.Itoa(worst) + " times with the same arguments and output, not in a row (last at " + stepRef(at) + "): TOOL_LOOP or SCORER_RED is a reviewer's call")
	case selfErr >= selfErrorsAt:
		r.ambiguous("thrashing: " + strconv.Itoa(selfErr) + " runs hit SyntaxError or IndentationError after the agent's own edits (first at " + stepRef(first) + "): TOOL_LOOP or SCORER_RED is a reviewer's call")
	}
}

// inventedAPI tags ASSUME_API when the agent's own runs fail on an
// identifier it wrote itself (an attribute, import, name or keyword that
// does not exist), or when it feeds a tool an invented input format. With
// a frozen spec the spec decides instead. When the invented identifier is
// in the submitted diff and the run failed, it may be what decided the
// outcome: the trace goes to people.
func (r *run) inventedAPI() {
	if r.c.api != nil {
		return
	}
	if !r.actDone && inventedAPIPrefilter && !mayInventAPI(r.tr) {
		return
	}
	a := r.activity()
	calls := r.tr.ToolCalls
	var added strings.Builder
	for _, f := range r.diffFiles() {
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind == triage.LineAdded {
					added.WriteString(l.Text)
					added.WriteByte('\n')
				}
			}
		}
	}
	final := added.String()
	// An identifier the task itself names is one the agent was asked to
	// add (a new parameter, a new function), not an invention.
	prompt := ""
	for _, m := range r.tr.Messages {
		if strings.EqualFold(m.Role, "user") {
			prompt = m.Content
			break
		}
	}
	// written maps an identifier to the first step whose edit wrote it:
	// an edit's arguments hold what it wrote.
	written := map[string]int{}
	for i, s := range a.Steps {
		if s.Kind != triage.StepTest && s.Kind != triage.StepRun && s.Kind != triage.StepEdit && s.Kind != triage.StepBuild {
			continue
		}
		for _, e := range s.Errors {
			if e.Ident == "" || len(e.Ident) < 3 || strings.Contains(prompt, e.Ident) || !inventedSurface(e.Message) {
				continue
			}
			// The agent's own command (an inline script, a flag it typed)
			// first; else the first earlier edit that wrote the identifier
			// as a word (keep_lazy does not write lazy).
			own := containsWord(s.Command, e.Ident)
			if strings.Contains(e.Message, "is not defined") || strings.Contains(e.Message, "'NoneType' object") {
				// Code of the agent's that forgot an import, or hit a None:
				// a bug of its own, not an API it assumed.
				continue
			}
			if definedIn(final, e.Ident) {
				// The submitted diff defines it (a parameter, a function,
				// an attribute the fix adds): the agent's own new surface,
				// called before it existed, not an invention.
				continue
			}
			w := -1
			if !own {
				var ok bool
				if w, ok = written[e.Ident]; !ok {
					w = -1
					for j := 0; j < i; j++ {
						if a.Steps[j].Writes && containsWord(string(calls[j].Args), e.Ident) {
							w = j
							break
						}
					}
					written[e.Ident] = w
				}
				if w < 0 {
					continue
				}
			}
			var m string
			if own {
				// The agent's own command or inline script used it.
				m = e.Type + " at " + stepRef(i) + " on '" + e.Ident + "', which the agent's own command used: " + e.Message
			} else {
				m = e.Type + " at " + stepRef(i) + " on '" + e.Ident + "', which the agent wrote at " + stepRef(w) + ": " + e.Message
			}
			if fixed := correctedAfter(a, i, e.Ident); fixed >= 0 {
				m += "; corrected by " + stepRef(fixed)
			}
			r.tag(rAssumeAPI, triage.Evidence{Message: clip(m), ToolCall: i, Ident: clip(e.Ident)})
			if r.tr.ExitCode != nil && *r.tr.ExitCode != 0 && final != "" && strings.Contains(final, e.Ident) && i == a.LastRun(-1, triage.StepTest, triage.StepRun) {
				r.ambiguous("ASSUME_API may be the primary: the submitted diff still uses '" + clip(e.Ident) + "', on which the agent's last run failed (" + stepRef(i) + ")")
			}
			break
		}
	}
	for i, s := range a.Steps {
		c := &calls[i]
		if strings.Contains(s.Command, "git apply") && strings.Contains(s.Command, "*** Begin Patch") &&
			(c.ExitCode != nil && *c.ExitCode != 0 || strings.Contains(c.Output, "No valid patches") || strings.Contains(c.Output, "unrecognized input")) {
			r.tag(rAssumeAPI, triage.Evidence{Message: "git apply was fed an invented patch format (*** Begin Patch) at " + stepRef(i) + " and refused it", ToolCall: i, Ident: "git apply"})
		}
	}
}

// definedIn reports whether the added lines of a diff define ident: as a
// function or class, a parameter with a default, an assignment or an
// annotated name.
func definedIn(added, ident string) bool {
	if added == "" || !strings.Contains(added, ident) {
		return false
	}
	for _, p := range []string{"def " + ident, "class " + ident, ident + "=", ident + " =", ident + ":", "." + ident + " =", "fn " + ident, "func " + ident} {
		if strings.Contains(added, p) {
			return true
		}
	}
	return false
}

// containsWord reports whether s holds w with no identifier character
// on either side.
func containsWord(s, w string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], w)
		if i < 0 {
			return false
		}
		i += off
		before := i == 0 || !identByte(s[i-1])
		after := i+len(w) >= len(s) || !identByte(s[i+len(w)])
		if before && after {
			return true
		}
		off = i + 1
	}
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// inventedMarkers are what an error says of a surface that does not
// exist: an attribute, name, keyword, flag or method the code or command
// invented. A missing module (No module named x) or program (command not
// found) is the environment's, not an invention.
var inventedMarkers = []string{"has no attribute", "cannot import name", "unexpected keyword argument", "is not defined",
	"unrecognized argument", "no such option", "unknown option", "unknown flag", "flag provided but not defined", "unexpected argument",
	"no method named", "cannot find value", "cannot find function", "does not exist on type", "is not a function", "undefined method",
	"not a member of", "Unresolved reference", "cannot find symbol", "undefined: ", "Call to undefined"}

func inventedSurface(msg string) bool {
	for _, m := range inventedMarkers {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// correctedAfter is the first check after step i that ran without the
// error on ident (the agent corrected it), or -1.
func correctedAfter(a *triage.Activity, i int, ident string) int {
	for j := i + 1; j < len(a.Steps); j++ {
		s := &a.Steps[j]
		if !s.Checks() {
			continue
		}
		same := false
		for _, e := range s.Errors {
			if e.Ident == ident {
				same = true
			}
		}
		if !same && s.Result != triage.ResultError {
			return j
		}
	}
	return -1
}

// strayFiles tags SCOPE_SLIP (secondary) for scratch files the submitted
// diff keeps beside a fix: reproducers, backups, fake binaries. With no
// pack there is no allowlist, but these are outside any task's scope.
func (r *run) strayFiles() {
	files := r.diffFiles()
	if len(files) < 2 {
		return
	}
	var stray []string
	real := false
	for _, f := range files {
		p := f.Path()
		if f.Status == triage.FileDeleted {
			continue
		}
		if triage.IsScratchFile(p) {
			stray = append(stray, p)
		} else {
			real = true
		}
	}
	if !real || len(stray) == 0 {
		return
	}
	r.tag(rScopeSlip, triage.Evidence{Message: "the submitted diff keeps scratch files beside the fix: " + joinClipped(stray, 4), ToolCall: -1, File: clip(stray[0]), Ident: clip(stray[0])})
}

// inventedAPIPrefilter is off only in the test that holds mayInventAPI to
// what inventedAPI finds without it.
var inventedAPIPrefilter = true

// mayInventAPI is a necessary condition for inventedAPI to find anything,
// checked before the trace's steps are read (they are read for most red
// runs anyway, and for no green one otherwise): an exception in some
// call's output (runtimeErrors needs "Error: " or "Exception: "), or a
// call whose arguments may spell "*** Begin Patch" (the words, or a \u
// escape that could make them; an argv list joins its words with spaces).
func mayInventAPI(tr *triage.Trace) bool {
	for i := range tr.ToolCalls {
		c := &tr.ToolCalls[i]
		// Every inventedMarkers line comes with one of these words: an
		// error's (Error, error:, [error], Exception), Go's "undefined: x",
		// Go flag's "flag provided", kotlinc's "Unresolved", "unknown option".
		if c.Output != "" && (strings.Contains(c.Output, "rror") || strings.Contains(c.Output, "xception") || strings.Contains(c.Output, "undefined") ||
			strings.Contains(c.Output, "flag provided") || strings.Contains(c.Output, "nresolved") || strings.Contains(c.Output, "nknown option")) ||
			bytes.Contains(c.Args, []byte(`\u`)) || bytes.Contains(c.Args, []byte("Begin")) && bytes.Contains(c.Args, []byte("Patch")) {
			return true
		}
	}
	return false
}

// scorerTestFiles are the files the scorer's test ids name: pytest ids
// (path::test) directly, Django's "test_x (module.Class)" as the module's
// path under tests/.
func scorerTestFiles(sc *triage.ScorerReport) map[string]bool {
	out := map[string]bool{}
	for _, set := range []triage.TestResults{sc.FailToPass, sc.PassToPass} {
		for _, ids := range [][]string{set.Passed, set.Failed} {
			for _, id := range ids {
				if p, _, ok := strings.Cut(id, "::"); ok {
					out[p] = true
					continue
				}
				if open := strings.LastIndexByte(id, '('); open >= 0 && strings.HasSuffix(id, ")") {
					mod := strings.Split(id[open+1:len(id)-1], ".")
					if len(mod) >= 2 {
						out["tests/"+strings.Join(mod[:len(mod)-1], "/")+".py"] = true
					}
				}
			}
		}
	}
	return out
}

func joinClipped(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + msg(" and ", len(xs)-n, " more")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
