package triage

import (
	"regexp"
	"strconv"
	"strings"
)

// TestCounts is what a test runner's summary said: how many tests passed,
// failed and errored, and the failing tests it named.
type TestCounts struct {
	Passed, Failed, Errors int
	// Failing are the failing tests' ids as the runner printed them, at
	// most maxFailing.
	Failing []string
}

// Ran reports whether the runner said any test ran.
func (t TestCounts) Ran() bool { return t.Passed+t.Failed+t.Errors > 0 }

const maxFailing = 20

var (
	ansiSGR = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")
	// Summaries, one pattern a runner.
	pytestSum    = regexp.MustCompile(`^=*\s*((?:\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?|rerun)(?:, )?)+)(?: in [0-9.]+s\b.*?)?\s*=*$`)
	pytestCount  = regexp.MustCompile(`(\d+) (passed|failed|errors?)`)
	unittestRan  = regexp.MustCompile(`^Ran (\d+) tests? in `)
	unittestFail = regexp.MustCompile(`^FAILED \(((?:failures|errors|skipped|expected failures|unexpected successes)=\d+(?:, )?)+\)$`)
	unittestKV   = regexp.MustCompile(`(failures|errors)=(\d+)`)
	cargoSum     = regexp.MustCompile(`^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed`)
	goPkg        = regexp.MustCompile(`^(ok|FAIL|---)\s+(\S+)(?:\s+([0-9.]+s|\[build failed\]|\[setup failed\]|\(cached\)))?`)
	goTest       = regexp.MustCompile(`^\s*--- (PASS|FAIL): (\S+)`)
	jestSum      = regexp.MustCompile(`^Tests:\s+(.+?)\s*$`)
	vitestSum    = regexp.MustCompile(`^\s*Tests\s+(.+?)\s*\(\d+\)\s*$`)
	countWord    = regexp.MustCompile(`(\d+) (passed|failed|passing|failing|failures?|errors?|todo|skipped)`)
	mochaPass    = regexp.MustCompile(`^\s+(\d+) passing\b`)
	mochaFail    = regexp.MustCompile(`^\s+(\d+) failing\b`)
	mavenSum     = regexp.MustCompile(`^(?:\[(?:INFO|ERROR|WARNING)\]\s+)?Tests run: (\d+), Failures: (\d+), Errors: (\d+)`)
	gradleSum    = regexp.MustCompile(`^(\d+) tests? completed, (\d+) failed`)
	sbtSum       = regexp.MustCompile(`Tests: succeeded (\d+), failed (\d+)`)
	sbtPassed    = regexp.MustCompile(`All tests passed\.`)
	ctestSum     = regexp.MustCompile(`^\d+% tests passed, (\d+) tests? failed out of (\d+)`)
	rspecSum     = regexp.MustCompile(`^(\d+) examples?, (\d+) failures?`)
	phpunitOK    = regexp.MustCompile(`^OK \((\d+) tests?, `)
	phpunitFail  = regexp.MustCompile(`^Tests: (\d+), Assertions: \d+(?:, (?:Errors|Failures): \d+)+`)
	phpunitKV    = regexp.MustCompile(`(Errors|Failures): (\d+)`)
	tapNotOK     = regexp.MustCompile(`^not ok \d+ (?:- )?(.+)$`)
	// Failing test ids.
	pytestFailed   = regexp.MustCompile(`^(?:FAILED|ERROR) (\S+::\S+|\S+\.py)`)
	unittestFailed = regexp.MustCompile(`^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)`)
	cargoFailed    = regexp.MustCompile(`^test (\S+) \.\.\. FAILED`)
	jestFailed     = regexp.MustCompile(`^\s*● (.+?)(?: › (.+))?$`)
	gradleFailed   = regexp.MustCompile(`^(\S+) > (.+) FAILED$`)
	mavenFailed    = regexp.MustCompile(`^\[ERROR\]\s+(\w[\w.$]*[.#]\w+)(?::\d+)?`)
	ctestFailed    = regexp.MustCompile(`^\s*\d+ - (\S+) \((?:Failed|SEGFAULT|Timeout|Exception)\)`)
	rspecFailed    = regexp.MustCompile(`^rspec (\./\S+:\d+)`)
	scalatestFail  = regexp.MustCompile(`^(?:\[info\] )?- (.+) \*\*\* FAILED \*\*\*`)
	collectErr     = regexp.MustCompile(`^(?:_+ )?ERROR collecting (\S+)`)
	// pytest -v: "tests/a.py::test_x PASSED [ 50%]".
	pytestVerbose = regexp.MustCompile(`^(\S+::\S+) (PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)\b`)
)

