package triage

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Outcome is the typed end of a run (seed 004): a bit cannot tell a safe
// give-up from a leak or a crash, so the outcome keeps four values.
type Outcome string

// The typed outcomes. OutcomeUnknown means the source did not say and
// nothing was derived yet.
const (
	OutcomeUnknown    Outcome = ""
	OutcomeSuccess    Outcome = "success"
	OutcomeIncomplete Outcome = "incomplete"
	OutcomeFailed     Outcome = "failed"
	OutcomeBlocked    Outcome = "blocked"
)

// Outcomes lists the known outcomes in report order.
var Outcomes = []Outcome{OutcomeSuccess, OutcomeIncomplete, OutcomeFailed, OutcomeBlocked}

// Valid reports whether o is one of the four typed outcomes.
func (o Outcome) Valid() bool {
	switch o {
	case OutcomeSuccess, OutcomeIncomplete, OutcomeFailed, OutcomeBlocked:
		return true
	}
	return false
}

// ToolCall is one tool invocation by the agent. Args is kept as the raw
// JSON the agent produced; SameArgs compares two calls' arguments the way
// the seed's loop detector does.
type ToolCall struct {
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args,omitempty"`
	Output string          `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
	WallS  *float64        `json:"wall_s,omitempty"`
	TS     string          `json:"ts,omitempty"`
	// ExitCode is the command's exit status when the harness recorded one
	// (a shell observation's return code); nil is unknown, not success.
	ExitCode *int `json:"exit_code,omitempty"`
}

// Message is one chat message of the run: the prompt, assistant text, or
// whatever the harness recorded as a message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// At is how many tool calls the run had made when the message came,
	// so the timeline can show messages and calls in the order they
	// happened (a message with At k comes before call k, 0-based). nil
	// is unknown: a row written without it, whose messages are shown
	// before the calls.
	At *int `json:"at,omitempty"`
}

// Tokens counts model tokens; nil fields in Trace mean unknown.
type Tokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Flags are the seed article's precomputed booleans. A nil field means the
// row did not carry the flag and the rules derive it from the evidence.
type Flags struct {
	AssumedAPI       *bool `json:"assumed_api,omitempty"`
	RequiredMissing  *bool `json:"required_missing,omitempty"`
	Asked            *bool `json:"asked,omitempty"`
	OutsideAllowlist *bool `json:"outside_allowlist,omitempty"`
}

// Trace is one agent run of one task at one seed. Pointer fields are nil
// when the source did not record the value: an unknown exit code is not a
// green one, and the rules treat it as missing evidence.
type Trace struct {
	ID       int64  `json:"-"`
	RunID    string `json:"run_id"`
	TaskID   string `json:"task_id"`
	Seed     int    `json:"seed"`
	Model    string `json:"model,omitempty"`
	Agent    string `json:"agent,omitempty"`
	PromptID string `json:"prompt_id,omitempty"`

	ExitCode *int    `json:"exit_code,omitempty"`
	Outcome  Outcome `json:"outcome,omitempty"`

	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// HasToolLog is false when the source recorded no tool log at all,
	// as opposed to an empty one.
	HasToolLog bool      `json:"-"`
	Messages   []Message `json:"messages,omitempty"`
	Answer     *string   `json:"answer,omitempty"`
	Diff       *string   `json:"diff,omitempty"`
	TestOutput *string   `json:"test_output,omitempty"`

	WrittenTests *bool    `json:"written_tests,omitempty"`
	WallS        *float64 `json:"wall_s,omitempty"`
	WallCap      *float64 `json:"wall_cap,omitempty"`
	Timeout      *bool    `json:"timeout,omitempty"`
	Tokens       *Tokens  `json:"tokens,omitempty"`
	CostUSD      *float64 `json:"cost_usd,omitempty"`

	Flags

	// StopReason is the harness's own word for how the run ended
	// ("submitted", "exit_cost", "LimitsExceeded", "max_iterations"…),
	// kept verbatim so evidence can quote it.
	StopReason string `json:"stop_reason,omitempty"`
	// Scorer is the benchmark harness's per-test verdict (a SWE-bench
	// report), when one was found: which tests it ran and which failed.
	Scorer *ScorerReport `json:"scorer_report,omitempty"`

	// ReadCut, when set, says this copy holds only the first Kept of the
	// trace's Total tool calls: the commands that read traces bound the
	// memory one trace takes (ingest.DecodeStoredCalls). The stored row
	// is whole; a cut copy is never stored (the row encoder leaves it
	// out), and shown as JSON it says what was cut.
	ReadCut *ReadCut `json:"read_cut,omitempty"`

	// Source names the format the trace came from ("jsonl", "swe-agent", …).
	Source string `json:"-"`
	// Raw is the original row verbatim (a JSONL line, or the harness's own
	// record for other formats). Unknown fields live here.
	Raw []byte `json:"-"`
	// ContentHash identifies the content for de-duplication and for
	// checking label exchange between stores (hex SHA-256 of Raw).
	ContentHash string `json:"-"`
}

// ReadCut says how much of a trace's tool log a reader kept.
type ReadCut struct {
	Kept  int `json:"kept"`
	Total int `json:"total"`
}

// Note says what was cut, for a reader.
func (c *ReadCut) Note() string {
	return fmt.Sprintf("only the first %d of its %d tool calls were read (calls %d to %d were not: a trace is read up to %d calls so memory stays bounded; show prints it whole)",
		c.Kept, c.Total, c.Kept, c.Total-1, c.Kept)
}

// CallCount is the number of the trace's tool calls, those a reader cut
// (ReadCut) included: a budget on calls counts them all.
func (t *Trace) CallCount() int {
	if t.ReadCut != nil {
		return t.ReadCut.Total
	}
	return len(t.ToolCalls)
}

// Key names a trace the way people do on the command line: RUN/TASK#SEED.
func (t *Trace) Key() string { return TraceKey(t.RunID, t.TaskID, t.Seed) }

// TraceKey formats a trace name as RUN/TASK#SEED.
func TraceKey(run, task string, seed int) string {
	return fmt.Sprintf("%s/%s#%d", run, task, seed)
}

// Green reports whether the scorer passed: exit code known and zero.
func (t *Trace) Green() bool { return t.ExitCode != nil && *t.ExitCode == 0 }

// Validate checks the invariants every stored trace must hold.
func (t *Trace) Validate() error {
	if t.TaskID == "" {
		return fmt.Errorf("task_id: missing")
	}
	if t.RunID == "" {
		return fmt.Errorf("run_id: missing")
	}
	for _, f := range [...]struct{ name, v string }{{"run_id", t.RunID}, {"task_id", t.TaskID}, {"model", t.Model}, {"agent", t.Agent}, {"prompt_id", t.PromptID}} {
		if err := NoNUL(f.name, f.v); err != nil {
			return err
		}
	}
	if t.Seed < 0 {
		return fmt.Errorf("seed: %d is negative", t.Seed)
	}
	if t.Outcome != OutcomeUnknown && !t.Outcome.Valid() {
		return fmt.Errorf("outcome: %q is not one of success, incomplete, failed, blocked", t.Outcome)
	}
	for i, c := range t.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool_calls[%d].name: missing", i)
		}
	}
	return nil
}

// NoNUL refuses a NUL character (U+0000) in a value a store keeps as text:
// PostgreSQL's text cannot hold one (the whole write failed there, while
// SQLite stored it), so both stores refuse it alike, before writing, and
// the row is rejected alone with its file and line. Bodies (tool output,
// the raw row) are bytes on both and keep NULs.
func NoNUL(field, v string) error {
	if i := strings.IndexByte(v, 0); i >= 0 {
		return fmt.Errorf("%s: holds a NUL character (\\u0000) at byte %d, which a store cannot keep as text (PostgreSQL refuses it)", field, i)
	}
	return nil
}
