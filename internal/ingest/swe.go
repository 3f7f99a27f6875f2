package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// SWEAgentFormat reads SWE-agent trajectories (.traj), both the v0 layout
// (environment "swe_main", step state as a JSON string) and the v1 layout
// (environment "main", state an object, replay_config). The file is walked
// token by token: the per-step LM query and the full history, which can be
// most of the file, are skipped rather than held, so memory is bounded by
// the largest single step. Raw is nil (a whole-file format).
var SWEAgentFormat = Format{Name: nameSWEAgent, Wants: "a JSON object with trajectory, history and info (a SWE-agent .traj)", Detect: detectSWEAgent, Decode: decodeSWEAgent}

func detectSWEAgent(name string, head []byte) bool {
	t := trimHead(head)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	ks := keySet(headObjectKeys(t))
	if _, ok := ks["trajectory_format"]; ok {
		return false
	}
	if traj, ok := ks["trajectory"]; ok && traj.Kind == '[' {
		if sweEnvironment(ks) {
			return true
		}
		_, hist := ks["history"]
		_, info := ks["info"]
		return hist || info || strings.HasSuffix(name, ".traj")
	}
	// The environment key comes first in both layouts; a head cut right
	// after it still says what the file is.
	return len(ks) == 1 && sweEnvironment(ks) && strings.HasSuffix(name, ".traj")
}

func sweEnvironment(ks map[string]headKey) bool {
	var env string
	if k, ok := ks["environment"]; ok && json.Unmarshal(k.Value, &env) == nil {
		return env == "swe_main" || env == "main"
	}
	return false
}

type sweStep struct {
	Action        string          `json:"action"`
	Observation   json.RawMessage `json:"observation"`
	Thought       string          `json:"thought"`
	ExecutionTime *float64        `json:"execution_time"`
	// obs is Observation's text when the fast path read it (obsSet).
	obs    string
	obsSet bool
}

// output is the step's observation as text.
func (s *sweStep) output() string {
	if s.obsSet {
		return s.obs
	}
	return contentText(s.Observation)
}

type sweHistoryItem struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	IsDemo  bool            `json:"is_demo"`
}

type sweModelStats struct {
	InstanceCost   *float64 `json:"instance_cost"`
	TokensSent     *int64   `json:"tokens_sent"`
	TokensReceived *int64   `json:"tokens_received"`
}

type sweInfo struct {
	ExitStatus *string        `json:"exit_status"`
	Submission *string        `json:"submission"`
	ModelStats *sweModelStats `json:"model_stats"`
}

type sweReplay struct {
	ProblemStatement struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	} `json:"problem_statement"`
	Agent struct {
		Model struct {
			Name string `json:"name"`
		} `json:"model"`
	} `json:"agent"`
}

// sweFile is what the walk keeps of a trajectory.
type sweFile struct {
	steps   []sweStep
	problem string
	info    sweInfo
	replay  *sweReplay
	env     string
}

func decodeSWEAgent(ctx context.Context, src Source, emit func(Record) error) error {
	var f sweFile
	data, ok, src := wholeFile(src)
	defer releaseWhole(data)
	if d := getJdoc(); !ok || !parseWhole(ctx, d, data) || !f.fastWalk(d) {
		putJdoc(d)
		// The slow path: encoding/json over the same bytes, which also
		// words and places any error.
		f = sweFile{}
		if dec, cr, err := f.walk(ctx, src); err != nil {
			return walkFailed(ctx, src, dec, cr, err, emit)
		}
	} else {
		putJdoc(d)
	}
	t, reason := f.trace(src)
	if t == nil {
		return emit(fileReject(src, reason))
	}
	// The scorer's verdict, as for mini-swe-agent: a SWE-bench report
	// beside the trajectory or given with --results.
	addSWEReport(src, t)
	return emit(Record{Line: 1, Trace: t})
}

// walk reads the trajectory token by token with encoding/json.
func (f *sweFile) walk(ctx context.Context, src Source) (*json.Decoder, *countingReader, error) {
	cr := &countingReader{r: src.R}
	dec := json.NewDecoder(cr)
	err := walkObject(ctx, dec, "trajectory file", func(key string) error {
		switch key {
		case "environment":
			return dec.Decode(&f.env)
		case "trajectory":
			return walkArray(ctx, dec, "trajectory", func(int) error {
				var s sweStep
				if err := dec.Decode(&s); err != nil {
					return err
				}
				f.steps = append(f.steps, s)
				return nil
			})
		case "history":
			return walkArray(ctx, dec, "history", func(int) error {
				if f.problem != "" {
					return skipValue(dec)
				}
				var h sweHistoryItem
				if err := dec.Decode(&h); err != nil {
					return err
				}
				if h.Role == "user" && !h.IsDemo {
					f.problem = contentText(h.Content)
				}
				return nil
			})
		case "info":
			return dec.Decode(&f.info)
		case "replay_config":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
			f.replay = decodeReplay(raw)
			return nil
		}
		return skipValue(dec)
	})
	return dec, cr, err
}

