package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/triage-dev/triage/internal/triage"
)

// firstPage is how many items the first, quick queue read asks for.
const firstPage = 200

// loadFirstQueueCmd reads the queue's first page, which a store returns
// at once (a million-trace queue takes seconds whole): the reviewer sees
// work at once, and Update asks for the whole queue when the page is in
// (one after the other: the page must not wait behind the whole read).
// A slice's queue is small and ordered by sampling, so it is read whole.
func (m *Model) loadFirstQueueCmd(gen int) tea.Cmd {
	if m.cfg.Slice != "" {
		return m.queueCmd(gen, 0)
	}
	return m.queueCmd(gen, firstPage)
}

// queueCmd fetches the queue, or its first limit items when limit is
// above 0. Blind mode is passed to the store so the rules' output never
// even leaves it.
func (m *Model) queueCmd(gen, limit int) tea.Cmd {
	st, ctx, q, rd := m.store, m.ctx, m.queueQuery(), m.cfg.Redactor
	q.Limit = limit
	return func() tea.Msg {
		items, err := st.Queue(ctx, q)
		if err != nil && limit > 0 {
			// No page: read the whole queue, which reports its own error.
			q.Limit, limit = 0, 0
			items, err = st.Queue(ctx, q)
		}
		if err != nil {
			return errMsg{what: "load queue", err: err}
		}
		redactItems(rd, items)
		return queueLoadedMsg{gen: gen, items: items, partial: limit > 0, natural: naturalCols(items)}
	}
}

func (m *Model) queueQuery() QueueQuery {
	return QueueQuery{Reviewer: m.cfg.Reviewer, RunID: m.cfg.RunID, Slice: m.cfg.Slice, Blind: m.pol.blind, All: m.cfg.All}
}

// loadTraceCmd fetches one trace with its verdict, context and history.
// In blind mode it does not ask for the verdict nor for other reviewers'
// labels, so nothing the screen could leak is ever in memory.
func (m *Model) loadTraceCmd(id int64, gen int) tea.Cmd {
	st, ctx, blind, reviewer, rd := m.store, m.ctx, m.pol.blind, m.cfg.Reviewer, m.cfg.Redactor
	return func() tea.Msg {
		msg := traceLoadedMsg{id: id, gen: gen}
		fail := func(what string, err error) tea.Msg {
			msg.err = errMsg{what: what, err: err}
			return msg
		}
		tr, err := st.Trace(ctx, id)
		if err != nil {
			return fail("load trace", err)
		}
		if tr == nil {
			return fail("load trace", fmt.Errorf("trace %d not found", id))
		}
		msg.trace = tr
		msg.steps = triage.ReadActivity(tr).Steps
		actor := ""
		if blind {
			actor = reviewer
		} else if msg.verdict, err = st.Verdict(ctx, id); err != nil {
			return fail("load verdict", err)
		}
		if msg.tctx, err = st.Context(ctx, tr.RunID, tr.TaskID); err != nil {
			return fail("load task", err)
		}
		if msg.history, err = st.History(ctx, id, actor); err != nil {
			return fail("load labels", err)
		}
		redactLoaded(rd, &msg, reviewer)
		return msg
	}
}

// writeLabelCmd stores one event, then reads back the trace's history so
// the queue shows what the store holds, not a guess: the reviewer's own
// events, and (outside blind review) the other reviewers' live labels,
// so a label given meanwhile on another screen is seen, not overwritten.
func (m *Model) writeLabelCmd(e triage.LabelEvent) tea.Cmd {
	st, ctx, blind, rd := m.store, m.ctx, m.pol.blind, m.cfg.Redactor
	return func() tea.Msg {
		msg := labelSavedMsg{traceID: e.TraceID, kind: e.Kind}
		if err := appendRetrying(ctx, st, e); err != nil {
			msg.err = &errMsg{what: "save label", err: err}
		}
		// Read back what the store holds even after a failed write, so
		// the screen drops the label it showed before the write.
		actor := e.Actor
		if !blind {
			actor = ""
		}
		events, err := st.History(ctx, e.TraceID, actor)
		if err != nil {
			if msg.err == nil {
				msg.err = &errMsg{what: "reload labels", err: err}
			}
			return msg
		}
		msg.events, msg.others = splitHistory(events, e.Actor)
		if rd != nil {
			for i := range msg.others {
				msg.others[i].Reviewer = rd.String(msg.others[i].Reviewer)
			}
		}
		msg.reloaded = true
		return msg
	}
}

// splitHistory parts a trace's events (time order) into the reviewer's
// own and every other reviewer's live human label, in reviewer order.
func splitHistory(events []triage.LabelEvent, reviewer string) (own []triage.LabelEvent, others []OtherLabel) {
	byActor := map[string][]triage.LabelEvent{}
	var actors []string
	for _, e := range events {
		if e.Actor == reviewer {
			own = append(own, e)
			continue
		}
		if e.Kind == triage.KindRule {
			continue
		}
		if _, ok := byActor[e.Actor]; !ok {
			actors = append(actors, e.Actor)
		}
		byActor[e.Actor] = append(byActor[e.Actor], e)
	}
	slices.Sort(actors)
	for _, a := range actors {
		if h, _ := triage.LiveEvents(byActor[a]); h != nil && h.Primary != "" {
			others = append(others, OtherLabel{Reviewer: a, Primary: h.Primary})
		}
	}
	return own, others
}

// retryPause is how long a label write that found the store busy waits
// before it tries again.
const retryPause = 200 * time.Millisecond

// appendRetrying stores e, trying again for as long as the store says it
// is busy (another process writing, past the store's own wait): a label
// the reviewer gave is never dropped because someone else writes. Only
// another error, or the screen closing, ends it.
func appendRetrying(ctx context.Context, st Store, e triage.LabelEvent) error {
	for {
		_, err := st.AppendLabel(ctx, e)
		if err == nil || !temporary(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(retryPause):
		}
	}
}

// temporary reports an error that says the same write can be tried
// again (the store's ErrBusy).
func temporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// contextOrBackground keeps a nil context from reaching the store.
func contextOrBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
