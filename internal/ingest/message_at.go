package ingest

import "github.com/triage-dev/triage/internal/triage"

// addMessage appends a message to t stamped with the number of tool calls
// t holds so far (triage.Message.At): every format appends its messages
// and calls in the order the log recorded them, so the count is where the
// message came in the run, and the timeline can interleave the two.
func addMessage(t *triage.Trace, role, content string) {
	at := len(t.ToolCalls)
	t.Messages = append(t.Messages, triage.Message{Role: role, Content: content, At: &at})
}
