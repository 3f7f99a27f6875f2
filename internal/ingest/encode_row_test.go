package ingest

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// TestAppendRowFields fails when a row type gains, loses or renames a
// field: appendRow writes each by hand and must be told.
func TestAppendRowFields(t *testing.T) {
	t.Parallel()
	want := map[reflect.Type]string{
		reflect.TypeFor[triage.Trace]():        "ID:- RunID:run_id TaskID:task_id Seed:seed Model:model,omitempty Agent:agent,omitempty PromptID:prompt_id,omitempty ExitCode:exit_code,omitempty Outcome:outcome,omitempty ToolCalls:tool_calls,omitempty HasToolLog:- Messages:messages,omitempty Answer:answer,omitempty Diff:diff,omitempty TestOutput:test_output,omitempty WrittenTests:written_tests,omitempty WallS:wall_s,omitempty WallCap:wall_cap,omitempty Timeout:timeout,omitempty Tokens:tokens,omitempty CostUSD:cost_usd,omitempty Flags: StopReason:stop_reason,omitempty Scorer:scorer_report,omitempty ReadCut:read_cut,omitempty Source:- Raw:- ContentHash:-",
		reflect.TypeFor[triage.Flags]():        "AssumedAPI:assumed_api,omitempty RequiredMissing:required_missing,omitempty Asked:asked,omitempty OutsideAllowlist:outside_allowlist,omitempty",
		reflect.TypeFor[triage.ToolCall]():     "Name:name Args:args,omitempty Output:output,omitempty Error:error,omitempty WallS:wall_s,omitempty TS:ts,omitempty ExitCode:exit_code,omitempty",
		reflect.TypeFor[triage.Message]():      "Role:role Content:content At:at,omitempty",
		reflect.TypeFor[triage.Tokens]():       "Input:input Output:output",
		reflect.TypeFor[triage.ScorerReport](): "Source:source,omitempty PatchApplied:patch_applied,omitempty NoPatch:no_patch,omitempty HarnessTests:harness_tests,omitempty FailToPass:fail_to_pass PassToPass:pass_to_pass",
		reflect.TypeFor[triage.TestResults]():  "Passed:passed,omitempty Failed:failed,omitempty",
	}
	for typ, fields := range want {
		var got []string
		for f := range typ.Fields() {
			got = append(got, f.Name+":"+f.Tag.Get("json"))
		}
		require.Equal(t, fields, strings.Join(got, " "), "%v changed: update appendRow (encode_row.go) and this list", typ)
	}
}

// TestAppendRowRealLogs holds appendRow to json.Marshal on every trace of
// the real logs and samples.
func TestAppendRowRealLogs(t *testing.T) {
	t.Parallel()
	n := 0
	for _, p := range fastCorpus(t) {
		in, err := Open(p, nil, nil)
		require.NoError(t, err)
		_ = Decode(context.Background(), in, "", Options{}, func(r Record) error {
			if r.Trace != nil {
				require.True(t, checkRow(t, r.Trace), p)
				n++
			}
			return nil
		})
		in.Close()
	}
	require.Greater(t, n, 100)
}

// checkRow holds EncodeRow to json.Marshal on tr, and reports whether
// appendRow wrote it (rather than leaving it to json.Marshal).
func checkRow(t *testing.T, tr *triage.Trace) bool {
	t.Helper()
	want, werr := encodeRowReflect(tr)
	got, err := EncodeRow(tr)
	require.Equal(t, werr, err)
	require.Equal(t, string(want), string(got))
	fast, ok := appendRow(nil, tr)
	if ok {
		require.NoError(t, werr)
		require.Equal(t, string(want), string(fast))
	}
	return ok
}

// FuzzAppendRow holds appendRow to json.Marshal on traces made of
// arbitrary strings, arguments and numbers.
func FuzzAppendRow(f *testing.F) {
	f.Add("run", "task <&> \u2028 \xff", `{"command": "ls <x>", "a": [1, 2.5e-7, "\u2029"]}`, 1.5, int64(3), true)
	f.Add("", "t", `not json`, math.Inf(1), int64(-1), false)
	f.Add("r", "t", " [ ] ", 1e21, int64(0), true)
	f.Add("r", "t\x00\x1f", `"\ud800"`, 1e-7, int64(1<<40), false)
	f.Fuzz(func(t *testing.T, a, b, args string, fl float64, n int64, flag bool) {
		tr := &triage.Trace{RunID: a, TaskID: b, Seed: int(n), Model: b, Outcome: triage.Outcome(a), HasToolLog: flag}
		if flag {
			tr.ToolCalls = []triage.ToolCall{{Name: a, Args: []byte(args), Output: b, WallS: &fl, ExitCode: ptr(int(n))}, {Name: b}}
			tr.Messages = []triage.Message{{Role: a, Content: args}}
			tr.Tokens = &triage.Tokens{Input: n, Output: -n}
			tr.Scorer = &triage.ScorerReport{Source: b, NoPatch: flag, HarnessTests: !flag, FailToPass: triage.TestResults{Failed: []string{a, b}}}
			tr.Asked = &flag
		} else {
			tr.ToolCalls = []triage.ToolCall{{Name: a, Args: []byte(args), Error: b, TS: a}}
			tr.Diff, tr.Answer, tr.WallCap, tr.CostUSD = &a, &args, &fl, &fl
			tr.Scorer = &triage.ScorerReport{PatchApplied: &flag, PassToPass: triage.TestResults{Passed: []string{b}}}
			tr.StopReason = args
		}
		checkRow(t, tr)
	})
}

// FuzzArgsObjects holds commandArgs and editArgs to the json.Marshal of
// the maps they stand for.
func FuzzArgsObjects(f *testing.F) {
	f.Add("ls -la <x> && echo \u2028", "a.go", "\xff\x00")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		want, err := json.Marshal(map[string]string{"command": a})
		require.NoError(t, err)
		require.Equal(t, string(want), string(commandArgs(a)))
		want, err = json.Marshal(map[string]string{"path": a, "search": b, "replace": c})
		require.NoError(t, err)
		require.Equal(t, string(want), string(editArgs(a, b, c)))
	})
}
