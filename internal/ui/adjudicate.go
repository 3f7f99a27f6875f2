package ui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/triage-dev/triage/internal/triage"
)

// AdjudicationStore is what the adjudicate screen needs on top of Store.
// It is a separate interface so that a review session's store (and its
// fakes) need not grow for a screen it never opens.
type AdjudicationStore interface {
	Store
	// Disagreements returns a slice's doubly-labelled items where the
	// reviewers' live primaries differ (all doubly-labelled items when
	// q.All is set), in slice order. QueueItem's Primary, Secondary and
	// Note carry the live adjudication, if any.
	Disagreements(ctx context.Context, q DisagreementQuery) ([]Disputed, error)
	// Agreement computes the slice's agreement report from the
	// reviewers' live labels, with the ratings it counted.
	Agreement(ctx context.Context, slice string) (*AgreementView, error)
}

// DisagreementQuery says which items an adjudication session covers.
type DisagreementQuery struct {
	Slice       string
	Adjudicator string
	// All includes items where the reviewers agree, so an adjudicator
	// can also overrule a shared mistake.
	All bool
}

// Disputed is one item of an adjudication queue.
type Disputed struct {
	QueueItem
	// Reviews are the reviewers' live human labels, one per reviewer,
	// in reviewer name order.
	Reviews []triage.LabelEvent
}

// Agree reports whether every reviewer gave the same primary.
func (d *Disputed) Agree() bool {
	for _, r := range d.Reviews {
		if r.Primary != d.Reviews[0].Primary {
			return false
		}
	}
	return true
}

// reviewPanelHeight is the lines of the reviewers' side-by-side panel on
// the adjudicate trace screen: who and primary, tags, note.
const reviewPanelHeight = 3

// LiveStatus is where a reviewer's own events (in time order) leave a
// trace: labelled, skipped (the latest live event is a skip) or todo.
// The store adapter uses it so a resumed session shows earlier skips.
func LiveStatus(events []triage.LabelEvent) Status {
	switch {
	case topIsSkip(events):
		return StatusSkipped
	case triage.CurrentLabel(events) != nil:
		return StatusLabelled
	}
	return StatusTodo
}

// RunAdjudicate runs the adjudicate app over cfg.Slice until the
// adjudicator (cfg.Reviewer) quits. Adjudication is never blind: the
// rules' verdict and every reviewer's label are the material.
func RunAdjudicate(ctx context.Context, store AdjudicationStore, cfg Config, opts ...tea.ProgramOption) error {
	if store == nil {
		return errors.New("adjudicate: no store")
	}
	if cfg.Reviewer == "" {
		return errors.New("adjudicate: an adjudicator name is required")
	}
	if cfg.Slice == "" {
		return errors.New("adjudicate: a slice is required")
	}
	if err := runProgram(ctx, NewAdjudicate(store, cfg).WithContext(ctx), cfg.Mouse, opts); err != nil {
		return fmt.Errorf("adjudicate: %w", err)
	}
	return ctx.Err()
}

// NewAdjudicate builds the adjudicate app: the review app's queue and
// panes over the slice's disagreements, labels stored as adjudications.
func NewAdjudicate(store AdjudicationStore, cfg Config) Model {
	cfg.Blind = false
	m := New(store, cfg)
	m.adj, m.pol = store, adjudicatePolicy()
	m.reviews = map[int64][]triage.LabelEvent{}
	return m
}

// adjudicating reports whether this session settles disagreements.
func (m *Model) adjudicating() bool { return m.adj != nil }

// loadDisputesCmd fetches the adjudication queue.
func (m *Model) loadDisputesCmd(gen int) tea.Cmd {
	st, ctx, rd := m.adj, m.ctx, m.cfg.Redactor
	q := DisagreementQuery{Slice: m.cfg.Slice, Adjudicator: m.cfg.Reviewer, All: m.showAll}
	return func() tea.Msg {
		ds, err := st.Disagreements(ctx, q)
		if err != nil {
			return errMsg{what: "load disagreements", err: err}
		}
		msg := queueLoadedMsg{gen: gen, items: make([]QueueItem, len(ds)), reviews: map[int64][]triage.LabelEvent{}}
		for i := range ds {
			msg.items[i] = ds[i].QueueItem
			msg.reviews[ds[i].TraceID] = ds[i].Reviews
		}
		redactItems(rd, msg.items)
		redactReviews(rd, msg.reviews)
		msg.natural = naturalCols(msg.items)
		return msg
	}
}

// loadAgreementCmd computes the slice's agreement off the UI goroutine.
func (m *Model) loadAgreementCmd(gen int) tea.Cmd {
	st, ctx, slice := m.adj, m.ctx, m.cfg.Slice
	return func() tea.Msg {
		v, err := st.Agreement(ctx, slice)
		// A failure carries its generation too: one from a computation
		// the reviewer has left must not replace a newer screen.
		return agreementLoadedMsg{gen: gen, view: v, err: err}
	}
}

// toggleAll switches between disagreements only and every doubly-labelled
// item, and reloads the queue.
func (m *Model) toggleAll() tea.Cmd {
	m.showAll = !m.showAll
	m.queueGen++
	m.queue.loaded = false
	if m.showAll {
		m.status = "showing every doubly-labelled item"
	} else {
		m.status = "showing disagreements only"
	}
	return m.loadDisputesCmd(m.queueGen)
}

// openAgreement shows the agreement screen and computes its figures.
func (m *Model) openAgreement() tea.Cmd {
	m.prevScreen = m.screen
	m.screen = screenAgreement
	m.agreeGen++
	d := &m.docs[screenAgreement]
	*d = m.newDoc(screenAgreement, m.agreementPage(nil, computingAgreement))
	d.SetSize(m.width, m.lay.agreeBody)
	return m.loadAgreementCmd(m.agreeGen)
}

// askReason opens the reason box for an adjudication: a final label
// without a reason is refused, so the box opens unless one is drafted.
func (m *Model) askReason(it *QueueItem, code string) tea.Cmd {
	note := it.Note
	if d, ok := m.drafts[it.TraceID]; ok && d.hasNote {
		note = d.note
		if strings.TrimSpace(note) != "" {
			return m.storePrimary(it, code, note)
		}
	}
	m.pending = code
	m.picker.traceID = it.TraceID
	// A stored note may come from another store: the box draws its
	// value raw, so it gets the visible stand-ins first.
	m.note.SetValue(triage.Sanitize(note))
	m.modal = modalNote
	m.status = "why " + code + "? a reason is required (ctrl+s stores it)"
	return m.note.Focus()
}

// reasonRequired is the error of an empty adjudication reason.
const reasonRequired = "an adjudication needs a reason: type why, then ctrl+s (esc cancels)"

// reviewSummary is the reviewers' primaries for a queue row.
func (s *session) reviewSummary(id int64) string {
	var parts []string
	for _, r := range s.reviews[id] {
		parts = append(parts, r.Actor+" "+orDash(r.Primary))
	}
	return strings.Join(parts, " · ")
}

// adjStatus is the adjudicate queue's name for a status.
func adjStatus(s Status) string {
	if s == StatusLabelled {
		return "settled"
	}
	return string(s)
}

// minReviewCol is the narrowest reviewer column of the panel.
const minReviewCol = 24

// reviewGap separates the panel's reviewer columns.
const reviewGap = " │ "

// SortReviews puts reviews in reviewer name order, as Disputed promises.
func SortReviews(revs []triage.LabelEvent) {
	sort.SliceStable(revs, func(i, j int) bool { return revs[i].Actor < revs[j].Actor })
}
