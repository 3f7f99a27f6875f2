package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// CodexExecFormat reads the event stream `codex exec --json` prints
// (codex-rs/exec/src/exec_events.rs): lines {type: thread.started,
// thread_id}, turn.started, item.started/updated/completed {item: {id,
// type, ...}}, turn.completed {usage}, turn.failed {error}, error. It is
// what a benchmark harness that drives Codex headless keeps, rather than
// the rollout. One trace per file; a command item becomes a call with its
// aggregated output and exit code (null when Codex never saw it exit);
// a file_change item names the files only, so there is no diff. Tokens are
// the last turn.completed's usage, which Codex takes from the thread's
// running total. The stream names no model and no cost. A line that does
// not parse is rejected and the rest still make the trace. Raw is nil.
var CodexExecFormat = Format{Name: nameCodexExec, Wants: "JSONL events of codex exec --json, starting with thread.started", Detect: detectCodexExec, Decode: decodeCodexExec}

const nameCodexExec = "codex-exec"

func detectCodexExec(_ string, head []byte) bool {
	lines := firstLines(head, 1)
	if len(lines) == 0 {
		return false
	}
	ks := keySet(headObjectKeys(lines[0]))
	var typ string
	if k, ok := ks["type"]; !ok || json.Unmarshal(k.Value, &typ) != nil || typ != "thread.started" {
		return false
	}
	_, ok := ks["thread_id"]
	return ok
}

type codexExecLine struct {
	Type     string          `json:"type"`
	ThreadID string          `json:"thread_id"`
	Item     json.RawMessage `json:"item"`
	Usage    json.RawMessage `json:"usage"`
	Error    json.RawMessage `json:"error"`
	Message  json.RawMessage `json:"message"`
}

// codexExecItem is a ThreadItem; fields are read leniently (an item of a
// type or shape this reader does not know is skipped, never rejected).
type codexExecItem struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	Command          string          `json:"command"`
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         json.RawMessage `json:"exit_code"`
	Status           string          `json:"status"`
	Changes          json.RawMessage `json:"changes"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Result           *struct {
		Content json.RawMessage `json:"content"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Query string `json:"query"`
}

func decodeCodexExec(ctx context.Context, src Source, emit func(Record) error) error {
	t := newHarnessTrace(nameCodexExec, src)
	byItem := map[string]int{}
	thread := ""
	lines := 0
	err := eachLine(ctx, src, func(n int, line []byte, isLast bool, lineErr error) error {
		if lineErr != nil {
			return emit(lineReject(src, n, line, "%v", lineErr))
		}
		var l codexExecLine
		if err := json.Unmarshal(line, &l); err != nil {
			return emit(lineReject(src, n, line, "%s", lineJSONReason(line, err, isLast)))
		}
		lines++
		switch l.Type {
		case "thread.started":
			thread = nameOr(thread, l.ThreadID)
		case "item.started", "item.updated", "item.completed":
			var it codexExecItem
			if json.Unmarshal(l.Item, &it) == nil {
				codexExecAdd(t, byItem, &it)
			}
		case "turn.completed":
			var u struct {
				InputTokens  *int64 `json:"input_tokens"`
				OutputTokens *int64 `json:"output_tokens"`
			}
			if json.Unmarshal(l.Usage, &u) == nil && (u.InputTokens != nil || u.OutputTokens != nil) {
				t.Tokens = &triage.Tokens{Input: deref(u.InputTokens), Output: deref(u.OutputTokens)}
			}
			t.StopReason = "turn.completed"
		case "turn.failed":
			var e struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(l.Error, &e)
			t.StopReason = strings.TrimSpace("turn.failed: " + e.Message)
		case "error":
			if msg := rawText(l.Message); strings.TrimSpace(msg) != "" {
				addMessage(t, "system", msg)
			}
		}
		return nil
	})
	if err != nil || lines == 0 {
		return err
	}
	t.TaskID = nameOr(trialTask(fileName(src)), nameOr(harnessStem(fileName(src)), thread))
	if t.TaskID == "" {
		return emit(fileReject(src, "no task: the stream is not in a trial folder, has no file name and no thread_id"))
	}
	t.RunID = runFromDir(src, t.TaskID)
	return emit(Record{Line: 1, Trace: t})
}

// codexExecAdd takes one item event: a started item is recorded as it
// stands, and a later event for the same id replaces it, so a command
// still running when the stream ended stays, with no exit code.
func codexExecAdd(t *triage.Trace, byItem map[string]int, it *codexExecItem) {
	var c triage.ToolCall
	switch it.Type {
	case "agent_message":
		// Only completed messages are emitted; an id seen twice is kept once.
		if _, seen := byItem[it.ID]; strings.TrimSpace(it.Text) != "" && (it.ID == "" || !seen) {
			if it.ID != "" {
				byItem[it.ID] = -1
			}
			addMessage(t, "assistant", it.Text)
			t.Answer = ptr(it.Text)
		}
		return
	case "command_execution":
		c = triage.ToolCall{Name: "shell", Args: commandArgs(it.Command), Output: it.AggregatedOutput, ExitCode: rawInt(it.ExitCode)}
		switch {
		case it.Status == "declined":
			c.Error = "declined"
		case c.ExitCode != nil && *c.ExitCode != 0:
			c.Error = fmt.Sprintf("exit status %d", *c.ExitCode)
		}
	case "file_change":
		c = triage.ToolCall{Name: "apply_patch", Args: argsJSON(json.RawMessage(`{"changes":` + string(nonNull(it.Changes)) + `}`))}
		if it.Status == "failed" {
			c.Error = "patch failed"
		}
	case "mcp_tool_call":
		c = triage.ToolCall{Name: nameOr(it.Tool, "mcp"), Args: argsJSON(it.Arguments)}
		if it.Result != nil {
			c.Output = contentText(it.Result.Content)
		}
		if it.Error != nil {
			c.Error = it.Error.Message
		}
	case "web_search":
		c = triage.ToolCall{Name: "web_search", Args: argsJSON(json.RawMessage(`{"query":` + string(triage.AppendJSONString(nil, it.Query)) + `}`))}
	default:
		return
	}
	if i, ok := byItem[it.ID]; ok && it.ID != "" && i >= 0 {
		t.ToolCalls[i] = c
		return
	}
	if it.ID != "" {
		byItem[it.ID] = len(t.ToolCalls)
	}
	t.ToolCalls = append(t.ToolCalls, c)
}

// nonNull is raw, or JSON null when it is empty.
func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}
