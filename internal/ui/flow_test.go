package ui

import (
	"bytes"
	"io"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

func waitFor(t *testing.T, tm *teatest.TestModel, s string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
		teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

// TestFlowLabelTrace drives the program end to end: open a trace, tag it,
// write a note, set the primary, and check the event reached the store and
// the next trace opened.
func TestFlowLabelTrace(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	tm := teatest.NewTestModel(t, New(f, testConfig()), teatest.WithInitialTermSize(100, 30))
	waitFor(t, tm, "0 of 3 labelled")
	tm.Send(keyMsg("enter"))
	waitFor(t, tm, "Timeline")
	tm.Send(keyMsg("t"))
	waitFor(t, tm, "Secondary tags")
	tm.Send(keyMsg("space"))
	tm.Send(keyMsg("enter"))
	tm.Send(keyMsg("c"))
	waitFor(t, tm, "Note")
	tm.Type("guessed v2")
	tm.Send(keyMsg("ctrl+s"))
	tm.Send(keyMsg("3"))
	waitFor(t, tm, "2/3")
	require.Eventually(t, func() bool { return len(f.eventsCopy()) == 1 }, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, tm.Quit())
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)

	ev := f.eventsCopy()
	require.Len(t, ev, 1, "tags and note drafted before the primary travel with it")
	require.Equal(t, triage.LabelEvent{
		ID: 1, TraceID: 1, Actor: "ana", Kind: triage.KindHuman, Primary: triage.AssumeAPI,
		Secondary: []string{triage.TagLeaked}, Note: "guessed v2", CreatedAt: fixedNow,
	}, ev[0])
	require.Equal(t, int64(2), final.trace.id)
	require.Equal(t, StatusLabelled, final.queue.item(1).Status)
}

// TestGoldenScreens pins the queue and each trace pane at two sizes.
func TestGoldenScreens(t *testing.T) {
	t.Parallel()
	sizes := []struct{ w, h int }{{80, 24}, {140, 40}}
	for _, sz := range sizes {
		f := newFake(3)
		m := started(t, f, testConfig(), sz.w, sz.h)
		m = press(t, m, "1")
		shots := map[string]string{"queue": m.View()}
		m = press(t, m, "enter")
		for tab := range numTabs {
			shots[tab.String()] = m.View()
			m = press(t, m, "tab")
		}
		for name, v := range shots {
			t.Run(name+"_"+itoa(sz.w), func(t *testing.T) {
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}

func itoa(n int) string {
	return string(rune('0'+n/100%10)) + string(rune('0'+n/10%10)) + string(rune('0'+n%10))
}

// TestProgramRuns checks Run wires a program that starts and quits.
func TestProgramRuns(t *testing.T) {
	t.Parallel()
	in := bytes.NewBufferString("q")
	err := Run(t.Context(), newFake(1), testConfig(), tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithoutRenderer())
	require.NoError(t, err)
	require.ErrorContains(t, Run(t.Context(), newFake(1), Config{}), "reviewer")
}
