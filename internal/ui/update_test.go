package ui

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

func TestQueueBindings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		keys  []string
		check func(t *testing.T, m Model, f *fakeStore)
	}{
		{"j moves down", []string{"j"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, 1, m.queue.cursor) }},
		{"down arrow moves down", []string{"down"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, 1, m.queue.cursor) }},
		{"k moves up", []string{"j", "j", "k"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, 1, m.queue.cursor) }},
		{"up stops at top", []string{"up"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, 0, m.queue.cursor) }},
		{"G goes to bottom", []string{"G"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, 39, m.queue.cursor) }},
		{"g goes to top", []string{"G", "g"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, 0, m.queue.cursor) }},
		{"ctrl+d half page", []string{"ctrl+d"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, m.queue.height/2, m.queue.cursor) }},
		{"ctrl+u half page back", []string{"ctrl+d", "ctrl+d", "ctrl+u"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, m.queue.height/2, m.queue.cursor)
		}},
		{"l and L move to next", []string{"l", "L"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, 2, m.queue.cursor) }},
		{"h moves to previous", []string{"l", "h"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, 0, m.queue.cursor) }},
		{"enter opens the trace", []string{"j", "enter"}, func(t *testing.T, m Model, f *fakeStore) {
			require.Equal(t, screenTrace, m.screen)
			require.True(t, m.trace.loaded)
			require.Equal(t, int64(2), m.trace.id)
			require.Equal(t, 1, f.called("Trace(2)"))
		}},
		{"/ filters live and enter keeps it", []string{"/", "T0", "3", "enter"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, modalNone, m.modal)
			require.Equal(t, "T03", m.queue.filter)
			require.Len(t, m.queue.view, 1)
		}},
		{"esc clears the filter", []string{"/", "T03", "enter", "esc"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Empty(t, m.queue.filter)
			require.Len(t, m.queue.view, 40)
		}},
		{"q is typed into the filter, not quit", []string{"/", "q"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.False(t, m.quitting)
			require.Equal(t, "q", m.input.Value())
		}},
		{"bad filter term is an error", []string{"/", "colour:red", "enter"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Contains(t, m.errText, "unknown filter")
		}},
		{"o cycles the sort", []string{"o"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, sortTask, m.queue.sortBy) }},
		{"? opens help and esc closes it", []string{"?"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, modalHelp, m.modal)
			m = press(t, m, "j", "esc")
			require.Equal(t, modalNone, m.modal)
			require.Equal(t, 0, m.queue.cursor, "keys other than close do nothing under help")
		}},
		{"q quits", []string{"q"}, func(t *testing.T, m Model, _ *fakeStore) { require.True(t, m.quitting) }},
		{"ctrl+c quits", []string{"ctrl+c"}, func(t *testing.T, m Model, _ *fakeStore) { require.True(t, m.quitting) }},
		{"digit labels and moves down", []string{"3"}, func(t *testing.T, m Model, f *fakeStore) {
			ev := f.eventsCopy()
			require.Len(t, ev, 1)
			require.Equal(t, triage.LabelEvent{ID: 1, TraceID: 1, Actor: "ana", Kind: triage.KindHuman, Primary: triage.AssumeAPI, Secondary: []string{}, CreatedAt: fixedNow}, normalize(ev[0]))
			require.Equal(t, 1, m.queue.cursor)
			require.Equal(t, StatusLabelled, m.queue.all[0].Status)
		}},
		{"s skips and moves down", []string{"s"}, func(t *testing.T, m Model, f *fakeStore) {
			require.Equal(t, triage.KindSkip, f.eventsCopy()[0].Kind)
			require.Equal(t, StatusSkipped, m.queue.all[0].Status)
			require.Equal(t, 1, m.queue.cursor)
		}},
		{"u stores an undo event", []string{"2", "k", "u"}, func(t *testing.T, m Model, f *fakeStore) {
			ev := f.eventsCopy()
			require.Len(t, ev, 2)
			require.Equal(t, triage.KindUndo, ev[1].Kind)
			require.Empty(t, m.queue.all[0].Primary)
			require.Equal(t, StatusTodo, m.queue.all[0].Status)
		}},
		{"p picker chooses with enter", []string{"p", "j", "j", "enter"}, func(t *testing.T, m Model, f *fakeStore) {
			require.Equal(t, modalNone, m.modal)
			require.Equal(t, triage.AssumeAPI, f.eventsCopy()[0].Primary)
		}},
		{"p picker esc cancels", []string{"p", "esc"}, func(t *testing.T, m Model, f *fakeStore) {
			require.Equal(t, modalNone, m.modal)
			require.Empty(t, f.eventsCopy())
		}},
		{"t tags before a primary are drafted then stored with it", []string{"t", "space", "enter", "1"}, func(t *testing.T, m Model, f *fakeStore) {
			ev := f.eventsCopy()
			require.Len(t, ev, 1)
			require.Equal(t, []string{triage.TagLeaked}, ev[0].Secondary)
			require.Empty(t, m.drafts)
		}},
		{"t tags after a primary are stored at once", []string{"1", "k", "t", "x", "enter"}, func(t *testing.T, m Model, f *fakeStore) {
			ev := f.eventsCopy()
			require.Len(t, ev, 2)
			require.Equal(t, triage.PassContract, ev[1].Primary)
			require.Equal(t, []string{triage.TagLeaked}, ev[1].Secondary)
		}},
		{"c note saved with ctrl+s", []string{"1", "k", "c", "why", "ctrl+s"}, func(t *testing.T, m Model, f *fakeStore) {
			ev := f.eventsCopy()
			require.Len(t, ev, 2)
			require.Equal(t, "why", ev[1].Note)
			require.Equal(t, "why", m.queue.all[0].Note)
		}},
		{"c note: q is text, esc discards", []string{"c", "q", "esc"}, func(t *testing.T, m Model, f *fakeStore) {
			require.False(t, m.quitting)
			require.Equal(t, modalNone, m.modal)
			require.Empty(t, f.eventsCopy())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(40)
			m := started(t, f, testConfig(), 100, 30)
			m = press(t, m, tt.keys...)
			tt.check(t, m, f)
		})
	}
}

