package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// ohOutput is one line of an OpenHands evaluation output.jsonl.
type ohOutput struct {
	InstanceID  string            `json:"instance_id"`
	TestResult  *ohTestResult     `json:"test_result"`
	Instruction string            `json:"instruction"`
	Metadata    *ohMetadata       `json:"metadata"`
	History     []json.RawMessage `json:"history"`
	// Metrics is an object, or (in the resolver's output) a JSON string
	// holding one.
	Metrics json.RawMessage `json:"metrics"`
	Error   *string         `json:"error"`
	Report  *ohReport       `json:"report"`

	// The resolver's output (openhands/resolver/resolver_output.py) names
	// an issue instead of an instance and keeps the patch at the top.
	Issue     json.RawMessage `json:"issue"`
	PRReview  json.RawMessage `json:"pr_review"`
	IssueType string          `json:"issue_type"`
	GitPatch  json.RawMessage `json:"git_patch"`
	// Success is the resolver's LLM judge, not a test run: it stays out
	// of the exit code and is kept in Raw only.
	Success *bool `json:"success"`

	// events are History's events when the fast path read them
	// (eventsSet): an element's pair of events comes flattened.
	events    []ohEvent
	eventsSet bool
}

type ohTestResult struct {
	GitPatch *string   `json:"git_patch"`
	Report   *ohReport `json:"report"`
}

type ohReport struct {
	Resolved *bool `json:"resolved"`
}

type ohMetadata struct {
	AgentClass string       `json:"agent_class"`
	LLMConfig  *ohLLMConfig `json:"llm_config"`
}

type ohLLMConfig struct {
	Model string `json:"model"`
}

type ohMetrics struct {
	AccumulatedCost       *float64  `json:"accumulated_cost"`
	AccumulatedTokenUsage *ohUsage  `json:"accumulated_token_usage"`
	TokenUsages           []ohUsage `json:"token_usages"`
}

// ohIssue is the resolver's GithubIssue.
type ohIssue struct {
	Owner  string `json:"owner"`
	Repo   string `json:"repo"`
	Number int64  `json:"number"`
}

// unmarshalLoose decodes raw into v, also when raw is a JSON string that
// holds the value's JSON (the resolver writes some fields encoded twice).
func unmarshalLoose(raw json.RawMessage, v any) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		if sp, ok := v.(*string); ok {
			*sp = unwrapString(*sp)
		}
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return err
	}
	if json.Unmarshal([]byte(s), v) != nil {
		return err
	}
	return nil
}

// unwrapString returns the text a JSON-encoded string holds, or s.
func unwrapString(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	var inner string
	if json.Unmarshal([]byte(s), &inner) != nil {
		return s
	}
	return inner
}

// resolverTaskID names a resolver issue the SWE-bench way,
// owner__repo-number.
func resolverTaskID(o *ohOutput) string {
	raw := o.Issue
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = o.PRReview
	}
	var is ohIssue
	if unmarshalLoose(raw, &is) != nil || is.Repo == "" {
		return ""
	}
	id := is.Repo + "-" + strconv.FormatInt(is.Number, 10)
	if is.Owner != "" {
		id = is.Owner + "__" + id
	}
	return id
}

// decodeOpenHandsOutput reads output.jsonl, one trace a line.
func decodeOpenHandsOutput(ctx context.Context, src Source, emit func(Record) error) error {
	d := getJdoc()
	defer putJdoc(d)
	return eachLineWhole(ctx, src, func(n int, line []byte, last bool, lineErr error) error {
		if lineErr != nil {
			return emit(lineReject(src, n, line, "%v", lineErr))
		}
		var o ohOutput
		if src.Opts.slowOnly || !d.ohOutputLine(line, &o) {
			// The slow path, which also words any error.
			o = ohOutput{}
			if err := json.Unmarshal(line, &o); err != nil {
				return emit(lineReject(src, n, line, "%s", lineJSONReason(line, err, last)))
			}
		}
		t, reason := ohOutputTrace(src, &o)
		if t == nil {
			return emit(lineReject(src, n, line, "%s", reason))
		}
		if len(line) <= HarnessRawLimit {
			t.Raw = append([]byte(nil), line...)
		}
		return emit(Record{Line: n, Trace: t})
	})
}

