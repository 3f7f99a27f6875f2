package ui

import "github.com/triage-dev/triage/internal/triage"

// redactLoaded masks a loaded trace for --redact, inside the command that
// loaded it, so every pane (timeline, diff, tests, evidence, raw) is built
// from masked text once and no frame ever holds the secret. The task's
// own sentinels join the configured ones. Other reviewers' notes are
// masked too: the history is only shown, never written back.
func redactLoaded(rd *triage.Redactor, msg *traceLoadedMsg) {
	if rd == nil {
		return
	}
	if msg.tctx.Task != nil {
		rd = rd.With(msg.tctx.Task.Sentinels)
	}
	msg.trace = rd.Trace(msg.trace)
	msg.verdict = rd.Verdict(msg.verdict)
	msg.history = rd.Events(msg.history)
}

// redactItems masks the queue's display-only text taken from traces (the
// model) and the rules (the reason). The reviewer's own note is kept as
// stored, since a new label writes it back; it is masked where drawn.
func redactItems(rd *triage.Redactor, items []QueueItem) {
	if rd == nil {
		return
	}
	for i := range items {
		items[i].Model = rd.String(items[i].Model)
		items[i].Reason = rd.String(items[i].Reason)
	}
}

// redactReviews masks the reviewers' notes an adjudicator reads. They are
// other people's labels, shown and never written back.
func redactReviews(rd *triage.Redactor, reviews map[int64][]triage.LabelEvent) {
	if rd == nil {
		return
	}
	for id, evs := range reviews {
		reviews[id] = rd.Events(evs)
	}
}
