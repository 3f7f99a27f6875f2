package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// ACPFormat reads an ACP trajectory: the acp_trajectory.jsonl BenchFlow
// writes per rollout (trajectory/ beside agent/ and verifier/) from the
// Agent Client Protocol session/update notifications of any ACP agent
// (opencode, gemini --acp, claude-agent-acp…). Lines are
// {type: user_message|agent_message|agent_thought, text},
// {type: tool_call, tool_call_id, kind, title, status, content,
// raw_input?, raw_output?, tool_name?} and BenchFlow's own
// {type: agent_timeout, reason, timeout_sec, pending_tool_call_ids}.
//
// A tool call's name is its tool_name, else its title when the kind is
// not execute (opencode titles a call by its tool), else "bash"; its args
// are raw_input, or {"command": title} for an execute call without one
// (ACP titles a shell call with its command line). The output is the text
// of its content blocks; a failed or cancelled status is the error. The
// exit code is raw_output's (opencode's metadata.exit, or exit_code /
// exitCode). Diff blocks {type: diff, path, oldText, newText} of calls
// that completed make the diff (the snippet's place in the file is not
// recorded, so hunks start at line 1). An agent_timeout line sets the stop
// reason, the timeout and the wall cap. TaskID is the trial folder's task
// (see trialTask), else the file's stem.
var ACPFormat = Format{
	Name:   nameACP,
	Wants:  "JSONL lines of {type: user_message|agent_message|agent_thought|tool_call|agent_timeout} (an ACP trajectory, acp_trajectory.jsonl)",
	Detect: detectACP,
	Decode: decodeACP,
}

const nameACP = "acp"

var acpLineTypes = map[string]bool{
	"user_message": true, "agent_message": true, "agent_thought": true, "tool_call": true, "agent_timeout": true,
}

func detectACP(_ string, head []byte) bool {
	lines := firstLines(head, 1)
	if len(lines) == 0 {
		return false
	}
	ks := keySet(headObjectKeys(lines[0]))
	var typ string
	if k, ok := ks["type"]; !ok || json.Unmarshal(k.Value, &typ) != nil || !acpLineTypes[typ] {
		return false
	}
	switch typ {
	case "tool_call":
		_, id := ks["tool_call_id"]
		_, st := ks["status"]
		return id && st
	case "agent_timeout":
		_, ok := ks["reason"]
		return ok
	}
	_, text := ks["text"]
	return text && len(ks) <= 4
}

type acpLine struct {
	Type       string            `json:"type"`
	Text       string            `json:"text"`
	ToolCallID string            `json:"tool_call_id"`
	Kind       string            `json:"kind"`
	Title      string            `json:"title"`
	Status     string            `json:"status"`
	Content    []json.RawMessage `json:"content"`
	RawInput   json.RawMessage   `json:"raw_input"`
	// RawInputCamel is ACP's own spelling (rawInput), which some writers
	// keep: opencode's shell command is there, its title only says "bash".
	RawInputCamel json.RawMessage `json:"rawInput"`
	RawOutput     json.RawMessage `json:"raw_output"`
	ToolName      string          `json:"tool_name"`
	StartedAt     string          `json:"started_at"`
	FinishedAt    string          `json:"finished_at"`
	TS            string          `json:"ts"`
	// agent_timeout.
	Reason     string   `json:"reason"`
	TimeoutSec *float64 `json:"timeout_sec"`
	Pending    []string `json:"pending_tool_call_ids"`
}

type acpBlock struct {
	Type    string          `json:"type"`
	Text    *string         `json:"text"`
	Content json.RawMessage `json:"content"`
	Path    string          `json:"path"`
	OldText *string         `json:"oldText"`
	NewText *string         `json:"newText"`
}

func decodeACP(ctx context.Context, src Source, emit func(Record) error) error {
	t := newHarnessTrace(nameACP, src)
	var diff strings.Builder
	first, last := "", ""
	stamp := func(s string) {
		if s == "" {
			return
		}
		if first == "" {
			first = s
		}
		last = s
	}
	lines := 0
	err := eachLine(ctx, src, func(n int, line []byte, isLast bool, lineErr error) error {
		if lineErr != nil {
			return emit(lineReject(src, n, line, "%v", lineErr))
		}
		var l acpLine
		if err := json.Unmarshal(line, &l); err != nil {
			return emit(lineReject(src, n, line, "%s", lineJSONReason(line, err, isLast)))
		}
		lines++
		stamp(nameOr(l.TS, l.StartedAt))
		stamp(l.FinishedAt)
		switch l.Type {
		case "user_message":
			if strings.TrimSpace(l.Text) != "" {
				addMessage(t, "user", l.Text)
			}
		case "agent_message":
			if strings.TrimSpace(l.Text) != "" {
				addMessage(t, "assistant", l.Text)
				t.Answer = ptr(l.Text)
			}
		case "tool_call":
			c, blocks := acpCall(&l)
			t.ToolCalls = append(t.ToolCalls, c)
			if l.Status == "completed" {
				for _, b := range blocks {
					writeSnippetDiff(&diff, b)
				}
			}
		case "agent_timeout":
			t.StopReason = nameOr(l.Reason, "agent_timeout")
			// A budget kill: the stop reason; the outcome is the
			// verifier's (see applyTrialResult).
			t.Timeout = ptr(true)
			if l.TimeoutSec != nil && *l.TimeoutSec > 0 {
				t.WallCap = l.TimeoutSec
			}
		}
		return nil
	})
	if err != nil || lines == 0 {
		return err
	}
	if diff.Len() > 0 {
		t.Diff = ptr(diff.String())
	}
	t.WallS = wallSpan(first, last)
	t.TaskID = nameOr(trialTask(fileName(src)), harnessStem(fileName(src)))
	if t.TaskID == "" {
		return emit(fileReject(src, "no task: the trajectory is not in a trial folder and has no file name"))
	}
	t.RunID = runFromDir(src, t.TaskID)
	return emit(Record{Line: 1, Trace: t})
}

