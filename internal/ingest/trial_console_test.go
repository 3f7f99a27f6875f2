package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// The consoles below are written for these tests from the printing code
// of each agent (see trial_console.go for the files), with the colours
// rich and termcolor add; they are not copies of anyone's capture.

const miniRule = "────────────────────────────────────────────────────────────────"

// miniConsole is mini-swe-agent's interactive console (mini -y) as
// Harbor tees it to agent/mini-swe-agent.txt: a rule before each step,
// the model's reply under "mini-swe-agent (step N, $C):", the observation
// under "User:".
var miniConsole = strings.Join([]string{
	"\x1b[1;32mSystem\x1b[0m:",
	"You are a helpful assistant that can interact with a computer.",
	"",
	"\x1b[1;32mUser\x1b[0m:",
	"Please solve this issue: make hello.txt say Hello",
	miniRule,
	"",
	"\x1b[31m\x1b[1mmini-swe-agent\x1b[0m\x1b[31m (step \x1b[1m1\x1b[0m\x1b[31m, \x1b[1m$0.01\x1b[0m\x1b[31m):\x1b[0m",
	"THOUGHT: look first.",
	"",
	"```mswea_bash_command",
	"cat hello.txt",
	"```",
	"",
	"\x1b[1;32mUser\x1b[0m:",
	"<returncode>1</returncode>",
	"<output>",
	"cat: hello.txt: No such file or directory",
	"</output>",
	miniRule,
	"",
	"mini-swe-agent (step 2, $0.02):",
	"THOUGHT: write it.",
	"",
	"```mswea_bash_command",
	"echo Hello > hello.txt",
	"```",
	"",
	"User:",
	"<returncode>0</returncode>",
	"<output>",
	"</output>",
	miniRule,
	"",
	"mini-swe-agent (step 3, $0.03):",
	"Done.",
	"",
	"```mswea_bash_command",
	"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
	"```",
	"",
}, "\n")

// ohConsole is OpenHands' headless main (python -m openhands.core.main)
// as Harbor tees it to agent/openhands.txt: its log records, and each
// event under "HH:MM:SS - ACTION" / "HH:MM:SS - OBSERVATION".
var ohConsole = strings.Join([]string{
	"\x1b[92m10:00:00 - openhands:INFO\x1b[0m: main.py:120 - Initializing runtime",
	"\x1b[32m10:00:03 - ACTION\x1b[0m",
	"\x1b[32m[Agent Controller default] **CmdRunAction (source=EventSource.AGENT, is_input=False)**",
	"THOUGHT: Let me run the tests.",
	"COMMAND:",
	"pytest -q tests/\x1b[0m",
	"\x1b[33m10:00:09 - OBSERVATION\x1b[0m",
	"[Agent Controller default] **CmdOutputObservation (source=EventSource.AGENT, exit code=1, metadata={",
	`  "exit_code": 1,`,
	`  "pid": -1,`,
	`  "working_dir": "/app"`,
	"})**",
	"--BEGIN AGENT OBSERVATION--",
	"F.",
	"FAILED tests/test_a.py::test_x - AssertionError",
	"[Current working directory: /app]",
	"[Command finished with exit code 1]",
	"--END AGENT OBSERVATION--",
	"10:00:10 - ACTION",
	"[Agent Controller default] **CmdRunAction (source=EventSource.AGENT, is_input=False)**",
	"COMMAND:",
	"sed -i 's/x = 1/x = 2/' a.py",
	"10:00:11 - OBSERVATION",
	"[Agent Controller default] **CmdOutputObservation (source=EventSource.AGENT, exit code=0, metadata={",
	`  "exit_code": 0`,
	"})**",
	"--BEGIN AGENT OBSERVATION--",
	"",
	"[Command finished with exit code 0]",
	"--END AGENT OBSERVATION--",
	"10:00:12 - ACTION",
	"[Agent Controller default] AgentFinishAction(final_thought='Fixed.', outputs={}, thought='', action='finish')",
	"10:00:12 - OBSERVATION",
	"[Agent Controller default] AgentStateChangedObservation(content='', agent_state=<AgentState.FINISHED: 'finished'>, observation='agent_state_changed')",
	"10:00:13 - openhands:INFO: main.py:300 - done",
	"",
}, "\n")

