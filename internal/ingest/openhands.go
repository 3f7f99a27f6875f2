package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// OpenHandsFormat reads OpenHands trajectories: an exported event stream
// (a JSON array of actions and observations, streamed element by element;
// one trace, Raw nil, task from the file name) and evaluation output.jsonl
// (one instance a line, one trace a line, Raw the line when small).
var OpenHandsFormat = Format{Name: nameOpenHands, Wants: "a JSON array of events with action/observation, or output.jsonl lines with instance_id and history (OpenHands)", Detect: detectOpenHands, Decode: decodeOpenHands}

func detectOpenHands(name string, head []byte) bool {
	t := trimHead(head)
	if len(t) == 0 {
		return false
	}
	if t[0] == '[' {
		rest := trimHead(t[1:])
		if len(rest) == 0 || rest[0] != '{' {
			return false
		}
		return isOpenHandsEvent(keySet(headObjectKeys(rest)))
	}
	if t[0] != '{' {
		return false
	}
	ks := keySet(headObjectKeys(firstLines(t, 1)[0]))
	if _, ok := ks["trajectory_format"]; ok {
		return false
	}
	if _, ok := ks["instance_id"]; !ok {
		return isResolverOutput(ks)
	}
	n := 0
	for _, k := range []string{"test_result", "history", "metrics", "metadata", "instruction"} {
		if _, ok := ks[k]; ok {
			n++
		}
	}
	return n >= 2 || (n == 1 && strings.HasSuffix(name, ".jsonl"))
}

// isResolverOutput recognises a line of the resolver's output.jsonl: an
// issue (or PR review) with the resolver's own keys beside it.
func isResolverOutput(ks map[string]headKey) bool {
	_, issue := ks["issue"]
	_, pr := ks["pr_review"]
	if !issue && !pr {
		return false
	}
	n := 0
	for _, k := range []string{"issue_type", "instruction", "base_commit", "git_patch", "history", "success", "result_explanation"} {
		if _, ok := ks[k]; ok {
			n++
		}
	}
	return n >= 2
}

func isOpenHandsEvent(ks map[string]headKey) bool {
	_, id := ks["id"]
	_, ts := ks["timestamp"]
	_, src := ks["source"]
	_, act := ks["action"]
	_, obs := ks["observation"]
	return id && ts && src && act != obs
}

type ohUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

type ohEvent struct {
	ID          int64           `json:"id"`
	Timestamp   string          `json:"timestamp"`
	Source      string          `json:"source"`
	Message     string          `json:"message"`
	Action      string          `json:"action"`
	Observation string          `json:"observation"`
	Args        json.RawMessage `json:"args"`
	Cause       *int64          `json:"cause"`
	Content     json.RawMessage `json:"content"`
	Extras      ohExtras        `json:"extras"`
	// ToolCallMetadata names the function and the model's response.
	ToolCallMetadata *ohToolCallMeta `json:"tool_call_metadata"`
	LLMMetrics       *ohLLMMetrics   `json:"llm_metrics"`
	ohFlat
	// isFlat caches flat(), which rebuilding Args would change.
	isFlat bool
	// text is Content's text when the fast path read it (textSet).
	text    string
	textSet bool
}

type ohExtras struct {
	Metadata   *ohExitMeta `json:"metadata"`
	ExitCode   *int        `json:"exit_code"`
	AgentState string      `json:"agent_state"`
}

type ohExitMeta struct {
	ExitCode *int `json:"exit_code"`
}

type ohToolCallMeta struct {
	FunctionName  string           `json:"function_name"`
	ModelResponse *ohModelResponse `json:"model_response"`
}

type ohModelResponse struct {
	ID    string   `json:"id"`
	Model string   `json:"model"`
	Usage *ohUsage `json:"usage"`
}

type ohLLMMetrics struct {
	AccumulatedCost       *float64 `json:"accumulated_cost"`
	AccumulatedTokenUsage *ohUsage `json:"accumulated_token_usage"`
}

