package ingest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// trialRewards is the verifier's score of a trial and the file it came
// from (relative to the trial folder).
type trialRewards struct {
	values map[string]float64
	source string
}

// full says the score is a full one: the "reward" when there is one, else
// every reward named. A reward of 0.55 of 1 is not.
func (r *trialRewards) full() bool {
	if v, ok := r.values["reward"]; ok {
		return v >= 1
	}
	for _, v := range r.values {
		if v < 1 {
			return false
		}
	}
	return len(r.values) > 0
}

func (r *trialRewards) String() string {
	keys := make([]string, 0, len(r.values))
	for k := range r.values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%s", k, strconv.FormatFloat(r.values[k], 'g', -1, 64)))
	}
	return strings.Join(parts, " ")
}

// numericRewards keeps the numeric values of a rewards object, as
// Harbor's verifier does.
func numericRewards(m map[string]json.RawMessage) map[string]float64 {
	out := map[string]float64{}
	for k, raw := range m {
		var v float64
		if json.Unmarshal(raw, &v) == nil {
			out[k] = v
		}
	}
	return out
}

// findTrialRewards reads the score: result.json's rewards, then the
// verifier's reward.json and reward.txt, then the last line of
// rewards.jsonl that names one. Nil when the trial was never scored.
func findTrialRewards(dir string, res *trialResult) *trialRewards {
	if res.VerifierResult != nil && len(res.VerifierResult.Rewards) > 0 {
		if v := numericRewards(res.VerifierResult.Rewards); len(v) > 0 {
			return &trialRewards{v, filepath.Base(trialResultPath(dir))}
		}
	}
	if len(res.Rewards) > 0 {
		if v := numericRewards(res.Rewards); len(v) > 0 {
			return &trialRewards{v, filepath.Base(trialResultPath(dir))}
		}
	}
	if data, err := readSmall(filepath.Join(dir, "verifier", "reward.json")); err == nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) == nil {
			if v := numericRewards(m); len(v) > 0 {
				return &trialRewards{v, "verifier/reward.json"}
			}
		}
	}
	if data, err := readSmall(filepath.Join(dir, "verifier", "reward.txt")); err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 64); err == nil {
			return &trialRewards{map[string]float64{"reward": v}, "verifier/reward.txt"}
		}
	}
	for _, p := range []string{"rewards.jsonl", filepath.Join("verifier", "rewards.jsonl")} {
		if r := lastRewardLine(filepath.Join(dir, p)); r != nil {
			r.source = filepath.ToSlash(p)
			return r
		}
	}
	return nil
}

// lastRewardLine reads the last line of a rewards.jsonl that carries a
// score: {"reward": x} or {"rewards": {…}}.
func lastRewardLine(p string) *trialRewards {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var last *trialRewards
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l struct {
			Reward  json.RawMessage            `json:"reward"`
			Rewards map[string]json.RawMessage `json:"rewards"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		if v := numericRewards(l.Rewards); len(v) > 0 {
			last = &trialRewards{values: v}
		} else if v := numericRewards(map[string]json.RawMessage{"reward": l.Reward}); len(v) > 0 {
			last = &trialRewards{values: v}
		}
	}
	return last
}

// ctrfReport is the part of a CTRF test report (verifier/ctrf.json) that
// names each test and how it ended.
type ctrfReport struct {
	Results struct {
		Summary struct {
			Tests  int `json:"tests"`
			Passed int `json:"passed"`
			Failed int `json:"failed"`
		} `json:"summary"`
		Tests []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"tests"`
	} `json:"results"`
}

// trialTimeoutAfter reads the cap out of Harbor's timeout message
// ("Agent execution timed out after 1800.0 seconds").
var trialTimeoutAfter = regexp.MustCompile(`after ([0-9]+(?:\.[0-9]+)?) seconds`)

// maxTestOutputTail bounds how much of the verifier's stdout is kept.
const maxTestOutputTail = 16 << 10

