package signature

import (
	"regexp"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// Version names the signature logic and the clustering threshold. Bump it
// whenever Of, Template, the features or their weights change, as the
// rules bump theirs: signatures of two versions are not comparable.
const Version = "2"

// Signature is what a failing trace's log shows about how it failed, with
// the details that change from run to run normalised away: the exception
// of the last failing run, the tests that failed, what the rules found,
// and the shape of the agent's tool sequence. Two traces that failed for
// the same reason have equal or near signatures (Similarity).
type Signature struct {
	// Version is the signature logic that made it (Version).
	Version string `json:"version"`
	// Primary is the rules' primary class, "" when the rules have not run
	// on the trace (or found none).
	Primary string `json:"primary"`
	// Secondary are the rules' secondary tags, sorted.
	Secondary []string `json:"secondary"`
	// Evidence are the claims of the rules' evidence, templated ("a
	// regression", "submitted after the project's tests failed at step
	// <n>"), each prefixed with its rule, sorted and unique.
	Evidence []string `json:"evidence"`
	// Error is the exception the last failing run ended with, or nil.
	Error *Error `json:"error,omitempty"`
	// Tests are the failing test ids (the scorer's report, then the test
	// output), sorted, unique and at most maxTests.
	Tests []string `json:"tests"`
	// Summary is the last failing run's summary line templated ("<n>
	// failed, <n> passed"), when it ended without an exception.
	Summary string `json:"summary,omitempty"`
	// Shape is the tool sequence, one letter a step with repeats
	// collapsed (see ShapeLetters), its last maxShape letters.
	Shape string `json:"shape"`
	// Steps is the number of tool calls.
	Steps int `json:"steps"`
}

// Error is an exception type with its message template.
type Error struct {
	Type     string `json:"type"`
	Template string `json:"template"`
}

// ShapeLetters documents the letters of Signature.Shape.
const ShapeLetters = "r read, f search, e edit, T tests passed, X tests failed, E tests errored, N tests never ran, t tests (result unknown), u script run, b build, i install, g git, s submit, o other"

const (
	maxTests = 20
	maxShape = 16
)

// Of computes the signature of tr under its rule verdict v (nil when the
// rules have not run). It reads the steps through triage.ReadActivity and
// keeps nothing of tr.
func Of(tr *triage.Trace, v *triage.Verdict) Signature {
	a := triage.ReadActivity(tr)
	return OfActivity(tr, &a, v)
}

// OfActivity is Of with the trace's activity already read.
func OfActivity(tr *triage.Trace, a *triage.Activity, v *triage.Verdict) Signature {
	s := Signature{Version: Version, Steps: len(a.Steps), Secondary: []string{}, Evidence: []string{}, Tests: []string{}}
	if v != nil {
		s.Primary = v.Primary
		s.Secondary = uniqSorted(append([]string(nil), v.Secondary...))
		for _, e := range v.Evidence {
			if c := claim(e.Message); c != "" {
				rule := e.Rule
				if rule == "" {
					rule = v.Primary
				}
				s.Evidence = append(s.Evidence, rule+": "+c)
			}
		}
		s.Evidence = uniqSorted(s.Evidence)
	}
	s.Error, s.Summary = lastFailure(tr, a)
	s.Tests = failingTests(tr, a)
	s.Shape = shape(a)
	return s
}

// lastFailure is the exception the last failing test or script run ended
// with; else the last exception any step reported; else one in the
// scorer's test output. Without an exception, the summary of the last
// failing run is kept instead.
func lastFailure(tr *triage.Trace, a *triage.Activity) (*Error, string) {
	// What the scorer failed is what remained broken: when its report
	// names failing tests, the agent's own runs (an error it hit, a
	// pre-existing one in its environment) are not the cause, and the
	// error comes from the scorer's output alone.
	if sc := tr.Scorer; sc != nil && len(sc.FailToPass.Failed)+len(sc.PassToPass.Failed) > 0 {
		if tr.TestOutput != nil {
			if m := lastMatch(exceptionLine, *tr.TestOutput); m != nil {
				return errorOf(m[1], m[2]), ""
			}
		}
		return nil, ""
	}
	// Only the last check counts: an error the agent hit and then fixed
	// (a later check ran clean) is not why the run failed.
	end := a.Submit
	if end < 0 {
		end = len(a.Steps)
	}
	for i := end - 1; i >= 0; i-- {
		st := &a.Steps[i]
		if !st.Checks() {
			continue
		}
		if st.Result != triage.ResultFailed && st.Result != triage.ResultError {
			break
		}
		summary := ""
		// A bare "exit code 2" names no cause.
		if st.Summary != "" && !strings.HasPrefix(st.Summary, "exit code ") {
			summary = Template(st.Summary)
		}
		if len(st.Errors) > 0 {
			e := st.Errors[len(st.Errors)-1]
			return errorOf(e.Type, e.Message), ""
		}
		return nil, summary
	}
	if tr.TestOutput != nil {
		if m := lastMatch(exceptionLine, *tr.TestOutput); m != nil {
			return errorOf(m[1], m[2]), ""
		}
	}
	return nil, ""
}

func errorOf(typ, msg string) *Error {
	return &Error{Type: clip(strings.TrimSpace(typ), 80), Template: Template(msg)}
}

var (
	// exceptionLine is a Python exception line (pytest prefixes it "E ")
	// or a Go panic.
	exceptionLine = regexp.MustCompile(`(?m)^(?:E\s+)?(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*(?:Error|Exception|Exit)|panic): (.+)$`)
	// Failing test ids as runners print them.
	pytestFailed   = regexp.MustCompile(`(?m)^(?:FAILED|ERROR) (\S+::\S+)`)
	unittestFailed = regexp.MustCompile(`(?m)^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)`)
	goFailed       = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)
	cargoFailed    = regexp.MustCompile(`(?m)^test (\S+) \.\.\. FAILED`)
	testParams     = regexp.MustCompile(`\[[^\]]*\]`)
)