func normalize(e triage.LabelEvent) triage.LabelEvent {
	if e.Secondary == nil {
		e.Secondary = []string{}
	}
	return e
}

func TestTraceBindings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		keys  []string
		check func(t *testing.T, m Model, f *fakeStore)
	}{
		{"tab cycles panes", []string{"tab", "tab"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, tabTests, m.trace.tab) }},
		{"shift+tab wraps back", []string{"shift+tab"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, tabRaw, m.trace.tab) }},
		{"j and k scroll", []string{"j", "j", "k"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, 1, m.trace.offset[tabTimeline]) }},
		{"G then g", []string{"G"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, max(0, len(m.trace.doc().lines)-m.trace.height), m.trace.offset[tabTimeline])
			m = press(t, m, "g")
			require.Zero(t, m.trace.offset[tabTimeline])
		}},
		{"ctrl+d and ctrl+u", []string{"ctrl+d", "ctrl+u"}, func(t *testing.T, m Model, _ *fakeStore) { require.Zero(t, m.trace.offset[tabTimeline]) }},
		{"L opens the next trace", []string{"L"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, int64(2), m.trace.id) }},
		{"l then H goes back", []string{"l", "H"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, int64(1), m.trace.id) }},
		{"h on the first trace stays", []string{"h"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, int64(1), m.trace.id)
			require.Contains(t, m.status, "first trace")
		}},
		{"/ searches and n/N move", []string{"/", "read", "enter"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, "read", m.trace.query)
			require.NotEmpty(t, m.trace.matches)
			first := m.trace.matchIdx
			m = press(t, m, "n")
			require.Equal(t, (first+1)%len(m.trace.matches), m.trace.matchIdx)
			m = press(t, m, "N")
			require.Equal(t, first, m.trace.matchIdx)
		}},
		{"esc clears search then backs out", []string{"/", "read", "enter", "esc"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Empty(t, m.trace.query)
			require.Equal(t, screenTrace, m.screen)
			m = press(t, m, "esc")
			require.Equal(t, screenQueue, m.screen)
		}},
		{"} and { move between files", []string{"tab", "}"}, func(t *testing.T, m Model, _ *fakeStore) {
			d := m.trace.doc()
			require.Len(t, d.files, 2)
			require.Equal(t, d.files[1], m.trace.target[tabDiff], "the next file is marked")
			require.Contains(t, m.status, "file 2/2 tests/test_client.py")
			m = press(t, m, "{")
			require.Equal(t, d.files[0], m.trace.target[tabDiff])
		}},
		{"] and [ move by hunk across files", []string{"tab", "]", "]"}, func(t *testing.T, m Model, _ *fakeStore) {
			d := m.trace.doc()
			require.Equal(t, d.hunks[1], m.trace.target[tabDiff], "the second hunk is the second file's")
			require.Contains(t, m.status, "file 2/2")
			require.Contains(t, m.View(), "▶ ")
			m = press(t, m, "]")
			require.Contains(t, m.status, "last hunk")
			m = press(t, m, "[")
			require.Equal(t, d.hunks[0], m.trace.target[tabDiff])
		}},
		{"F lists the files and enter jumps", []string{"tab", "F", "j", "enter"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, modalNone, m.modal)
			require.Equal(t, m.trace.doc().files[1], m.trace.target[tabDiff])
		}},
		{"F is only for the diff", []string{"F"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, modalNone, m.modal) }},
		{"] and [ move the timeline cursor by call", []string{"]"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, 0, m.trace.cur, "the first ] brings call #1 up (issue 29: it skipped it)")
			require.Contains(t, m.View(), "▶ #1 read · none  read")
			m = press(t, m, "]")
			require.Equal(t, 3, m.trace.cur, "#1–#3 are one group")
			require.Contains(t, m.View(), "▶ #4 other · none  http")
			m = press(t, m, "]")
			require.Contains(t, m.status, "last tool call")
			m = press(t, m, "[")
			require.Equal(t, 0, m.trace.cur)
		}},
		{"Z unfolds every output", []string{"Z"}, func(t *testing.T, m Model, _ *fakeStore) { require.True(t, m.trace.unfolded) }},
		{"z folds the call under the cursor", []string{"z"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.False(t, m.trace.unfolded)
			require.True(t, m.trace.flip[0])
			require.True(t, m.trace.isUnfolded(0))
			require.False(t, m.trace.isUnfolded(3))
		}},
		{"w wraps every pane", []string{"w"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.True(t, m.trace.wrap)
			require.Contains(t, m.View(), "wrap")
			m = press(t, m, "tab", "w")
			require.False(t, m.trace.wrap)
		}},
		{"→ does not scroll past the widest line", []string{"right"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Zero(t, m.trace.xoff[tabTimeline], "the sample's lines all fit")
		}},
		{"enter on evidence jumps to the tool call", []string{"shift+tab", "shift+tab", "j", "enter"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, tabTimeline, m.trace.tab)
			d := &m.trace.docs[tabTimeline]
			require.Equal(t, min(d.tools[3], max(0, len(d.lines)-m.trace.height)), m.trace.offset[tabTimeline])
		}},
		{"enter on evidence jumps to the diff line", []string{"shift+tab", "shift+tab", "j", "j", "enter"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, tabDiff, m.trace.tab)
		}},
		{"digit labels and opens the next trace", []string{"5"}, func(t *testing.T, m Model, f *fakeStore) {
			require.Equal(t, triage.MissingAsk, f.eventsCopy()[0].Primary)
			require.Equal(t, int64(1), f.eventsCopy()[0].TraceID)
			require.Equal(t, int64(2), m.trace.id)
			require.True(t, m.trace.loaded)
		}},
		{"s skips to the next trace", []string{"s"}, func(t *testing.T, m Model, _ *fakeStore) { require.Equal(t, int64(2), m.trace.id) }},
		{"u undoes on the open trace", []string{"1", "h", "u"}, func(t *testing.T, m Model, f *fakeStore) {
			ev := f.eventsCopy()
			require.Equal(t, triage.KindUndo, ev[len(ev)-1].Kind)
			require.Equal(t, int64(1), ev[len(ev)-1].TraceID)
			require.Empty(t, m.queue.item(1).Primary)
		}},
		{"? help lists pane keys", []string{"tab", "?"}, func(t *testing.T, m Model, _ *fakeStore) {
			w, _ := m.helpSize()
			require.Contains(t, strings.Join(m.helpLines(w), "\n"), "next file")
		}},
		{"help on the timeline hides diff keys", []string{"?"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.NotContains(t, m.View(), "next file")
			require.Contains(t, m.View(), "fold")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(5)
			m := started(t, f, testConfig(), 100, 16)
			m = press(t, m, "enter")
			require.True(t, m.trace.loaded)
			m = press(t, m, tt.keys...)
			tt.check(t, m, f)
		})
	}
}

