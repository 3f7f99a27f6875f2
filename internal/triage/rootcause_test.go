package triage

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRootCause(t *testing.T) {
	t.Parallel()
	require.Empty(t, RootCause(nil), "no verdict, no root cause")
	red := &Verdict{Primary: ScorerRed, Decision: DecisionCertain, Evidence: []Evidence{
		{Rule: ScorerRed, Message: "scorer red (exit code 1) and no other class fits", ToolCall: -1},
		{Rule: ScorerRed, Message: "submitted after the project's tests failed at step 31: 2 failed, 3 passed", ToolCall: 30},
	}}
	require.Equal(t, "SCORER_RED: submitted after the project's tests failed at step 31: 2 failed, 3 passed", RootCause(red))

	api := &Verdict{Primary: AssumeAPI, Decision: DecisionCertain, Secondary: []string{ScorerRed}, Evidence: []Evidence{
		{Rule: ScorerRed, Message: "a regression: 1 existing test now fails", ToolCall: -1},
		{Rule: AssumeAPI, Message: "path /v2/invoices is not in the frozen spec", ToolCall: 3, Ident: "/v2/invoices"},
	}}
	require.Equal(t, "ASSUME_API: path /v2/invoices is not in the frozen spec (step 4)", RootCause(api), "the primary's evidence, with its step")

	only := &Verdict{Primary: ScorerRed, Decision: DecisionLeftover, Reason: "no rule explained the failure", Evidence: []Evidence{
		{Rule: ScorerRed, Message: "scorer red (exit code 2) and no other class fits", ToolCall: -1},
	}}
	require.Equal(t, "SCORER_RED: scorer red (exit code 2) and no other class fits; left to people: no rule explained the failure", RootCause(only))

	require.Equal(t, "no class: no rule fired; left to people: x", RootCause(&Verdict{Decision: DecisionLeftover, Reason: "x"}))

	long := &Verdict{Primary: ToolLoop, Evidence: []Evidence{{Rule: ToolLoop, Message: strings.Repeat("é", 200) + "\nnext line", ToolCall: -1}}}
	got := RootCause(long)
	require.NotContains(t, got, "\n")
	require.Equal(t, "TOOL_LOOP: "+strings.Repeat("é", 200)+" next line", got, "whole: JSON carries whole values (issue 29)")
}
