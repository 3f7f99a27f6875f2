package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// InspectFormat reads Inspect AI eval logs: the .json EvalLog (streamed, one
// sample at a time) and the .eval zip. Each sample and epoch is one trace:
// TaskID is "<task>:<sample id>", Seed is epoch-1 (Inspect counts epochs
// from 1, our seeds from 0). Raw is the sample's own JSON when it is under
// HarnessRawLimit.
var InspectFormat = Format{Name: nameInspect, Wants: "a .eval zip, or a JSON object with version, eval and samples (an Inspect log)", Detect: detectInspect, Decode: decodeInspect}

// zipMagic starts every zip archive (a local file header).
var zipMagic = []byte("PK\x03\x04")

func detectInspect(name string, head []byte) bool {
	if bytes.HasPrefix(head, zipMagic) {
		return strings.HasSuffix(name, ".eval") || bytes.Contains(head, []byte("_journal/")) ||
			bytes.Contains(head, []byte("header.json")) || bytes.Contains(head, []byte("samples/"))
	}
	t := trimHead(head)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	ks := keySet(headObjectKeys(t))
	v, ok := ks["version"]
	if !ok || v.Kind < '0' || v.Kind > '9' {
		return false
	}
	e, ok := ks["eval"]
	return ok && e.Kind == '{'
}

func decodeInspect(ctx context.Context, src Source, emit func(Record) error) error {
	br, head, err := peekReader(src.R, len(zipMagic))
	if err != nil {
		return &HarnessError{File: src.Name, Err: err}
	}
	src.R = br
	if bytes.Equal(head, zipMagic) {
		return decodeInspectEval(ctx, src, emit)
	}
	return decodeInspectJSON(ctx, src, emit)
}

// inspectHeader is the part of an EvalLog every sample's trace needs.
type inspectHeader struct {
	Eval struct {
		RunID string `json:"run_id"`
		Task  string `json:"task"`
		Model string `json:"model"`
	} `json:"eval"`
}

type inspectError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func (e *inspectError) String() string {
	if e == nil {
		return ""
	}
	if e.Type == "" {
		return e.Message
	}
	if e.Message == "" {
		return e.Type
	}
	return e.Type + ": " + e.Message
}

type inspectToolCall struct {
	ID         string          `json:"id"`
	Function   string          `json:"function"`
	Arguments  json.RawMessage `json:"arguments"`
	ParseError *string         `json:"parse_error"`
}

type inspectMessage struct {
	Role       string            `json:"role"`
	Content    json.RawMessage   `json:"content"`
	ToolCalls  []inspectToolCall `json:"tool_calls"`
	ToolCallID json.RawMessage   `json:"tool_call_id"`
	Function   string            `json:"function"`
	Error      *inspectError     `json:"error"`
}

type inspectEvent struct {
	Event       string          `json:"event"`
	Timestamp   string          `json:"timestamp"`
	ID          string          `json:"id"`
	Function    string          `json:"function"`
	Arguments   json.RawMessage `json:"arguments"`
	Result      json.RawMessage `json:"result"`
	Error       *inspectError   `json:"error"`
	WorkingTime *float64        `json:"working_time"`
	Type        string          `json:"type"`
	Message     string          `json:"message"`
	// span_begin names its span; sandbox events say what ran (action
	// "exec", result the exit code); older tool events nest theirs.
	SpanID string         `json:"span_id"`
	Name   string         `json:"name"`
	Action string         `json:"action"`
	Events []inspectEvent `json:"events"`
}

type inspectScore struct {
	Value       json.RawMessage `json:"value"`
	Answer      json.RawMessage `json:"answer"`
	Explanation json.RawMessage `json:"explanation"`
}

type inspectUsage struct {
	InputTokens  int64    `json:"input_tokens"`
	OutputTokens int64    `json:"output_tokens"`
	TotalCost    *float64 `json:"total_cost"`
}

type inspectSample struct {
	ID       json.RawMessage  `json:"id"`
	Epoch    int              `json:"epoch"`
	Messages []inspectMessage `json:"messages"`
	Output   *struct {
		Model   string `json:"model"`
		Choices []struct {
			Message inspectMessage `json:"message"`
		} `json:"choices"`
	} `json:"output"`
	Scores     map[string]inspectScore `json:"scores"`
	Events     []inspectEvent          `json:"events"`
	Transcript *struct {
		Events []inspectEvent `json:"events"`
	} `json:"transcript"`
	ModelUsage map[string]inspectUsage `json:"model_usage"`
	TotalTime  *float64                `json:"total_time"`
	Error      *inspectError           `json:"error"`
	Limit      *struct {
		Type string `json:"type"`
	} `json:"limit"`
	Attachments map[string]string `json:"attachments"`
}

