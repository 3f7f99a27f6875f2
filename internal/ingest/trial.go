package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// TrialFormat reads a benchmark runner's trial folder as one trace: the
// folder Harbor (Terminal-Bench 2) and BenchFlow write per trial,
// jobs/<job>/<task>__<suffix>/ with result.json, agent/ (the agent's own
// logs), trajectory/acp_trajectory.jsonl (BenchFlow) and verifier/
// (reward.txt or reward.json, ctrf.json, test-stdout.txt), or the older
// Terminal-Bench harness's (`tb run`) runs/<run>/<task>/<trial>/ with
// results.json, commands.txt, sessions/ (agent.log, tests.log), panes/
// and agent-logs/. A directory walk claims such a folder by its layout
// instead of walking into it, with or without its result file (see
// isTrialDir); its result.json may also be named alone.
//
// The agent's log is decoded by the format that reads it (an ACP
// trajectory, a Gemini CLI session, Claude Code stream-json, a Codex
// rollout, a mini-swe-agent or OpenHands trajectory…), found by name
// first and then by content under agent/, agent-logs/ and sessions/;
// else Terminus' episodes (terminusTrace); else the terminal capture is
// kept as text (trialCaptureTrace). The outcome is the verifier's, always
// (a budget kill is the stop reason):
// the rewards in result.json, else verifier/reward.json, reward.txt, or
// the last line of rewards.jsonl, else Terminal-Bench's is_resolved, else
// the verifier's test report (ctrf.json: green when every test passed). Only
// a full reward is green (DESIGN §7: 0.55 of 1 is red), and every reward
// named must be full when there is no "reward" key. A harness exception
// (exception_info, failure_mode) is the stop reason, and an agent timeout
// sets the timeout. The run is the job folder's name; the seed is the
// trial's place among the job's trials of the same task.
var TrialFormat = Format{
	Name:   nameTrial,
	Wants:  "a trial folder: result.json (trial_name, task_name) with agent/, trajectory/, verifier/, sessions/ or agent-logs/ beside it (Harbor, Terminal-Bench, BenchFlow)",
	Detect: detectTrial,
	Decode: decodeTrial,
}

const nameTrial = "trial"

// detectTrial reads a trial's result file named on its own.
func detectTrial(name string, head []byte) bool {
	if b := strings.ToLower(filepath.Base(name)); b != "result.json" && b != "results.json" {
		return false
	}
	ks := keySet(headObjectKeys(trimHead(head)))
	_, trial := ks["trial_name"]
	_, task := ks["task_name"]
	_, tid := ks["task_id"]
	return trial && (task || tid)
}

// trialResultNames are the result files a trial folder holds: Harbor's and
// BenchFlow's, then the Terminal-Bench harness's.
var trialResultNames = []string{"result.json", "results.json"}

// trialLogDirs are the folders beside a result file that make a trial:
// Harbor's and BenchFlow's, then Terminal-Bench's (`tb run` writes
// sessions/, panes/ and agent-logs/ beside each trial's results.json).
var trialLogDirs = []string{"agent", "trajectory", "verifier", "agent-logs", "sessions", "panes"}

// tbCommandsName is the keystrokes Terminal-Bench's harness sent to the
// trial's terminal, one command a line.
const tbCommandsName = "commands.txt"

