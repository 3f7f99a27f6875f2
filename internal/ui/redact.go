package ui

import (
	"slices"

	"github.com/triage-dev/triage/internal/triage"
)

// redactLoaded masks a loaded trace for --redact, inside the command that
// loaded it, so every pane (timeline, diff, tests, evidence, raw) is built
// from masked text once and no frame ever holds the secret. The task's
// own sentinels join the configured ones. Other reviewers' notes are
// masked too: the history is only shown, never written back.
//
// The trace's run and task ids and other reviewers' names are masked too
// (issue 17): they are only drawn, as labels are written by trace id. The
// reviewer's own events keep their actor, by which the screen tells its
// own label from the others'; the reviewer's name is masked where drawn.
func redactLoaded(rd *triage.Redactor, msg *traceLoadedMsg, reviewer string) {
	if rd == nil {
		return
	}
	if msg.tctx.Task != nil {
		rd = rd.With(msg.tctx.Task.Sentinels)
		// The task as shown: a copy (the store's is shared), with its id
		// and file lists masked.
		t := *msg.tctx.Task
		for _, l := range []*[]string{&t.Spec, &t.Allowlist, &t.Withheld, &t.HiddenTests, &t.Sentinels, &t.AskTools} {
			*l = slices.Clone(*l)
		}
		t.API = nil // not drawn; masking it would change the shared original
		t.Prompt = rd.String(t.Prompt)
		rd.Value(&t)
		msg.tctx.Task = &t
	}
	msg.trace = rd.Trace(msg.trace)
	if msg.trace != nil {
		msg.trace.RunID, msg.trace.TaskID = rd.String(msg.trace.RunID), rd.String(msg.trace.TaskID)
	}
	msg.verdict = rd.Verdict(msg.verdict)
	msg.history = rd.Events(msg.history)
	for i := range msg.history {
		if msg.history[i].Actor != reviewer {
			msg.history[i].Actor = rd.String(msg.history[i].Actor)
		}
	}
}

// redactItems masks the queue's display-only text taken from traces (the
// run and task ids, the model) and the rules (the reason): the queue
// writes labels by trace id. The reviewer's own note is kept as
// stored, since a new label writes it back; it is masked where drawn.
func redactItems(rd *triage.Redactor, items []QueueItem) {
	if rd == nil {
		return
	}
	for i := range items {
		items[i].RunID, items[i].TaskID = rd.String(items[i].RunID), rd.String(items[i].TaskID)
		items[i].Model = rd.String(items[i].Model)
		items[i].Reason = rd.String(items[i].Reason)
		for j := range items[i].Others {
			items[i].Others[j].Reviewer = rd.String(items[i].Others[j].Reviewer)
		}
	}
}

// redactReviews masks the reviewers' notes and names an adjudicator reads. They are
// other people's labels, shown and never written back.
func redactReviews(rd *triage.Redactor, reviews map[int64][]triage.LabelEvent) {
	if rd == nil {
		return
	}
	for id, evs := range reviews {
		evs = rd.Events(evs)
		for i := range evs {
			evs[i].Actor = rd.String(evs[i].Actor)
		}
		reviews[id] = evs
	}
}

// shown is a configured name (the reviewer, the slice, the run) as the
// screen draws it: masked under --redact.
func (s *session) shown(t string) string { return s.cfg.Redactor.String(t) }
