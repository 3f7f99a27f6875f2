package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

func intp(n int) *int { return &n }

// TestTimelineInOrderOfTheRun: messages that say where they came among
// the calls (At) are shown between the calls, in the order of the run
// (issue 29: every message first, the first call at line 1,166 of
// 1,960); a row without places keeps the old layout; a command shows &&
// and <<, not their JSON escapes.
func TestTimelineInOrderOfTheRun(t *testing.T) {
	t.Parallel()
	tr := &triage.Trace{
		Messages: []triage.Message{
			{Role: "user", Content: "fix the bug", At: intp(0)},
			{Role: "assistant", Content: "let me look", At: intp(0)},
			{Role: "assistant", Content: "now test", At: intp(1)},
			{Role: "assistant", Content: "done", At: intp(2)},
		},
		ToolCalls: []triage.ToolCall{
			{Name: "bash", Args: json.RawMessage(`{"command":"cd /repo \u0026\u0026 cat \u003c\u003cEOF \u003e f"}`)},
			{Name: "bash", Args: json.RawMessage(`{"command":"pytest"}`), Output: "1 failed"},
		},
		HasToolLog: true,
	}
	d := buildTimeline(tr, nil, allFolded, nil)
	var got []string
	for _, l := range d.lines {
		got = append(got, l.text)
	}
	require.Equal(t, []string{
		"Run: 4 messages and 2 tool calls, in the order they happened",
		"▌ user", "  fix the bug",
		"▌ assistant", "  let me look",
		`#1 bash {"command":"cd /repo && cat <<EOF > f"}`,
		"▌ assistant", "  now test",
		`#2 bash {"command":"pytest"}`, "  1 failed",
		"▌ assistant", "  done",
	}, got)
	require.Equal(t, map[int]int{0: 5, 1: 8}, d.tools)
	require.Equal(t, []int{5, 8}, d.calls)

	for i := range tr.Messages {
		tr.Messages[i].At = nil
	}
	old := buildTimeline(tr, nil, allFolded, nil)
	require.Equal(t, "Messages (4)", old.lines[0].text, "without places: messages, then calls")
	require.True(t, strings.HasPrefix(old.lines[10].text, "#1 bash"), old.lines[10].text)
}

// TestUnescapeHTML reads back only the HTML escapes, never an escaped
// backslash followed by u0026.
func TestUnescapeHTML(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"c":"a \u0026\u0026 b"}`: `{"c":"a && b"}`,
		`{"c":"\u003c\u003E"}`:     `{"c":"<>"}`,
		`{"c":"\\u0026"}`:          `{"c":"\\u0026"}`,
		`{"c":"\n\u00e9"}`:         `{"c":"\n\u00e9"}`,
		`{"c":"end\\"}`:            `{"c":"end\\"}`,
	} {
		require.Equal(t, want, unescapeHTML([]byte(in)), in)
	}
}