// acpCall reads one tool_call line, and returns its diff blocks.
func acpCall(l *acpLine) (triage.ToolCall, []acpBlock) {
	name := l.ToolName
	if name == "" {
		switch {
		case l.Kind == "execute":
			name = "bash"
		case l.Title != "" && !strings.ContainsAny(l.Title, " /"):
			name = l.Title
		default:
			name = nameOr(l.Kind, "tool")
		}
	}
	in := l.RawInput
	if t := bytes.TrimSpace(in); len(t) == 0 || string(t) == "{}" || string(t) == "null" {
		in = l.RawInputCamel
	}
	c := triage.ToolCall{Name: name, Args: argsJSON(in), TS: l.StartedAt}
	if t := bytes.TrimSpace(c.Args); len(t) == 0 || string(t) == "{}" || string(t) == "null" {
		c.Args = nil
		// ACP titles a shell call with its command line; opencode titles
		// it with the tool's name ("bash"), which is no command: then the
		// command is unknown, not "bash".
		if t := strings.TrimSpace(l.Title); l.Kind == "execute" && t != "" && !placeholderTitles[t] {
			c.Args = commandArgs(l.Title)
		}
	}
	var texts []string
	var diffs []acpBlock
	for _, raw := range l.Content {
		var b acpBlock
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		switch {
		case b.Type == "diff":
			diffs = append(diffs, b)
		case b.Text != nil:
			texts = append(texts, *b.Text)
		case len(b.Content) > 0:
			if s := blockText(b.Content); s != "" {
				texts = append(texts, s)
			}
		}
	}
	c.Output = strings.Join(texts, "\n")
	var ro struct {
		Output   *string `json:"output"`
		Error    *string `json:"error"`
		ExitCode *int    `json:"exit_code"`
		Exit2    *int    `json:"exitCode"`
		Metadata *struct {
			Exit *int `json:"exit"`
		} `json:"metadata"`
	}
	if r := bytes.TrimSpace(l.RawOutput); len(r) > 0 && r[0] == '{' {
		_ = json.Unmarshal(r, &ro)
	}
	if c.Output == "" && ro.Output != nil {
		c.Output = *ro.Output
	}
	switch {
	case ro.Metadata != nil && ro.Metadata.Exit != nil:
		c.ExitCode = ro.Metadata.Exit
	case ro.ExitCode != nil:
		c.ExitCode = ro.ExitCode
	case ro.Exit2 != nil:
		c.ExitCode = ro.Exit2
	}
	switch l.Status {
	case "failed":
		msg := c.Output
		if ro.Error != nil {
			msg = *ro.Error
		}
		c.Error = nameOr(firstLine(msg), "failed")
	case "cancelled":
		c.Error = "cancelled"
	case "pending", "in_progress":
		c.Error = "did not finish (" + l.Status + ")"
	}
	if c.ExitCode != nil && *c.ExitCode != 0 && c.Error == "" {
		c.Error = fmt.Sprintf("exit code %d", *c.ExitCode)
	}
	return c, diffs
}

// placeholderTitles are titles an ACP agent gives a shell call that name
// the tool, not the command.
var placeholderTitles = map[string]bool{"bash": true, "shell": true, "execute": true, "terminal": true, "run": true, "command": true, "Bash": true, "Shell": true}

// writeSnippetDiff appends a diff block as a git-style section: a new
// file when there was no old text, else one hunk replacing the old
// snippet with the new.
func writeSnippetDiff(w *strings.Builder, b acpBlock) {
	if b.Path == "" || b.NewText == nil {
		return
	}
	path := strings.TrimPrefix(filepath.ToSlash(b.Path), "/")
	if b.OldText == nil || *b.OldText == "" {
		writeNewFile(w, path, *b.NewText)
		return
	}
	oldLines := snippetLines(*b.OldText)
	newLines := snippetLines(*b.NewText)
	fmt.Fprintf(w, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", path, path, path, path)
	fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(1, len(oldLines)), hunkRange(1, len(newLines)))
	for _, l := range oldLines {
		w.WriteString("-" + l + "\n")
	}
	for _, l := range newLines {
		w.WriteString("+" + l + "\n")
	}
}

func snippetLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// trialTask is the task of the trial folder a log sits in: Harbor and
// BenchFlow name a trial <task>__<suffix>, and keep its logs in agent/,
// trajectory/ or verifier/ (or deeper under agent/). "" when no folder up
// the path is named that way.
func trialTask(path string) string {
	if path == "" {
		return ""
	}
	dir := filepath.Dir(path)
	for range 6 {
		b := filepath.Base(dir)
		if task, _, ok := strings.Cut(b, "__"); ok && task != "" {
			return task
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}