// isTrialDir reports whether dir is a trial folder: a result file and a
// log or verifier folder (or Terminal-Bench's commands.txt) beside it; or,
// with no result file (a run killed before the harness wrote it, a copy
// that lost it), a layout only a trial has: Harbor's agent/ with a
// verifier/ that holds a score or a test report, or Terminal-Bench's
// sessions/ with commands.txt, panes/ or agent-logs/.
func isTrialDir(dir string) bool {
	if trialResultPath(dir) != "" {
		for _, d := range trialLogDirs {
			if isDir(filepath.Join(dir, d)) {
				return true
			}
		}
		return isRegular(filepath.Join(dir, tbCommandsName))
	}
	if isDir(filepath.Join(dir, "agent")) {
		for _, f := range []string{"ctrf.json", "reward.txt", "reward.json", "test-stdout.txt"} {
			if isRegular(filepath.Join(dir, "verifier", f)) {
				return true
			}
		}
	}
	if isDir(filepath.Join(dir, "sessions")) {
		return isRegular(filepath.Join(dir, tbCommandsName)) || isDir(filepath.Join(dir, "panes")) || isDir(filepath.Join(dir, "agent-logs"))
	}
	return false
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func trialResultPath(dir string) string {
	for _, n := range trialResultNames {
		p := filepath.Join(dir, n)
		if isRegular(p) {
			return p
		}
	}
	return ""
}

// trialResult is what triage reads of a trial's result file: Harbor's
// TrialResult, BenchFlow's result.json and Terminal-Bench's TrialResults.
type trialResult struct {
	TaskName  string          `json:"task_name"`
	TrialName string          `json:"trial_name"`
	TaskID    json.RawMessage `json:"task_id"`
	AgentInfo *struct {
		Name      string `json:"name"`
		ModelInfo *struct {
			Name string `json:"name"`
		} `json:"model_info"`
	} `json:"agent_info"`
	AgentResult *struct {
		NInputTokens  *int64   `json:"n_input_tokens"`
		NOutputTokens *int64   `json:"n_output_tokens"`
		CostUSD       *float64 `json:"cost_usd"`
	} `json:"agent_result"`
	VerifierResult *struct {
		Rewards map[string]json.RawMessage `json:"rewards"`
	} `json:"verifier_result"`
	Rewards       map[string]json.RawMessage `json:"rewards"`
	ExceptionInfo *struct {
		Type    string `json:"exception_type"`
		Message string `json:"exception_message"`
	} `json:"exception_info"`
	Error          json.RawMessage `json:"error"`
	AgentExecution *struct {
		StartedAt  string `json:"started_at"`
		FinishedAt string `json:"finished_at"`
	} `json:"agent_execution"`
	// Terminal-Bench's harness.
	IsResolved        *bool             `json:"is_resolved"`
	FailureMode       string            `json:"failure_mode"`
	ParserResults     map[string]string `json:"parser_results"`
	TotalInputTokens  *int64            `json:"total_input_tokens"`
	TotalOutputTokens *int64            `json:"total_output_tokens"`
	AgentStartedAt    string            `json:"agent_started_at"`
	AgentEndedAt      string            `json:"agent_ended_at"`
	// read says the record was read: without one, the log's own end is
	// the only evidence of how the run stopped.
	read bool
}

func decodeTrial(ctx context.Context, src Source, emit func(Record) error) error {
	if src.Path == "" {
		return emit(fileReject(src, "a trial's result file read from standard input has no folder beside it to read the agent's log and the verifier from; name the trial folder"))
	}
	dir := src.Path
	if !src.trial {
		dir = filepath.Dir(src.Path)
	}
	resPath := trialResultPath(dir)
	var res trialResult
	resRead := false
	if resPath != "" {
		data, rerr := readSmall(resPath)
		var err error
		if rerr == nil {
			err = json.Unmarshal(data, &res)
		}
		switch {
		case rerr != nil:
			// Unreadable or over the results-file limit: rejected by
			// name, and the trial imports without it, as a corrupt one.
			if err := emit(Record{Line: 1, Reject: &Reject{File: resPath, Line: 1, Reason: rerr.Error() + "; the trial is imported without it"}}); err != nil {
				return err
			}
		case err != nil:
			// The harness's record is unreadable, but the agent's log
			// and the verifier's files beside it are not: the trial
			// imports with what they say (an unknown outcome when the
			// record was the only verdict), and the reject names the
			// file and line.
			res = trialResult{}
			line, off := jsonErrPlace(data, err)
			why := explainJSONErr(err)
			if off == int64(len(data)) && strings.Contains(err.Error(), "unexpected end of JSON") {
				why = errors.New("truncated input: unexpected end of JSON")
			}
			if err := emit(Record{Line: line, Reject: &Reject{File: resPath, Line: line, Reason: fmt.Sprintf("byte %d: %v; the trial is imported without it", off, why), Raw: clipRaw(data)}}); err != nil {
				return err
			}
		default:
			resRead = true
		}
	}
	res.read = resRead
	if !resRead {
		// Terminal-Bench's run-level results.json lists every trial's
		// record too.
		if r, p := tbRunRecord(dir); r != nil {
			res, resRead = *r, true
			res.read = true
			src.Opts.Outcomes.warnOnce(dir, "no readable results.json in the trial folder; its record is taken from the run's %s", p)
		} else if resPath == "" {
			src.Opts.Outcomes.warnOnce(dir, "no result.json or results.json in the trial folder: the outcome is read from the verifier's files alone, and is unknown without them")
		}
	}
	t, err := trialAgentTrace(ctx, dir, src.Opts, emit)
	if err != nil {
		return err
	}
	if t == nil {
		t = terminusTrace(dir, src)
	}
	if t == nil {
		t = trialCaptureTrace(dir, src)
	}
	t.Source = nameTrial
	t.Raw = nil
	t.TaskID = trialTaskID(dir, &res)
	t.Seed = trialSeed(dir, t.TaskID, &res)
	t.RunID = runFromDir(Source{Name: dir, Path: dir, Opts: src.Opts}, t.TaskID)
	applyTrialResult(t, dir, &res)
	if t.Agent == "" || t.Model == "" {
		agent, model := tbRunMeta(dir)
		t.Agent, t.Model = nameOr(t.Agent, agent), nameOr(t.Model, model)
	}
	return emit(Record{Line: 1, Trace: t})
}

// tbRunRecord finds a trial's record in the results.json of the
// Terminal-Bench run it belongs to (runs/<run>/results.json lists every
// trial's TrialResults under "results"), two folders up; nil when there
// is none or it does not name the trial.
func tbRunRecord(dir string) (*trialResult, string) {
	p := filepath.Join(filepath.Dir(filepath.Dir(dir)), "results.json")
	data, err := readSmall(p)
	if err != nil {
		return nil, ""
	}
	var run struct {
		Results []json.RawMessage `json:"results"`
	}
	if json.Unmarshal(data, &run) != nil {
		return nil, ""
	}
	base := filepath.Base(dir)
	for _, raw := range run.Results {
		var r trialResult
		if json.Unmarshal(raw, &r) == nil && r.TrialName == base {
			return &r, p
		}
	}
	return nil, ""
}

// jsonErrPlace is the 1-based line and byte offset of a JSON error in data.
func jsonErrPlace(data []byte, err error) (int, int64) {
	off := int64(len(data))
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	off = min(max(off, 0), int64(len(data)))
	return 1 + strings.Count(string(data[:off]), "\n"), off
}

func clipRaw(b []byte) []byte {
	if len(b) > HarnessRawLimit {
		b = b[:HarnessRawLimit]
	}
	return append([]byte(nil), b...)
}

// trialLogNames are the agent logs looked for first, by name, relative to
// the trial folder: BenchFlow's ACP capture, Harbor's copies of each
// agent's own log.
var trialLogNames = []string{
	"trajectory/acp_trajectory.jsonl",
	"agent/acp_trajectory.jsonl",
	"agent/gemini-cli.trajectory.jsonl",
	"agent/gemini-cli.trajectory.json",
	"agent/claude-code.txt",
	"agent/mini-swe-agent.trajectory.json",
	"agent/openhands.trajectory.json",
}

// maxTrialLogFiles bounds the files under agent/ tried by content.
const maxTrialLogFiles = 500

// trialAgentTrace decodes the trial's agent log with the format that
// reads it, passing its rejects on; nil when the trial holds no log any
// format reads.
func trialAgentTrace(ctx context.Context, dir string, opts Options, emit func(Record) error) (*triage.Trace, error) {
	var cands []string
	for _, n := range trialLogNames {
		cands = append(cands, filepath.Join(dir, filepath.FromSlash(n)))
	}
	for _, sub := range []string{"agent", "agent-logs", "sessions"} {
		root := filepath.Join(dir, sub)
		n := 0
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || n >= maxTrialLogFiles {
				return filepath.SkipDir
			}
			if d.IsDir() {
				if p != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				n++
				cands = append(cands, p)
			}
			return nil
		})
	}
	seen := map[string]bool{}
	for _, p := range cands {
		if seen[p] {
			continue
		}
		seen[p] = true
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
			continue
		}
		in, err := Open(p, nil, nil)
		if err != nil {
			continue
		}
		f, ok := trialLogFormat(p, in.Head)
		if !ok {
			in.Close()
			continue
		}
		var got *triage.Trace
		// As Decode does for any input (it cannot be called from here:
		// the format table refers to this decoder): a gzipped log is held
		// to the import's --max-ratio and --max-inflate.
		if in.inflate != nil {
			in.inflate.limits = limitsOf(opts)
		}
		err = f.Decode(ctx, Source{Name: p, Path: p, R: in.R, Opts: opts, gzipped: in.gzipped}, func(r Record) error {
			if r.Trace != nil {
				if got == nil {
					got = r.Trace
				}
				return nil
			}
			return emit(r)
		})
		in.Close()
		if err != nil {
			return nil, err
		}
		if got != nil {
			return got, nil
		}
	}
	return nil, nil
}

