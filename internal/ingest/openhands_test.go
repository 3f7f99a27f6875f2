package ingest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

func TestOpenHandsEventStream(t *testing.T) {
	t.Parallel()
	path := fixture(t, "openhands", "django__django-11099.json")
	require.True(t, detectOpenHands(path, head(t, path)))
	tr := onlyTrace(t, decodeWith(t, OpenHandsFormat, path, Options{Model: "flag-model"}))
	require.Equal(t, "django__django-11099", tr.TaskID)
	require.Equal(t, "openhands", tr.RunID)
	require.Equal(t, "claude-3-5-sonnet-20241022", tr.Model, "the file's model beats the flag")
	names := make([]string, len(tr.ToolCalls))
	for i, c := range tr.ToolCalls {
		names[i] = c.Name
	}
	require.Equal(t, []string{"execute_bash", "str_replace_editor", "execute_bash", "finish"}, names)
	require.NotContains(t, string(tr.ToolCalls[0].Args), "thought", "thoughts stay out of args")
	require.Contains(t, tr.ToolCalls[0].Output, "UnicodeUsernameValidator")
	require.Empty(t, tr.ToolCalls[0].Error)
	require.Equal(t, "exit code 4", tr.ToolCalls[2].Error)
	require.Equal(t, triage.Tokens{Input: 21200, Output: 220}, *tr.Tokens)
	require.Nil(t, tr.CostUSD)
	require.Nil(t, tr.Diff)
	require.Nil(t, tr.ExitCode)
	require.Equal(t, "Anchors switched to \\A and \\Z.", *tr.Answer)
	require.InDelta(t, 23.0, *tr.WallS, 1e-9)
	require.Equal(t, triage.Message{Role: "user", Content: "Fix UsernameValidator to reject trailing newlines.", At: at(0)}, tr.Messages[0])
	require.Equal(t, triage.OutcomeUnknown, tr.Outcome)
}

func TestOpenHandsOutputJSONL(t *testing.T) {
	t.Parallel()
	path := fixture(t, "openhands", "output.jsonl")
	require.True(t, detectOpenHands(path, head(t, path)))
	recs := decodeWith(t, OpenHandsFormat, path, Options{})
	require.Len(t, recs, 2)
	a, b := recs[0].Trace, recs[1].Trace
	require.NotNil(t, a)
	require.NotNil(t, b)
	require.Equal(t, 1, recs[0].Line)
	require.Equal(t, 2, recs[1].Line)

	require.Equal(t, "django__django-11099", a.TaskID)
	require.Equal(t, "anthropic/claude-3-5-sonnet-20241022", a.Model)
	require.Equal(t, "CodeActAgent", a.Agent)
	require.Len(t, a.ToolCalls, 4)
	require.True(t, strings.HasPrefix(*a.Diff, "diff --git a/django/contrib/auth/validators.py"))
	require.Equal(t, 0, *a.ExitCode, "report.resolved")
	require.InDelta(t, 0.0712, *a.CostUSD, 1e-9)
	require.Equal(t, triage.Tokens{Input: 10200, Output: 150}, *a.Tokens, "metrics.token_usages summed")
	require.NotEmpty(t, a.Raw)

	require.Equal(t, "astropy__astropy-12907", b.TaskID)
	require.Len(t, b.ToolCalls, 1, "old [action, observation] pairs")
	require.Equal(t, "astropy\nsetup.py", b.ToolCalls[0].Output)
	require.Nil(t, b.Diff, "empty patch is no diff")
	require.Nil(t, b.ExitCode)
	require.Equal(t, triage.OutcomeUnknown, b.Outcome, "no eval report: unknown, the budget kill is the stop reason")
	require.True(t, *b.Timeout)
	require.Equal(t, triage.Tokens{Input: 300000, Output: 4000}, *b.Tokens)
}

func TestOpenHandsOutputBadLine(t *testing.T) {
	t.Parallel()
	data := `{"instance_id":"a","history":[],"metadata":{}}` + "\n" + `{"history":[]}` + "\n" + `{"instance_id":"b","hist`
	recs, err := decodeBytes(OpenHandsFormat, "out.jsonl", []byte(data))
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.NotNil(t, recs[0].Trace)
	require.Equal(t, "instance_id: missing", recs[1].Reject.Reason)
	require.Equal(t, 3, recs[2].Reject.Line)
	require.Contains(t, recs[2].Reject.Reason, "truncated last line")
}
