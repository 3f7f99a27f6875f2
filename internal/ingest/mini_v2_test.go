package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// miniV2 decodes one of the hand-made mini-swe-agent 2.x fixtures of
// testdata/mini-swe-agent (shapes from mini-swe-agent's own writers:
// models/utils/actions_toolcall.py, actions_text.py,
// actions_toolcall_response.py, agents/default.py serialize).
func miniV2(t *testing.T, name string) *triage.Trace {
	t.Helper()
	p := filepath.Join("testdata", "mini-swe-agent", name)
	require.True(t, detectMini(p, head(t, p)))
	return onlyTrace(t, decodeWith(t, MiniSWEAgentFormat, p, Options{}))
}

// The 2.x default: tool calls, and a SWE-bench template that renders the
// exit code as "[exit code N]", so only the extra holds it.
func TestMiniV2ToolCallExtra(t *testing.T) {
	t.Parallel()
	tr := miniV2(t, "v2-toolcall__demo-1.traj.json")
	require.Equal(t, "demo__calc-1", tr.TaskID)
	require.Equal(t, "anthropic/claude-sonnet-4-5-20250929", tr.Model)
	require.Equal(t, "Submitted", tr.StopReason)
	require.Equal(t, triage.Tokens{Input: 3000, Output: 90}, *tr.Tokens)
	require.InDelta(t, 0.0421, *tr.CostUSD, 1e-9)
	require.Contains(t, *tr.Diff, "+def add(a, b): return a + b")
	require.Len(t, tr.ToolCalls, 4)

	c := tr.ToolCalls[0]
	require.JSONEq(t, `{"command":"python -m pytest -q"}`, string(c.Args))
	require.Equal(t, "F\n1 failed in 0.01s\n", c.Output, "raw_output, without the template's exit-code line")
	require.Equal(t, ptr(1), c.ExitCode)
	require.Equal(t, "exit status 1", c.Error)

	// A timeout: returncode -1 is mini-swe-agent's mark, not an exit status.
	c = tr.ToolCalls[1]
	require.Nil(t, c.ExitCode)
	require.Contains(t, c.Error, "timed out after 60 seconds")
	require.Empty(t, c.Output)

	require.Equal(t, ptr(0), tr.ToolCalls[2].ExitCode)
	require.Empty(t, tr.ToolCalls[2].Error)
	// The submitting call has no observation: the run ended on it.
	require.Nil(t, tr.ToolCalls[3].ExitCode)
}

// 2.x text-based models: the ```mswea_bash_command block, the parsed
// actions in the assistant's extra, the result in the observation's.
func TestMiniV2TextBased(t *testing.T) {
	t.Parallel()
	tr := miniV2(t, "v2-textbased__demo-2.traj.json")
	require.Equal(t, "v2-textbased__demo-2", tr.TaskID)
	require.Equal(t, "openrouter/qwen/qwen3-coder", tr.Model)
	require.Equal(t, "LimitsExceeded", tr.StopReason)
	require.True(t, *tr.Timeout)
	require.Nil(t, tr.Diff, "an empty submission is no diff")
	require.Len(t, tr.ToolCalls, 2, "the reply with two blocks parsed to no action")
	require.JSONEq(t, `{"command":"cat tests/test_io.py"}`, string(tr.ToolCalls[0].Args))
	require.Equal(t, "def test_read(): assert read() == 1\n", tr.ToolCalls[0].Output)
	require.Equal(t, ptr(0), tr.ToolCalls[0].ExitCode)
	require.JSONEq(t, `{"command":"python -m pytest tests/test_io.py -q"}`, string(tr.ToolCalls[1].Args))
	require.Equal(t, ptr(2), tr.ToolCalls[1].ExitCode)
	require.Equal(t, "exit status 2", tr.ToolCalls[1].Error)
	require.Equal(t, triage.Tokens{Input: 320, Output: 27}, *tr.Tokens)
}