// inspectTrace turns one raw sample into a trace, or says why it cannot.
func inspectTrace(src Source, hdr *inspectHeader, raw []byte) (*triage.Trace, error) {
	var s inspectSample
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	id := strings.Trim(string(bytes.TrimSpace(s.ID)), `"`)
	if id == "" || id == "null" {
		return nil, fmt.Errorf("sample has no id")
	}
	t := newHarnessTrace(nameInspect, src)
	task := hdr.Eval.Task
	if task == "" {
		task = harnessStem(fileName(src))
	}
	t.TaskID = task + ":" + id
	t.Seed = max(s.Epoch-1, 0)
	t.RunID = src.Opts.RunID
	if t.RunID == "" {
		t.RunID = hdr.Eval.RunID
	}
	if t.RunID == "" {
		t.RunID = nameOr(harnessStem(fileName(src)), "stdin")
	}
	switch {
	case hdr.Eval.Model != "":
		t.Model = hdr.Eval.Model
	case s.Output != nil && s.Output.Model != "":
		t.Model = s.Output.Model
	}
	res := attachmentResolver(s.Attachments)
	for _, m := range s.Messages {
		if m.Role == "tool" || m.Role == "system" {
			continue
		}
		if text := res.text(contentText(m.Content)); strings.TrimSpace(text) != "" {
			addMessage(t, m.Role, text)
		}
	}
	events := s.Events
	if len(events) == 0 && s.Transcript != nil {
		events = s.Transcript.Events
	}
	t.ToolCalls = inspectToolCalls(events, s.Messages, res)
	limited := s.Limit != nil
	if s.Limit != nil {
		t.StopReason = s.Limit.Type
	}
	for _, e := range events {
		if e.Event == "sample_limit" {
			limited = true
			if t.StopReason == "" {
				t.StopReason = e.Type
			}
		}
	}
	if s.Error != nil && t.StopReason == "" {
		t.StopReason = "error"
	}
	if s.Output != nil && len(s.Output.Choices) > 0 {
		t.Answer = nonEmpty(res.text(contentText(s.Output.Choices[0].Message.Content)))
	}
	inspectUsageInto(t, s.ModelUsage)
	t.WallS = s.TotalTime
	inspectScoresInto(t, s.Scores, res)
	t.Timeout = ptr(limited)
	switch {
	case t.ExitCode != nil:
		// Scored: the scorer's verdict, even after a limit ended the
		// sample (the limit is the stop reason).
		scorerOutcome(t)
	case s.Error != nil:
		t.Outcome = triage.OutcomeFailed
	}
	if len(raw) <= HarnessRawLimit {
		t.Raw = append([]byte(nil), raw...)
	}
	return t, nil
}

// inspectToolCalls prefers tool events (they carry timing and errors);
// logs without them give the assistant tool_calls joined to tool messages.
func inspectToolCalls(events []inspectEvent, msgs []inspectMessage, res resolver) []triage.ToolCall {
	var calls []triage.ToolCall
	execs := inspectSpanExecs(events)
	var toolSpan inspectEvent // the last tool span begun, not yet claimed
	for _, e := range events {
		if e.Event == "span_begin" && e.Type == "tool" {
			toolSpan = e
			continue
		}
		if e.Event != "tool" {
			continue
		}
		c := triage.ToolCall{
			Name: nameOr(e.Function, "tool"), Args: res.json(argsJSON(e.Arguments)),
			Output: res.text(contentText(e.Result)), Error: e.Error.String(),
			WallS: e.WorkingTime, TS: e.Timestamp,
		}
		// The exit code is the one command the tool ran in the sandbox
		// (bash, python): inside its span, or nested in older logs. A tool
		// that ran several (the browser's plumbing) has no single code.
		var nested []*int
		for _, codes := range inspectSpanExecs(e.Events) {
			nested = append(nested, codes...)
		}
		switch {
		case len(nested) == 1:
			c.ExitCode = nested[0]
		case toolSpan.ID != "" && toolSpan.Name == e.Function && len(execs[toolSpan.ID]) == 1:
			c.ExitCode = execs[toolSpan.ID][0]
		}
		toolSpan = inspectEvent{}
		calls = append(calls, c)
	}
	if len(calls) > 0 {
		return calls
	}
	byID := map[string]int{}
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			for _, tc := range m.ToolCalls {
				byID[tc.ID] = len(calls)
				c := triage.ToolCall{Name: nameOr(tc.Function, "tool"), Args: res.json(argsJSON(tc.Arguments))}
				if tc.ParseError != nil {
					c.Error = "parsing: " + *tc.ParseError
				}
				calls = append(calls, c)
			}
		case "tool":
			i, ok := byID[toolCallID(m.ToolCallID)]
			if !ok {
				// A result with no recorded call (the anonymised fixture
				// has these) is still a tool call that happened.
				i = len(calls)
				calls = append(calls, triage.ToolCall{Name: nameOr(m.Function, "tool")})
			}
			calls[i].Output = res.text(contentText(m.Content))
			if e := m.Error.String(); e != "" {
				calls[i].Error = e
			}
		}
	}
	return calls
}