func TestStaleTraceDropped(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	m := started(t, f, testConfig(), 100, 30)
	// Open trace 1 but do not let its load finish; move on to trace 2.
	tm, cmd1 := m.Update(keyMsg("enter"))
	m = tm.(Model)
	tm, cmd2 := m.Update(keyMsg("L"))
	m = tm.(Model)
	m = settle(t, m, cmd2())
	require.Equal(t, int64(2), m.trace.id)
	m = settle(t, m, cmd1()) // The late answer for trace 1.
	require.Equal(t, int64(2), m.trace.id)
	require.Equal(t, "T02", m.trace.trace.TaskID)
}

func TestWritesAreSerialized(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	m := started(t, f, testConfig(), 100, 30)
	tm, c1 := m.Update(keyMsg("1"))
	m = tm.(Model)
	tm, c2 := m.Update(keyMsg("k"))
	m = tm.(Model)
	require.Nil(t, c2)
	tm, c3 := m.Update(keyMsg("u"))
	m = tm.(Model)
	require.Nil(t, c3, "the undo waits for the label in flight")
	settle(t, m, c1())
	ev := f.eventsCopy()
	require.Len(t, ev, 2)
	require.Equal(t, triage.KindHuman, ev[0].Kind)
	require.Equal(t, triage.KindUndo, ev[1].Kind)
}