// A Harbor trial whose agent wrote only its console reads the console's
// steps: each command with its output and exit code, so the rules and
// `triage steps` see them, and the scorer's verdict still decides.
func TestTrialConsoleSteps(t *testing.T) {
	t.Parallel()
	rec := `{"trial_name":"hello__abc1234","task_name":"hello","verifier_result":{"rewards":{"reward":1}}}`
	t.Run("mini-swe-agent", func(t *testing.T) {
		dir := writeTrial(t, map[string]string{"result.json": rec, "agent/mini-swe-agent.txt": miniConsole})
		tr := onlyTrace(t, decodeTrialDir(t, dir))
		require.True(t, tr.HasToolLog)
		require.Equal(t, "mini-swe-agent", tr.Agent)
		require.Len(t, tr.ToolCalls, 3)
		require.JSONEq(t, `{"command":"cat hello.txt"}`, string(tr.ToolCalls[0].Args))
		require.Equal(t, ptr(1), tr.ToolCalls[0].ExitCode)
		require.Equal(t, "cat: hello.txt: No such file or directory\n", tr.ToolCalls[0].Output)
		require.Equal(t, "exit status 1", tr.ToolCalls[0].Error)
		require.Equal(t, ptr(0), tr.ToolCalls[1].ExitCode)
		require.JSONEq(t, `{"command":"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}`, string(tr.ToolCalls[2].Args))
		require.Nil(t, tr.ToolCalls[2].ExitCode, "the submit has no observation")
		require.Equal(t, "Submitted", tr.StopReason)
		require.Equal(t, "user", tr.Messages[0].Role)
		require.Contains(t, tr.Messages[0].Content, "make hello.txt say Hello", "the task, not the system prompt")
		for _, m := range tr.Messages {
			require.NotContains(t, m.Content, "\x1b")
		}
		require.Equal(t, triage.OutcomeSuccess, tr.Outcome)
	})
	t.Run("openhands", func(t *testing.T) {
		dir := writeTrial(t, map[string]string{"result.json": rec, "agent/openhands.txt": ohConsole})
		tr := onlyTrace(t, decodeTrialDir(t, dir))
		require.True(t, tr.HasToolLog)
		require.Equal(t, "openhands", tr.Agent)
		require.Len(t, tr.ToolCalls, 3)
		require.Equal(t, "execute_bash", tr.ToolCalls[0].Name)
		require.JSONEq(t, `{"command":"pytest -q tests/"}`, string(tr.ToolCalls[0].Args))
		require.Equal(t, ptr(1), tr.ToolCalls[0].ExitCode)
		require.Contains(t, tr.ToolCalls[0].Output, "FAILED tests/test_a.py::test_x")
		require.NotContains(t, tr.ToolCalls[0].Output, "--END AGENT OBSERVATION--")
		require.JSONEq(t, `{"command":"sed -i 's/x = 1/x = 2/' a.py"}`, string(tr.ToolCalls[1].Args))
		require.Equal(t, ptr(0), tr.ToolCalls[1].ExitCode)
		require.Equal(t, "finish", tr.ToolCalls[2].Name)
		require.Equal(t, ptr("Fixed."), tr.Answer, "the finish action's final thought, from its repr")
		require.Equal(t, "finished", tr.StopReason, "the agent state it reached last")
		require.Equal(t, "assistant", tr.Messages[0].Role)
		require.Equal(t, "Let me run the tests.", tr.Messages[0].Content)
		last := tr.Messages[len(tr.Messages)-1]
		require.Equal(t, "terminal", last.Role, "the log lines no event claimed stay as text")
		require.Contains(t, last.Content, "Initializing runtime")
	})
	t.Run("an unknown console stays text", func(t *testing.T) {
		dir := writeTrial(t, map[string]string{"result.json": rec, "agent/other.txt": "$ make\nok\n"})
		tr := onlyTrace(t, decodeTrialDir(t, dir))
		require.False(t, tr.HasToolLog)
		require.Empty(t, tr.ToolCalls)
		require.Equal(t, "terminal", tr.Messages[0].Role)
		require.Contains(t, tr.Messages[0].Content, "$ make\nok\n")
	})
	t.Run("Terminal-Bench's sessions/agent.log", func(t *testing.T) {
		tb := `{"trial_name":"hello.1-of-1.r1","task_id":"hello","is_resolved":false,"failure_mode":"agent_timeout"}`
		dir := writeTrial(t, map[string]string{"results.json": tb, "commands.txt": "mini -y\n", "sessions/agent.log": "root@box:/app# mini -y\r\n" + strings.ReplaceAll(miniConsole, "\n", "\r\n")})
		tr := onlyTrace(t, decodeTrialDir(t, dir))
		require.Len(t, tr.ToolCalls, 3)
		require.Equal(t, triage.OutcomeFailed, tr.Outcome)
		require.Equal(t, "agent_timeout", tr.StopReason, "the harness's stop reason wins over the console's")
		require.Equal(t, "harness", tr.Messages[len(tr.Messages)-1].Role, "the keystrokes still go with the steps")
	})
}

