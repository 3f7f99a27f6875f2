package ingest

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// ClaudeCodeFormat reads a Claude Code session transcript
// (~/.claude/projects/<cwd>/<sessionId>.jsonl): one trace per file, TaskID
// the sessionId, tool_use blocks paired with their tool_result by id.
// Lines are taken in file order (the uuid tree is not re-walked, so an
// abandoned branch stays in). Usage is counted once per message id, as one
// API response may be split over several lines; input tokens include cache
// reads and writes (all prompt tokens the model processed). A line that
// does not parse is rejected and the rest still make the trace. Raw is nil.
var ClaudeCodeFormat = Format{Name: nameClaude, Wants: "JSONL session lines with sessionId and type user/assistant (a Claude Code session)", Detect: detectClaude, Decode: decodeClaude}

var claudeLineTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true,
	"queue-operation": true, "file-history-snapshot": true, "attachment": true, "progress": true,
	"result": true,
}

func detectClaude(name string, head []byte) bool {
	lines := firstLines(head, 8)
	if len(lines) == 0 {
		return false
	}
	for _, l := range lines {
		ks := keySet(headObjectKeys(l))
		var typ string
		if k, ok := ks["type"]; !ok || json.Unmarshal(k.Value, &typ) != nil || !claudeLineTypes[typ] {
			return false
		}
		if _, ok := ks["payload"]; ok {
			return false // Codex's {timestamp, type, payload}
		}
		_, sid := ks["sessionId"]
		_, sid2 := ks["session_id"] // stream-json (claude -p)
		_, uuid := ks["uuid"]
		if sid || sid2 || uuid {
			return true
		}
	}
	return strings.HasSuffix(name, ".jsonl")
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	// text is Content's text when the fast path read it (textSet).
	text    string
	textSet bool
}

// contentText is the block's content as text.
func (b *claudeBlock) contentText() string {
	if b.textSet {
		return b.text
	}
	return contentText(b.Content)
}

type claudeUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

type claudeMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *claudeUsage    `json:"usage"`
	// When the fast path read the message (fast), blocks are Content's
	// blocks and blocksOK says they decoded; else text is its text.
	fast     bool
	blocks   []claudeBlock
	blocksOK bool
	text     string
}

// contentBlocks is Content as blocks, and whether it reads as blocks;
// when it does not, text is its text.
func (m *claudeMessage) contentBlocks() (blocks []claudeBlock, ok bool, text string) {
	if m.fast {
		return m.blocks, m.blocksOK, m.text
	}
	if json.Unmarshal(m.Content, &blocks) != nil {
		return nil, false, contentText(m.Content)
	}
	return blocks, true, ""
}

type claudeLine struct {
	Type          string              `json:"type"`
	SessionID     string              `json:"sessionId"`
	Timestamp     string              `json:"timestamp"`
	IsMeta        bool                `json:"isMeta"`
	RequestID     string              `json:"requestId"`
	Cwd           string              `json:"cwd"`
	Message       *claudeMessage      `json:"message"`
	ToolUseResult claudeToolUseResult `json:"toolUseResult"`

	// The closing line of stream-json output (claude -p): how the run
	// ended, its cost and final text.
	Subtype      string          `json:"subtype"`
	StreamID     string          `json:"session_id"`
	TotalCostUSD *float64        `json:"total_cost_usd"`
	Result       json.RawMessage `json:"result"`
}

type claudeBuilder struct {
	t      *triage.Trace
	byID   map[string]int
	usage  map[string]claudeUsage
	first  string
	last   string
	sessID string
	// diff collects the file edits' patches, in the order of their results.
	diff strings.Builder
}

