package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// ohOutput is one line of an OpenHands evaluation output.jsonl.
type ohOutput struct {
	InstanceID string `json:"instance_id"`
	TestResult *struct {
		GitPatch *string `json:"git_patch"`
		Report   *struct {
			Resolved *bool `json:"resolved"`
		} `json:"report"`
	} `json:"test_result"`
	Instruction string `json:"instruction"`
	Metadata    *struct {
		AgentClass string `json:"agent_class"`
		LLMConfig  *struct {
			Model string `json:"model"`
		} `json:"llm_config"`
	} `json:"metadata"`
	History []json.RawMessage `json:"history"`
	Metrics *struct {
		AccumulatedCost       *float64  `json:"accumulated_cost"`
		AccumulatedTokenUsage *ohUsage  `json:"accumulated_token_usage"`
		TokenUsages           []ohUsage `json:"token_usages"`
	} `json:"metrics"`
	Error  *string `json:"error"`
	Report *struct {
		Resolved *bool `json:"resolved"`
	} `json:"report"`
}

// decodeOpenHandsOutput reads output.jsonl, one trace a line.
func decodeOpenHandsOutput(ctx context.Context, src Source, emit func(Record) error) error {
	return eachLine(ctx, src, func(n int, line []byte, last bool, lineErr error) error {
		if lineErr != nil {
			return emit(lineReject(src, n, line, "%v", lineErr))
		}
		var o ohOutput
		if err := json.Unmarshal(line, &o); err != nil {
			return emit(lineReject(src, n, line, "%s", lineJSONReason(line, err, last)))
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
	if o.InstanceID == "" {
		return nil, "instance_id: missing"
	}
	b := newOHBuilder(src)
	if o.Instruction != "" {
		b.t.Messages = append(b.t.Messages, triage.Message{Role: "user", Content: o.Instruction})
	}
	for _, h := range o.History {
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
	t.TaskID = o.InstanceID
	t.RunID = runFromDir(src, "")
	if m := o.Metadata; m != nil {
		if m.LLMConfig != nil && m.LLMConfig.Model != "" {
			t.Model = m.LLMConfig.Model
		}
		t.Agent = m.AgentClass
	}
	if m := o.Metrics; m != nil {
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
	if o.Report != nil && o.Report.Resolved != nil {
		t.ExitCode = ptr(1)
		if *o.Report.Resolved {
			t.ExitCode = ptr(0)
		}
	}
	if o.Error != nil && *o.Error != "" {
		t.Outcome, t.Timeout = ohErrorOutcome(*o.Error)
	}
	return t, ""
}

// ohErrorOutcome maps the run's error text: a timeout or an exhausted
// budget (iterations, cost) is a budget kill (incomplete, Timeout); any
// other error crashed the run (failed).
func ohErrorOutcome(msg string) (triage.Outcome, *bool) {
	l := strings.ToLower(msg)
	for _, w := range []string{"timeout", "timed out", "maximum iteration", "max_iterations", "budget", "exceeded"} {
		if strings.Contains(l, w) {
			return triage.OutcomeIncomplete, ptr(true)
		}
	}
	return triage.OutcomeFailed, ptr(false)
}
