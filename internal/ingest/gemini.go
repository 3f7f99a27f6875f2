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

// GeminiFormat reads a Gemini CLI chat recording: the session file the CLI
// keeps under ~/.gemini/tmp/<project>/chats/, which Harbor copies to
// agent/gemini-cli.trajectory.json (or .jsonl). Older CLIs write one JSON
// object {sessionId, projectHash, startTime, lastUpdated, messages}; newer
// ones (v0.40+) append JSONL records: a metadata line, one line per
// message (a later line with the same id replaces it), {"$set": …}
// metadata updates and {"$rewindTo": id} rewinds that drop that message
// and everything after it. One trace per file, TaskID the sessionId.
//
// Each gemini message's toolCalls become tool calls: the tool's own name
// and args (run_shell_command's args are already {"command": …}), the
// functionResponse output as the output, status "error"/"cancelled" as
// the error, and for the shell tool the exit code from its "Exit Code: N"
// line (the CLI prints it only when non-zero, so a completed command
// without one exited 0). The diff is the fileDiff of every edit that
// succeeded, in order. Tokens are the messages' own counts summed (input;
// output plus thoughts). Gemini records no cost and no stop reason.
var GeminiFormat = Format{
	Name:   nameGemini,
	Wants:  "a Gemini CLI session: {sessionId, projectHash, messages} or JSONL starting with {sessionId, projectHash}",
	Detect: detectGemini,
	Decode: decodeGemini,
}

const nameGemini = "gemini-cli"

func detectGemini(_ string, head []byte) bool {
	ks := keySet(headObjectKeys(trimHead(head)))
	_, sid := ks["sessionId"]
	_, ph := ks["projectHash"]
	return sid && ph
}

type geminiMessage struct {
	ID        string           `json:"id"`
	Timestamp string           `json:"timestamp"`
	Type      string           `json:"type"`
	Content   json.RawMessage  `json:"content"`
	ToolCalls []geminiToolCall `json:"toolCalls"`
	Tokens    *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Thoughts int64 `json:"thoughts"`
	} `json:"tokens"`
	Model string `json:"model"`
}