// runnerWords are substrings an output must hold for testSummary to find
// anything.
var runnerWords = [...]string{"passed", "failed", "Ran ", "test result:", "ok ", "FAIL", "Tests", "passing", "failing", "tests completed", "examples", "OK (", "not ok", "error", "ERROR"}

func mayHaveSummary(out string) bool {
	for _, w := range runnerWords {
		if strings.Contains(out, w) {
			return true
		}
	}
	return false
}

// summaryScan is what testSummary read of one output.
type summaryScan struct {
	counts TestCounts
	// line is the summary line that gave the counts ("2 failed, 3
	// passed in 0.12s", "FAILED (errors=1)", "test result: ok.").
	line  string
	found bool
	// collectErrors: pytest could not import a test module.
	collectErrors int
	// noTests: the runner ran and found nothing to run.
	noTests string
	// buildFailed: the tests did not compile (go's [build failed]).
	buildFailed bool
}

// testSummary reads the summaries of the test runners real logs hold:
// pytest, unittest and Django's runtests, go test, cargo test, jest,
// vitest, mocha, Maven, Gradle, sbt and scalatest, ctest, rspec, phpunit,
// TAP. Several summaries (a runner per package, or per crate) add up; for
// the runners that print a running total (pytest, unittest, Maven), the
// last one counts.
func testSummary(out string) summaryScan {
	var s summaryScan
	if out == "" || !mayHaveSummary(out) {
		return s
	}
	out = outputWindow(out)
	if strings.Contains(out, "\x1b[") {
		out = ansiSGR.ReplaceAllString(out, "")
	}
	var sumCargo, sumGo, verbose TestCounts
	cargo, goSeen := false, false
	var goLine string
	unittestN := -1
	addFailing := func(id string) {
		id = strings.TrimSpace(id)
		if id == "" || len(s.counts.Failing) >= maxFailing {
			return
		}
		for _, x := range s.counts.Failing {
			if x == id {
				return
			}
		}
		s.counts.Failing = append(s.counts.Failing, ClipIdent(id))
	}
	for raw := range strings.SplitSeq(out, "\n") {
		line := strings.TrimRight(raw, " \r\t")
		if line == "" {
			continue
		}
		t := strings.TrimSpace(line)
		if !summaryLine(t) {
			continue
		}
		switch {
		case strings.Contains(t, "passed") || strings.Contains(t, "failed") || strings.Contains(t, "error") || strings.Contains(t, "no tests ran"):
			if m := pytestSum.FindStringSubmatch(t); m != nil && (strings.HasPrefix(t, "=") || strings.Contains(t, " in ")) {
				c := TestCounts{Failing: s.counts.Failing}
				for _, kv := range pytestCount.FindAllStringSubmatch(m[1], -1) {
					n, _ := strconv.Atoi(kv[1])
					switch kv[2] {
					case "passed":
						c.Passed = n
					case "failed":
						c.Failed = n
					default:
						c.Errors = n
					}
				}
				line := strings.Trim(t, "= ")
				if k := strings.Index(line, " in "); k > 0 {
					line = line[:k] // the timing changes from run to run
				}
				s.counts, s.line, s.found = c, line, true
				continue
			}
			if strings.Contains(t, "no tests ran") {
				s.noTests = strings.Trim(t, "= ")
				continue
			}
		}
		switch {
		case strings.HasPrefix(t, "Ran "):
			if m := unittestRan.FindStringSubmatch(t); m != nil {
				unittestN, _ = strconv.Atoi(m[1])
				if unittestN == 0 {
					s.noTests = "Ran 0 tests"
				}
			}
		case t == "OK" || strings.HasPrefix(t, "OK (") && !strings.Contains(t, "tests,") && !strings.Contains(t, "test,"):
			if unittestN > 0 {
				s.counts = TestCounts{Passed: unittestN, Failing: s.counts.Failing}
				s.line, s.found = t, true
			}
		case strings.HasPrefix(t, "FAILED ("):
			if m := unittestFail.FindStringSubmatch(t); m != nil {
				c := TestCounts{Failing: s.counts.Failing}
				for _, kv := range unittestKV.FindAllStringSubmatch(t, -1) {
					n, _ := strconv.Atoi(kv[2])
					if kv[1] == "failures" {
						c.Failed = n
					} else {
						c.Errors = n
					}
				}
				if unittestN > 0 {
					c.Passed = max(0, unittestN-c.Failed-c.Errors)
				}
				s.counts, s.line, s.found = c, t, true
			}
		case strings.HasPrefix(t, "test result: "):
			if m := cargoSum.FindStringSubmatch(t); m != nil {
				p, _ := strconv.Atoi(m[2])
				f, _ := strconv.Atoi(m[3])
				sumCargo.Passed += p
				sumCargo.Failed += f
				cargo = true
				s.line = t
			}
		case strings.HasPrefix(t, "ok ") || strings.HasPrefix(t, "FAIL") || strings.HasPrefix(t, "--- "):
			if m := goTest.FindStringSubmatch(line); m != nil {
				if m[1] == "FAIL" {
					addFailing(m[2])
					sumGo.Failed++
				} else {
					sumGo.Passed++
				}
				goSeen = true
				continue
			}
			if m := goPkg.FindStringSubmatch(t); m != nil && m[1] != "---" && (m[3] != "" || strings.HasPrefix(t, "ok ")) {
				goSeen = true
				goLine = t
				if strings.Contains(t, "[build failed]") || strings.Contains(t, "[setup failed]") {
					s.buildFailed = true
				}
				if m[1] == "ok" && sumGo.Passed == 0 {
					sumGo.Passed = max(sumGo.Passed, 1) // ok without -v: the package passed
				}
				if m[1] == "FAIL" && sumGo.Failed == 0 && !s.buildFailed {
					sumGo.Failed = 1
				}
			}
		case strings.HasPrefix(t, "Tests:"):
			if m := jestSum.FindStringSubmatch(t); m != nil {
				s.counts, s.line, s.found = countsOf(m[1], s.counts.Failing), t, true
			} else if m := phpunitFail.FindStringSubmatch(t); m != nil {
				c := TestCounts{Failing: s.counts.Failing}
				n, _ := strconv.Atoi(m[1])
				for _, kv := range phpunitKV.FindAllStringSubmatch(t, -1) {
					v, _ := strconv.Atoi(kv[2])
					if kv[1] == "Failures" {
						c.Failed = v
					} else {
						c.Errors = v
					}
				}
				c.Passed = max(0, n-c.Failed-c.Errors)
				s.counts, s.line, s.found = c, t, true
			}
		case strings.HasPrefix(t, "Tests ") && strings.Contains(t, "("):
			if m := vitestSum.FindStringSubmatch(line); m != nil {
				s.counts, s.line, s.found = countsOf(m[1], s.counts.Failing), t, true
			}
		case strings.HasSuffix(t, "passing") || strings.Contains(t, " passing ("):
			if m := mochaPass.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				s.counts.Passed, s.line, s.found = n, t, true
			}
		case strings.HasSuffix(t, "failing"):
			if m := mochaFail.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				s.counts.Failed, s.line, s.found = n, t, true
			}
		}
		switch {
		case strings.Contains(t, "Tests run:"):
			if m := mavenSum.FindStringSubmatch(t); m != nil {
				n, _ := strconv.Atoi(m[1])
				f, _ := strconv.Atoi(m[2])
				e, _ := strconv.Atoi(m[3])
				s.counts = TestCounts{Passed: max(0, n-f-e), Failed: f, Errors: e, Failing: s.counts.Failing}
				s.line, s.found = t, true
			}
		case s.totalFailed(t):
		case strings.Contains(t, "Tests: succeeded"):
			if m := sbtSum.FindStringSubmatch(t); m != nil {
				p, _ := strconv.Atoi(m[1])
				f, _ := strconv.Atoi(m[2])
				s.counts = TestCounts{Passed: p, Failed: f, Failing: s.counts.Failing}
				s.line, s.found = strings.TrimPrefix(t, "[info] "), true
			}
		case strings.Contains(t, "All tests passed."):
			if sbtPassed.MatchString(t) && !s.found {
				s.line, s.found = strings.TrimPrefix(t, "[info] "), true
				s.counts.Passed = max(s.counts.Passed, 1)
			}
		case strings.HasPrefix(t, "OK ("):
			if m := phpunitOK.FindStringSubmatch(t); m != nil {
				n, _ := strconv.Atoi(m[1])
				s.counts = TestCounts{Passed: n, Failing: s.counts.Failing}
				s.line, s.found = t, true
			}
		}
		if strings.Contains(t, "::") {
			if m := pytestVerbose.FindStringSubmatch(t); m != nil {
				switch m[2] {
				case "PASSED", "XPASS":
					verbose.Passed++
				case "FAILED":
					verbose.Failed++
					addFailing(m[1])
				case "ERROR":
					verbose.Errors++
					addFailing(m[1])
				}
				continue
			}
		}
		// Failing test ids.
		switch {
		case strings.HasPrefix(t, "FAILED ") || strings.HasPrefix(t, "ERROR "):
			if m := pytestFailed.FindStringSubmatch(t); m != nil {
				addFailing(m[1])
			}
		case strings.HasPrefix(t, "FAIL: ") || strings.HasPrefix(t, "ERROR: "):
			if m := unittestFailed.FindStringSubmatch(t); m != nil {
				addFailing(m[1] + " (" + m[2] + ")")
			}
		case strings.HasPrefix(t, "test ") && strings.HasSuffix(t, "FAILED"):
			if m := cargoFailed.FindStringSubmatch(t); m != nil {
				addFailing(m[1])
			}
		case strings.HasPrefix(t, "● "):
			if m := jestFailed.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], "Test suite failed") {
				addFailing(strings.TrimSpace(t[len("● "):]))
			}
		case strings.HasSuffix(t, " FAILED") && strings.Contains(t, " > "):
			if m := gradleFailed.FindStringSubmatch(t); m != nil {
				addFailing(m[1] + "." + m[2])
			}
		case strings.HasPrefix(t, "[ERROR] ") && (strings.Contains(t, "Test.") || strings.Contains(t, "Test#") || strings.Contains(t, "Tests.")):
			if m := mavenFailed.FindStringSubmatch(t); m != nil && !strings.Contains(t, "Tests run:") {
				addFailing(m[1])
			}
		case strings.Contains(t, "*** FAILED ***"):
			if m := scalatestFail.FindStringSubmatch(t); m != nil {
				addFailing(m[1])
			}
		case strings.HasPrefix(t, "rspec ./"):
			if m := rspecFailed.FindStringSubmatch(t); m != nil {
				addFailing(m[1])
			}
		case strings.HasPrefix(t, "not ok "):
			if m := tapNotOK.FindStringSubmatch(t); m != nil {
				addFailing(m[1])
			}
		case strings.Contains(t, "ERROR collecting"):
			if m := collectErr.FindStringSubmatch(t); m != nil {
				s.collectErrors++
				addFailing(m[1])
			}
		case strings.HasSuffix(t, ")") && strings.Contains(t, " - "):
			if m := ctestFailed.FindStringSubmatch(line); m != nil {
				addFailing(m[1])
			}
		}
	}
	if cargo {
		failing := s.counts.Failing
		s.counts = sumCargo
		s.counts.Failing = failing
		s.found = true
	}
	if !s.found && verbose.Ran() {
		// pytest -v cut before its summary line: its per-test lines.
		failing := s.counts.Failing
		s.counts = verbose
		s.counts.Failing = failing
		s.line = strconv.Itoa(verbose.Failed) + " failed, " + strconv.Itoa(verbose.Passed) + " passed (per-test lines; no summary)"
		s.found = true
	}
	if goSeen && !s.found {
		failing := s.counts.Failing
		s.counts = sumGo
		s.counts.Failing = failing
		if goLine != "" {
			s.line = goLine
		}
		s.found = s.counts.Ran() || s.buildFailed
	}
	return s
}

