package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// MiniSWEAgentFormat reads mini-swe-agent trajectories (.traj.json,
// trajectory_format "mini-swe-agent-1" and the tool-calling "-1.1"). A step
// is an assistant message (its ```bash block is the action) and the next
// user message (the observation, with <returncode>). A SWE-bench report
// beside the file, or given with --results, supplies the scorer's verdict
// (see findMiniReport). Messages are streamed one at a time; Raw is nil.
var MiniSWEAgentFormat = Format{Name: nameMini, Wants: "a JSON object with info and messages, or trajectory_format mini-swe-agent-* (a mini-swe-agent .traj.json)", Detect: detectMini, Decode: decodeMini}

func detectMini(name string, head []byte) bool {
	t := trimHead(head)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	ks := keySet(headObjectKeys(t))
	if k, ok := ks["trajectory_format"]; ok {
		var s string
		return json.Unmarshal(k.Value, &s) == nil && strings.HasPrefix(s, "mini-swe-agent")
	}
	info, ok := ks["info"]
	if !ok {
		return false
	}
	// A trajectory cut off inside its leading info block still names
	// itself by its file name; detecting it lets the decoder say where it
	// was cut instead of "not a trace file".
	if info.Value == nil && info.Kind == '{' && strings.HasSuffix(name, ".traj.json") {
		return true
	}
	// The format key is written last; the info block (first) names the
	// agent when the head ends inside the messages.
	var in struct {
		MiniVersion string `json:"mini_version"`
		Config      struct {
			AgentType string `json:"agent_type"`
		} `json:"config"`
	}
	if info.Value != nil && json.Unmarshal(info.Value, &in) == nil {
		if in.MiniVersion != "" || strings.HasPrefix(in.Config.AgentType, "minisweagent") {
			return true
		}
	}
	msgs, ok := ks["messages"]
	return ok && msgs.Kind == '[' && strings.HasSuffix(name, ".traj.json")
}

type miniUsage struct {
	PromptTokens     *int64 `json:"prompt_tokens"`
	CompletionTokens *int64 `json:"completion_tokens"`
}

type oaToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type miniExtra struct {
	Response *miniResponse `json:"response"`
	// The fields mini-swe-agent 2.x (trajectory_format mini-swe-agent-1.1)
	// adds: an assistant message's parsed actions, an observation's command
	// result. They are read leniently (see miniResult), never rejected.
	Actions       json.RawMessage `json:"actions"`
	RawOutput     json.RawMessage `json:"raw_output"`
	ReturnCode    json.RawMessage `json:"returncode"`
	ExceptionInfo json.RawMessage `json:"exception_info"`
	// result is the command result the fields above hold, filled by each
	// path (settle on the slow one).
	result miniResult
}

type miniResponse struct {
	Usage *miniUsage `json:"usage"`
}

type miniMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Extra      *miniExtra      `json:"extra"`
	ToolCalls  []oaToolCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	// A model on OpenAI's Responses API (mini-swe-agent 2.x
	// litellm_response and the like) saves the whole response object as
	// the assistant's message ({object: "response", output: [...], usage})
	// and each observation as {type: "function_call_output", call_id,
	// output}; neither has a role. Read leniently in addResponse.
	Object json.RawMessage `json:"object"`
	Type   json.RawMessage `json:"type"`
	CallID json.RawMessage `json:"call_id"`
	Output json.RawMessage `json:"output"`
	Usage  json.RawMessage `json:"usage"`
}

type miniInfo struct {
	ExitStatus string  `json:"exit_status"`
	Submission *string `json:"submission"`
	ModelStats *struct {
		InstanceCost *float64 `json:"instance_cost"`
	} `json:"model_stats"`
	Config struct {
		Model struct {
			ModelName string `json:"model_name"`
		} `json:"model"`
	} `json:"config"`
}

// miniBuilder turns the message stream into a trace as it arrives.
type miniBuilder struct {
	t        *triage.Trace
	pending  []int // the tool calls awaiting their observations, in order
	byID     map[string]int
	sawTask  bool
	tokens   triage.Tokens
	anyUsage bool
}