// contentText is the event's content as text.
func (e *ohEvent) contentText() string {
	if e.textSet {
		return e.text
	}
	return contentText(e.Content)
}

// ohFlat holds the fields the pre-2025 flat shape (the resolver's history:
// no id, no args object, no extras) keeps at the top level of an event:
// an action's own arguments, and a shell observation's exit code.
type ohFlat struct {
	Command  *string         `json:"command"`
	Code     *string         `json:"code"`
	Path     *string         `json:"path"`
	URL      *string         `json:"url"`
	Thought  string          `json:"thought"`
	Outputs  json.RawMessage `json:"outputs"`
	ExitCode *int            `json:"exit_code"`
}

// flat reports whether e is in the pre-2025 flat shape.
func (e *ohEvent) flat() bool {
	return e.Timestamp == "" && e.Cause == nil && len(e.Args) == 0 && e.ToolCallMetadata == nil
}

// flatArgs rebuilds a flat action's args object from its top-level
// fields, so a command reads the same in both shapes.
func (e *ohEvent) flatArgs() json.RawMessage {
	args := map[string]json.RawMessage{}
	for k, v := range map[string]*string{"command": e.Command, "code": e.Code, "path": e.Path, "url": e.URL} {
		if v != nil {
			args[k] = stringJSON(*v)
		}
	}
	if e.Action == "message" && len(e.Content) > 0 {
		args["content"] = e.Content
	}
	if e.Thought != "" {
		args["thought"] = stringJSON(e.Thought)
	}
	if len(e.Outputs) > 0 {
		args["outputs"] = e.Outputs
	}
	if len(args) == 0 {
		return nil
	}
	b, _ := json.Marshal(args)
	return b
}

// exitCode is a shell observation's exit status: extras.metadata (v1),
// extras (2024) or the top level (flat). OpenHands writes -1 when the
// command had not finished (its default, "no exit code"): unknown.
func (e *ohEvent) exitCode() (code *int, unfinished bool) {
	switch {
	case e.Extras.Metadata != nil && e.Extras.Metadata.ExitCode != nil:
		code = e.Extras.Metadata.ExitCode
	case e.Extras.ExitCode != nil:
		code = e.Extras.ExitCode
	default:
		code = e.ohFlat.ExitCode
	}
	if code != nil && *code == -1 {
		return nil, true
	}
	return code, false
}

// ohBuilder folds events into a trace.
type ohBuilder struct {
	t          *triage.Trace
	byID       map[int64]int
	seenResp   map[string]bool
	tokens     triage.Tokens
	anyTokens  bool
	metrics    *triage.Tokens
	cost       *float64
	first      string
	last       string
	agentState string
	model      string
	// pending is the flat-shape call awaiting its observation, or -1:
	// flat observations name no cause and follow their action.
	pending int
	// lastAction is the last agent action's name ("finish" when the agent
	// ended the run itself).
	lastAction string
}

func newOHBuilder(src Source) *ohBuilder {
	return &ohBuilder{t: newHarnessTrace(nameOpenHands, src), byID: map[int64]int{}, seenResp: map[string]bool{}, pending: -1}
}

// ohSkipActions are bookkeeping actions, not agent tool use.
var ohSkipActions = map[string]bool{"system": true, "recall": true, "condensation": true, "change_agent_state": true, "null": true, "": true}

func (b *ohBuilder) add(e ohEvent) {
	if e.Timestamp != "" {
		if b.first == "" {
			b.first = e.Timestamp
		}
		b.last = e.Timestamp
	}
	if m := e.ToolCallMetadata; m != nil && m.ModelResponse != nil {
		r := m.ModelResponse
		if r.Model != "" && b.model == "" {
			b.model = r.Model
		}
		if r.Usage != nil && !b.seenResp[r.ID] {
			b.seenResp[r.ID] = true
			b.tokens.Input += r.Usage.PromptTokens
			b.tokens.Output += r.Usage.CompletionTokens
			b.anyTokens = true
		}
	}
	if m := e.LLMMetrics; m != nil {
		if m.AccumulatedCost != nil {
			b.cost = m.AccumulatedCost
		}
		if u := m.AccumulatedTokenUsage; u != nil {
			b.metrics = &triage.Tokens{Input: u.PromptTokens, Output: u.CompletionTokens}
		}
	}
	e.isFlat = e.flat()
	switch {
	case e.Action != "":
		if e.isFlat {
			e.Args = e.flatArgs()
		}
		b.action(e)
	case e.Observation != "":
		b.observation(e)
	}
}

