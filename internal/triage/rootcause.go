package triage

import (
	"strconv"
	"strings"
)

// genericEvidence are evidence messages that restate the class without a
// cause ("scorer red (exit code 1) and no other class fits"): a root cause
// uses them only when the verdict has nothing else.
var genericEvidence = []string{"and no other class fits"}

// RootCause is a trace's root cause in one line, made from its verdict:
// the class, then the first evidence of the primary's rule that names a
// cause, with the step it points at ("SCORER_RED: submitted after the
// project's tests failed at step 31: 2 failed", "ASSUME_API: path
// /v2/invoices is not in the frozen spec (step 4)"). A leftover says why it
// went to people. It is "" for a nil verdict (the rules have not run) and
// is pure: the same verdict gives the same line, for the traces list, the
// reports and the review queue alike, and is never cut (a renderer cuts
// it to its column). The line is trace text: callers
// make it terminal-safe (Sanitize, EscapeJSONText).
func RootCause(v *Verdict) string {
	if v == nil {
		return ""
	}
	// The cause is what was still broken at submit: the scorer's failing
	// tests first, then the agent's last failing check, then the rest;
	// never a generic restatement of the class when anything else is there.
	var best *Evidence
	bestRank := 99
	for i := range v.Evidence {
		e := &v.Evidence[i]
		if e.Rule != "" && e.Rule != v.Primary || strings.TrimSpace(e.Message) == "" {
			continue
		}
		if r := causeRank(e.Message); r < bestRank {
			best, bestRank = e, r
		}
	}
	var b strings.Builder
	if v.Primary != "" {
		b.WriteString(v.Primary)
	} else {
		b.WriteString("no class")
	}
	switch {
	case best != nil:
		b.WriteString(": ")
		msg := oneLine(best.Message)
		b.WriteString(msg)
		if best.ToolCall >= 0 && !strings.Contains(msg, "step ") {
			b.WriteString(" (step " + strconv.Itoa(best.ToolCall+1) + ")")
		}
	case v.Primary == "":
		b.WriteString(": no rule fired")
	}
	if v.Decision == DecisionLeftover && v.Reason != "" {
		b.WriteString("; left to people: ")
		b.WriteString(oneLine(v.Reason))
	}
	// Whole: JSON carries whole values, and each table or screen cuts
	// the line to its own column (traces' table, the queue's why).
	return b.String()
}

// remainedWords mark evidence of what was still broken at submit.
var remainedWords = []string{"FAIL_TO_PASS", "PASS_TO_PASS", "still failed", "could not apply", "no fix was submitted", "scorer's failing tests"}

// causeRank orders evidence for a root cause: what remained broken (0),
// the agent's last failing check (1), other claims (2), generic ones (9).
func causeRank(msg string) int {
	if isGeneric(msg) {
		return 9
	}
	for _, w := range remainedWords {
		if strings.Contains(msg, w) {
			return 0
		}
	}
	if strings.Contains(msg, "submitted after") || strings.Contains(msg, "last failing check") {
		return 1
	}
	return 2
}

func isGeneric(msg string) bool {
	for _, g := range genericEvidence {
		if strings.Contains(msg, g) {
			return true
		}
	}
	return false
}

// oneLine is s with its line breaks and tabs made spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}