func decodeMini(ctx context.Context, src Source, emit func(Record) error) error {
	b := newMiniBuilder(src)
	var m miniFast
	data, ok, src := wholeFile(src)
	defer releaseWhole(data)
	if d := getJdoc(); !ok || !parseWhole(ctx, d, data) || !m.fastWalk(d, b) {
		putJdoc(d)
		// The slow path: encoding/json over the same bytes, which also
		// words and places any error.
		b, m = newMiniBuilder(src), miniFast{}
		if dec, cr, err := m.walk(ctx, src, b); err != nil {
			return walkFailed(ctx, src, dec, cr, err, emit)
		}
	} else {
		putJdoc(d)
	}
	info, iid := m.info, m.iid
	t := b.t
	t.TaskID = iid
	if t.TaskID == "" {
		t.TaskID = harnessStem(fileName(src))
	}
	if t.TaskID == "" {
		return emit(fileReject(src, "no instance_id in the trajectory and no file name to take it from"))
	}
	t.RunID = runFromDir(src, t.TaskID)
	if m := info.Config.Model.ModelName; m != "" {
		t.Model = m
	}
	if b.anyUsage {
		t.Tokens = &b.tokens
	}
	if info.ModelStats != nil {
		t.CostUSD = info.ModelStats.InstanceCost
	}
	if info.Submission != nil && strings.TrimSpace(*info.Submission) != "" {
		t.Diff = ptr(strings.TrimLeft(*info.Submission, "\r\n"))
	}
	t.StopReason = strings.TrimSpace(info.ExitStatus)
	t.Outcome, t.Timeout = miniExitOutcome(info.ExitStatus)
	t.StopReason = strings.TrimSpace(info.ExitStatus)
	addSWEReport(src, t)
	return emit(Record{Line: 1, Trace: t})
}

func newMiniBuilder(src Source) *miniBuilder {
	return &miniBuilder{t: newHarnessTrace(nameMini, src), byID: map[string]int{}}
}

// walk reads the trajectory token by token with encoding/json.
func (m *miniFast) walk(ctx context.Context, src Source, b *miniBuilder) (*json.Decoder, *countingReader, error) {
	cr := &countingReader{r: src.R}
	dec := json.NewDecoder(cr)
	err := walkObject(ctx, dec, "trajectory file", func(key string) error {
		switch key {
		case "info":
			return dec.Decode(&m.info)
		case "instance_id":
			return dec.Decode(&m.iid)
		case "trajectory_format":
			return dec.Decode(&m.tf)
		case "messages":
			return walkArray(ctx, dec, "messages", func(int) error {
				var msg miniMessage
				if err := dec.Decode(&msg); err != nil {
					return err
				}
				if msg.Extra != nil {
					msg.Extra.settle()
				}
				b.add(msg, contentText(msg.Content))
				return nil
			})
		}
		return skipValue(dec)
	})
	return dec, cr, err
}

var (
	// The action block: ```bash in mini-swe-agent 1.x, ```mswea_bash_command
	// in 2.x's text-based models (its default action_regex).
	bashBlock  = regexp.MustCompile("(?s)```(?:bash|mswea_bash_command)\\s*\\n(.*?)\\n?```")
	returnCode = regexp.MustCompile(`<returncode>\s*(-?\d+)\s*</returncode>`)
)

