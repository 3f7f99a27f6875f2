package ui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// TestOtherReviewersLabelsAreShown: another reviewer's label (bob's, on a
// shared store) shows in the queue's others column and matches
// label:CLASS; labelling the trace differently keeps both and says the
// reviewers disagree, never replacing bob's word silently (issue 29).
func TestOtherReviewersLabelsAreShown(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	f.items[1].Others = []OtherLabel{{Reviewer: "bob", Primary: triage.ScorerRed}}
	// Bob labels trace 1 on his own screen after ana's queue loaded.
	m := started(t, f, testConfig(), 140, 30)
	require.Contains(t, m.View(), "others", "a column for the other reviewers")
	require.Contains(t, m.View(), "bob SCORER_RED")
	f.events = append(f.events, triage.LabelEvent{ID: 100, TraceID: 1, Actor: "bob", Kind: triage.KindHuman, Primary: triage.ScorerRed})

	m = press(t, m, "1") // ana: PASS_CONTRACT on trace 1
	require.Contains(t, m.status, "reviewers disagree on r1/T01#0: yours PASS_CONTRACT, bob SCORER_RED")
	require.Contains(t, m.View(), "≠ bob SCORER_RED")
	require.Equal(t, triage.PassContract, m.queue.all[0].Primary)
	require.True(t, m.queue.all[0].Disagrees())

	require.NoError(t, m.queue.apply("label:SCORER_RED", false))
	var keys []string
	for _, i := range m.queue.view {
		keys = append(keys, m.queue.all[i].TaskID)
	}
	require.Equal(t, []string{"T01", "T02"}, keys, "label: matches the other reviewers' labels too")
}

// TestEmptyFilter: empty:yes finds the traces that recorded nothing,
// empty:no hides them.
func TestEmptyFilter(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	f.items[2].Empty = true
	m := started(t, f, testConfig(), 140, 30)
	for filter, want := range map[string]string{"empty:yes": "T03", "empty:no": "T01 T02", "empty:": "T03"} {
		require.NoError(t, m.queue.apply(filter, false))
		var keys []string
		for _, i := range m.queue.view {
			keys = append(keys, m.queue.all[i].TaskID)
		}
		require.Equal(t, want, strings.Join(keys, " "), filter)
	}
	require.True(t, EmptyTrace(&triage.Trace{}))
	require.False(t, EmptyTrace(&triage.Trace{Messages: []triage.Message{{Role: "user", Content: "x"}}}))
}

// TestWhySaysWhatEachTraceHolds: leftovers that share one reason (as
// 1,159 of the real logs' 1,160 do) differ in the why column by what each
// recorded, an empty one says so, and the column shows at 80 columns
// (issue 29: the same "outcome unknown: no scorer…" on every row at 140,
// and no why at all at 80).
func TestWhySaysWhatEachTraceHolds(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	for i := range f.items {
		f.items[i].Reason = "outcome unknown: no scorer verdict was recorded"
		f.items[i].Suggestion = ""
	}
	f.items[0].Holds = "17 calls"
	f.items[1].Holds = "3 messages, no call"
	f.items[2].Empty, f.items[2].Holds = true, "nothing recorded"
	m := started(t, f, testConfig(), 80, 24)
	view := m.View()
	require.Contains(t, view, "why")
	for _, want := range []string{"17 calls · outcome", "3 messages, no call", "empty: no message"} {
		require.Contains(t, view, want)
	}
	require.NotContains(t, view, "yours          ", "an empty yours column keeps no 15 cells")
}

// TestDraftNoteSurvivesASkip: a note kept before the primary (c, type,
// ctrl+s) is stored with the label given after skipping the trace and
// coming back to it (issue 29: s, k, 7 stored the label with no note).
func TestDraftNoteSurvivesASkip(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	m := started(t, f, testConfig(), 140, 30)
	m = press(t, m, "c", "read the diff", "ctrl+s")
	require.Contains(t, m.status, "note kept")
	m = press(t, m, "s", "k", "7")
	ev := f.eventsCopy()
	require.NotEmpty(t, ev)
	last := ev[len(ev)-1]
	require.Equal(t, triage.KindHuman, last.Kind)
	require.Equal(t, int64(1), last.TraceID)
	require.Equal(t, "read the diff", last.Note)
}

// TestEscCancelsTheFilter: esc in / puts back the filter that stood when
// the line opened (issue 29: the half-typed filter stayed, with its text).
func TestEscCancelsTheFilter(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	m := started(t, f, testConfig(), 140, 30)
	m = press(t, m, "/", "T02", "enter")
	require.Equal(t, "T02", m.queue.filter)
	require.Len(t, m.queue.view, 1)
	m = press(t, m, "/", "ctrl+u", "T03", "esc")
	require.Equal(t, "T02", m.queue.filter, "esc keeps the filter as it was")
	require.Len(t, m.queue.view, 1)
	require.Equal(t, "T02", m.queue.all[m.queue.view[0]].TaskID)
	m = press(t, m, "/", "esc")
	require.Equal(t, "T02", m.queue.filter)
}

