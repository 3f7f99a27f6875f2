package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// CodexFormat reads an OpenAI Codex CLI rollout
// ($CODEX_HOME/sessions/…/rollout-*.jsonl, lines {timestamp, type,
// payload}): one trace per file, TaskID the session id, function calls
// joined to their outputs by call_id, tokens from the last token_count
// event's running total. Codex records no cost (CostUSD nil). A line that
// does not parse is rejected and the rest still make the trace. Raw is nil.
//
// Rollouts written before that envelope existed (Codex CLI until about
// August 2025) are read too: line 1 a bare header {id, timestamp,
// instructions, git, cwd?…}, then {"record_type": "state"} markers and
// bare response items ({type: "message" | "function_call" | …}) with no
// payload wrapper and mostly no timestamp; their wall-clock is unknown
// unless the items carry stamps.
var CodexFormat = Format{Name: nameCodex, Wants: "JSONL lines of {timestamp, type, payload} starting with session_meta, or an older rollout's {id, timestamp, instructions} header and bare items (a Codex rollout)", Detect: detectCodex, Decode: decodeCodex}

var codexLineTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true,
}

func detectCodex(_ string, head []byte) bool {
	lines := firstLines(head, 2)
	if len(lines) == 0 {
		return false
	}
	ks := keySet(headObjectKeys(lines[0]))
	if codexLegacyHeader(ks) {
		_, instr := ks["instructions"]
		_, orig := ks["originator"]
		_, cli := ks["cli_version"]
		return instr || orig || cli || (len(lines) > 1 && bytes.HasPrefix(lines[1], []byte(`{"record_type"`)))
	}
	var typ string
	if k, ok := ks["type"]; !ok || json.Unmarshal(k.Value, &typ) != nil || !codexLineTypes[typ] {
		return false
	}
	p, ok := ks["payload"]
	_, ts := ks["timestamp"]
	return ok && ts && p.Kind == '{'
}

// codexLegacyHeader says whether a first line's keys are those of a
// rollout header from before the envelope: an id and a timestamp, and
// neither a type nor a payload.
func codexLegacyHeader(ks map[string]headKey) bool {
	_, id := ks["id"]
	_, ts := ks["timestamp"]
	_, typ := ks["type"]
	_, payload := ks["payload"]
	return id && ts && !typ && !payload
}

