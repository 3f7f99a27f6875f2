package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/agreement"
	"github.com/triage-dev/triage/internal/triage"
)

// fakeAdj is an in-memory AdjudicationStore over fakeStore: every item
// of the fake is disputed by ann and bob, except the last, on which they
// agree (shown only with All).
type fakeAdj struct {
	*fakeStore
	reviews map[int64][]triage.LabelEvent
	rep     *agreement.Report
	ratings []agreement.Rating
}

func newFakeAdj(t testing.TB, n int) *fakeAdj {
	f := &fakeAdj{fakeStore: newFake(n), reviews: map[int64][]triage.LabelEvent{}}
	var rs []agreement.Rating
	for i := 1; i <= n; i++ {
		id := int64(i)
		bob := triage.ToolLoop
		if i == n {
			bob = triage.AssumeAPI
		}
		f.reviews[id] = []triage.LabelEvent{
			{TraceID: id, Actor: "ann", Kind: triage.KindHuman, Primary: triage.AssumeAPI, Secondary: []string{triage.TagLeaked}, Note: "guessed /v2"},
			{TraceID: id, Actor: "bob", Kind: triage.KindHuman, Primary: bob, Note: "read README three times"},
		}
		unit := fmt.Sprintf("r1/T%02d#0", i)
		rs = append(rs, agreement.Rating{Unit: unit, Rater: "ann", Label: triage.AssumeAPI}, agreement.Rating{Unit: unit, Rater: "bob", Label: bob})
	}
	rep, err := agreement.Compute(rs, agreement.Options{Categories: seedTaxonomy().Codes(), Resamples: 200, Seed: 1})
	require.NoError(t, err)
	f.rep, f.ratings = rep, rs
	return f
}

func (f *fakeAdj) Disagreements(_ context.Context, q DisagreementQuery) ([]Disputed, error) {
	f.record(fmt.Sprintf("Disagreements(all=%v)", q.All))
	var out []Disputed
	for _, it := range f.fakeStore.items {
		d := Disputed{QueueItem: it, Reviews: f.reviews[it.TraceID]}
		if !q.All && d.Agree() {
			continue
		}
		evs, _ := f.History(context.Background(), it.TraceID, q.Adjudicator)
		if _, a := triage.LiveEvents(evs); a != nil {
			d.Primary, d.Secondary, d.Note, d.Status = a.Primary, a.Secondary, a.Note, StatusLabelled
		}
		out = append(out, d)
	}
	return out, nil
}

func (f *fakeAdj) Agreement(context.Context, string) (*AgreementView, error) {
	f.record("Agreement")
	return f.view("slice s1"), nil
}

// view is the fake's agreement as the agreement screen gets it.
func (f *fakeAdj) view(title string) *AgreementView {
	return &AgreementView{Title: title, Report: f.rep, Ratings: f.ratings}
}

func adjConfig() Config {
	return Config{Reviewer: "cy", Slice: "s1", Now: func() time.Time { return fixedNow }}
}

