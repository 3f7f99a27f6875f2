package ingest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

func TestInspectRealFiles(t *testing.T) {
	t.Parallel()
	type want struct {
		task   string
		seed   int
		calls  int
		tokens *triage.Tokens
		exit   *int
	}
	tests := []struct {
		file  string
		model string
		run   string
		want  []want
	}{
		{"2025-05-12T20-27-36-04-00_browser.json", "openai/gpt-4o-mini", "Ta3ZFVTCTcjsb3AEX9FD9v",
			[]want{{"browser:1", 0, 4, &triage.Tokens{Input: 15235, Output: 281}, ptr(0)}}},
		{"2025-05-12T20-28-26-04-00_security-guide.json", "openai/gpt-4o-mini", "SGXvsm4KEQwf7JZmPLCGZF", []want{
			{"security_guide:1", 0, 0, &triage.Tokens{Input: 320, Output: 309}, ptr(0)},
			{"security_guide:2", 0, 0, &triage.Tokens{Input: 310, Output: 256}, ptr(0)},
			{"security_guide:3", 0, 0, &triage.Tokens{Input: 329, Output: 468}, ptr(0)},
		}},
		{"log_read_sample.json", "ollama/gemma3", "XmHATth6rmyTfFuHGKdQRd",
			[]want{{"popularity:1", 0, 0, &triage.Tokens{Input: 66, Output: 3}, ptr(0)}}},
		{"log_read_sample.eval", "ollama/gemma3", "X3kuys5egBfmBhaXyCtp4X",
			[]want{{"popularity:1", 0, 0, &triage.Tokens{Input: 66, Output: 3}, ptr(0)}}},
		{"log_images_tc.json", "openai/gpt-4o", "eJCDmwYjFJJeJpJZfovPsz",
			[]want{{"images:1", 0, 0, &triage.Tokens{Input: 323, Output: 5}, ptr(1)}}},
		{"log_tool_call_error.json", "...", "...",
			[]want{{"...:1", 3, 11, nil, nil}}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			path := fixture(t, "inspect-ai", tc.file)
			require.True(t, detectInspect(path, head(t, path)))
			recs := decodeWith(t, InspectFormat, path, Options{})
			require.Len(t, recs, len(tc.want))
			for i, w := range tc.want {
				require.Nil(t, recs[i].Reject)
				tr := recs[i].Trace
				require.NoError(t, tr.Validate())
				require.Equal(t, i+1, recs[i].Line)
				require.Equal(t, w.task, tr.TaskID)
				require.Equal(t, w.seed, tr.Seed)
				require.Equal(t, tc.run, tr.RunID)
				require.Equal(t, tc.model, tr.Model)
				require.Len(t, tr.ToolCalls, w.calls)
				require.Equal(t, w.tokens, tr.Tokens)
				require.Equal(t, w.exit, tr.ExitCode)
				require.Nil(t, tr.Diff, "Inspect records no diff")
				require.Nil(t, tr.CostUSD, "no total_cost in these logs")
				require.NotEmpty(t, tr.Raw, "the sample JSON is kept")
				require.True(t, json.Valid(tr.Raw))
			}
		})
	}
}

func TestInspectToolDetail(t *testing.T) {
	t.Parallel()
	tr := onlyTrace(t, decodeWith(t, InspectFormat, fixture(t, "inspect-ai", "2025-05-12T20-27-36-04-00_browser.json"), Options{}))
	c := tr.ToolCalls[0]
	require.Equal(t, "web_browser_go", c.Name)
	require.JSONEq(t, `{"url":"https://www.aisi.gov.uk/"}`, string(c.Args))
	require.Contains(t, c.Output, "AI Security Institute")
	require.NotContains(t, c.Output, "attachment://", "attachments are resolved")
	require.NotNil(t, c.WallS)
	require.InDelta(t, 4.317574, *c.WallS, 1e-6)
	require.Equal(t, "web_browser_click", tr.ToolCalls[3].Name)
	require.Contains(t, *tr.TestOutput, "includes")
	require.NotNil(t, tr.Answer)
	require.InDelta(t, 18.517, *tr.WallS, 1e-6)
	require.False(t, *tr.Timeout)

	errs := onlyTrace(t, decodeWith(t, InspectFormat, fixture(t, "inspect-ai", "log_tool_call_error.json"), Options{}))
	var types []string
	for _, c := range errs.ToolCalls {
		require.Equal(t, "bash", c.Name)
		types = append(types, c.Error[:bytes.IndexByte([]byte(c.Error), ':')])
	}
	require.Equal(t, []string{"parsing", "timeout", "parsing", "unicode_decode", "permission", "file_not_found",
		"is_a_directory", "limit", "approval", "unknown", "output_limit"}, types)
}

