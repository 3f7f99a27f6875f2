package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// TestTimelineGroupsCallsAsTheRulesDo: calls whose arguments differ only
// in key order or spacing are the repeats the loop rule counts, so the
// timeline groups them too.
func TestTimelineGroupsCallsAsTheRulesDo(t *testing.T) {
	t.Parallel()
	call := func(args string) triage.ToolCall {
		return triage.ToolCall{Name: "read", Args: json.RawMessage(args), Output: "same"}
	}
	tr := &triage.Trace{HasToolLog: true, ToolCalls: []triage.ToolCall{
		call(`{"path":"a","n":1}`), call(`{"n":1,"path":"a"}`), call(`{ "path" : "a", "n" : 1 }`), call(`{"path":"b","n":1}`),
	}}
	var text []string
	for _, l := range buildTimeline(tr, nil, allFolded, nil).lines {
		text = append(text, l.text)
	}
	all := strings.Join(text, "\n")
	require.Contains(t, all, "repeated ×3 with the same arguments (#1–#3)")
	require.NotContains(t, all, "×4")
}
