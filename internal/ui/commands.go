package ui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/triage-dev/triage/internal/triage"
)

// loadQueueCmd fetches the queue. Blind mode is passed to the store so the
// rules' output never even leaves it.
func (m *Model) loadQueueCmd(gen int) tea.Cmd {
	st, ctx, q := m.store, m.ctx, m.queueQuery()
	return func() tea.Msg {
		items, err := st.Queue(ctx, q)
		if err != nil {
			return errMsg{what: "load queue", err: err}
		}
		return queueLoadedMsg{gen: gen, items: items}
	}
}

func (m *Model) queueQuery() QueueQuery {
	return QueueQuery{Reviewer: m.cfg.Reviewer, RunID: m.cfg.RunID, Slice: m.cfg.Slice, Blind: m.cfg.Blind, All: m.cfg.All}
}

// loadTraceCmd fetches one trace with its verdict, context and history.
// In blind mode it does not ask for the verdict nor for other reviewers'
// labels, so nothing the screen could leak is ever in memory.
func (m *Model) loadTraceCmd(id int64, gen int) tea.Cmd {
	st, ctx, blind, reviewer := m.store, m.ctx, m.cfg.Blind, m.cfg.Reviewer
	return func() tea.Msg {
		tr, err := st.Trace(ctx, id)
		if err != nil {
			return errMsg{what: "load trace", err: err}
		}
		if tr == nil {
			return errMsg{what: "load trace", err: fmt.Errorf("trace %d not found", id)}
		}
		msg := traceLoadedMsg{id: id, gen: gen, trace: tr}
		actor := ""
		if blind {
			actor = reviewer
		} else if msg.verdict, err = st.Verdict(ctx, id); err != nil {
			return errMsg{what: "load verdict", err: err}
		}
		if msg.tctx, err = st.Context(ctx, tr.RunID, tr.TaskID); err != nil {
			return errMsg{what: "load task", err: err}
		}
		if msg.history, err = st.History(ctx, id, actor); err != nil {
			return errMsg{what: "load labels", err: err}
		}
		return msg
	}
}

// writeLabelCmd stores one event, then reads back the reviewer's history
// of the trace so the queue shows what the store holds, not a guess.
func (m *Model) writeLabelCmd(e triage.LabelEvent) tea.Cmd {
	st, ctx := m.store, m.ctx
	return func() tea.Msg {
		if _, err := st.AppendLabel(ctx, e); err != nil {
			return errMsg{what: "save label", err: err, write: true}
		}
		events, err := st.History(ctx, e.TraceID, e.Actor)
		if err != nil {
			return errMsg{what: "reload labels", err: err, write: true}
		}
		return labelSavedMsg{traceID: e.TraceID, events: events}
	}
}

// contextOrBackground keeps a nil context from reaching the store.
func contextOrBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
