package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// mini-swe-agent 2.x (trajectory_format mini-swe-agent-1.1) keeps the
// model's own message and adds an extra to it. An observation's extra
// holds the command's result apart from the rendered template:
// {raw_output, returncode, timestamp, exception_info?} (models/utils/
// actions_text.py, actions_toolcall.py). Its default SWE-bench template
// ends the output with "[exit code N]" rather than a <returncode> tag, so
// the extra is the only place the exit code can be read from.

// miniResult is an observation's command result read from its extra.
type miniResult struct {
	output    *string // raw_output, the command's own output
	code      *int    // returncode, when an integer
	exception string  // exception_info: the command timed out or never ran
}

// has says the extra recorded a result at all.
func (r miniResult) has() bool { return r.output != nil || r.code != nil || r.exception != "" }

// settle fills e.result from the raw fields, as the fast path fills it
// from the tree: a field of another JSON kind is left unknown.
func (e *miniExtra) settle() {
	if s, ok := rawString(e.RawOutput); ok {
		e.result.output = &s
	}
	e.result.code = rawInt(e.ReturnCode)
	e.result.exception, _ = rawString(e.ExceptionInfo)
}

// rawString is a JSON string's text; false for any other value.
func rawString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// rawText is rawString without the flag: "" for anything but a string.
func rawText(raw json.RawMessage) string {
	s, _ := rawString(raw)
	return s
}

// rawInt reads a JSON number that is an integer ("0", "-1", "137"); nil
// for null, 1.0, a string or anything else.
func rawInt(raw json.RawMessage) *int {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		return nil
	}
	return &n
}

// miniActions reads an assistant extra's actions, [{command, ...}], the
// commands the model's reply was parsed into. An element without a string
// command is skipped.
func miniActions(raw json.RawMessage) []string {
	var els []json.RawMessage
	if json.Unmarshal(raw, &els) != nil {
		return nil
	}
	var cmds []string
	for _, el := range els {
		var a struct {
			Command json.RawMessage `json:"command"`
		}
		if json.Unmarshal(el, &a) != nil {
			continue
		}
		if c, ok := rawString(a.Command); ok {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// fillMiniResult fills call c from its observation: the rendered text, and
// the extra's result when 2.x recorded one. The extra's raw_output is the
// output; a recorded exception (timeout, not executed) is the call's error
// and leaves the exit code unknown, because mini-swe-agent writes -1 there
// for a command that never exited.
func fillMiniResult(c *triage.ToolCall, text string, e *miniExtra) {
	if e == nil || !e.result.has() {
		fillMiniObservation(c, text)
		return
	}
	r := e.result
	if r.output != nil {
		c.Output = *r.output
	} else {
		fillMiniObservation(c, text)
		c.ExitCode, c.Error = nil, ""
	}
	switch {
	case strings.TrimSpace(r.exception) != "":
		c.ExitCode, c.Error = nil, strings.TrimSpace(r.exception)
	case r.code != nil:
		c.ExitCode = ptr(*r.code)
		if *r.code != 0 {
			c.Error = fmt.Sprintf("exit status %d", *r.code)
		}
	}
}

// responseItem is one item of a Responses API response's output.
type responseItem struct {
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// addResponse takes an assistant turn saved as a Responses API response
// object: its message items are the text, its function_call items the
// tool calls (keyed by call_id, as the function_call_output observations
// name them), its usage the tokens. An item that does not decode is
// skipped.
func (b *miniBuilder) addResponse(m miniMessage) {
	t := b.t
	b.pending = b.pending[:0]
	var usage struct {
		InputTokens  *int64 `json:"input_tokens"`
		OutputTokens *int64 `json:"output_tokens"`
	}
	if len(m.Usage) > 0 && json.Unmarshal(m.Usage, &usage) == nil && (usage.InputTokens != nil || usage.OutputTokens != nil) {
		b.tokens.Input += deref(usage.InputTokens)
		b.tokens.Output += deref(usage.OutputTokens)
		b.anyUsage = true
	}
	var items []json.RawMessage
	if json.Unmarshal(m.Output, &items) != nil {
		return
	}
	var texts []string
	for _, raw := range items {
		var it responseItem
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch it.Type {
		case "message":
			if s := contentText(it.Content); strings.TrimSpace(s) != "" {
				texts = append(texts, s)
			}
		case "function_call":
			b.byID[nameOr(it.CallID, it.ID)] = len(t.ToolCalls)
			t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: nameOr(it.Name, "bash"), Args: argsJSON(it.Arguments)})
		}
	}
	if len(texts) > 0 {
		addMessage(t, "assistant", strings.Join(texts, "\n"))
	}
}

// The fast path's reading of the same fields.

// miniExtraResult fills e.result from extra object v's fields as settle
// would from their bytes.
func (d *jdoc) miniExtraResult(e *miniExtra, f int, val int32) {
	switch f {
	case 1:
		e.Actions = d.raw(val)
	case 2:
		e.RawOutput = d.raw(val)
		if d.nodes[val].kind == jString {
			s := d.text(val)
			e.result.output = &s
		}
	case 3:
		e.ReturnCode = d.raw(val)
		if d.nodes[val].kind == jNumber {
			e.result.code = rawInt(e.ReturnCode)
		}
	case 4:
		e.ExceptionInfo = d.raw(val)
		if d.nodes[val].kind == jString {
			e.result.exception = d.text(val)
		}
	}
}