func lastMatch(re *regexp.Regexp, s string) []string {
	all := re.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		return nil
	}
	return all[len(all)-1]
}

// failingTests lists the failing tests: the scorer's report when it names
// any, else those the scorer's output and the last failing test run name.
func failingTests(tr *triage.Trace, a *triage.Activity) []string {
	var out []string
	if sc := tr.Scorer; sc != nil {
		out = append(out, sc.FailToPass.Failed...)
		out = append(out, sc.PassToPass.Failed...)
	}
	if len(out) == 0 && tr.TestOutput != nil {
		out = testIDs(*tr.TestOutput)
	}
	if len(out) == 0 {
		if i := a.LastRun(a.Submit, triage.StepTest); i >= 0 && a.Steps[i].Result == triage.ResultFailed {
			out = append(out, a.Steps[i].Tests.Failing...)
		}
	}
	for i, t := range out {
		out[i] = testID(t)
	}
	out = uniqSorted(out)
	if len(out) > maxTests {
		out = out[:maxTests]
	}
	return out
}

// testID normalises a test id: white space trimmed, and the values of a
// parametrised test templated (test_x[/tmp/abc-1] and test_x[/tmp/def-2]
// are one test).
func testID(t string) string {
	t = strings.TrimSpace(t)
	t = testParams.ReplaceAllStringFunc(t, func(p string) string {
		return "[" + Template(p[1:len(p)-1]) + "]"
	})
	return clip(t, 200)
}