// TestSwitcherSaysWhenNothingMatches: a : name that matches no entry
// says so and what the switcher offers (issue 29: ":rep" in a review
// said "The taxonomy defines no tags").
func TestSwitcherSaysWhenNothingMatches(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	cfg := testConfig()
	cfg.Runs = []string{"r1", "r2"}
	m := started(t, f, cfg, 100, 30)
	m = press(t, m, ":", "rep")
	view := m.View()
	require.NotContains(t, view, "defines no tags")
	require.Contains(t, view, "Nothing to switch to matches “rep”")
}

// TestHelpFitsAndScrollsAt80x24: the trace screen's help at 80×24 shows
// the labelling keys and scrolls to its last line (issue 29: it was cut
// off below the screen, labelling keys invisible, no scroll).
func TestHelpFitsAndScrollsAt80x24(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	m := started(t, f, testConfig(), 80, 24)
	m = press(t, m, "enter", "?")
	view := m.View()
	require.Len(t, strings.Split(view, "\n"), 24)
	require.Contains(t, view, "1=PASS_CONTRACT", "the labelling keys are on the first page")
	require.Contains(t, view, "j/k scroll")
	w, _ := m.helpSize()
	lines := m.helpLines(w)
	last := strings.TrimSpace(stripBox(lines[len(lines)-1]))
	require.NotContains(t, view, last, "the last line is below")
	m = press(t, m, "G")
	require.Contains(t, m.View(), last, "G scrolls to the last line")
	m = press(t, m, "?")
	require.Equal(t, modalNone, m.modal)
}

// stripBox is a help line without its trailing padding.
func stripBox(s string) string { return strings.TrimRight(s, " ") }

// TestFileListKeepsTheDiffInSight: F's file list is drawn over the diff,
// not over blank lines: the diff's text beside and around the box stays
// (issue 29: F blanked the diff behind it).
func TestFileListKeepsTheDiffInSight(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	m := started(t, f, testConfig(), 140, 45)
	m = press(t, m, "enter", "tab")
	before := m.View()
	require.Contains(t, before, "BASE = '/v2/invoices'")
	m = press(t, m, "F")
	require.Equal(t, modalFiles, m.modal)
	after := m.View()
	require.Contains(t, after, "Files (2)")
	require.Contains(t, after, "import requests", "the diff's lines outside the box are still drawn")
}

// TestOverlayBoxKeepsBothSides: the box is spliced into each line it
// covers, the cells left and right of it kept.
func TestOverlayBoxKeepsBothSides(t *testing.T) {
	t.Parallel()
	screen := "head\n0123456789\nabcdefghij\nKLMNOPQRST\ntail"
	got := overlayBox(screen, "##\n##", 10, 1, 3)
	require.Equal(t, "head\n0123##6789\nabcd##ghij\nKLMNOPQRST\ntail", got)
}

// TestLiveScreenSeesAnotherReviewer: a screen already open takes another
// reviewer's label on its next read: opening the trace (its history is
// everyone's) or ctrl+r (the queue read again, cursor and filter kept)
// (issue 29: neither a live nor a restarted screen showed it).
func TestLiveScreenSeesAnotherReviewer(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	m := started(t, f, testConfig(), 140, 30)
	m = press(t, m, "j") // on T02
	// Bob labels T02 and T03 elsewhere; the store's queue now says so.
	f.mu.Lock()
	f.events = append(f.events, triage.LabelEvent{ID: 100, TraceID: 2, Actor: "bob", Kind: triage.KindHuman, Primary: triage.Timeout})
	f.items[2].Others = []OtherLabel{{Reviewer: "bob", Primary: triage.Timeout}}
	f.mu.Unlock()
	require.Empty(t, m.queue.item(2).Others)

	m = press(t, m, "enter")
	require.Equal(t, []OtherLabel{{Reviewer: "bob", Primary: triage.Timeout}}, m.queue.item(2).Others, "opening the trace reads everyone's labels")
	m = press(t, m, "esc", "/", "T0", "enter", "ctrl+r")
	require.Equal(t, []OtherLabel{{Reviewer: "bob", Primary: triage.Timeout}}, m.queue.item(3).Others, "ctrl+r reads the queue again")
	require.Equal(t, int64(2), m.queue.current().TraceID, "the cursor stays")
	require.Equal(t, "T0", m.queue.filter, "the filter stays")
	require.Contains(t, m.status, "labels read again")
	require.Contains(t, m.View(), "bob TIMEOUT")
}
