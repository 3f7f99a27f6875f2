package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// AiderResultsName is what aider's benchmark harness (benchmark/benchmark.py)
// writes beside each exercise's chat history, in
// tmp.benchmarks/<run>/<language>/exercises/practice/<exercise>/: one
// outcome per try in tests_outcomes (the tries stop at the first pass, so
// the exercise passed when the last is true), the cost, duration and
// tokens of the whole exercise, or {"exception": …} when the harness
// crashed. The tests it runs are the exercise's own, copied in afresh
// before each run, so no edit of the agent's can change what scored it.
const AiderResultsName = ".aider.results.json"

// aiderResults is the part of .aider.results.json triage reads.
type aiderResults struct {
	Testcase         string     `json:"testcase"`
	Model            string     `json:"model"`
	TestsOutcomes    []aiderTry `json:"tests_outcomes"`
	Cost             *float64   `json:"cost"`
	Duration         *float64   `json:"duration"`
	TestTimeouts     int        `json:"test_timeouts"`
	PromptTokens     *int64     `json:"prompt_tokens"`
	CompletionTokens *int64     `json:"completion_tokens"`
	Exception        *string    `json:"exception"`
}

// aiderTry is one try's outcome: true or false as the benchmark writes
// it, or 1 and 0 as some forks of it do.
type aiderTry bool

// UnmarshalJSON implements json.Unmarshaler.
func (a *aiderTry) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true", "1":
		*a = true
	case "false", "0":
		*a = false
	default:
		return fmt.Errorf("tests_outcomes: want true or false for each try, got %.40s", b)
	}
	return nil
}

// readAiderResults reads the results beside the history at path: nil
// when there are none, and a warning (through the import's Outcomes) when
// the file cannot be read or parsed, so the session still imports with an
// unknown outcome.
func readAiderResults(src Source, path string) *aiderResults {
	if path == "" {
		return nil
	}
	p := filepath.Join(filepath.Dir(path), AiderResultsName)
	data, err := readSmall(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			src.Opts.Outcomes.warnOnce(p, "cannot read: %v", pathErr(err))
		}
		return nil
	}
	var r aiderResults
	if err := json.Unmarshal(data, &r); err != nil {
		src.Opts.Outcomes.warnOnce(p, "%s; its outcome was not used", triage.DescribeJSONError(data, err))
		return nil
	}
	return &r
}

// applyAiderResults sets the outcome of an exercise's last session from
// its results: the exit code (0 when the last try passed), the scorer's
// word as test output, the exercise's cost, tokens and duration, and, in
// the benchmark's layout, the run and task (<language>/<exercise>, as
// exercise names repeat across languages).
// inBenchmark says the history sits in the benchmark's layout, which
// named the session already (startSession).
func applyAiderResults(t *triage.Trace, r *aiderResults, src Source, inBenchmark bool) {
	if !inBenchmark && r.Testcase != "" {
		// The older flat layout, <run>/<exercise>/: the results name the
		// exercise, and its folder's parent is the run.
		t.TaskID = r.Testcase
		if dir, err := filepath.Abs(filepath.Dir(src.Path)); err == nil && filepath.Base(dir) == r.Testcase && src.Opts.RunID == "" {
			if run := filepath.Base(filepath.Dir(dir)); run != "" && run != "." && run != string(filepath.Separator) {
				t.RunID = run
			}
		}
	}
	if r.Model != "" {
		t.Model = r.Model
	}
	if r.Cost != nil {
		t.CostUSD = r.Cost
	}
	if r.PromptTokens != nil || r.CompletionTokens != nil {
		var tok triage.Tokens
		if r.PromptTokens != nil {
			tok.Input = *r.PromptTokens
		}
		if r.CompletionTokens != nil {
			tok.Output = *r.CompletionTokens
		}
		t.Tokens = &tok
	}
	if r.Duration != nil {
		t.WallS = r.Duration
	}
	last, ran := takeHarnessRuns(t)
	if r.Exception != nil {
		t.Outcome = triage.OutcomeFailed
		t.StopReason = "the benchmark harness raised: " + lastLine(*r.Exception)
		return
	}
	n := len(r.TestsOutcomes)
	if n == 0 {
		return // --no-unit-tests: nothing scored it
	}
	passed := bool(r.TestsOutcomes[n-1])
	t.ExitCode = ptr(1)
	var out strings.Builder
	if passed {
		t.ExitCode = ptr(0)
		fmt.Fprintf(&out, "aider benchmark: the exercise's tests passed on try %d of %d", n, n)
	} else {
		fmt.Fprintf(&out, "aider benchmark: the exercise's tests failed on each of %d tries", n)
	}
	fmt.Fprintf(&out, " (from %s)\n", AiderResultsName)
	if r.TestTimeouts > 0 {
		fmt.Fprintf(&out, "%d test runs timed out\n", r.TestTimeouts)
	}
	sc := &triage.ScorerReport{Source: AiderResultsName, HarnessTests: true}
	if ran {
		out.WriteString("the last test run:\n")
		out.WriteString(last)
		out.WriteString("\n")
		if !passed {
			sc.FailToPass.Failed = failingTests(last)
		}
	}
	t.TestOutput = ptr(out.String())
	// The exercise's own tests, restored before each run: the agent's
	// edits cannot be what scored it.
	t.Scorer = sc
}

