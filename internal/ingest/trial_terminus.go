package ingest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// Terminus, Terminal-Bench's own agent, logs each turn of a trial as
// agent-logs/episode-N/: prompt.txt (what the model was shown: the task
// at first, then the terminal after the last turn's keystrokes),
// response.json (its reply: an analysis, an explanation, the commands it
// typed and whether it called the task complete) and debug.json. This is
// read from the harness's documented layout (terminal_bench/agents/
// terminus.py), not yet checked on a real run's files.

// terminusResponse is one turn's reply.
type terminusResponse struct {
	StateAnalysis string `json:"state_analysis"`
	Explanation   string `json:"explanation"`
	Commands      []struct {
		Keystrokes string   `json:"keystrokes"`
		IsBlocking *bool    `json:"is_blocking"`
		TimeoutSec *float64 `json:"timeout_sec"`
	} `json:"commands"`
	IsTaskComplete *bool `json:"is_task_complete"`
}

// maxTerminusEpisodes bounds the turns read of one trial.
const maxTerminusEpisodes = 5000

// terminusTrace reads a trial's Terminus episodes as steps: each command
// typed is a tool call ("terminal", its keystrokes as the command), and
// the terminal the next turn was shown is the output of the turn's last
// command. The explanation of each turn is an assistant message; a turn
// that calls the task complete is the answer and the stop reason. Nil when
// the trial has no readable episode.
func terminusTrace(dir string, src Source) *triage.Trace {
	root := filepath.Join(dir, "agent-logs")
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	type episode struct {
		n   int
		dir string
	}
	var eps []episode
	for _, e := range entries {
		num, ok := strings.CutPrefix(e.Name(), "episode-")
		if !ok || !e.IsDir() {
			continue
		}
		if n, err := strconv.Atoi(num); err == nil && n >= 0 {
			eps = append(eps, episode{n, filepath.Join(root, e.Name())})
		}
	}
	if len(eps) == 0 {
		return nil
	}
	sort.Slice(eps, func(i, j int) bool { return eps[i].n < eps[j].n })
	if len(eps) > maxTerminusEpisodes {
		eps = eps[:maxTerminusEpisodes]
	}
	t := newHarnessTrace(nameTrial, src)
	t.Agent = "terminus"
	read := 0
	lastCall := -1
	for i, ep := range eps {
		if i > 0 && lastCall >= 0 {
			// This turn's prompt is the terminal the last one left.
			if c, ok := readCaptureFile(filepath.Join(ep.dir, "prompt.txt"), maxCaptureText); ok {
				t.ToolCalls[lastCall].Output = c.Text
			}
		} else if i == 0 {
			if c, ok := readCaptureFile(filepath.Join(ep.dir, "prompt.txt"), maxCaptureText); ok && strings.TrimSpace(c.Text) != "" {
				t.Messages = append(t.Messages, triage.Message{Role: "user", Content: c.Text})
			}
		}
		data, err := readSmall(filepath.Join(ep.dir, "response.json"))
		if err != nil {
			continue
		}
		var r terminusResponse
		if json.Unmarshal(data, &r) != nil {
			continue
		}
		read++
		if text := strings.TrimSpace(strings.Join(presentTexts(r.StateAnalysis, r.Explanation), "\n\n")); text != "" {
			t.Messages = append(t.Messages, triage.Message{Role: "assistant", Content: text})
		}
		lastCall = -1
		for _, c := range r.Commands {
			args := map[string]any{"command": stripTerminal(c.Keystrokes)}
			if c.IsBlocking != nil {
				args["is_blocking"] = *c.IsBlocking
			}
			if c.TimeoutSec != nil {
				args["timeout_sec"] = *c.TimeoutSec
			}
			raw, _ := json.Marshal(args)
			t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: "terminal", Args: raw})
			lastCall = len(t.ToolCalls) - 1
		}
		if r.IsTaskComplete != nil && *r.IsTaskComplete {
			t.StopReason = "submitted"
			t.Answer = ptr(nameOr(strings.TrimSpace(r.Explanation), "task complete"))
		}
	}
	if read == 0 {
		return nil
	}
	return t
}

// presentTexts keeps the texts that are not blank.
func presentTexts(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