// applyTrialResult sets what the harness recorded: the verifier's
// outcome, how the run ended, and the agent's identity, tokens and time
// when the log did not say.
func applyTrialResult(t *triage.Trace, dir string, res *trialResult) {
	if res.AgentInfo != nil {
		t.Agent = nameOr(t.Agent, res.AgentInfo.Name)
		if res.AgentInfo.ModelInfo != nil && t.Model == "" {
			t.Model = res.AgentInfo.ModelInfo.Name
		}
	}
	if a := res.AgentResult; a != nil {
		if t.Tokens == nil && a.NInputTokens != nil && a.NOutputTokens != nil {
			t.Tokens = &triage.Tokens{Input: *a.NInputTokens, Output: *a.NOutputTokens}
		}
		if t.CostUSD == nil {
			t.CostUSD = a.CostUSD
		}
	}
	if t.Tokens == nil && res.TotalInputTokens != nil && res.TotalOutputTokens != nil {
		t.Tokens = &triage.Tokens{Input: *res.TotalInputTokens, Output: *res.TotalOutputTokens}
	}
	if e := res.AgentExecution; e != nil {
		if w := wallSpan(e.StartedAt, e.FinishedAt); w != nil {
			t.WallS = w
		}
	} else if w := wallSpan(res.AgentStartedAt, res.AgentEndedAt); w != nil {
		t.WallS = w
	}

	// How the run ended, in the harness's words.
	logStop := t.StopReason
	timedOut := false
	if e := res.ExceptionInfo; e != nil && e.Type != "" {
		t.StopReason = e.Type
		if e.Type == "AgentTimeoutError" {
			timedOut = true
			if m := trialTimeoutAfter.FindStringSubmatch(e.Message); m != nil {
				if v, err := strconv.ParseFloat(m[1], 64); err == nil {
					t.WallCap = &v
				}
			}
		}
	}
	switch fm := res.FailureMode; fm {
	case "", "unset", "none":
	default:
		t.StopReason = fm
		timedOut = timedOut || fm == "agent_timeout"
	}
	var errText string
	if json.Unmarshal(res.Error, &errText) == nil && errText != "" && t.StopReason == "" {
		t.StopReason = firstLine(errText)
	}
	if timedOut && logFinished(logStop, t) {
		// A harness timeout record contradicted by the log: the agent
		// submitted normally (its closing record says so and it ended
		// on an answer, not inside a call), and the harness's clock ran
		// out while it tore down. The log decides (DESIGN §7).
		timedOut = false
		t.StopReason = logStop + " (the harness recorded " + t.StopReason + ", but the log ends in a normal submit)"
	}
	if !res.read && !timedOut && t.StopReason == "" && trialLogCut(t) {
		// No record of how it ended, and the agent's log stops inside a
		// tool call: the harness kills an agent at its timeout (DESIGN
		// §7's evidence of a cap when there is no exit record).
		timedOut = true
		t.StopReason = "the agent's log ends inside a tool call with no result and no answer (killed at the harness's limit)"
	}
	if timedOut {
		// A budget kill is how the run stopped, not its outcome: that is
		// the verifier's, which scores a killed run too.
		t.Timeout = ptr(true)
	}
	if t.Outcome == triage.OutcomeIncomplete && t.Timeout != nil && *t.Timeout {
		// The agent's own log said incomplete because it was killed (an
		// ACP agent_timeout, a Codex turn cut off): the same stop
		// reason, and the outcome is left to the verifier below.
		t.Outcome = triage.OutcomeUnknown
	}

	// The verifier's verdict.
	var b strings.Builder
	rep := &triage.ScorerReport{}
	scored := false
	if r := findTrialRewards(dir, res); r != nil {
		scored = true
		rep.Source = filepath.Join(dir, filepath.FromSlash(r.source))
		fmt.Fprintf(&b, "verifier: %s (%s)", r, r.source)
		if r.full() {
			t.ExitCode = ptr(0)
			b.WriteString(": full score\n")
		} else {
			t.ExitCode = ptr(1)
			b.WriteString(": not a full score\n")
		}
	} else if res.IsResolved != nil {
		scored = true
		rep.Source = trialResultPath(dir)
		fmt.Fprintf(&b, "Terminal-Bench: is_resolved=%t\n", *res.IsResolved)
		t.ExitCode = ptr(1)
		if *res.IsResolved {
			t.ExitCode = ptr(0)
		}
	}
	var ctrf ctrfReport
	ctrfOK := false
	if data, err := readSmall(filepath.Join(dir, "verifier", "ctrf.json")); err == nil && json.Unmarshal(data, &ctrf) == nil {
		ctrfOK = ctrf.Results.Summary.Tests > 0 || len(ctrf.Results.Tests) > 0
	}
	if !scored && ctrfOK {
		// No reward was written (a run whose result.json is missing):
		// the verifier's test report is its verdict, green only when
		// every test it ran passed, as Harbor's test scripts reward.
		scored = true
		rep.Source = filepath.Join(dir, "verifier", "ctrf.json")
		green := ctrfGreen(&ctrf)
		fmt.Fprintf(&b, "verifier: no reward recorded; the test report (verifier/ctrf.json) is the verdict: %s\n", map[bool]string{true: "every test passed", false: "not every test passed"}[green])
		t.ExitCode = ptr(1)
		if green {
			t.ExitCode = ptr(0)
		}
	}
	if !scored {
		return
	}
	// The scorer's verdict is the outcome, whatever stopped the agent.
	t.Outcome = triage.OutcomeFailed
	if *t.ExitCode == 0 {
		t.Outcome = triage.OutcomeSuccess
	}
	if ctrfOK {
		s := ctrf.Results.Summary
		fmt.Fprintf(&b, "tests (verifier/ctrf.json): %d passed, %d failed of %d\n", s.Passed, s.Failed, s.Tests)
		for _, tc := range ctrf.Results.Tests {
			switch tc.Status {
			case "passed":
				rep.FailToPass.Passed = append(rep.FailToPass.Passed, tc.Name)
			case "skipped", "pending":
			default:
				rep.FailToPass.Failed = append(rep.FailToPass.Failed, tc.Name)
				fmt.Fprintf(&b, "  FAILED %s\n", tc.Name)
			}
		}
	} else if len(res.ParserResults) > 0 {
		names := make([]string, 0, len(res.ParserResults))
		for n := range res.ParserResults {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if res.ParserResults[n] == "passed" {
				rep.FailToPass.Passed = append(rep.FailToPass.Passed, n)
			} else {
				rep.FailToPass.Failed = append(rep.FailToPass.Failed, n)
				fmt.Fprintf(&b, "  FAILED %s\n", n)
			}
		}
	}
	// What the scorer printed: its last bytes, escape sequences
	// stripped (Terminal-Bench's tests.log is a terminal recording), read
	// through in bounded memory however long it is.
	for _, name := range []string{filepath.Join("verifier", "test-stdout.txt"), filepath.Join("sessions", "tests.log"), "post-test.txt", filepath.Join("panes", "post-test.txt")} {
		if c, ok := readCaptureFile(filepath.Join(dir, name), maxTestOutputTail); ok && strings.TrimSpace(c.Text) != "" {
			fmt.Fprintf(&b, "--- %s ---\n%s", filepath.ToSlash(name), c.Text)
			break
		}
	}
	t.TestOutput = ptr(b.String())
	t.Scorer = rep
}