// summaryLine is a necessary condition for a line to be a summary or a
// failing test's line: a digit (counts), or one of the words runners
// print without one. Most lines of an output are neither, and skip the
// patterns.
func summaryLine(t string) bool {
	if strings.ContainsAny(t, "0123456789") {
		return true
	}
	for _, w := range [...]string{"OK", "FAIL", "ERROR", "●", "passed", "not ok", "PASS", "failed", "no tests", "---"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// totalFailedSums are the summaries that give a total and the failures:
// Gradle's "5 tests completed, 1 failed", ctest's "80% tests passed, 1
// tests failed out of 5", rspec's "4 examples, 1 failure". total and
// failed index the pattern's groups.
var totalFailedSums = []struct {
	word          string
	re            *regexp.Regexp
	total, failed int
}{
	{"tests completed", gradleSum, 1, 2},
	{"tests passed,", ctestSum, 2, 1},
	{"example", rspecSum, 1, 2},
}

// totalFailed reads t as one of totalFailedSums into s; it reports
// whether one matched.
func (s *summaryScan) totalFailed(t string) bool {
	for _, f := range totalFailedSums {
		if !strings.Contains(t, f.word) {
			continue
		}
		if m := f.re.FindStringSubmatch(t); m != nil {
			n, _ := strconv.Atoi(m[f.total])
			failed, _ := strconv.Atoi(m[f.failed])
			s.counts = TestCounts{Passed: max(0, n-failed), Failed: failed, Failing: s.counts.Failing}
			s.line, s.found = t, true
			return true
		}
	}
	return false
}

// countsOf reads "1 failed, 3 passed, 4 total" or "1 failed | 3 passed".
func countsOf(s string, failing []string) TestCounts {
	c := TestCounts{Failing: failing}
	for _, kv := range countWord.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(kv[1])
		switch kv[2] {
		case "passed", "passing":
			c.Passed = n
		case "failed", "failing", "failure", "failures":
			c.Failed = n
		case "error", "errors":
			c.Errors = n
		}
	}
	return c
}

// notRunWhy is why a command could not start, from its output and exit
// code: its program or the test runner's module is missing, the script
// does not exist, permission denied, exit 127. prog is the program word of
// the command's main segment; "" when the output shows no such reason.
func notRunWhy(out string, exit *int, prog, runner string, errs []RuntimeError) string {
	base := prog
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	for _, e := range errs {
		switch e.Type {
		case "command not found":
			if e.Ident == prog || e.Ident == base || base == "" || exit != nil && *exit == 127 {
				return e.Message
			}
		case "permission denied":
			if e.Ident == prog || e.Ident == base || exit != nil && *exit == 126 {
				return e.Message
			}
		case "no such file":
			if exit != nil && (*exit == 2 || *exit == 127) && strings.Contains(e.Message, "can't open file") {
				return e.Message
			}
		}
	}
	// A command that could not start says so at once: its first lines.
	h := out
	if len(h) > 8<<10 {
		h = h[:8<<10]
	}
	for _, m := range [...]string{"No module named pytest", "No module named 'pytest'", "No module named nose", "No module named 'nose'", "No module named tox"} {
		if strings.Contains(h, m) && (runner == "pytest" || runner == "tox" || runner == "") {
			return m
		}
	}
	for _, m := range [...]string{"npm ERR! Missing script:", "npm error Missing script:", "error: no such command:", "error Command \"test\" not found", "ERR_PNPM_NO_SCRIPT", "Unknown command:", "ERROR: file or directory not found:", "ERROR: not found:", "no test files", "[no test files]", "no tests to run", "No tests found", "collected 0 items", "error: unrecognized arguments:", "usage: pytest", "error: Could not find or load main class", "Could not find the task", "Task '"} {
		if i := strings.Index(h, m); i >= 0 {
			if m == "Task '" && !strings.Contains(h, "not found in root project") {
				continue
			}
			return clipLine(h[i:])
		}
	}
	if exit != nil && *exit == 127 {
		return "exit code 127: the command was not found"
	}
	if exit != nil && *exit == 126 {
		return "exit code 126: the command could not be executed"
	}
	return ""
}

// timeoutWhy is the harness's or the command's word that a limit killed
// the command, or "".
func timeoutWhy(out, callErr string, exit *int, timeoutWrapper bool) string {
	for _, s := range [...]string{callErr, tailOf(out, 4096)} {
		if !mayTimeout(s) {
			continue
		}
		l := strings.ToLower(s)
		for _, m := range [...]string{"timed out and has been killed", "command timed out", "execution timed out", "timed out after", "timeout expired", "exceeded the timeout", "killed by timeout", "operation timed out", "the command took too long", "[command timed out", "timeout: the monitored command dumped core", "timeouterror: ", "hit the time limit", "the command had not finished", "command is still running", "no output for"} {
			if i := strings.Index(l, m); i >= 0 {
				return clipLine(s[max(0, i-40):])
			}
		}
	}
	if exit != nil && *exit == 124 && timeoutWrapper {
		return "exit code 124: timeout killed the command"
	}
	return ""
}

// mayTimeout is a necessary condition for timeoutWhy's markers, checked
// before lowering the text (which allocates) for every step.
func mayTimeout(s string) bool {
	if len(s) < 7 {
		return false
	}
	for _, w := range [...]string{"imed out", "IMED OUT", "imeout", "IMEOUT", "not finished", "too long", "time limit", "still running", "no output for", "xceeded the"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// failureWords: a check of the agent's own printed that it failed.
var failureWords = [...]string{"FAIL", "AssertionError", "assert ", "Mismatch", "mismatch", "MISMATCH", "expected ", "Expected "}

func saysFailure(out string) bool {
	t := tailOf(out, outTail)
	for _, w := range failureWords {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

func clipLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s = strings.TrimSpace(s)
	if len(s) > 160 {
		cut := 160
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