// codexLegacyLine is a line of a rollout from before the envelope: the
// header's fields, a state marker's record_type, an item's own stamp.
type codexLegacyLine struct {
	ID         string  `json:"id"`
	Timestamp  string  `json:"timestamp"`
	Cwd        string  `json:"cwd"`
	Type       string  `json:"type"`
	RecordType *string `json:"record_type"`
}

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Model            string          `json:"model"`
	Cwd              string          `json:"cwd"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	Input            json.RawMessage `json:"input"`
	CallID           string          `json:"call_id"`
	Output           json.RawMessage `json:"output"`
	Action           json.RawMessage `json:"action"`
	Info             *codexInfo      `json:"info"`
	LastAgentMessage *string         `json:"last_agent_message"`
	// exec_command_end and patch_apply_end (event_msg).
	ExitCode *int            `json:"exit_code"`
	Duration json.RawMessage `json:"duration"`
	Success  *bool           `json:"success"`
	Stderr   string          `json:"stderr"`
	// turn_aborted.
	Reason string `json:"reason"`
}

type codexInfo struct {
	TotalTokenUsage *codexUsage `json:"total_token_usage"`
}

type codexUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

type codexBuilder struct {
	t      *triage.Trace
	byCall map[string]int
	sessID string
	first  string
	last   string
	cwd    string
	// patches are the apply_patch inputs, by call, in call order; the
	// ones that applied make the diff.
	patches []codexPatch
}

type codexPatch struct {
	call int
	text string
}

func decodeCodex(ctx context.Context, src Source, emit func(Record) error) error {
	b := &codexBuilder{t: newHarnessTrace(nameCodex, src), byCall: map[string]int{}}
	lines := 0
	d := getJdoc()
	defer putJdoc(d)
	legacy, itemStamps := false, false
	err := eachLineWhole(ctx, src, func(n int, line []byte, last bool, lineErr error) error {
		if lineErr != nil {
			return emit(lineReject(src, n, line, "%v", lineErr))
		}
		if lines == 0 {
			legacy = codexLegacyHeader(keySet(headObjectKeys(line)))
		}
		if legacy {
			var h codexLegacyLine
			var p codexPayload
			if err := json.Unmarshal(line, &h); err != nil {
				return emit(lineReject(src, n, line, "%s", lineJSONReason(line, err, last)))
			}
			switch {
			case lines == 0:
				lines++
				b.add(&codexLine{Timestamp: h.Timestamp, Type: "session_meta"}, &codexPayload{ID: h.ID, Cwd: h.Cwd})
				return nil
			case h.RecordType != nil:
				lines++
				return nil // A state marker: the CLI's bookkeeping.
			case h.Type == "":
				return emit(lineReject(src, n, line, "an item of an older Codex rollout has no type"))
			}
			if err := json.Unmarshal(line, &p); err != nil {
				return emit(lineReject(src, n, line, "%s", triage.DescribeJSONError(nil, err)))
			}
			lines++
			itemStamps = itemStamps || h.Timestamp != ""
			b.add(&codexLine{Timestamp: h.Timestamp, Type: "response_item"}, &p)
			return nil
		}
		var l codexLine
		var p codexPayload
		if !src.Opts.slowOnly && d.codexLine(line, &l, &p) {
			lines++
			b.add(&l, &p)
			return nil
		}
		// The slow path, which also words any error.
		l, p = codexLine{}, codexPayload{}
		if err := json.Unmarshal(line, &l); err != nil {
			return emit(lineReject(src, n, line, "%s", lineJSONReason(line, err, last)))
		}
		if err := json.Unmarshal(l.Payload, &p); err != nil {
			return emit(lineReject(src, n, line, "payload: %s", triage.DescribeJSONError(nil, err)))
		}
		lines++
		b.add(&l, &p)
		return nil
	})
	if err != nil {
		return err
	}
	if lines == 0 {
		return nil
	}
	t := b.finish()
	if legacy && !itemStamps {
		t.WallS = nil // Only the header has a stamp: no span to measure.
	}
	t.TaskID = nameOr(b.sessID, harnessStem(fileName(src)))
	if t.TaskID == "" {
		return emit(fileReject(src, "no session id in the rollout and no file name to take it from"))
	}
	t.RunID = runFromDir(src, t.TaskID)
	return emit(Record{Line: 1, Trace: t})
}

func (b *codexBuilder) add(l *codexLine, p *codexPayload) {
	t := b.t
	if l.Timestamp != "" {
		if b.first == "" {
			b.first = l.Timestamp
		}
		b.last = l.Timestamp
	}
	switch l.Type {
	case "session_meta":
		if b.sessID == "" {
			b.sessID = p.ID
		}
		if b.cwd == "" {
			b.cwd = p.Cwd
		}
		if p.Model != "" {
			t.Model = p.Model
		}
	case "turn_context":
		if p.Model != "" {
			t.Model = p.Model
		}
	case "event_msg":
		switch p.Type {
		case "token_count":
			if p.Info != nil && p.Info.TotalTokenUsage != nil {
				u := p.Info.TotalTokenUsage
				t.Tokens = &triage.Tokens{Input: u.InputTokens, Output: u.OutputTokens}
			}
		case "task_complete":
			if p.LastAgentMessage != nil && *p.LastAgentMessage != "" {
				t.Answer = p.LastAgentMessage
			}
			t.StopReason = "task_complete"
		case "turn_aborted":
			t.Outcome = triage.OutcomeIncomplete
			t.StopReason = nameOr(p.Reason, "turn_aborted")
		case "exec_command_end":
			if i, ok := b.byCall[p.CallID]; ok && p.ExitCode != nil {
				c := &t.ToolCalls[i]
				c.ExitCode = p.ExitCode
				if *p.ExitCode != 0 && c.Error == "" {
					c.Error = fmt.Sprintf("exit code %d", *p.ExitCode)
				}
				if c.WallS == nil {
					c.WallS = codexDuration(p.Duration)
				}
			}
		case "patch_apply_end":
			if i, ok := b.byCall[p.CallID]; ok && p.Success != nil && !*p.Success && t.ToolCalls[i].Error == "" {
				t.ToolCalls[i].Error = nameOr(firstLine(p.Stderr), "patch did not apply")
			}
		}
	case "response_item":
		b.item(l, p)
	}
}

func (b *codexBuilder) item(l *codexLine, p *codexPayload) {
	t := b.t
	switch p.Type {
	case "message":
		if p.Role == "developer" || p.Role == "system" {
			return
		}
		text := contentText(p.Content)
		if p.Role == "user" && (strings.HasPrefix(text, "<environment_context>") || strings.HasPrefix(text, "<user_instructions>")) {
			return // injected by the CLI, not the user's words
		}
		if strings.TrimSpace(text) != "" {
			addMessage(t, p.Role, text)
		}
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
		name, args := p.Name, argsJSON(p.Arguments)
		switch p.Type {
		case "custom_tool_call":
			args = argsJSON(p.Input)
		case "local_shell_call":
			name, args = "local_shell", argsJSON(p.Action)
		case "web_search_call":
			// No call_id and no output: the search's action (query, or
			// the page opened) is all it records.
			name, args = "web_search", argsJSON(p.Action)
		}
		if p.CallID != "" {
			b.byCall[p.CallID] = len(t.ToolCalls)
		}
		if patch := codexPatchText(name, p); patch != "" {
			b.patches = append(b.patches, codexPatch{call: len(t.ToolCalls), text: patch})
		}
		t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: nameOr(name, "tool"), Args: args, TS: l.Timestamp})
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		i, ok := b.byCall[p.CallID]
		if !ok {
			return
		}
		codexOutput(&t.ToolCalls[i], p.Output)
	case "reasoning", "ghost_snapshot", "compaction", "compaction_summary":
		// Thinking and the harness's own bookkeeping, not agent actions.
	default:
		// A tool the table above does not know yet (image generation, a
		// newer built-in): still a call the agent made, not dropped.
		switch {
		case strings.HasSuffix(p.Type, "_call_output"):
			if i, ok := b.byCall[p.CallID]; ok {
				codexOutput(&t.ToolCalls[i], p.Output)
			}
		case strings.HasSuffix(p.Type, "_call"):
			if p.CallID != "" {
				b.byCall[p.CallID] = len(t.ToolCalls)
			}
			args := argsJSON(p.Arguments)
			if args == nil {
				args = argsJSON(p.Action)
			}
			t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: nameOr(p.Name, nameOr(strings.TrimSuffix(p.Type, "_call"), "tool")), Args: args, TS: l.Timestamp})
		}
	}
}

// finish sets what is known only at the end of the rollout.
func (b *codexBuilder) finish() *triage.Trace {
	t := b.t
	t.WallS = wallSpan(b.first, b.last)
	if t.Diff == nil && len(b.patches) > 0 {
		var w strings.Builder
		for _, p := range b.patches {
			if t.ToolCalls[p.call].Error == "" {
				writeApplyPatch(&w, p.text, b.cwd)
			}
		}
		if w.Len() > 0 {
			t.Diff = ptr(w.String())
		}
	}
	return t
}

// codexPatchText is the "*** Begin Patch" text of an apply_patch call: the
// freeform tool's input, the function's {"input"} argument, or a shell
// command ["apply_patch", patch].
func codexPatchText(name string, p *codexPayload) string {
	var patch string
	switch {
	case name == "apply_patch" && p.Type == "custom_tool_call":
		_ = json.Unmarshal(p.Input, &patch)
	case name == "apply_patch":
		var a struct {
			Input string `json:"input"`
		}
		if json.Unmarshal(argsJSON(p.Arguments), &a) == nil {
			patch = a.Input
		}
	case name == "shell" || name == "local_shell":
		var a struct {
			Command []string `json:"command"`
		}
		raw := argsJSON(p.Arguments)
		if name == "local_shell" {
			raw = p.Action
		}
		if json.Unmarshal(raw, &a) == nil && len(a.Command) == 2 && a.Command[0] == "apply_patch" {
			patch = a.Command[1]
		}
	}
	if !strings.Contains(patch, "*** Begin Patch") {
		return ""
	}
	return patch
}

// codexDuration reads exec_command_end's duration: a Rust Duration
// ({secs, nanos}) or seconds.
func codexDuration(raw json.RawMessage) *float64 {
	var d struct {
		Secs  float64 `json:"secs"`
		Nanos float64 `json:"nanos"`
	}
	if json.Unmarshal(raw, &d) == nil && (d.Secs != 0 || d.Nanos != 0) {
		return ptr(d.Secs + d.Nanos/1e9)
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return &f
	}
	return nil
}

// codexOutput fills a call's result. The output is a string, often itself
// JSON {"output": …, "metadata": {"exit_code", "duration_seconds"}}, or an
// object {content, success}.
func codexOutput(c *triage.ToolCall, raw json.RawMessage) {
	var inner json.RawMessage = raw
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t := bytes.TrimSpace([]byte(s)); len(t) == 0 || t[0] != '{' {
			c.Output = s
			codexHeaderExit(c, s)
			return
		}
		inner = json.RawMessage(s)
	}
	var o struct {
		Output   *string         `json:"output"`
		Content  json.RawMessage `json:"content"`
		Success  *bool           `json:"success"`
		Metadata *struct {
			ExitCode *int     `json:"exit_code"`
			Duration *float64 `json:"duration_seconds"`
		} `json:"metadata"`
	}
	if json.Unmarshal(inner, &o) != nil || (o.Output == nil && o.Content == nil) {
		c.Output = contentText(raw)
		return
	}
	if o.Output != nil {
		c.Output = *o.Output
	} else {
		c.Output = contentText(o.Content)
	}
	if m := o.Metadata; m != nil {
		c.WallS = m.Duration
		if m.ExitCode != nil {
			c.ExitCode = m.ExitCode
			if *m.ExitCode != 0 {
				c.Error = fmt.Sprintf("exit code %d", *m.ExitCode)
			}
		}
	}
	if o.Success != nil && !*o.Success && c.Error == "" {
		c.Error = "failed"
	}
}

// codexExitLine is the exit status in the header Codex puts above a
// command's output: "Process exited with code N" (exec_command, unified
// exec) or "Exit code: N" (shell_command).
var codexExitLine = regexp.MustCompile(`^(?:Process exited with code|Exit code:) (-?\d+)$`)

// codexHeaderExit reads the exit code from the header lines above
// "Output:"; a command still running ("Process running with session ID")
// has none.
func codexHeaderExit(c *triage.ToolCall, s string) {
	if !strings.HasPrefix(s, "Chunk ID:") && !strings.HasPrefix(s, "Wall time:") && !strings.HasPrefix(s, "Exit code:") {
		return
	}
	for range 6 {
		line, rest, _ := strings.Cut(s, "\n")
		if line == "Output:" {
			return
		}
		if m := codexExitLine.FindStringSubmatch(line); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				c.ExitCode = ptr(n)
				if n != 0 && c.Error == "" {
					c.Error = fmt.Sprintf("exit code %d", n)
				}
			}
			return
		}
		if rest == "" {
			return
		}
		s = rest
	}
}
