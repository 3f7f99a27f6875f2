package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
)

// firstPageModel is a started model that has shown the first two of five
// items and is waiting for the whole queue.
func firstPageModel(t *testing.T) (Model, []QueueItem) {
	t.Helper()
	f := newFake(5)
	whole, err := f.Queue(t.Context(), QueueQuery{})
	require.NoError(t, err)
	whole[0].Primary, whole[0].Status = "TOOL_LOOP", StatusLabelled // labelled in an earlier session
	m := New(f, testConfig())
	m = settle(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	tm, cmd := m.Update(queueLoadedMsg{gen: m.queueGen, items: clone(whole[:2]), partial: true})
	m = tm.(Model)
	require.NotNil(t, cmd, "the page asks for the whole queue")
	require.True(t, m.queue.partial)
	require.Contains(t, m.View(), "loading the queue: its first 2 shown")
	require.NotContains(t, m.View(), "of 2 labelled", "no progress count until the whole queue is in")
	return m, whole
}

func clone(items []QueueItem) []QueueItem { return append([]QueueItem(nil), items...) }

// The whole queue replaces the first page and, when the reviewer has not
// moved, resumes at the first item still to do, as a whole load does.
func TestFirstPageThenWholeQueue(t *testing.T) {
	t.Parallel()
	m, whole := firstPageModel(t)
	m = settle(t, m, queueLoadedMsg{gen: m.queueGen, items: clone(whole)})
	require.False(t, m.queue.partial)
	require.Len(t, m.queue.all, 5)
	require.Equal(t, int64(2), m.queue.current().TraceID, "resumes at the first item to do")
	require.Contains(t, m.View(), "1 of 5 labelled")
}

// A reviewer who moved on the first page stays on their item, and what
// they did there survives a whole queue read before their label landed.
func TestFirstPageKeepsTheReviewersPlaceAndLabels(t *testing.T) {
	t.Parallel()
	m, whole := firstPageModel(t)
	require.Equal(t, int64(2), m.queue.current().TraceID)
	// Keys without running their commands: the writes are still in flight.
	for _, k := range []string{"k", "2", "k", "c", "relabelled", "ctrl+s"} {
		tm, _ := m.Update(keyMsg(k))
		m = tm.(Model)
	}
	require.Equal(t, int64(1), m.queue.current().TraceID)
	require.Len(t, m.writes, 1, "the note waits behind the label")

	m = settle(t, m, queueLoadedMsg{gen: m.queueGen, items: clone(whole)}) // read before the writes
	require.Equal(t, int64(1), m.queue.current().TraceID, "the cursor stays where the reviewer put it")
	got := m.queue.item(1)
	require.Equal(t, "PASS_WEAK", got.Primary)
	require.Equal(t, "relabelled", got.Note)
	require.Equal(t, StatusTodo, m.queue.item(3).Status, "untouched items come from the whole read")
}

// A first page that arrives after the whole queue is dropped.
func TestLateFirstPageIsDropped(t *testing.T) {
	t.Parallel()
	f := newFake(5)
	m := New(f, testConfig())
	m = settle(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	whole, err := f.Queue(t.Context(), QueueQuery{})
	require.NoError(t, err)
	m = settle(t, m, queueLoadedMsg{gen: m.queueGen, items: clone(whole)})
	m = settle(t, m, queueLoadedMsg{gen: m.queueGen, items: clone(whole[:2]), partial: true})
	require.False(t, m.queue.partial)
	require.Len(t, m.queue.all, 5)
}

// A wheel move on the first page counts as the reviewer's move, as a key
// does: the whole queue keeps the cursor there.
func TestFirstPageKeepsAWheelMove(t *testing.T) {
	t.Parallel()
	m, whole := firstPageModel(t)
	m.cfg.Mouse = true
	require.Equal(t, int64(2), m.queue.current().TraceID)
	m = settle(t, m, tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
	require.Equal(t, int64(1), m.queue.current().TraceID)
	m = settle(t, m, queueLoadedMsg{gen: m.queueGen, items: clone(whole)})
	require.Equal(t, int64(1), m.queue.current().TraceID, "the cursor stays where the wheel put it")
}

// A skip from the queue screen on the first page whose write has not come
// back when the whole queue (read before it) arrives keeps showing.
func TestFirstPageKeepsASkipInFlight(t *testing.T) {
	t.Parallel()
	m, whole := firstPageModel(t)
	require.Equal(t, int64(2), m.queue.current().TraceID)
	tm, cmd := m.Update(keyMsg("s")) // the write's command is not run yet
	m = tm.(Model)
	require.NotNil(t, cmd)
	require.Equal(t, StatusSkipped, m.queue.current().Status)
	m = settle(t, m, queueLoadedMsg{gen: m.queueGen, items: clone(whole)})
	require.Equal(t, StatusSkipped, m.queue.item(2).Status, "the skip in flight survives the whole read")
}

// Drawing the trace screen on the first page leaves the queue as it was:
// an item only looked at takes the whole read's state.
func TestFirstPageViewChangesNothing(t *testing.T) {
	t.Parallel()
	m, whole := firstPageModel(t)
	m = press(t, m, "enter")
	require.Equal(t, screenTrace, m.screen)
	_ = m.View()
	whole[1].Primary, whole[1].Status = "TIMEOUT", StatusLabelled // labelled elsewhere meanwhile
	m = settle(t, m, queueLoadedMsg{gen: m.queueGen, items: clone(whole)})
	require.Equal(t, "TIMEOUT", m.queue.item(2).Primary)
}

// The end of the first page is not called the end of the queue.
func TestFirstPageEndIsNotTheQueueEnd(t *testing.T) {
	t.Parallel()
	m, whole := firstPageModel(t)
	m = press(t, m, "enter", "L")
	require.Contains(t, m.status, "the rest of the queue is loading")
	m = settle(t, m, queueLoadedMsg{gen: m.queueGen, items: clone(whole[:2])})
	m = press(t, m, "L")
	require.Equal(t, "last trace of the queue", m.status)
}