func startedAdj(t testing.TB, f *fakeAdj, w, h int) Model {
	t.Helper()
	m := NewAdjudicate(f, adjConfig())
	m = settle(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m = settle(t, m, m.Init()())
	require.True(t, m.queue.loaded)
	return m
}

func TestAdjudicateBindings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		keys  []string
		check func(t *testing.T, m Model, f *fakeAdj)
	}{
		{"only disagreements by default", nil, func(t *testing.T, m Model, f *fakeAdj) {
			require.Len(t, m.queue.all, 3)
			require.Contains(t, m.View(), "0 of 3 settled")
		}},
		{"a shows every doubly-labelled item and back", []string{"a"}, func(t *testing.T, m Model, f *fakeAdj) {
			require.Len(t, m.queue.all, 4)
			require.True(t, m.showAll)
			m = press(t, m, "a")
			require.Len(t, m.queue.all, 3)
		}},
		{"a digit asks for a reason, nothing stored yet", []string{"3"}, func(t *testing.T, m Model, f *fakeAdj) {
			require.Equal(t, modalNote, m.modal)
			require.Equal(t, triage.AssumeAPI, m.pending)
			require.Empty(t, f.eventsCopy())
			require.Contains(t, m.View(), "Reason for ASSUME_API")
		}},
		{"an empty reason is refused", []string{"3", "ctrl+s"}, func(t *testing.T, m Model, f *fakeAdj) {
			require.Equal(t, modalNote, m.modal)
			require.Empty(t, f.eventsCopy())
			require.Contains(t, m.View(), "needs a reason")
		}},
		{"esc cancels the adjudication", []string{"3", "esc"}, func(t *testing.T, m Model, f *fakeAdj) {
			require.Equal(t, modalNone, m.modal)
			require.Empty(t, m.pending)
			require.Empty(t, f.eventsCopy())
			require.Contains(t, m.status, "not settled")
		}},
		{"digit, reason, ctrl+s stores an adjudication", []string{"3", "spec says v1", "ctrl+s"}, func(t *testing.T, m Model, f *fakeAdj) {
			ev := f.eventsCopy()
			require.Len(t, ev, 1)
			require.Equal(t, triage.KindAdjudication, ev[0].Kind)
			require.Equal(t, "cy", ev[0].Actor)
			require.Equal(t, "s1", ev[0].Slice)
			require.Equal(t, "spec says v1", ev[0].Note)
			require.Equal(t, 1, m.queue.cursor, "the cursor moves on")
			require.Contains(t, m.View(), "1 of 3 settled")
		}},
		{"a drafted reason settles at once", []string{"c", "spec", "ctrl+s", "4"}, func(t *testing.T, m Model, f *fakeAdj) {
			ev := f.eventsCopy()
			require.Len(t, ev, 1)
			require.Equal(t, triage.ToolLoop, ev[0].Primary)
			require.Equal(t, "spec", ev[0].Note)
		}},
		{"u undoes the adjudication", []string{"3", "why", "ctrl+s", "k", "u"}, func(t *testing.T, m Model, f *fakeAdj) {
			ev := f.eventsCopy()
			require.Len(t, ev, 2)
			require.Equal(t, triage.KindUndo, ev[1].Kind)
			require.Equal(t, StatusTodo, m.queue.item(1).Status)
			require.Contains(t, m.View(), "0 of 3 settled")
		}},
		{"tags after the final label are an adjudication too", []string{"3", "why", "ctrl+s", "k", "t", "space", "enter"}, func(t *testing.T, m Model, f *fakeAdj) {
			ev := f.eventsCopy()
			require.Len(t, ev, 2)
			require.Equal(t, triage.KindAdjudication, ev[1].Kind)
			require.Equal(t, "why", ev[1].Note, "the reason travels with new tags")
		}},
		{"the reason cannot be emptied", []string{"3", "why", "ctrl+s", "k", "c", "ctrl+a", "ctrl+k", "ctrl+s"}, func(t *testing.T, m Model, f *fakeAdj) {
			require.Len(t, f.eventsCopy(), 1)
			require.Equal(t, "why", m.queue.item(1).Note)
		}},
		{"A opens the agreement and esc goes back", []string{"A"}, func(t *testing.T, m Model, f *fakeAdj) {
			require.Equal(t, screenAgreement, m.screen)
			require.Contains(t, m.View(), "Confusion")
			m = press(t, m, "j", "esc")
			require.Equal(t, screenQueue, m.screen)
		}},
		{"enter shows the reviewers side by side", []string{"enter"}, func(t *testing.T, m Model, f *fakeAdj) {
			v := m.View()
			require.Contains(t, v, "ann ASSUME_API")
			require.Contains(t, v, "bob TOOL_LOOP")
			require.Contains(t, v, "read README three times")
			require.Contains(t, v, "final —")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAdj(t, 4)
			m := startedAdj(t, f, 100, 30)
			for _, k := range tt.keys {
				m = settle(t, m, keyMsg(k))
			}
			tt.check(t, m, f)
		})
	}
}