// inspectLog builds an EvalLog around the given samples.
func inspectLog(samples ...string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"version":2,"status":"success","eval":{"run_id":"R","task":"t","model":"m/x"},"samples":[`)
	for i, s := range samples {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s)
	}
	b.WriteString(`],"reductions":[]}`)
	return b.Bytes()
}

func TestInspectOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		sample  string
		outcome triage.Outcome
		timeout bool
		exit    *int
	}{
		{"limit hit", `{"id":"a","epoch":2,"limit":{"type":"token","limit":1000},"scores":{"s":{"value":"I"}}}`, triage.OutcomeFailed, true, ptr(1)},
		{"limit hit, scored correct", `{"id":"a","epoch":2,"limit":{"type":"token","limit":1000},"scores":{"s":{"value":"C"}}}`, triage.OutcomeSuccess, true, ptr(0)},
		{"sample_limit event", `{"id":"a","epoch":1,"events":[{"event":"sample_limit","type":"time","message":"x"}]}`, triage.OutcomeUnknown, true, nil},
		{"error", `{"id":1,"epoch":1,"error":{"message":"boom","traceback":""}}`, triage.OutcomeFailed, false, nil},
		{"numeric pass", `{"id":1,"epoch":1,"scores":{"a":{"value":1.0},"b":{"value":true}}}`, triage.OutcomeSuccess, false, ptr(0)},
		{"one scorer fails", `{"id":1,"epoch":1,"scores":{"a":{"value":"C"},"b":{"value":0.5}}}`, triage.OutcomeFailed, false, ptr(1)},
		{"dict value", `{"id":1,"epoch":1,"scores":{"a":{"value":{"x":"C","y":1}}}}`, triage.OutcomeSuccess, false, ptr(0)},
		{"unscored", `{"id":1,"epoch":1,"scores":{"a":{"value":null}}}`, triage.OutcomeUnknown, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recs, err := decodeBytes(InspectFormat, "x.json", inspectLog(tc.sample))
			require.NoError(t, err)
			tr := onlyTrace(t, recs)
			require.Equal(t, tc.outcome, tr.Outcome)
			require.Equal(t, tc.timeout, *tr.Timeout)
			require.Equal(t, tc.exit, tr.ExitCode)
			require.Equal(t, "R", tr.RunID)
		})
	}
}

func TestInspectMessagesFallback(t *testing.T) {
	t.Parallel()
	// No tool events: calls come from assistant tool_calls joined to tool
	// messages, with attachments resolved.
	sample := `{"id":7,"epoch":1,"attachments":{"0123456789abcdef0123456789abcdef":"long text"},"messages":[
	 {"role":"user","content":"go"},
	 {"role":"assistant","content":[{"type":"text","text":"calling"}],"tool_calls":[{"id":"c1","function":"bash","arguments":{"cmd":"attachment://0123456789abcdef0123456789abcdef"}}]},
	 {"role":"tool","tool_call_id":"c1","function":"bash","content":"attachment://0123456789abcdef0123456789abcdef","error":{"type":"timeout","message":"slow"}}]}`
	recs, err := decodeBytes(InspectFormat, "x.json", inspectLog(sample))
	require.NoError(t, err)
	tr := onlyTrace(t, recs)
	require.Equal(t, "t:7", tr.TaskID)
	require.Len(t, tr.ToolCalls, 1)
	require.JSONEq(t, `{"cmd":"long text"}`, string(tr.ToolCalls[0].Args))
	require.Equal(t, "long text", tr.ToolCalls[0].Output)
	require.Equal(t, "timeout: slow", tr.ToolCalls[0].Error)
	require.Equal(t, []triage.Message{{Role: "user", Content: "go", At: at(0)}, {Role: "assistant", Content: "calling", At: at(0)}}, tr.Messages)
}

func TestInspectBadSampleIsRejectedAlone(t *testing.T) {
	t.Parallel()
	recs, err := decodeBytes(InspectFormat, "x.json", inspectLog(`{"id":1,"epoch":1}`, `{"id":2,"epoch":"one"}`, `{"id":3,"epoch":1}`))
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.NotNil(t, recs[0].Trace)
	require.NotNil(t, recs[1].Reject)
	require.Equal(t, 2, recs[1].Reject.Line)
	require.Contains(t, recs[1].Reject.Reason, "sample 2 (byte ")
	require.Contains(t, string(recs[1].Reject.Raw), `"epoch":"one"`)
	require.NotNil(t, recs[2].Trace)
}

func TestInspectEvalFromStream(t *testing.T) {
	t.Parallel()
	// A zip on stdin is buffered to a temp file for random access.
	recs, err := decodeBytes(InspectFormat, "-", readFixture(t, "inspect-ai", "log_read_sample.eval"))
	require.NoError(t, err)
	tr := onlyTrace(t, recs)
	require.Equal(t, "popularity:1", tr.TaskID)
}