func TestWriteErrorShownAndQueueContinues(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	f.AppendLabelFn = func(e triage.LabelEvent) error {
		if e.TraceID == 1 {
			return errors.New("database is locked")
		}
		return nil
	}
	m := started(t, f, testConfig(), 100, 30)
	m = press(t, m, "1")
	require.Contains(t, m.View(), "error: save label: database is locked")
	m = press(t, m, "2")
	require.Len(t, f.eventsCopy(), 1)
	require.False(t, m.writing)
	// The store never took trace 1's label, so the queue does not show it.
	require.Empty(t, m.queue.all[0].Primary)
	require.Equal(t, StatusTodo, m.queue.all[0].Status)
}

func TestStaleTraceLoadErrorIsDropped(t *testing.T) {
	t.Parallel()
	m := started(t, newFake(3), testConfig(), 100, 30)
	m = press(t, m, "enter")
	old := traceLoadedMsg{id: m.trace.id, gen: m.traceGen - 1, err: errMsg{what: "load trace", err: errors.New("gone")}}
	m = settle(t, m, old)
	require.NotContains(t, m.View(), "gone", "a failure for a trace already left is not shown")
	cur := traceLoadedMsg{id: m.trace.id, gen: m.traceGen, err: errMsg{what: "load trace", err: errors.New("gone")}}
	m = settle(t, m, cur)
	require.Contains(t, m.View(), "load trace: gone")
}

func TestMouseWheel(t *testing.T) {
	t.Parallel()
	wheel := tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown}
	for _, on := range []bool{true, false} {
		cfg := testConfig()
		cfg.Mouse = on
		m := started(t, newFake(10), cfg, 100, 30)
		m = settle(t, m, wheel)
		if on {
			require.Equal(t, wheelLines, m.queue.cursor)
		} else {
			require.Zero(t, m.queue.cursor)
		}
	}
}

