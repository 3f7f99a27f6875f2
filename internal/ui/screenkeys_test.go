package ui

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQueueHandleKeyActions is the queue component's key table: what
// each key decides, with no root model around it.
func TestQueueHandleKeyActions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		key     string
		drilled bool
		setup   func(q *queueScreen)
		want    Action
		cursor  int
	}{
		{key: "j", cursor: 1},
		{key: "L", cursor: 1},
		{key: "G", cursor: 2},
		{key: "enter", want: Action{kind: actOpen, id: 1}},
		{key: "/", want: Action{kind: actFilter}},
		{key: "o", want: Action{status: "sorted by task"}},
		{key: "esc"},
		{key: "esc", drilled: true, want: Action{kind: actCloseDrill}},
		{key: "esc", drilled: true, setup: func(q *queueScreen) { _ = q.apply("T01", false) }, want: Action{status: "filter cleared"}},
		{key: "esc", drilled: true, setup: func(q *queueScreen) { q.toggleMark() }, want: Action{status: "marks cleared"}},
	} {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			m := New(newFake(3), testConfig())
			s := m.session()
			s.drilled = tt.drilled
			var q queueScreen
			q.SetSize(100, 10)
			q.setItems(newFake(3).items, false)
			if tt.setup != nil {
				tt.setup(&q)
			}
			var scr screen = &q
			require.Equal(t, tt.want, scr.HandleKey(keyMsg(tt.key), s))
			require.Equal(t, tt.cursor, q.cursor)
		})
	}
}

// TestTraceHandleKeyActions is the trace component's key table for the
// keys that ask the root to act.
func TestTraceHandleKeyActions(t *testing.T) {
	t.Parallel()
	m := press(t, started(t, newFake(3), testConfig(), 100, 30), "enter")
	for _, tt := range []struct {
		key  string
		want Action
	}{
		{"esc", Action{kind: actBack}},
		{"L", Action{kind: actStep, n: 1}},
		{"H", Action{kind: actStep, n: -1}},
		{"/", Action{kind: actSearch}},
		{"w", Action{status: "wrap on"}},
		{"j", Action{}},
	} {
		v := m.trace
		require.Equal(t, tt.want, v.HandleKey(keyMsg(tt.key), m.session()), tt.key)
	}
	v := m.trace
	v.setTab(tabDiff)
	require.Equal(t, Action{kind: actFiles}, v.HandleKey(keyMsg("F"), m.session()))
}

// TestScreenRegistry: every screen is in the registry, once, with a name,
// a component and a body inside the terminal; the root sizes each one as
// its def says, and the switcher offers and opens screens by their defs.
func TestScreenRegistry(t *testing.T) {
	t.Parallel()
	m := started(t, newFake(3), reportConfig(), 100, 30)
	names := map[string]bool{}
	for i, d := range registry {
		id := screenID(i)
		require.NotEmpty(t, d.name, "screen %d is registered", i)
		require.False(t, names[d.name], d.name)
		names[d.name] = true
		require.NotNil(t, m.screenOf(id), d.name)
		top, h := m.lay.body(id)
		require.Positive(t, top, d.name)
		require.LessOrEqual(t, top+h, 30-2, "%s's body leaves the status and help lines", d.name)
		require.Equal(t, d.doc != nil, d.of(&m, id) == screen(&m.docs[id]), "%s: a document screen is in m.docs", d.name)
	}
	var offered []screenID
	for _, e := range m.switchEntries() {
		if e.kind != switchScreen {
			continue
		}
		offered = append(offered, e.screen)
		n := m
		n.screen = screenTrace
		n.switchTo(e)
		require.Equal(t, e.screen, n.screen, "the switcher opens %s", screenName(e.screen))
	}
	require.Equal(t, []screenID{screenQueue, screenReport}, offered, "a report session offers its queue and report")
	require.Equal(t, 30-queueChrome, m.queue.height)
	require.Equal(t, 30-traceChrome, m.trace.height)
	require.Equal(t, 30-queueChrome, m.clusters.height)
	require.Equal(t, 30-agreeChrome, m.docs[screenReport].height)
}
