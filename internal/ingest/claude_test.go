package ingest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

func TestClaudeCodeSession(t *testing.T) {
	t.Parallel()
	path := fixture(t, "claude-code", "de3b51a2-7c1e-4a4e-9d55-0b1f7a2c9e10.jsonl")
	require.True(t, detectClaude(path, head(t, path)))
	tr := onlyTrace(t, decodeWith(t, ClaudeCodeFormat, path, Options{}))
	require.Equal(t, "de3b51a2-7c1e-4a4e-9d55-0b1f7a2c9e10", tr.TaskID)
	require.Equal(t, "claude-code", tr.RunID)
	require.Equal(t, "claude-opus-4-5-20251101", tr.Model)
	require.Len(t, tr.ToolCalls, 2)
	require.Equal(t, "Write", tr.ToolCalls[0].Name)
	require.JSONEq(t, `{"file_path":"/tmp/x/hello.sh","content":"#!/bin/sh\necho hello\n"}`, string(tr.ToolCalls[0].Args))
	require.Equal(t, "File created successfully at: /tmp/x/hello.sh", tr.ToolCalls[0].Output)
	require.Empty(t, tr.ToolCalls[0].Error)
	require.Equal(t, "Bash", tr.ToolCalls[1].Name)
	require.Equal(t, "sh: 1: /tmp/x/hello.sh: Permission denied", tr.ToolCalls[1].Error)
	require.Equal(t, "2026-01-21T06:20:36.000Z", tr.ToolCalls[1].TS)
	// msg_1 is split over two lines: counted once, with its final usage.
	require.Equal(t, triage.Tokens{Input: (2 + 3173 + 15289) + (5 + 200 + 18462) + (3 + 0 + 18700), Output: 120 + 80 + 12}, *tr.Tokens)
	require.Equal(t, []triage.Message{
		{Role: "user", Content: "Write a shell script hello.sh that prints hello, then run it.", At: at(0)},
		{Role: "assistant", Content: "Now I'll run it.", At: at(1)},
		{Role: "assistant", Content: "Done: hello.sh prints hello.", At: at(2)},
	}, tr.Messages, "thinking blocks and isMeta hook lines are left out")
	require.InDelta(t, 10.139, *tr.WallS, 1e-9)
	require.Nil(t, tr.ExitCode)
	require.Nil(t, tr.CostUSD)
	// The Write created the file: its content is the diff.
	require.Equal(t, "diff --git a/hello.sh b/hello.sh\nnew file mode 100644\n--- /dev/null\n+++ b/hello.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo hello\n", *tr.Diff)
}

func TestClaudeCodeBadLines(t *testing.T) {
	t.Parallel()
	data := `{"type":"user","sessionId":"s1","message":{"role":"user","content":"hi"},"uuid":"a"}` + "\n" +
		`not json` + "\n" +
		`{"type":"assistant","sessionId":"s1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}` + "\n" +
		`{"type":"user","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_res`
	recs, err := decodeBytes(ClaudeCodeFormat, "s1.jsonl", []byte(data))
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.Equal(t, 2, recs[0].Reject.Line)
	require.Contains(t, recs[0].Reject.Reason, "invalid JSON")
	require.Equal(t, 4, recs[1].Reject.Line)
	require.Contains(t, recs[1].Reject.Reason, "truncated last line")
	tr := recs[2].Trace
	require.NotNil(t, tr)
	require.Equal(t, "s1", tr.TaskID)
	require.Len(t, tr.ToolCalls, 1)
	require.Empty(t, tr.ToolCalls[0].Output, "its result was cut off")
	require.Nil(t, tr.Tokens, "no usage recorded: unknown")
}