// takeHarnessRuns takes the benchmark's test runs out of the messages:
// the harness appends each run's output to the history as a bare fenced
// block after aider's own lines, which reads as an assistant message of
// that block alone. It returns the last run's output.
func takeHarnessRuns(t *triage.Trace) (string, bool) {
	var last string
	found := false
	kept := t.Messages[:0]
	for _, m := range t.Messages {
		if body, ok := bareFence(m); ok {
			last, found = body, true
			continue
		}
		kept = append(kept, m)
	}
	t.Messages = kept
	return last, found
}

// bareFence reads an assistant message that is one fenced block with no
// language: a harness's test output, not the model's words (the model's
// code blocks name their language, and come with its prose).
func bareFence(m triage.Message) (string, bool) {
	if m.Role != "assistant" {
		return "", false
	}
	c := strings.TrimSpace(m.Content)
	body, ok := strings.CutPrefix(c, "```\n")
	if !ok {
		return "", false
	}
	body, closed := strings.CutSuffix(body, "\n```")
	if !closed || strings.Contains(body, "\n```") {
		return "", false
	}
	return body, true
}

// failingTestLines read a failing test's id from the runners aider's
// benchmark uses: pytest, go test, cargo test, Gradle, and Jest.
var failingTestLines = []*regexp.Regexp{
	regexp.MustCompile(`^(?:FAILED|ERROR) (\S+::\S+)`),
	regexp.MustCompile(`^\s*--- FAIL: (\S+)`),
	regexp.MustCompile(`^test (\S+) \.\.\. FAILED$`),
	regexp.MustCompile(`^(\S+ > \S.*?) FAILED$`),
	regexp.MustCompile(`^\s*✕ (.+?)(?: \(\d+ ms\))?$`),
}

// failingTests lists the failing tests a run's output names, once each,
// in order; none when no runner's line is recognised.
func failingTests(out string) []string {
	var ids []string
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		for _, re := range failingTestLines {
			if m := re.FindStringSubmatch(strings.TrimRight(l, "\r")); m != nil && !seen[m[1]] {
				seen[m[1]] = true
				ids = append(ids, m[1])
				break
			}
		}
	}
	return ids
}

// aiderPlace is an exercise's place in aider's benchmark: its run and
// its task, <language>/<exercise>.
type aiderPlace struct{ run, task string }

// aiderBenchmarkPlace reads <run>/<language>/exercises/practice/<exercise>
// from the directory of the history at path; nil when it is not there.
func aiderBenchmarkPlace(path string) *aiderPlace {
	if path == "" {
		return nil
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil
	}
	exercise := filepath.Base(dir)
	practice := filepath.Dir(dir)
	exercises := filepath.Dir(practice)
	if filepath.Base(practice) != "practice" || filepath.Base(exercises) != "exercises" {
		return nil
	}
	langDir := filepath.Dir(exercises)
	lang, run := filepath.Base(langDir), filepath.Base(filepath.Dir(langDir))
	if lang == "" || run == "" || run == string(filepath.Separator) || run == "." {
		return nil
	}
	return &aiderPlace{run: run, task: lang + "/" + exercise}
}

// lastLine is the last non-blank line of s (a traceback's exception).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