// A console's blocks, lines and steps are bounded: a capture of one
// endless line, or of more steps than are kept, reads in bounded memory
// and says what it left out.
func TestTrialConsoleBounds(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for range maxConsoleCalls + 5 {
		b.WriteString("mini-swe-agent (step 1, $0.00):\n```bash\nls\n```\nUser:\n<returncode>0</returncode>\n<output>\n")
		b.WriteString(strings.Repeat("y", 100))
		b.WriteString("\n</output>\n")
	}
	b.WriteString("mini-swe-agent (step 2, $0.00):\n```bash\ncat big\n```\nUser:\n")
	b.WriteString(strings.Repeat("z", 3*maxConsoleLine))
	p := filepath.Join(t.TempDir(), "console.txt")
	require.NoError(t, os.WriteFile(p, []byte("User:\ntask\n"+b.String()), 0o644))
	tr := consoleTrace(p, Source{})
	require.NotNil(t, tr)
	require.Len(t, tr.ToolCalls, maxConsoleCalls)
	require.Contains(t, tr.Messages[len(tr.Messages)-1].Content, "6 more", "the steps past the bound are counted")
}

// A trial folder whose results.json is corrupt, with no run-level record
// to fall back on, imports with an unknown outcome, and the reject names
// the file and line; a missing one is a warning naming the folder.
func TestTrialCorruptOrMissingResults(t *testing.T) {
	t.Parallel()
	dir := writeTrial(t, map[string]string{"results.json": "{\n\"trial_name\": \"hello.1-of-1.r1\",\n\"is_resolved\": tru", "commands.txt": "ls\n", "sessions/agent.log": "$ ls\n"})
	o := NewOutcomes()
	recs := decodeTrialWith(t, dir, o)
	require.Len(t, recs, 2)
	require.NotNil(t, recs[0].Reject)
	require.Equal(t, filepath.Join(dir, "results.json"), recs[0].Reject.File)
	require.Equal(t, 3, recs[0].Reject.Line)
	require.Contains(t, recs[0].Reject.Reason, "the trial is imported without it")
	tr := recs[1].Trace
	require.NotNil(t, tr)
	require.Equal(t, triage.OutcomeUnknown, tr.Outcome)
	require.Nil(t, tr.ExitCode)

	dir = writeTrial(t, map[string]string{"commands.txt": "ls\n", "sessions/agent.log": "$ ls\n", "panes/post-agent.txt": "$ ls\n"})
	o = NewOutcomes()
	tr = onlyTrace(t, decodeTrialWith(t, dir, o))
	require.Equal(t, triage.OutcomeUnknown, tr.Outcome)
	require.Len(t, o.Warnings(), 1)
	require.True(t, strings.HasPrefix(o.Warnings()[0], dir+": no result.json or results.json"), o.Warnings()[0])
}
