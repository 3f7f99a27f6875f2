package ui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// RootCauser is what the queue's why column needs on top of Store for
// the traces the rules decided: each one's root cause in a line
// (triage.RootCause of its verdict, with the evidence that the queue's
// rows do not carry). It is asked for the rows on screen only, in a
// tea.Cmd, so a queue of 100k traces reads 40 verdicts, not 100k. A
// store without it shows the rules' reason alone, as before.
type RootCauser interface {
	// RootCauses returns the root cause of each trace that has a
	// verdict; a trace without one is absent.
	RootCauses(ctx context.Context, ids []int64) (map[int64]string, error)
}

// causesLoadedMsg carries root causes for queue rows.
type causesLoadedMsg struct {
	asked  []int64
	causes map[int64]string
	err    error
}

// causesCmd asks for the root causes of the queue rows on screen that
// have none yet, one request at a time; nil when there is nothing to
// ask (or a blind session, which never fetches the rules' words).
func (m *Model) causesCmd() tea.Cmd {
	rc, ok := m.store.(RootCauser)
	if !ok || m.pol.blind || m.causing || m.screen != screenQueue {
		return nil
	}
	q := &m.queue
	var ids []int64
	for i := q.offset; i < len(q.view) && i < q.offset+q.height; i++ {
		it := &q.all[q.view[i]]
		if it.Reason != "" || it.Suggestion == "" {
			continue // a leftover's why is its reason; no verdict, no cause
		}
		if _, done := m.causes[it.TraceID]; !done {
			ids = append(ids, it.TraceID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	m.causing = true
	ctx := m.ctx
	return func() tea.Msg {
		c, err := rc.RootCauses(ctx, ids)
		return causesLoadedMsg{asked: ids, causes: c, err: err}
	}
}

// setCauses keeps what came; a row asked for with no verdict, or whose
// request failed, keeps "" so that it is not asked for again: Update asks
// after every message, and a store that keeps failing would otherwise be
// asked in a loop. The failure is said once; the why cell shows nothing.
func (m *Model) setCauses(msg causesLoadedMsg) {
	m.causing = false
	if msg.err != nil {
		m.errText = "root causes: " + msg.err.Error()
	}
	if m.causes == nil {
		m.causes = make(map[int64]string, len(msg.asked))
	}
	for _, id := range msg.asked {
		m.causes[id] = msg.causes[id]
	}
}

// whyOf is the queue's why cell: what the trace holds, then a leftover's
// reason for coming to people, else the rules' root cause without the
// class the rules column already shows. Nearly every leftover of the
// real logs shares one reason ("outcome unknown: no scorer verdict…"),
// so the reason alone read the same on every row.
func (s *session) whyOf(it *QueueItem) string {
	why := it.Reason
	if why == "" {
		why = s.causes[it.TraceID]
		if it.Suggestion != "" {
			why = strings.TrimPrefix(why, it.Suggestion+": ")
		}
	}
	switch {
	case it.Empty:
		return "empty: no message, tool call or answer recorded"
	case it.Holds == "":
		return why
	case why == "":
		return it.Holds
	}
	return it.Holds + " · " + why
}