// TestLiveStatus pins how a reviewer's events map to a queue status.
func TestLiveStatus(t *testing.T) {
	t.Parallel()
	h := triage.LabelEvent{Kind: triage.KindHuman, Primary: triage.AssumeAPI}
	s := triage.LabelEvent{Kind: triage.KindSkip}
	u := triage.LabelEvent{Kind: triage.KindUndo}
	tests := []struct {
		events []triage.LabelEvent
		want   Status
	}{
		{nil, StatusTodo},
		{[]triage.LabelEvent{h}, StatusLabelled},
		{[]triage.LabelEvent{s}, StatusSkipped},
		{[]triage.LabelEvent{h, s}, StatusSkipped},
		{[]triage.LabelEvent{h, s, u}, StatusLabelled},
		{[]triage.LabelEvent{s, h}, StatusLabelled},
		{[]triage.LabelEvent{h, u}, StatusTodo},
	}
	for i, tt := range tests {
		require.Equal(t, tt.want, LiveStatus(tt.events), "case %d", i)
	}
}

// TestFlowAdjudicate drives the program: open a disagreement, read the
// reviewers, pick the final label, give the reason, and check the event
// reached the store.
func TestFlowAdjudicate(t *testing.T) {
	t.Parallel()
	f := newFakeAdj(t, 4)
	tm := teatest.NewTestModel(t, NewAdjudicate(f, adjConfig()), teatest.WithInitialTermSize(100, 30))
	waitFor(t, tm, "0 of 3 settled")
	tm.Send(keyMsg("enter"))
	waitFor(t, tm, "bob TOOL_LOOP")
	tm.Send(keyMsg("4"))
	waitFor(t, tm, "Reason for TOOL_LOOP")
	tm.Type("same read three times")
	tm.Send(keyMsg("ctrl+s"))
	waitFor(t, tm, "2/3")
	require.Eventually(t, func() bool { return len(f.eventsCopy()) == 1 }, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, tm.Quit())
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	require.Equal(t, triage.LabelEvent{
		ID: 1, TraceID: 1, Actor: "cy", Kind: triage.KindAdjudication, Primary: triage.ToolLoop,
		Note: "same read three times", Slice: "s1", CreatedAt: fixedNow,
	}, f.eventsCopy()[0])
	require.Equal(t, StatusLabelled, final.queue.item(1).Status)
}

// TestAdjudicateGolden pins the adjudicate queue, trace screen and
// agreement screen at 80 and 140 columns.
func TestAdjudicateGolden(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		f := newFakeAdj(t, 4)
		m := startedAdj(t, f, sz.w, sz.h)
		m = settle(t, m, keyMsg("3"))
		m = settle(t, m, keyMsg("guessed the path; spec has v1 only"))
		m = settle(t, m, keyMsg("ctrl+s"))
		shots := map[string]string{"adj_queue": m.View()}
		m = press(t, m, "enter")
		shots["adj_trace"] = m.View()
		m = press(t, m, "A")
		shots["agreement"] = m.View()
		for name, v := range shots {
			t.Run(name+"_"+itoa(sz.w), func(t *testing.T) {
				for _, l := range strings.Split(v, "\n") {
					require.LessOrEqual(t, ansi.StringWidth(l), sz.w, l)
				}
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

// Back to disagreements only with the cursor on the agreed item (the last,
// which only every-item mode shows), the shorter queue loads in place.
func TestToggleAllBackWithCursorPastTheDisputes(t *testing.T) {
	t.Parallel()
	m := startedAdj(t, newFakeAdj(t, 5), 120, 30)
	m = press(t, m, "a", "G")
	require.Equal(t, int64(5), m.queue.current().TraceID)
	require.NotPanics(t, func() { m = press(t, m, "a") })
	require.Len(t, m.queue.all, 4)
	require.NotNil(t, m.queue.current())
}

// TestStaleAgreementFailureKeepsTheScreen: a failed agreement
// computation the reviewer has since left (its generation is old) does
// not replace the agreement shown; a current one says it failed there.
func TestStaleAgreementFailureKeepsTheScreen(t *testing.T) {
	t.Parallel()
	m := startedAdj(t, newFakeAdj(t, 4), 140, 45)
	m = press(t, m, "A")
	shown := m.View()
	require.Contains(t, shown, "slice s1")
	m = settle(t, m, agreementLoadedMsg{gen: m.agreeGen - 1, err: errors.New("stale: database is locked")})
	require.NotContains(t, m.View(), "stale: database is locked")
	m = settle(t, m, agreementLoadedMsg{gen: m.agreeGen, err: errors.New("database is locked")})
	require.Contains(t, m.View(), "agreement: database is locked")
}