// trialLogFormat detects an agent log among the harness formats (our own
// JSONL is not an agent's log, and a trial is not nested in a trial).
func trialLogFormat(name string, head []byte) (Format, bool) {
	for _, f := range agentLogFormats() {
		if f.Detect == nil {
			continue
		}
		if f.Detect(name, head) {
			return f, true
		}
	}
	return Format{}, false
}

// trialTaskID is the task: result.json's task_name (Terminal-Bench's
// task_id), else the trial folder's <task>__ prefix, else its name.
func trialTaskID(dir string, res *trialResult) string {
	if res.TaskName != "" {
		return res.TaskName
	}
	var tid string
	if json.Unmarshal(res.TaskID, &tid) == nil && tid != "" {
		return tid
	}
	base := filepath.Base(dir)
	if loc := tbTrialName.FindStringIndex(base); loc != nil && loc[0] > 0 {
		// Terminal-Bench's <task>.<attempt>-of-<n>.<run> (whose run id
		// holds a "__").
		return base[:loc[0]]
	}
	if task, _, ok := strings.Cut(base, "__"); ok && task != "" {
		return task
	}
	return base
}

// tbRunMeta is what Terminal-Bench's run_metadata.json says of the run a
// trial belongs to (two folders up): the agent and the model, which its
// trial records do not carry.
func tbRunMeta(dir string) (agent, model string) {
	data, err := readSmall(filepath.Join(filepath.Dir(filepath.Dir(dir)), "run_metadata.json"))
	if err != nil {
		return "", ""
	}
	var m struct {
		AgentName string `json:"agent_name"`
		ModelName string `json:"model_name"`
	}
	if json.Unmarshal(data, &m) != nil {
		return "", ""
	}
	return m.AgentName, m.ModelName
}

// tbTrialName is Terminal-Bench's trial name, <task>.<attempt>-of-<n>.<run>.
var tbTrialName = regexp.MustCompile(`\.(\d+)-of-\d+\.`)

// trialSeed is the repeat index: Terminal-Bench's attempt number less one,
// else the trial's place, by name, among the job's trial folders of the
// same task (Harbor names repeats <task>__<random>).
func trialSeed(dir, task string, res *trialResult) int {
	if m := tbTrialName.FindStringSubmatch(nameOr(res.TrialName, filepath.Base(dir))); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			return n - 1
		}
	}
	base := filepath.Base(dir)
	if !strings.HasPrefix(base, task+"__") {
		return 0
	}
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		return 0
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), task+"__") && isTrialDir(filepath.Join(filepath.Dir(dir), e.Name())) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for i, n := range names {
		if n == base {
			return i
		}
	}
	return 0
}