func (b *ohBuilder) action(e ohEvent) {
	t := b.t
	var args map[string]json.RawMessage
	_ = json.Unmarshal(e.Args, &args)
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(args[k], &s)
		return s
	}
	role := "assistant"
	// The flat shape names no source: its opening message is the task.
	if e.Source == "user" || (e.isFlat && b.lastAction == "" && len(t.ToolCalls) == 0) {
		role = "user"
	}
	switch e.Action {
	case "message":
		text := nameOr(str("content"), e.Message)
		if role == "user" && len(t.Messages) > 0 && t.Messages[len(t.Messages)-1].Content == text {
			return // the instruction, already taken from output.jsonl
		}
		if strings.TrimSpace(text) != "" {
			addMessage(t, role, text)
		}
		return
	case "think":
		if th := str("thought"); th != "" {
			addMessage(t, "assistant", th)
		}
		return
	}
	if e.Action == "change_agent_state" {
		var st struct {
			AgentState string `json:"agent_state"`
		}
		if json.Unmarshal(e.Args, &st) == nil && st.AgentState != "" {
			b.agentState = st.AgentState
		}
	}
	if ohSkipActions[e.Action] {
		return
	}
	if e.Source != "user" {
		b.lastAction = e.Action
	}
	if th := strings.TrimSpace(str("thought")); th != "" {
		addMessage(t, "assistant", th)
	}
	if e.Action == "finish" {
		if a := nameOr(str("final_thought"), str("outputs")); a != "" {
			t.Answer = &a
		}
	}
	name := e.Action
	if m := e.ToolCallMetadata; m != nil && m.FunctionName != "" {
		name = m.FunctionName
	}
	// The thought differs on every call; kept in the args it would hide
	// repeated identical commands from loop detection.
	delete(args, "thought")
	var raw json.RawMessage
	if len(args) > 0 {
		raw, _ = json.Marshal(args)
	}
	if e.isFlat {
		b.pending = len(t.ToolCalls)
	} else {
		b.byID[e.ID] = len(t.ToolCalls)
	}
	t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: name, Args: raw, TS: e.Timestamp})
}

func (b *ohBuilder) observation(e ohEvent) {
	if e.Observation == "agent_state_changed" {
		b.agentState = e.Extras.AgentState
		return
	}
	i := -1
	switch {
	case e.Cause != nil:
		if j, ok := b.byID[*e.Cause]; ok {
			i = j
		}
	case e.isFlat:
		i, b.pending = b.pending, -1
	}
	if i < 0 {
		return
	}
	c := &b.t.ToolCalls[i]
	c.Output = e.contentText()
	code, unfinished := e.exitCode()
	c.ExitCode = code
	switch {
	case e.Observation == "error":
		c.Error = nameOr(c.Output, "error")
	case e.Observation == "user_rejected":
		c.Error = "rejected by the user"
	case unfinished:
		c.Error = "exit code -1 (the command had not finished)"
	case code != nil && *code != 0:
		c.Error = fmt.Sprintf("exit code %d", *code)
	}
}

// finish sets what is known only at the end of the stream.
func (b *ohBuilder) finish() *triage.Trace {
	t := b.t
	if b.model != "" {
		t.Model = b.model
	}
	switch {
	case b.metrics != nil:
		t.Tokens = b.metrics
	case b.anyTokens:
		t.Tokens = &b.tokens
	}
	t.CostUSD = b.cost
	t.WallS = wallSpan(b.first, b.last)
	// The harness's last word: the agent state it recorded last, else the
	// agent's own finish action (the flat shape records no states).
	switch {
	case b.agentState != "":
		t.StopReason = b.agentState
	case b.lastAction == "finish":
		t.StopReason = "finish"
	}
	// The agent state is the harness's stop reason, not a verdict: with
	// no eval report the outcome stays unknown (an errored or stopped run
	// is not a scorer's fail; issue 28, ponyc-4588).
	return t
}