// ctrfGreen says a CTRF report passed: it ran tests and none failed
// (skipped and pending ones aside).
func ctrfGreen(c *ctrfReport) bool {
	s := c.Results.Summary
	if len(c.Results.Tests) == 0 {
		return s.Tests > 0 && s.Failed == 0 && s.Passed > 0
	}
	passed := 0
	for _, tc := range c.Results.Tests {
		switch tc.Status {
		case "passed":
			passed++
		case "skipped", "pending":
		default:
			return false
		}
	}
	return passed > 0
}

// trialLogCut reports whether the agent's log stops inside a tool call:
// its last call has no output, no error and no exit code, and no answer
// or closing record followed it.
func trialLogCut(t *triage.Trace) bool {
	n := len(t.ToolCalls)
	if n == 0 || (t.Answer != nil && strings.TrimSpace(*t.Answer) != "") {
		return false
	}
	c := &t.ToolCalls[n-1]
	return c.Output == "" && c.Error == "" && c.ExitCode == nil
}

// logFinishWords are the closing records agents write when they end on
// their own: Claude Code's result "success", SWE-agent's and
// mini-swe-agent's "submitted", a model's "end_turn".
var logFinishWords = map[string]bool{"success": true, "submitted": true, "end_turn": true, "completed": true, "finished": true}

// logFinished reports whether the agent's log ends in a normal submit:
// its own stop reason is a finish word and it does not stop inside a
// tool call.
func logFinished(stop string, t *triage.Trace) bool {
	return logFinishWords[strings.ToLower(strings.TrimSpace(stop))] && !trialLogCut(t)
}