func ohOutputTrace(src Source, o *ohOutput) (*triage.Trace, string) {
	task := o.InstanceID
	if task == "" {
		task = resolverTaskID(o)
	}
	if task == "" && (len(o.Issue) > 0 || len(o.PRReview) > 0) {
		return nil, "issue: want an object (or a JSON string holding one) with repo and number"
	}
	if task == "" {
		return nil, "instance_id: missing"
	}
	o.Instruction = unwrapString(o.Instruction)
	b := newOHBuilder(src)
	if o.Instruction != "" {
		addMessage(b.t, "user", o.Instruction)
	}
	for _, e := range o.events {
		b.add(e)
	}
	for _, h := range o.History {
		if o.eventsSet {
			break
		}
		h = bytes.TrimSpace(h)
		// Older runs store [action, observation] pairs.
		if len(h) > 0 && h[0] == '[' {
			var pair []ohEvent
			if err := json.Unmarshal(h, &pair); err != nil {
				return nil, "history: " + triage.DescribeJSONError(nil, err)
			}
			for _, e := range pair {
				b.add(e)
			}
			continue
		}
		var e ohEvent
		if err := json.Unmarshal(h, &e); err != nil {
			return nil, "history: " + triage.DescribeJSONError(nil, err)
		}
		b.add(e)
	}
	t := b.finish()
	t.TaskID = task
	t.RunID = runFromDir(src, "")
	if m := o.Metadata; m != nil {
		if m.LLMConfig != nil && m.LLMConfig.Model != "" {
			t.Model = m.LLMConfig.Model
		}
		t.Agent = m.AgentClass
	}
	var m *ohMetrics
	if len(o.Metrics) > 0 && string(o.Metrics) != "null" {
		m = new(ohMetrics)
		if err := unmarshalLoose(o.Metrics, m); err != nil {
			return nil, "metrics: " + triage.DescribeJSONError(nil, err)
		}
	}
	if m != nil {
		t.CostUSD = m.AccumulatedCost
		switch {
		case m.AccumulatedTokenUsage != nil:
			t.Tokens = &triage.Tokens{Input: m.AccumulatedTokenUsage.PromptTokens, Output: m.AccumulatedTokenUsage.CompletionTokens}
		case len(m.TokenUsages) > 0:
			var tok triage.Tokens
			for _, u := range m.TokenUsages {
				tok.Input += u.PromptTokens
				tok.Output += u.CompletionTokens
			}
			t.Tokens = &tok
		}
	}
	if tr := o.TestResult; tr != nil {
		if tr.GitPatch != nil && strings.TrimSpace(*tr.GitPatch) != "" {
			t.Diff = ptr(strings.TrimLeft(*tr.GitPatch, "\r\n"))
		}
		if tr.Report != nil && o.Report == nil {
			o.Report = tr.Report
		}
	}
	if t.Diff == nil && len(o.GitPatch) > 0 {
		var p string
		if err := unmarshalLoose(o.GitPatch, &p); err != nil {
			return nil, "git_patch: " + triage.DescribeJSONError(nil, err)
		}
		// Older resolvers captured the patch through a terminal, which
		// turns every newline into CRLF; then the patch itself has LF.
		if n := strings.Count(p, "\n"); n > 0 && strings.Count(p, "\r\n") == n {
			p = strings.ReplaceAll(p, "\r\n", "\n")
		}
		if strings.TrimSpace(p) != "" {
			t.Diff = ptr(strings.TrimLeft(p, "\n"))
		}
	}
	if o.Error != nil && *o.Error != "" {
		logStop := t.StopReason
		t.Outcome, t.Timeout = ohErrorOutcome(*o.Error)
		t.StopReason = strings.TrimSpace(*o.Error)
		if *t.Timeout && logStop == "finish" {
			// A budget error the log contradicts: the agent's last
			// action was its finish, so the cap did not end the run. The
			// log decides (DESIGN §7), as for a trial.
			t.Timeout = ptr(false)
			t.StopReason = "finish (the harness recorded " + firstLine(t.StopReason) + ", but the log ends in the agent's finish)"
		}
	}
	// The scorer's verdict, after the error: it is the outcome whatever
	// stopped the agent.
	switch {
	case o.Report != nil && o.Report.Resolved != nil:
		t.ExitCode = ptr(1)
		if *o.Report.Resolved {
			t.ExitCode = ptr(0)
		}
		scorerOutcome(t)
	case o.InstanceID != "":
		// A benchmark instance with no verdict of its own: the scored copy
		// beside output.jsonl, or the SWE-bench reports of its run.
		addSWEReport(src, t)
	}
	return t, ""
}

// ohErrorOutcome maps the run's error text: a timeout or an exhausted
// budget (iterations, cost) is a budget kill (Timeout), its outcome the
// scorer's (unknown without an eval report: ponyc-4588 of the real
// Multi-SWE-bench log was counted a fail as "incomplete"); any other
// error crashed the run (failed).
func ohErrorOutcome(msg string) (triage.Outcome, *bool) {
	l := strings.ToLower(msg)
	for _, w := range []string{"timeout", "timed out", "maximum iteration", "max_iterations", "budget", "exceeded"} {
		if strings.Contains(l, w) {
			return triage.OutcomeUnknown, ptr(true)
		}
	}
	return triage.OutcomeFailed, ptr(false)
}