// inspectSpanExecs lists the exit codes of sandbox exec events by span
// ("" for events outside spans, as nested in an older tool event).
func inspectSpanExecs(events []inspectEvent) map[string][]*int {
	var m map[string][]*int
	for _, e := range events {
		if e.Event != "sandbox" || e.Action != "exec" {
			continue
		}
		var code int
		if json.Unmarshal(e.Result, &code) != nil {
			continue
		}
		if m == nil {
			m = map[string][]*int{}
		}
		span := e.SpanID
		m[span] = append(m[span], ptr(code))
	}
	return m
}

// toolCallID reads tool_call_id, a string or (on user messages) a list.
func toolCallID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var l []string
	if json.Unmarshal(raw, &l) == nil && len(l) > 0 {
		return l[0]
	}
	return ""
}

func inspectUsageInto(t *triage.Trace, usage map[string]inspectUsage) {
	if len(usage) == 0 {
		return
	}
	var tok triage.Tokens
	var cost float64
	anyCost := false
	models := make([]string, 0, len(usage))
	for m, u := range usage {
		models = append(models, m)
		tok.Input += u.InputTokens
		tok.Output += u.OutputTokens
		if u.TotalCost != nil {
			cost += *u.TotalCost
			anyCost = true
		}
	}
	t.Tokens = &tok
	if anyCost {
		t.CostUSD = &cost
	}
	if t.Model == "" {
		sort.Strings(models)
		t.Model = models[0]
	}
}

// inspectScoresInto sets the exit code from the scores: 0 when every
// scorer passed ("C", 1, true, or a dict of those), 1 when one did not,
// unknown when the sample was not scored. TestOutput lists each score.
func inspectScoresInto(t *triage.Trace, scores map[string]inspectScore, res resolver) {
	names := make([]string, 0, len(scores))
	for n := range scores {
		names = append(names, n)
	}
	sort.Strings(names)
	var out strings.Builder
	scored, pass := false, true
	for _, n := range names {
		sc := scores[n]
		p, ok := scorePasses(sc.Value)
		if !ok {
			continue
		}
		scored = true
		pass = pass && p
		fmt.Fprintf(&out, "%s: %s\n", n, bytes.TrimSpace(sc.Value))
		if ex := res.text(contentText(sc.Explanation)); ex != "" {
			fmt.Fprintf(&out, "  %s\n", strings.ReplaceAll(ex, "\n", "\n  "))
		}
	}
	if !scored {
		return
	}
	t.ExitCode = ptr(1)
	if pass {
		t.ExitCode = ptr(0)
	}
	t.TestOutput = ptr(out.String())
}

// scorePasses reads a score value; ok is false for a missing (null) one.
func scorePasses(v json.RawMessage) (pass, ok bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return false, false
	}
	var x any
	if json.Unmarshal(v, &x) != nil {
		return false, false
	}
	return valuePasses(x), true
}

func valuePasses(x any) bool {
	switch v := x.(type) {
	case string:
		return v == "C" || strings.EqualFold(v, "correct")
	case float64:
		return v == 1
	case bool:
		return v
	case map[string]any:
		if len(v) == 0 {
			return false
		}
		for _, e := range v {
			if !valuePasses(e) {
				return false
			}
		}
		return true
	}
	return false
}

var attachmentRef = regexp.MustCompile(`attachment://[0-9a-f]{32}`)

// resolver replaces "attachment://<hash>" references with the sample's
// attachment text.
type resolver map[string]string

func attachmentResolver(a map[string]string) resolver { return resolver(a) }

func (r resolver) text(s string) string {
	if len(r) == 0 || !strings.Contains(s, "attachment://") {
		return s
	}
	return attachmentRef.ReplaceAllStringFunc(s, func(ref string) string {
		if v, ok := r[strings.TrimPrefix(ref, "attachment://")]; ok {
			return v
		}
		return ref
	})
}

func (r resolver) json(raw json.RawMessage) json.RawMessage {
	if len(r) == 0 || !bytes.Contains(raw, []byte("attachment://")) {
		return raw
	}
	out := attachmentRef.ReplaceAllFunc(raw, func(ref []byte) []byte {
		if v, ok := r[strings.TrimPrefix(string(ref), "attachment://")]; ok {
			b, _ := json.Marshal(v)
			return b[1 : len(b)-1] // the reference sits inside a JSON string
		}
		return ref
	})
	if !json.Valid(out) {
		return raw
	}
	return out
}

// emitInspectSample converts one sample and emits its record.
func emitInspectSample(src Source, hdr *inspectHeader, n int, where string, raw []byte, emit func(Record) error) error {
	t, err := inspectTrace(src, hdr, raw)
	if err != nil {
		r := raw
		if len(r) > HarnessRawLimit {
			r = r[:HarnessRawLimit]
		}
		return emit(Record{Line: n, Reject: &Reject{File: src.Name, Line: n, Reason: fmt.Sprintf("sample %d (%s): %v", n, where, err), Raw: r}})
	}
	return emit(Record{Line: n, Trace: t})
}