func decodeOpenHands(ctx context.Context, src Source, emit func(Record) error) error {
	if src.dirFiles != nil {
		return decodeOpenHandsEventDir(ctx, src, emit)
	}
	br, head, err := peekReader(src.R, 512)
	if err != nil {
		return &HarnessError{File: src.Name, Err: err}
	}
	src.R = br
	if t := trimHead(head); len(t) > 0 && t[0] == '[' {
		return decodeOpenHandsEvents(ctx, src, emit)
	}
	return decodeOpenHandsOutput(ctx, src, emit)
}

// decodeOpenHandsEvents streams an exported trajectory array.
func decodeOpenHandsEvents(ctx context.Context, src Source, emit func(Record) error) error {
	cr := &countingReader{r: src.R}
	dec := json.NewDecoder(cr)
	b := newOHBuilder(src)
	err := walkArray(ctx, dec, "event stream", func(int) error {
		var e ohEvent
		if err := dec.Decode(&e); err != nil {
			return err
		}
		b.add(e)
		return nil
	})
	if err != nil {
		return walkFailed(ctx, src, dec, cr, err, emit)
	}
	t := b.finish()
	t.TaskID = harnessStem(fileName(src))
	if t.TaskID == "" {
		return emit(fileReject(src, "an OpenHands event stream records no task: import it from a file named after the task"))
	}
	t.RunID = runFromDir(src, t.TaskID)
	return emit(Record{Line: 1, Trace: t})
}

// decodeOpenHandsEventDir reads a session's events folder (one event per
// file, in numeric order) as one trace, named after the session's
// directory. An event file that does not parse is rejected by its own
// name and position; the other events still make the trace.
func decodeOpenHandsEventDir(ctx context.Context, src Source, emit func(Record) error) error {
	b := newOHBuilder(src)
	events := 0
	for _, path := range src.dirFiles {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := readEventFile(path)
		if err != nil {
			return &HarnessError{File: path, Err: err}
		}
		var e ohEvent
		if err := json.Unmarshal(data, &e); err != nil {
			off := jsonErrOffset(data, err)
			line := 1 + bytes.Count(data[:off], []byte{'\n'})
			r := data[:min(len(data), HarnessRawLimit)]
			if err := emit(Record{Line: line, Reject: &Reject{File: path, Line: line, Reason: fmt.Sprintf("byte %d: %s", off, triage.DescribeJSONError(data, err)), Raw: r}}); err != nil {
				return err
			}
			continue
		}
		events++
		b.add(e)
	}
	if events == 0 {
		return nil
	}
	t := b.finish()
	session := filepath.Dir(strings.TrimRight(fileName(src), string(filepath.Separator)))
	t.TaskID = filepath.Base(session)
	if t.TaskID == "" || t.TaskID == "." || t.TaskID == string(filepath.Separator) {
		return emit(fileReject(src, "an OpenHands events folder records no session: keep it inside its session's directory"))
	}
	t.RunID = runFromDir(Source{Name: session, Path: session, Opts: src.Opts}, t.TaskID)
	return emit(Record{Line: 1, Trace: t})
}

// readEventFile reads one event file whole, refusing one over
// maxEventFile.
func readEventFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, pathErr(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEventFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxEventFile {
		return nil, fmt.Errorf("event file is larger than %d bytes", maxEventFile)
	}
	return data, nil
}

// jsonErrOffset places an Unmarshal failure in data: a syntax error where
// it was seen, anything else (a truncated or mistyped value) at its end
// or start.
func jsonErrOffset(data []byte, err error) int64 {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return min(se.Offset, int64(len(data)))
	case errors.As(err, &te):
		return min(te.Offset, int64(len(data)))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return int64(len(data))
	}
	return 0
}