// add takes message m, whose content reads as text.
func (b *miniBuilder) add(m miniMessage, text string) {
	t := b.t
	if len(m.Object) > 0 || len(m.Type) > 0 {
		switch {
		case rawText(m.Object) == "response":
			b.addResponse(m)
			return
		case rawText(m.Type) == "function_call_output":
			if i, ok := b.byID[rawText(m.CallID)]; ok {
				fillMiniResult(&t.ToolCalls[i], rawText(m.Output), m.Extra)
			}
			return
		}
	}
	switch m.Role {
	case "system":
		return
	case "assistant":
		if m.Extra != nil && m.Extra.Response != nil && m.Extra.Response.Usage != nil {
			u := m.Extra.Response.Usage
			b.tokens.Input += deref(u.PromptTokens)
			b.tokens.Output += deref(u.CompletionTokens)
			b.anyUsage = true
		}
		if strings.TrimSpace(text) != "" {
			addMessage(t, "assistant", text)
		}
		b.pending = b.pending[:0]
		if len(m.ToolCalls) > 0 {
			for _, tc := range m.ToolCalls {
				b.byID[tc.ID] = len(t.ToolCalls)
				t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: nameOr(tc.Function.Name, "bash"), Args: argsJSON(tc.Function.Arguments)})
			}
			return
		}
		// A 2.x text-based model records the commands it parsed; each
		// gets the next observation, in order.
		if m.Extra != nil && len(m.Extra.Actions) > 0 {
			if cmds := miniActions(m.Extra.Actions); len(cmds) > 0 {
				for _, c := range cmds {
					b.pending = append(b.pending, len(t.ToolCalls))
					t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: "bash", Args: commandArgs(c)})
				}
				return
			}
		}
		if blocks := bashBlock.FindAllStringSubmatch(text, -1); len(blocks) == 1 {
			b.pending = append(b.pending, len(t.ToolCalls))
			t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: "bash", Args: commandArgs(blocks[0][1])})
		}
	case "tool":
		if i, ok := b.byID[m.ToolCallID]; ok {
			fillMiniResult(&t.ToolCalls[i], text, m.Extra)
		}
	default: // user, and 2.x's closing "exit" message
		if !b.sawTask {
			b.sawTask = true
			addMessage(t, "user", text)
			return
		}
		if len(b.pending) > 0 {
			fillMiniResult(&t.ToolCalls[b.pending[0]], text, m.Extra)
			b.pending = b.pending[1:]
			return
		}
		// Format-error feedback and other harness notes stay visible.
		addMessage(t, "user", text)
	}
}

// fillMiniObservation splits "<returncode>N</returncode><output>…</output>"
// into the call's output and exit code and, for a non-zero code, its
// error. An observation without the tag (the submission's diff, a timeout
// notice) leaves the exit code unknown.
func fillMiniObservation(c *triage.ToolCall, text string) {
	c.Output = text
	// The tags are found by index: a lazy regexp over a megabyte of output
	// was a fifth of the decoder's time.
	rcAt := -1
	var rc []string
	if i := strings.Index(text, "<returncode>"); i >= 0 {
		// The code sits in the first bytes after its tag.
		end := min(len(text), i+64+len("</returncode>"))
		if loc := returnCode.FindStringSubmatchIndex(text[i:end]); loc != nil {
			rcAt = i
			rc = []string{text[i+loc[0] : i+loc[1]], text[i+loc[2] : i+loc[3]]}
		}
	}
	if i := strings.Index(text, "<output>"); i >= 0 && strings.Contains(text[i:], "</output>") {
		body := text[i+len("<output>"):]
		body = body[:strings.Index(body, "</output>")]
		c.Output = strings.TrimPrefix(body, "\n")
	} else if rcAt >= 0 {
		c.Output = strings.TrimLeft(text[:rcAt]+text[rcAt+len(rc[0]):], "\n")
	}
	if rc != nil {
		if n, err := strconv.Atoi(rc[1]); err == nil {
			c.ExitCode = ptr(n)
			if n != 0 {
				c.Error = fmt.Sprintf("exit status %d", n)
			}
		}
	}
}

func nameOr(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// miniExitOutcome maps info.exit_status. "Submitted" leaves the outcome to
// the scorer; "LimitsExceeded" (step or cost limit) and timeouts are
// budget kills (Timeout), the outcome left to the scorer; any other status is the name of the
// exception that ended the run (RetryError, FormatError…), so failed.
func miniExitOutcome(status string) (triage.Outcome, *bool) {
	switch s := strings.TrimSpace(status); {
	case s == "":
		return triage.OutcomeUnknown, nil
	case s == "Submitted":
		return triage.OutcomeUnknown, ptr(false)
	case s == "LimitsExceeded" || strings.Contains(strings.ToLower(s), "timeout"):
		return triage.OutcomeUnknown, ptr(true)
	default:
		return triage.OutcomeFailed, ptr(false)
	}
}
