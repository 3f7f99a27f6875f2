package card

import (
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// oneLine turns the line breaks and tabs triage.Sanitize keeps into
// visible one-cell stand-ins, because every trace-derived string this
// package prints sits in one table cell or one line of a message.
var oneLine = strings.NewReplacer("\n", "␊", "\t", " ")

// clean makes untrusted trace text (task IDs, model names, labels) safe to
// print in a terminal, a document or an error message, on one line: the
// project-wide triage.Sanitize convention (ESC reads "␛", bidi overrides
// "<U+202E>"), plus visible line breaks. A task ID is written by whoever
// built the traces, so it may carry an escape sequence.
func clean(s string) string {
	return oneLine.Replace(triage.Sanitize(s))
}