// The regex fallback also knows 2.x's block when the extra holds no
// actions (a custom model class).
func TestMiniV2BlockWithoutActions(t *testing.T) {
	t.Parallel()
	doc := `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"task"},` +
		`{"role":"assistant","content":"THOUGHT: x\n\n` + "```mswea_bash_command\\nls -la\\n```" + `"},` +
		`{"role":"user","content":"<returncode>3</returncode>\n<output>\nnope\n</output>"}],"trajectory_format":"mini-swe-agent-1.1"}`
	recs, err := decodeBytes(MiniSWEAgentFormat, "t__x-1.traj.json", []byte(doc))
	require.NoError(t, err)
	tr := onlyTrace(t, recs)
	require.Len(t, tr.ToolCalls, 1)
	require.JSONEq(t, `{"command":"ls -la"}`, string(tr.ToolCalls[0].Args))
	require.Equal(t, ptr(3), tr.ToolCalls[0].ExitCode)
	require.Equal(t, "nope\n", tr.ToolCalls[0].Output)
}

// A model on the Responses API saves response objects and
// function_call_output items, neither with a role.
func TestMiniV2ResponsesAPI(t *testing.T) {
	t.Parallel()
	tr := miniV2(t, "v2-responses__demo-3.traj.json")
	require.Equal(t, "openai/gpt-5", tr.Model)
	require.Equal(t, triage.Tokens{Input: 1200, Output: 100}, *tr.Tokens)
	require.Len(t, tr.ToolCalls, 2)
	require.JSONEq(t, `{"command":"cat a.txt"}`, string(tr.ToolCalls[0].Args))
	require.Equal(t, "cat: a.txt: No such file or directory\n", tr.ToolCalls[0].Output)
	require.Equal(t, ptr(1), tr.ToolCalls[0].ExitCode)
	require.Contains(t, string(tr.ToolCalls[1].Args), "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")
	var said []string
	for _, m := range tr.Messages {
		if m.Role == "assistant" {
			said = append(said, m.Content)
		}
	}
	require.Equal(t, []string{"Reading the file."}, said, "the message item; the reasoning summary is not the reply")
	require.Equal(t, "diff --git a/a.txt b/a.txt\n", *tr.Diff)
}

// Odd kinds in the 2.x fields are left unknown, never rejected, and both
// paths read them alike (FuzzHarnessFastSlow has the same seeds).
func TestMiniV2LenientExtra(t *testing.T) {
	t.Parallel()
	for _, doc := range miniV2Seeds {
		recs, err := decodeBytes(MiniSWEAgentFormat, "t__x-1.traj.json", []byte(doc))
		require.NoError(t, err)
		tr := onlyTrace(t, recs)
		require.Len(t, tr.ToolCalls, 1, doc)
		require.Nil(t, tr.ToolCalls[0].ExitCode, doc)
	}
}

var miniV2Seeds = []string{
	`{"messages":[{"role":"user","content":"t"},{"role":"assistant","content":"x","extra":{"actions":[{"command":"ls"},{"command":7}]}},{"role":"user","content":"o","extra":{"returncode":"0","raw_output":5,"exception_info":null}}]}`,
	`{"messages":[{"role":"user","content":"t"},{"role":"assistant","content":"x","tool_calls":[{"id":"c","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"o","extra":{"returncode":1.0,"raw_output":"\u00e9\ud800"}}]}`,
	`{"messages":[{"role":"user","content":"t"},{"object":"response","output":[{"type":"function_call","call_id":"c","name":"bash","arguments":"{}"},{"type":7}],"usage":{"input_tokens":"x"}},{"type":"function_call_output","call_id":"c","output":["o"],"extra":{"returncode":null}}]}`,
}

// A cut 2.x trajectory is rejected with its file, line and byte, on both
// paths.
func TestMiniV2Truncated(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"v2-toolcall__demo-1.traj.json", "v2-textbased__demo-2.traj.json", "v2-responses__demo-3.traj.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "mini-swe-agent", name))
		require.NoError(t, err)
		for _, frac := range truncations {
			cut := max(1, int(float64(len(data))*frac))
			t.Run(name+"/"+strconv.Itoa(cut), func(t *testing.T) {
				t.Parallel()
				p := filepath.Join(t.TempDir(), name)
				require.NoError(t, os.WriteFile(p, data[:cut], 0o644))
				recs := decodeWith(t, MiniSWEAgentFormat, p, Options{})
				require.Len(t, recs, 1)
				r := recs[0].Reject
				require.NotNil(t, r)
				require.Equal(t, p, r.File)
				require.Contains(t, r.Reason, "truncated input")
				require.Regexp(t, `^byte \d+: `, r.Reason)
				require.Equal(t, bytes.Count(data[:cut], []byte{'\n'})+1, r.Line)
			})
		}
	}
}