type geminiToolCall struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	Status        string          `json:"status"`
	Timestamp     string          `json:"timestamp"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
}

// geminiRecord is one line of the JSONL recording: metadata, a message, a
// metadata update or a rewind.
type geminiRecord struct {
	geminiMessage
	SessionID   string          `json:"sessionId"`
	StartTime   string          `json:"startTime"`
	LastUpdated string          `json:"lastUpdated"`
	Set         json.RawMessage `json:"$set"`
	RewindTo    *string         `json:"$rewindTo"`
	Messages    json.RawMessage `json:"messages"`
}

type geminiSession struct {
	sessionID   string
	first, last string
	ids         []string
	byID        map[string]*geminiMessage
	anon        int
}

func (s *geminiSession) put(m geminiMessage) {
	if m.ID == "" {
		s.anon++
		m.ID = fmt.Sprintf("\x00%d", s.anon)
	}
	if _, ok := s.byID[m.ID]; !ok {
		s.ids = append(s.ids, m.ID)
	}
	s.byID[m.ID] = &m
}

func (s *geminiSession) rewind(id string) {
	for i, x := range s.ids {
		if x == id {
			for _, gone := range s.ids[i:] {
				delete(s.byID, gone)
			}
			s.ids = s.ids[:i]
			return
		}
	}
	// A rewind to a message it never saw clears the conversation, as the
	// CLI's own loader does.
	s.ids, s.byID = nil, map[string]*geminiMessage{}
}

func decodeGemini(ctx context.Context, src Source, emit func(Record) error) error {
	br, head, err := peekReader(src.R, 64<<10)
	if err != nil {
		return &HarnessError{File: src.Name, Err: err}
	}
	src.R = br
	s := &geminiSession{byID: map[string]*geminiMessage{}}
	if geminiIsJSONL(head) {
		lines := 0
		err := eachLine(ctx, src, func(n int, line []byte, last bool, lineErr error) error {
			if lineErr != nil {
				return emit(lineReject(src, n, line, "%v", lineErr))
			}
			var r geminiRecord
			if err := json.Unmarshal(line, &r); err != nil {
				return emit(lineReject(src, n, line, "%s", lineJSONReason(line, err, last)))
			}
			lines++
			switch {
			case r.RewindTo != nil:
				s.rewind(*r.RewindTo)
			case len(r.Set) > 0:
				var set struct {
					SessionID   string `json:"sessionId"`
					LastUpdated string `json:"lastUpdated"`
				}
				_ = json.Unmarshal(r.Set, &set)
				s.sessionID = nameOr(set.SessionID, s.sessionID)
				s.last = nameOr(set.LastUpdated, s.last)
			case r.Type != "" && r.ID != "":
				s.put(r.geminiMessage)
			case r.SessionID != "":
				s.sessionID = r.SessionID
				s.first = nameOr(s.first, r.StartTime)
				s.last = nameOr(r.LastUpdated, s.last)
			}
			return nil
		})
		if err != nil || lines == 0 {
			return err
		}
	} else {
		cr := &countingReader{r: src.R}
		dec := json.NewDecoder(cr)
		err := walkObject(ctx, dec, "session", func(key string) error {
			switch key {
			case "sessionId":
				return dec.Decode(&s.sessionID)
			case "startTime":
				return dec.Decode(&s.first)
			case "lastUpdated":
				return dec.Decode(&s.last)
			case "messages":
				return walkArray(ctx, dec, "messages", func(int) error {
					var m geminiMessage
					if err := dec.Decode(&m); err != nil {
						return err
					}
					s.put(m)
					return nil
				})
			}
			return skipValue(dec)
		})
		if err != nil {
			return walkFailed(ctx, src, dec, cr, err, emit)
		}
	}
	t := s.trace(src)
	t.TaskID = nameOr(s.sessionID, harnessStem(fileName(src)))
	if t.TaskID == "" {
		return emit(fileReject(src, "no sessionId in the session and no file name to take it from"))
	}
	t.RunID = runFromDir(src, t.TaskID)
	return emit(Record{Line: 1, Trace: t})
}

// geminiIsJSONL tells the appended-records form from the single object:
// its first line is a whole object with no messages in it.
func geminiIsJSONL(head []byte) bool {
	line, _, _ := bytes.Cut(trimHead(head), []byte("\n"))
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		return false
	}
	_, ok := keySet(headObjectKeys(line))["messages"]
	return !ok
}

func (s *geminiSession) trace(src Source) *triage.Trace {
	t := newHarnessTrace(nameGemini, src)
	var diff strings.Builder
	var in, out int64
	sawTokens := false
	first, last := s.first, s.last
	for _, id := range s.ids {
		m := s.byID[id]
		if m.Timestamp != "" {
			if first == "" {
				first = m.Timestamp
			}
			if s.last == "" {
				last = m.Timestamp
			}
		}
		text := geminiText(m.Content)
		switch m.Type {
		case "user":
			if strings.TrimSpace(text) != "" {
				addMessage(t, "user", text)
			}
		case "gemini":
			if m.Model != "" && src.Opts.Model == "" {
				t.Model = m.Model
			}
			if m.Tokens != nil {
				sawTokens = true
				in += m.Tokens.Input
				out += m.Tokens.Output + m.Tokens.Thoughts
			}
			if strings.TrimSpace(text) != "" {
				addMessage(t, "assistant", text)
				t.Answer = ptr(text)
			}
			for i := range m.ToolCalls {
				c := geminiCall(&m.ToolCalls[i])
				t.ToolCalls = append(t.ToolCalls, c)
				if c.Error == "" {
					writeGeminiDiff(&diff, m.ToolCalls[i].ResultDisplay)
				}
			}
		case "error", "warning", "info":
			// The CLI's own notices (an API error, a loop detected…): kept
			// as messages so a reviewer sees them.
			if strings.TrimSpace(text) != "" {
				addMessage(t, "system", text)
			}
		}
	}
	if sawTokens {
		t.Tokens = &triage.Tokens{Input: in, Output: out}
	}
	if diff.Len() > 0 {
		t.Diff = ptr(diff.String())
	}
	t.WallS = wallSpan(first, last)
	return t
}

// geminiText flattens a message's content: a string, or a PartListUnion
// whose text parts are joined.
func geminiText(raw json.RawMessage) string {
	return contentText(raw)
}

// geminiExitLine is the shell tool's exit line; the CLI writes it only for
// a non-zero code (older CLIs always, "(none)" when there was none).
var geminiExitLine = regexp.MustCompile(`(?m)^Exit Code: (-?\d+|\(none\))\s*$`)

func geminiCall(c *geminiToolCall) triage.ToolCall {
	tc := triage.ToolCall{Name: nameOr(c.Name, "tool"), Args: argsJSON(c.Args), TS: c.Timestamp}
	tc.Output = geminiResultText(c.Result)
	if tc.Output == "" {
		var s string
		if json.Unmarshal(c.ResultDisplay, &s) == nil {
			tc.Output = s
		}
	}
	switch c.Status {
	case "error":
		tc.Error = nameOr(firstLine(tc.Output), "error")
	case "cancelled":
		tc.Error = "cancelled"
	}
	if c.Name == "run_shell_command" && c.Status != "cancelled" {
		if m := geminiExitLine.FindStringSubmatch(tc.Output); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				tc.ExitCode = ptr(n)
			}
		} else if strings.HasPrefix(tc.Output, "Output: ") && !strings.Contains(tc.Output, "\nSignal: ") {
			// The current CLI leaves the line out for a zero exit.
			tc.ExitCode = ptr(0)
		}
		if tc.ExitCode != nil && *tc.ExitCode != 0 && tc.Error == "" {
			tc.Error = fmt.Sprintf("exit code %d", *tc.ExitCode)
		}
	}
	return tc
}

// geminiResultText is a tool result's text: the functionResponse's
// response.output (or .error), else any text parts.
func geminiResultText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var parts []json.RawMessage
	if raw[0] == '[' {
		if json.Unmarshal(raw, &parts) != nil {
			return contentText(raw)
		}
	} else {
		parts = []json.RawMessage{raw}
	}
	var out []string
	for _, p := range parts {
		var part struct {
			Text             *string `json:"text"`
			FunctionResponse *struct {
				Response json.RawMessage `json:"response"`
			} `json:"functionResponse"`
		}
		if json.Unmarshal(p, &part) != nil {
			continue
		}
		switch {
		case part.FunctionResponse != nil:
			var r struct {
				Output *string `json:"output"`
				Error  *string `json:"error"`
			}
			_ = json.Unmarshal(part.FunctionResponse.Response, &r)
			switch {
			case r.Output != nil:
				out = append(out, *r.Output)
			case r.Error != nil:
				out = append(out, *r.Error)
			default:
				out = append(out, string(part.FunctionResponse.Response))
			}
		case part.Text != nil:
			out = append(out, *part.Text)
		}
	}
	return strings.Join(out, "\n")
}

// writeGeminiDiff appends an edit's fileDiff (a jsdiff createPatch text:
// "Index: f", a rule, "--- f\tCurrent", "+++ f\tProposed", hunks) as a
// git-style section.
func writeGeminiDiff(w *strings.Builder, display json.RawMessage) {
	var d struct {
		FileDiff string `json:"fileDiff"`
		FileName string `json:"fileName"`
	}
	if len(display) == 0 || display[0] != '{' || json.Unmarshal(display, &d) != nil || d.FileDiff == "" {
		return
	}
	path := strings.TrimPrefix(d.FileName, "/")
	body := d.FileDiff
	if i := strings.Index(body, "\n@@"); i >= 0 {
		body = body[i+1:]
	} else {
		return
	}
	if path == "" {
		return
	}
	fmt.Fprintf(w, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", path, path, path, path)
	w.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		w.WriteByte('\n')
	}
}