func TestResumeAtFirstUnlabelled(t *testing.T) {
	t.Parallel()
	f := newFake(5)
	f.items[0].Primary = triage.PassWeak
	f.items[1].Status = StatusSkipped
	m := started(t, f, testConfig(), 100, 30)
	require.Equal(t, 2, m.queue.cursor)
	require.Contains(t, m.View(), "1 of 5 labelled")
}

func TestTooSmall(t *testing.T) {
	t.Parallel()
	m := started(t, newFake(2), testConfig(), 50, 10)
	require.Contains(t, m.View(), "Too small: 50×10 (need 60×15)")
	m = settle(t, m, tea.WindowSizeMsg{Width: 20, Height: 5})
	for _, l := range strings.Split(m.View(), "\n") {
		require.LessOrEqual(t, ansi.StringWidth(l), 20)
	}
	m = settle(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	require.NotContains(t, m.View(), "Too small")
	require.Len(t, strings.Split(m.View(), "\n"), 24)
}

func TestLabelKeysBeyondTaxonomy(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Taxonomy = &triage.Taxonomy{Classes: []triage.Class{{Code: "A"}, {Code: "B"}}}
	f := newFake(2)
	m := started(t, f, cfg, 100, 30)
	m = press(t, m, "5")
	require.Empty(t, f.eventsCopy())
	m = press(t, m, "2")
	require.Equal(t, "B", f.eventsCopy()[0].Primary)
	require.Contains(t, m.View(), "1-2 label")
}

func TestRuneBurstIsSplit(t *testing.T) {
	t.Parallel()
	f := newFake(5)
	m := started(t, f, testConfig(), 100, 30)
	// tmux and fast typists deliver "jj2" as one message.
	m = settle(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj2")})
	require.Equal(t, int64(3), f.eventsCopy()[0].TraceID)
	// A burst that opens an input hands the rest to it as text.
	m = settle(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/T04")})
	require.Equal(t, "T04", m.input.Value())
	require.Len(t, m.queue.view, 1)
}

func TestJumpTargetIsMarked(t *testing.T) {
	t.Parallel()
	m := started(t, newFake(2), testConfig(), 100, 30)
	m = press(t, m, "enter", "shift+tab", "shift+tab", "j", "enter")
	require.Contains(t, m.View(), "▶ #4 other · none  http")
}

// TestHistoryKeepsOnlyTheHumanLabel checks a review folds the reviewer's
// history as the store does: an adjudication of theirs under an undone
// human label is not their review label.
func TestHistoryKeepsOnlyTheHumanLabel(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	f.events = append(f.events, triage.LabelEvent{TraceID: 1, Actor: "ana", Kind: triage.KindAdjudication, Primary: triage.ToolLoop, Note: "settled"})
	m := started(t, f, testConfig(), 100, 30)
	m = press(t, m, "1", "k", "u")
	require.Equal(t, triage.KindUndo, f.eventsCopy()[2].Kind)
	it := m.queue.item(1)
	require.Empty(t, it.Primary)
	require.Equal(t, StatusTodo, it.Status)
}

// temporaryErr is an error the store says can be tried again (ErrBusy).
type temporaryErr struct{}

func (temporaryErr) Error() string   { return "the store is busy" }
func (temporaryErr) Temporary() bool { return true }

// TestBusyLabelWriteIsRetriedNotDropped: while another process holds the
// store, a label write is tried again until it lands; it is never
// dropped, and no error reaches the screen.
func TestBusyLabelWriteIsRetriedNotDropped(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	var tries atomic.Int32
	f.AppendLabelFn = func(triage.LabelEvent) error {
		if tries.Add(1) <= 3 {
			return fmt.Errorf("save: %w", temporaryErr{})
		}
		return nil
	}
	m := started(t, f, testConfig(), 100, 30)
	m = press(t, m, "1")
	require.EqualValues(t, 4, tries.Load())
	require.Len(t, f.eventsCopy(), 1, "the label was stored")
	require.NotContains(t, m.View(), "error")
	require.NotEmpty(t, m.queue.all[0].Primary, "the queue shows the stored label")
}
