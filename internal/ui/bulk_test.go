package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

// timeoutFake is six traces of which the rules think 2, 4 and 5 timed
// out; 6 has no verdict at all.
func timeoutFake() *fakeStore {
	f := newFake(6)
	for _, id := range []int64{2, 4, 5} {
		v := sampleVerdict()
		v.Primary, v.Secondary, v.RulesVersion = triage.Timeout, []string{triage.TagLeaked}, "1"
		v.Evidence = []triage.Evidence{{Rule: "timeout", Message: "killed at the 180 s cap", ToolCall: 3}}
		f.verdicts[id] = v
		f.items[id-1].Suggestion = triage.Timeout
	}
	delete(f.verdicts, 6)
	f.items[5].Suggestion = ""
	return f
}

func TestBulkBindings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		keys  []string
		check func(t *testing.T, m Model, f *fakeStore)
	}{
		{"space marks and unmarks", []string{"space", "j", "space", "j", "space", "k", "space"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, []int64{1, 3}, m.queue.markedIDs())
			require.Contains(t, m.View(), "2 marked")
			require.Contains(t, m.View(), " *T01", "the mark shows without colour")
		}},
		{"v marks a range as the cursor moves", []string{"j", "v", "j", "j"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, []int64{2, 3, 4}, m.queue.markedIDs())
			require.Contains(t, m.View(), "3 marked (range)")
			m = press(t, m, "v", "j", "j")
			require.Equal(t, []int64{2, 3, 4}, m.queue.markedIDs(), "v ends the range, keeping its marks")
		}},
		{"ctrl+a marks every item shown", []string{"ctrl+a"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Len(t, m.queue.markedIDs(), 6)
		}},
		{"esc clears the marks, then the filter", []string{"/", "T0", "enter", "ctrl+a", "esc"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Empty(t, m.queue.markedIDs())
			require.Equal(t, "T0", m.queue.filter)
			m = press(t, m, "esc")
			require.Empty(t, m.queue.filter)
		}},
		{"a new filter clears the marks", []string{"ctrl+a", "/", "T01", "enter"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Empty(t, m.queue.markedIDs())
		}},
		{"a digit labels every marked trace", []string{"space", "j", "j", "space", "7"}, func(t *testing.T, m Model, f *fakeStore) {
			ev := f.eventsCopy()
			require.Len(t, ev, 2)
			for i, id := range []int64{1, 3} {
				require.Equal(t, id, ev[i].TraceID)
				require.Equal(t, triage.Timeout, ev[i].Primary)
				require.Equal(t, triage.KindHuman, ev[i].Kind)
			}
			require.Empty(t, m.queue.markedIDs(), "the marks are used up")
			require.Equal(t, int64(4), m.queue.current().TraceID, "on to the next trace still to do")
		}},
		{"u undoes a bulk label whole, U redoes it", []string{"ctrl+a", "1", "u"}, func(t *testing.T, m Model, f *fakeStore) {
			ev := f.eventsCopy()
			require.Len(t, ev, 12)
			for _, e := range ev[6:] {
				require.Equal(t, triage.KindUndo, e.Kind)
			}
			d, _ := m.queue.progress()
			require.Zero(t, d)
			m = press(t, m, "U")
			require.Len(t, f.eventsCopy(), 18)
			d, _ = m.queue.progress()
			require.Equal(t, 6, d)
		}},
		{"a accepts the suggestion of the cursor's trace", []string{"j", "a"}, func(t *testing.T, m Model, f *fakeStore) {
			ev := f.eventsCopy()
			require.Len(t, ev, 1)
			require.Equal(t, int64(2), ev[0].TraceID)
			require.Equal(t, triage.KindHuman, ev[0].Kind, "recorded as a person's label")
			require.Equal(t, triage.Timeout, ev[0].Primary)
			require.Equal(t, []string{triage.TagLeaked}, ev[0].Secondary)
			require.Contains(t, ev[0].Note, "accepted the rules' suggestion TIMEOUT (leftover, rules 1)")
			require.Contains(t, ev[0].Note, "[timeout] killed at the 180 s cap  → tool call #4")
		}},
		{"a trace with no verdict is left alone", []string{"G", "a"}, func(t *testing.T, m Model, f *fakeStore) {
			require.Empty(t, f.eventsCopy())
			require.Contains(t, m.status, "1 have no verdict")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := timeoutFake()
			m := started(t, f, testConfig(), 120, 20)
			m = press(t, m, tt.keys...)
			tt.check(t, m, f)
		})
	}
}

// TestAcceptEveryTimeout is issue 18's example: accept every TIMEOUT the
// rules found, in a few keys.
func TestAcceptEveryTimeout(t *testing.T) {
	t.Parallel()
	f := timeoutFake()
	m := started(t, f, testConfig(), 120, 20)
	m = press(t, m, "/", "class:TIMEOUT", "enter", "ctrl+a", "a")
	ev := f.eventsCopy()
	require.Len(t, ev, 3)
	for i, id := range []int64{2, 4, 5} {
		require.Equal(t, id, ev[i].TraceID)
		require.Equal(t, triage.Timeout, ev[i].Primary)
		require.Contains(t, ev[i].Note, "[timeout]")
	}
	require.Contains(t, m.status, "accepted the rules' suggestion for 3 traces")
	m = press(t, m, "u")
	require.Len(t, f.eventsCopy(), 6, "one undo takes the three back")
}

func TestAcceptOnTheTraceScreen(t *testing.T) {
	t.Parallel()
	f := timeoutFake()
	m := started(t, f, testConfig(), 120, 30)
	m = press(t, m, "j", "enter", "a")
	ev := f.eventsCopy()
	require.Len(t, ev, 1)
	require.Equal(t, int64(2), ev[0].TraceID)
	require.Equal(t, int64(3), m.trace.id, "on to the next trace still to do")
}

func TestBulkIsNeverBlind(t *testing.T) {
	t.Parallel()
	f := timeoutFake()
	cfg := testConfig()
	cfg.Blind, cfg.Slice = true, "s1"
	m := started(t, f, cfg, 120, 20)
	for _, k := range []string{"space", "v", "ctrl+a", "a"} {
		m = press(t, m, k)
		require.Empty(t, m.queue.markedIDs(), k)
		require.Contains(t, m.status, "off in blind review", k)
	}
	require.Empty(t, f.eventsCopy())
	require.Zero(t, f.called("Verdict"), "blind review never reads a verdict")
	m = press(t, m, "?")
	require.NotContains(t, m.View(), "mark a range")
}

func TestBulkIsOffInAdjudication(t *testing.T) {
	t.Parallel()
	f := newFakeAdj(t, 4)
	m := startedAdj(t, f, 120, 20)
	m = press(t, m, "space")
	require.Contains(t, m.status, "off in adjudication")
	m = press(t, m, "a")
	require.True(t, m.showAll, "a keeps its adjudication meaning")
}

// TestBulkGolden pins the queue with marks and an open range, at 80×24
// and 140×45, without colour and in the dark and light palettes.
func TestBulkGolden(t *testing.T) {
	inEveryLook(t, func(th look, sz [2]int) {
		m := started(t, timeoutFake(), testConfig(), sz[0], sz[1])
		m = press(t, m, "space", "j", "j", "v", "j")
		v := m.View()
		t.Run(fmt.Sprintf("marks_%s_%03d", th.name, sz[0]), func(t *testing.T) {
			require.Len(t, strings.Split(v, "\n"), sz[1])
			golden.RequireEqual(t, []byte(v))
		})
	})
}