func testIDs(out string) []string {
	var ids []string
	// Each runner's pattern runs only when its marker is there.
	if strings.Contains(out, "FAILED ") || strings.Contains(out, "ERROR ") {
		for _, m := range pytestFailed.FindAllStringSubmatch(out, maxTests) {
			ids = append(ids, m[1])
		}
	}
	if strings.Contains(out, "FAIL: ") || strings.Contains(out, "ERROR: ") {
		for _, m := range unittestFailed.FindAllStringSubmatch(out, maxTests) {
			ids = append(ids, m[2]+"."+m[1])
		}
	}
	if strings.Contains(out, "--- FAIL: ") {
		for _, m := range goFailed.FindAllStringSubmatch(out, maxTests) {
			ids = append(ids, m[1])
		}
	}
	if strings.Contains(out, " ... FAILED") {
		for _, m := range cargoFailed.FindAllStringSubmatch(out, maxTests) {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// shape is the tool sequence as letters (ShapeLetters), repeats collapsed,
// its last maxShape letters.
func shape(a *triage.Activity) string {
	b := make([]byte, 0, 32)
	for i := range a.Steps {
		c := letter(&a.Steps[i])
		if n := len(b); n > 0 && b[n-1] == c {
			continue
		}
		b = append(b, c)
	}
	if len(b) > maxShape {
		return "…" + string(b[len(b)-maxShape:])
	}
	return string(b)
}

func letter(s *triage.Step) byte {
	switch s.Kind {
	case triage.StepRead:
		return 'r'
	case triage.StepSearch:
		return 'f'
	case triage.StepEdit:
		return 'e'
	case triage.StepTest:
		switch s.Result {
		case triage.ResultPassed:
			return 'T'
		case triage.ResultFailed:
			return 'X'
		case triage.ResultError:
			return 'E'
		case triage.ResultNotRun:
			return 'N'
		}
		return 't'
	case triage.StepRun:
		return 'u'
	case triage.StepBuild:
		return 'b'
	case triage.StepInstall:
		return 'i'
	case triage.StepVCS:
		return 'g'
	case triage.StepSubmit:
		return 's'
	}
	return 'o'
}

func uniqSorted(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	slices.Sort(xs)
	return slices.Compact(xs)
}

// Key is the signature as one string: equal keys are equal signatures.
func (s *Signature) Key() string {
	var b strings.Builder
	b.WriteString(s.Version)
	b.WriteByte(0)
	b.WriteString(s.Primary)
	for _, group := range [][]string{s.Secondary, s.Evidence, s.Tests} {
		b.WriteByte(1)
		for _, x := range group {
			b.WriteString(x)
			b.WriteByte(2)
		}
	}
	b.WriteByte(1)
	if s.Error != nil {
		b.WriteString(s.Error.Type)
		b.WriteByte(2)
		b.WriteString(s.Error.Template)
	}
	b.WriteByte(1)
	b.WriteString(s.Summary)
	b.WriteByte(1)
	b.WriteString(s.Shape)
	b.WriteByte(1)
	b.WriteString(stepsBucket(s.Steps))
	return b.String()
}

// Unclusterable says why s cannot be grouped with anything, or "" when it
// can: a trace the rules have not labelled, with no tool log, no failing
// test and no exception shows nothing to compare.
func (s *Signature) Unclusterable() string {
	if s.Primary == "" && len(s.Evidence) == 0 && s.Error == nil && len(s.Tests) == 0 && s.Summary == "" && s.Steps == 0 {
		return "no rule verdict, no tool call, no failing test and no exception: nothing to compare (run `triage rules run` first)"
	}
	if s.Error == nil && len(s.Tests) == 0 && s.Summary == "" && specificClaim(s.Evidence) == "" {
		// No catch-all cluster of runs that share only their class.
		return "no cause found: no failing check, failing test or error remained at submit, and the rules' evidence names no cause"
	}
	return ""
}

// Name is a short human name for the failure s describes: its class, then
// its exception, else its most specific evidence claim, else its tests.
func (s *Signature) Name() string {
	parts := []string{orWord(s.Primary, "unlabelled")}
	switch {
	case s.Error != nil:
		parts = append(parts, s.Error.Type+": "+s.Error.Template)
	case specificClaim(s.Evidence) != "":
		parts = append(parts, specificClaim(s.Evidence))
	case s.Summary != "":
		parts = append(parts, s.Summary)
	}
	if len(s.Tests) > 0 {
		t := s.Tests[0]
		if len(s.Tests) > 1 {
			t += " +" + itoa(len(s.Tests)-1)
		}
		parts = append(parts, t)
	}
	if len(parts) == 1 {
		parts = append(parts, "no failing output; tools "+orWord(s.Shape, "none"))
	}
	return clip(strings.Join(parts, " · "), 140)
}

// genericClaims are evidence claims every trace of their class carries,
// which name nothing about the cause.
var genericClaims = []string{"no other class fits"}

// specificClaim is the first evidence claim that says more than its class.
func specificClaim(evidence []string) string {
	for _, e := range evidence {
		generic := false
		for _, g := range genericClaims {
			if strings.Contains(e, g) {
				generic = true
			}
		}
		if !generic {
			_, c, _ := strings.Cut(e, ": ")
			return c
		}
	}
	return ""
}

func orWord(s, w string) string {
	if s == "" {
		return w
	}
	return s
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// stepsBucket is the number of steps, coarsely: the exact count varies
// from seed to seed, its order of magnitude less.
func stepsBucket(n int) string {
	switch {
	case n == 0:
		return "0"
	case n <= 5:
		return "1-5"
	case n <= 20:
		return "6-20"
	case n <= 60:
		return "21-60"
	}
	return ">60"
}