func decodeClaude(ctx context.Context, src Source, emit func(Record) error) error {
	b := &claudeBuilder{t: newHarnessTrace(nameClaude, src), byID: map[string]int{}, usage: map[string]claudeUsage{}}
	lines := 0
	d := getJdoc()
	defer putJdoc(d)
	err := eachLineWhole(ctx, src, func(n int, line []byte, last bool, lineErr error) error {
		if lineErr != nil {
			return emit(lineReject(src, n, line, "%v", lineErr))
		}
		var l claudeLine
		if src.Opts.slowOnly || !d.claudeLine(line, &l) {
			// The slow path, which also words any error.
			l = claudeLine{}
			if err := json.Unmarshal(line, &l); err != nil {
				return emit(lineReject(src, n, line, "%s", lineJSONReason(line, err, last)))
			}
		}
		lines++
		b.add(&l)
		return nil
	})
	if err != nil {
		return err
	}
	if lines == 0 {
		return nil
	}
	t := b.finish()
	t.TaskID = nameOr(b.sessID, harnessStem(fileName(src)))
	if t.TaskID == "" {
		return emit(fileReject(src, "no sessionId in the session and no file name to take it from"))
	}
	t.RunID = runFromDir(src, t.TaskID)
	addSWEReport(src, t)
	return emit(Record{Line: 1, Trace: t})
}

func (b *claudeBuilder) add(l *claudeLine) {
	if b.sessID == "" {
		b.sessID = nameOr(l.SessionID, l.StreamID)
	}
	if l.Type == "result" {
		b.result(l)
		return
	}
	if l.Timestamp != "" {
		if b.first == "" {
			b.first = l.Timestamp
		}
		b.last = l.Timestamp
	}
	m := l.Message
	if m == nil || (l.Type != "user" && l.Type != "assistant") {
		return
	}
	t := b.t
	if l.Type == "assistant" {
		if m.Model != "" && !strings.HasPrefix(m.Model, "<") {
			t.Model = m.Model
		}
		if m.Usage != nil {
			// Split lines repeat the usage, the last one complete.
			b.usage[nameOr(m.ID, l.RequestID)] = *m.Usage
		}
	}
	blocks, ok, text := m.contentBlocks()
	if !ok {
		// A plain string message.
		if strings.TrimSpace(text) != "" && !l.IsMeta {
			addMessage(t, l.Type, text)
		}
		return
	}
	patched := false
	for _, blk := range blocks {
		switch blk.Type {
		case "text":
			if strings.TrimSpace(blk.Text) != "" && !l.IsMeta {
				addMessage(t, l.Type, blk.Text)
			}
		case "tool_use":
			b.byID[blk.ID] = len(t.ToolCalls)
			t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: nameOr(blk.Name, "tool"), Args: argsJSON(blk.Input), TS: l.Timestamp})
		case "tool_result":
			i, ok := b.byID[blk.ToolUseID]
			if !ok {
				continue
			}
			c := &t.ToolCalls[i]
			c.Output = blk.contentText()
			if blk.IsError {
				c.Error = nameOr(firstLine(c.Output), "error")
				// A failed Bash result opens with "Exit code N"; a
				// successful one records no code at all.
				if m := claudeExitCode.FindStringSubmatch(c.Output); m != nil && c.Name == "Bash" {
					if n, err := strconv.Atoi(m[1]); err == nil {
						c.ExitCode = ptr(n)
					}
				}
				continue
			}
			if r := &l.ToolUseResult; r.Interrupted && c.Error == "" {
				c.Error = "interrupted"
			}
			// A line's toolUseResult belongs to its one tool result.
			if !patched {
				patched = true
				writeClaudePatch(&b.diff, &l.ToolUseResult, l.Cwd)
			}
		}
	}
}

func (b *claudeBuilder) finish() *triage.Trace {
	t := b.t
	if len(b.usage) > 0 {
		var tok triage.Tokens
		for _, u := range b.usage {
			tok.Input += u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
			tok.Output += u.OutputTokens
		}
		t.Tokens = &tok
	}
	t.WallS = wallSpan(b.first, b.last)
	if b.diff.Len() > 0 {
		t.Diff = ptr(b.diff.String())
	}
	return t
}

// result reads stream-json's closing line.
func (b *claudeBuilder) result(l *claudeLine) {
	t := b.t
	t.StopReason = l.Subtype
	if l.TotalCostUSD != nil {
		t.CostUSD = l.TotalCostUSD
	}
	var text string
	if json.Unmarshal(l.Result, &text) == nil && strings.TrimSpace(text) != "" {
		t.Answer = &text
	}
}

var claudeExitCode = regexp.MustCompile(`^Exit code (-?\d+)`)

// firstLine is the first line of s, for a short error summary.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