// decodeReplay accepts replay_config as an object or as a JSON string
// holding one (both occur in v1 files); a config it cannot read is ignored.
func decodeReplay(raw json.RawMessage) *sweReplay {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		raw = json.RawMessage(s)
	}
	var r sweReplay
	if json.Unmarshal(raw, &r) != nil {
		return nil
	}
	return &r
}

func (f *sweFile) trace(src Source) (*triage.Trace, string) {
	t := newHarnessTrace(nameSWEAgent, src)
	t.TaskID = harnessStem(fileName(src))
	if f.replay != nil {
		if t.TaskID == "" {
			t.TaskID = f.replay.ProblemStatement.ID
		}
		if m := f.replay.Agent.Model.Name; m != "" {
			t.Model = m
		}
		if f.problem == "" {
			f.problem = f.replay.ProblemStatement.Text
		}
	}
	if t.TaskID == "" {
		return nil, "no instance id: the trajectory records none; import it as <instance_id>.traj"
	}
	t.RunID = runFromDir(src, t.TaskID)
	if f.problem != "" {
		addMessage(t, "user", f.problem)
	}
	for i := range f.steps {
		s := &f.steps[i]
		if th := strings.TrimSpace(s.Thought); th != "" {
			addMessage(t, "assistant", s.Thought)
		}
		if strings.TrimSpace(s.Action) == "" {
			continue
		}
		t.ToolCalls = append(t.ToolCalls, triage.ToolCall{
			Name:   sweToolName(s.Action),
			Args:   commandArgs(s.Action),
			Output: s.output(),
			WallS:  s.ExecutionTime,
		})
	}
	if sub := f.info.Submission; sub != nil && strings.TrimSpace(*sub) != "" {
		if d := strings.TrimLeft(*sub, "\r\n"); looksLikeDiff(d) {
			t.Diff = &d
		} else {
			// EnIGMA (CTF) submits a flag, not a patch.
			t.Answer = ptr(strings.TrimSpace(*sub))
		}
	}
	if ms := f.info.ModelStats; ms != nil {
		if ms.TokensSent != nil || ms.TokensReceived != nil {
			t.Tokens = &triage.Tokens{Input: deref(ms.TokensSent), Output: deref(ms.TokensReceived)}
		}
		t.CostUSD = ms.InstanceCost
	}
	if f.info.ExitStatus != nil {
		t.Outcome, t.Timeout = sweExitOutcome(*f.info.ExitStatus)
		t.StopReason = strings.TrimSpace(*f.info.ExitStatus)
	}
	return t, ""
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

var toolWord = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// sweToolName is the action's first word (edit, open, python, submit…),
// or "bash" when the action does not start with a command word.
func sweToolName(action string) string {
	fields := strings.Fields(action)
	if len(fields) > 0 && toolWord.MatchString(fields[0]) {
		return fields[0]
	}
	return "bash"
}

// looksLikeDiff reports whether s is a unified diff rather than free text.
func looksLikeDiff(s string) bool {
	return strings.HasPrefix(s, "diff --git") || strings.HasPrefix(s, "--- ") || strings.Contains(s, "\ndiff --git ")
}

// sweBudgetKills are the exit statuses SWE-agent writes when a budget
// (cost, context window, wall clock, command time) ended the run.
var sweBudgetKills = map[string]bool{
	"exit_cost": true, "exit_context": true, "exit_total_execution_time": true,
	"exit_command_timeout": true,
}

// sweExitOutcome maps info.exit_status. A plain "submitted" leaves the
// outcome to the scorer (unknown here). Budget kills, including an
// auto-submission after one ("submitted (exit_cost)"), are Timeout, with
// the outcome left to the scorer too: SWE-bench scores the patch a killed
// run submitted, and a run it resolved is resolved (the kill is the stop
// reason, not the outcome); exit_forfeit and exit_command (the agent quit) are
// incomplete; harness or model errors (exit_error, exit_format, exit_api,
// exit_environment_error) are failed: the run crashed rather than ran out.
// Unknown statuses leave both unknown.
func sweExitOutcome(status string) (triage.Outcome, *bool) {
	s := strings.TrimSpace(status)
	if strings.HasPrefix(s, "submitted") {
		inner := strings.Trim(strings.TrimPrefix(s, "submitted"), " ()")
		if inner == "" {
			return triage.OutcomeUnknown, ptr(false)
		}
		if sweBudgetKills[inner] {
			return triage.OutcomeUnknown, ptr(true)
		}
		o, _ := sweExitOutcome(inner)
		return o, ptr(false)
	}
	switch {
	case sweBudgetKills[s]:
		return triage.OutcomeUnknown, ptr(true)
	case s == "exit_forfeit" || s == "exit_command":
		return triage.OutcomeIncomplete, ptr(false)
	case s == "exit_error" || s == "exit_format" || s == "exit_api" || s == "exit_environment_error":
		return triage.OutcomeFailed, ptr(false)
	}
	return triage.OutcomeUnknown, nil
}
