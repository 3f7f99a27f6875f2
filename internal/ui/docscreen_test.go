package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// reportConfig is a read-write session started on the report screen over
// every trace of the fake store.
func reportConfig() Config {
	cfg := testConfig()
	cfg.Report, cfg.All = sampleReport(), true
	return cfg
}

// cursorTitle is what the figure under the document's cursor opens.
func cursorTitle(m Model) string {
	if t := m.docScreen().current(); t != nil {
		return t.drill.title
	}
	return ""
}

// TestReportScreenKeys is the report screen's key table: each key from
// the starting figure (the first bar) and where the cursor lands or
// what the screen does.
func TestReportScreenKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		keys   []string
		want   string // the figure under the cursor after the keys
		screen screenID
		modal  modalID
	}{
		{nil, "class PASS_CONTRACT", screenReport, modalNone},
		{[]string{"j"}, "class PASS_WEAK", screenReport, modalNone},
		{[]string{"down"}, "class PASS_WEAK", screenReport, modalNone},
		{[]string{"j", "k"}, "class PASS_CONTRACT", screenReport, modalNone},
		{[]string{"up"}, "class PASS_CONTRACT", screenReport, modalNone},
		{[]string{"j", "j", "j", "j", "j"}, "task T01 seed 0", screenReport, modalNone},
		{[]string{"j", "j", "j", "j", "j", "l"}, "task T01 seed 1", screenReport, modalNone},
		{[]string{"j", "j", "j", "j", "j", "right", "left"}, "task T01 seed 0", screenReport, modalNone},
		{[]string{"j", "j", "j", "j", "j", "L", "h"}, "task T01 seed 0", screenReport, modalNone},
		{[]string{"j", "j", "j", "j", "j", "l", "j"}, "task T02 seed 1", screenReport, modalNone},
		{[]string{"tab"}, "class PASS_WEAK", screenReport, modalNone},
		{[]string{"tab", "shift+tab"}, "class PASS_CONTRACT", screenReport, modalNone},
		{[]string{"G"}, "task T03␛[2J seed 0", screenReport, modalNone},
		{[]string{"G", "g"}, "class PASS_CONTRACT", screenReport, modalNone},
		{[]string{"enter"}, "class PASS_CONTRACT", screenQueue, modalNone},
		{[]string{"/"}, "class PASS_CONTRACT", screenReport, modalInput},
		{[]string{"?"}, "class PASS_CONTRACT", screenReport, modalHelp},
		{[]string{"?", "esc"}, "class PASS_CONTRACT", screenReport, modalNone},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.keys, " "), func(t *testing.T) {
			t.Parallel()
			m := started(t, newFake(3), reportConfig(), 140, 45)
			m = press(t, m, tt.keys...)
			require.Equal(t, tt.screen, m.screen)
			require.Equal(t, tt.modal, m.modal)
			if m.screen == screenQueue {
				m.screen = screenReport // the cursor is kept for esc
			}
			require.Equal(t, tt.want, cursorTitle(m))
		})
	}
}

// TestReportDrillOpensExactlyItsTraces opens a grid cell, a bar and
// comes back each time to the figure it left.
func TestReportDrillOpensExactlyItsTraces(t *testing.T) {
	t.Parallel()
	m := started(t, newFake(3), reportConfig(), 140, 45)
	// The first bar: T01 seeds 0 and 1 passed; only seed 0 is a trace of
	// the store.
	m = press(t, m, "enter")
	require.Equal(t, screenQueue, m.screen)
	require.Len(t, m.queue.view, 1)
	require.Equal(t, "r1/T01#0", m.queue.current().Key())
	require.Contains(t, m.status, "1 of 2 traces are in this queue")
	require.Contains(t, m.View(), "class PASS_CONTRACT: 1 shown (esc: back to the report)")
	// Into the trace and back out twice: the report, on the same bar.
	m = press(t, m, "enter")
	require.Equal(t, screenTrace, m.screen)
	m = press(t, m, "esc", "esc")
	require.Equal(t, screenReport, m.screen)
	require.Equal(t, "class PASS_CONTRACT", cursorTitle(m))
	require.Len(t, m.queue.view, 3, "the queue is whole again")
	// A grid cell: T02 seed 0.
	m = press(t, m, "j", "j", "j", "j", "j", "j", "enter")
	require.Equal(t, screenQueue, m.screen)
	require.Len(t, m.queue.view, 1)
	require.Equal(t, "r1/T02#0", m.queue.current().Key())
	// A label in the drill-down is a label like any other.
	m = press(t, m, "3")
	require.Len(t, m.queue.view, 1)
	require.Equal(t, int64(2), m.fakeEvents(t)[0].TraceID)
	m = press(t, m, "esc")
	require.Equal(t, "task T02 seed 0", cursorTitle(m))
	// The weak pass has no traces: enter says so and stays.
	m = press(t, m, "g", "j", "enter")
	require.Equal(t, screenReport, m.screen)
	require.Equal(t, "class PASS_WEAK: no traces", m.status)
}

// fakeEvents is the fake store's events, for a model started on one.
func (m Model) fakeEvents(t *testing.T) []triage.LabelEvent {
	t.Helper()
	f, ok := m.store.(*fakeStore)
	require.True(t, ok)
	return f.eventsCopy()
}

func TestAgreementDrill(t *testing.T) {
	t.Parallel()
	f := newFakeAdj(t, 4)
	cfg := testConfig()
	cfg.All, cfg.Agreement = true, f.view("slice s1")
	m := started(t, f.fakeStore, cfg, 140, 45)
	require.Equal(t, screenAgreement, m.screen)
	// The cursor starts on the first cell with units: both said
	// ASSUME_API, on T04 only.
	require.Equal(t, "ann said ASSUME_API, bob said ASSUME_API", cursorTitle(m))
	m = press(t, m, "enter")
	require.Equal(t, screenQueue, m.screen)
	require.Len(t, m.queue.view, 1)
	require.Equal(t, "r1/T04#0", m.queue.current().Key())
	m = press(t, m, "esc", "l")
	require.Equal(t, "ann said ASSUME_API, bob said TOOL_LOOP", cursorTitle(m))
	m = press(t, m, "enter")
	require.Len(t, m.queue.view, 3)
	// The most confused pair opens the same three.
	m = press(t, m, "esc", "j", "j", "j", "j", "j", "j")
	require.Equal(t, "ASSUME_API ↔ TOOL_LOOP", cursorTitle(m))
	m = press(t, m, "enter")
	require.Len(t, m.queue.view, 3)
}

func TestRatingsFileOpensNothing(t *testing.T) {
	t.Parallel()
	f := newFakeAdj(t, 4)
	v := f.view("ratings.csv")
	v.NotTraces = true
	m := settle(t, NewAgreementView(v), tea.WindowSizeMsg{Width: 100, Height: 30})
	m = press(t, m, "enter")
	require.Equal(t, screenAgreement, m.screen)
	require.Contains(t, m.status, "not traces")
	tm, cmd := m.Update(keyMsg("esc"))
	require.Nil(t, cmd, "the first esc asks (issue 29: it quit at once)")
	m = tm.(Model)
	require.Contains(t, m.status, "esc again quits")
	_, cmd = m.Update(keyMsg("esc"))
	require.IsType(t, tea.QuitMsg{}, cmd(), "a second esc leaves a screen started on its own, as the pager did")
}

// TestEscAtTheTopAsksOnce: on report --tui's first screen the first esc
// asks, any other key takes the question back, and only esc then esc
// quits (issue 29: esc quit without asking).
func TestEscAtTheTopAsksOnce(t *testing.T) {
	t.Parallel()
	m := started(t, newFake(3), reportConfig(), 140, 45)
	m = press(t, m, "esc")
	require.False(t, m.quitting)
	require.Contains(t, m.status, "esc again quits")
	m = press(t, m, "j", "esc")
	require.False(t, m.quitting, "a key between the two esc disarms the first")
	tm, cmd := m.Update(keyMsg("esc"))
	require.NotNil(t, cmd)
	require.True(t, tm.(Model).quitting)
}

func TestDocSearch(t *testing.T) {
	t.Parallel()
	m := started(t, newFake(3), reportConfig(), 140, 45)
	m = press(t, m, "/", "T02", "enter")
	require.Equal(t, modalNone, m.modal)
	require.Equal(t, "task T02 seed 0", cursorTitle(m))
	require.Contains(t, m.status, "2 lines match", "the grid row and nobody clears")
	m = press(t, m, "n")
	require.Equal(t, "match 2 of 2", m.status)
	require.Contains(t, m.View(), "» nobody clears", "a hit is marked without colour too")
	m = press(t, m, "esc")
	require.Equal(t, "search cleared", m.status)
	require.Equal(t, screenReport, m.screen)
}

func TestReportReadOnlyWithoutReviewer(t *testing.T) {
	t.Parallel()
	cfg := reportConfig()
	cfg.Reviewer = ""
	f := newFake(3)
	m := started(t, f, cfg, 140, 45)
	m = press(t, m, "enter")
	require.Contains(t, m.View(), "triage review · read-only (no --reviewer) ·", "the title names no empty reviewer")
	m = press(t, m, "3")
	require.Contains(t, m.status, "read only")
	require.Empty(t, f.eventsCopy())
	// Nothing offers a key that writes (issue 29: the drill-down's footer
	// and help offered the label keys).
	require.NotContains(t, m.footer(), "label")
	require.NotContains(t, m.footer(), "skip")
	w, _ := m.helpSize()
	help := strings.Join(m.helpLines(w), "\n")
	for _, word := range []string{"label", "skip", "undo", "tags", "1=PASS_CONTRACT"} {
		require.NotContains(t, help, word)
	}
	m = press(t, m, "enter")
	require.Equal(t, screenTrace, m.screen)
	require.NotContains(t, m.View(), "yours", "no reviewer, no 'yours'")
	require.NotContains(t, m.footer(), "label")
}

// TestDocScreensGolden pins the report and agreement screens at 80×24 and
// 140×45, without colour and in the dark and light palettes, with the
// cursor on a grid cell, on a root cause and on a matrix cell. Colour is global state, so
// it does not run in parallel.
func TestDocScreensGolden(t *testing.T) {
	inEveryLook(t, func(th look, sz [2]int) {
		shots := map[string]string{}
		m := started(t, newFake(3), reportConfig(), sz[0], sz[1])
		shots["report"] = press(t, m, "j", "j", "j", "j", "j", "l", "j").View()
		shots["report_help"] = press(t, m, "?").View()
		// What card.View adds beside the mix and the grid: the cursor
		// on the second root cause, then the end of the page.
		m = started(t, newFake(3), factsConfig(), sz[0], sz[1])
		shots["report_facts"] = press(t, m, "j", "j", "j", "j", "j", "j", "j", "j", "j").View()
		shots["report_facts_end"] = press(t, m, "G").View()
		f := newFakeAdj(t, 4)
		cfg := testConfig()
		cfg.All, cfg.Agreement = true, f.view("slice s1")
		cfg.Agreement.Caveats = "3 of 40 traces are unlabelled leftovers · 0 have an unknown outcome · taxonomy trust: insufficient"
		shots["agreement"] = press(t, started(t, f.fakeStore, cfg, sz[0], sz[1]), "l").View()
		for name, v := range shots {
			t.Run(fmt.Sprintf("%s_%s_%03d", name, th.name, sz[0]), func(t *testing.T) {
				for _, l := range strings.Split(v, "\n") {
					require.LessOrEqual(t, ansi.StringWidth(l), sz[0])
				}
				require.Len(t, strings.Split(v, "\n"), sz[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	})
}

// TestFlowDrill drives the program: the report, a grid cell, its trace,
// and back to the report.
func TestFlowDrill(t *testing.T) {
	t.Parallel()
	tm := teatest.NewTestModel(t, New(newFake(3), reportConfig()), teatest.WithInitialTermSize(100, 30))
	waitFor(t, tm, "Failure mix")
	for _, k := range []string{"j", "j", "j", "j", "j", "j"} {
		tm.Send(keyMsg(k))
	}
	waitFor(t, tm, "enter opens task T02 seed 0")
	tm.Send(keyMsg("enter"))
	waitFor(t, tm, "task T02 seed 0: 1 shown")
	tm.Send(keyMsg("enter"))
	waitFor(t, tm, "Timeline")
	tm.Send(keyMsg("esc"))
	tm.Send(keyMsg("esc"))
	waitFor(t, tm, "Per task")
	require.NoError(t, tm.Quit())
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	require.Equal(t, screenReport, final.screen)
	require.Equal(t, "task T02 seed 0", cursorTitle(final))
}

// TestDocScreenClick: a click on a figure puts the cursor there, a
// second click opens its traces; a click elsewhere does nothing.
func TestDocScreenClick(t *testing.T) {
	t.Parallel()
	cfg := reportConfig()
	cfg.Mouse = true
	m := started(t, newFake(3), cfg, 140, 45)
	d := m.docScreen()
	cell := d.pg.targets[7] // task T02 seed 0
	require.Equal(t, "task T02 seed 0", cell.drill.title)
	click := func(x, y int) tea.MouseMsg {
		return tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft}
	}
	y := cell.line - d.offset + 1
	m = settle(t, m, click(0, y))
	require.Equal(t, "class PASS_CONTRACT", cursorTitle(m), "the margin is no figure")
	m = settle(t, m, click(cell.col+1, y))
	require.Equal(t, "task T02 seed 0", cursorTitle(m))
	require.Equal(t, screenReport, m.screen)
	m = settle(t, m, click(cell.col, y))
	require.Equal(t, screenQueue, m.screen)
	require.Equal(t, "r1/T02#0", m.queue.current().Key())
}

// TestWideGridScrollsSideways: a grid of more seeds than the screen
// holds keeps every cell a figure, and the screen scrolls sideways to
// the cursor's.
func TestWideGridScrollsSideways(t *testing.T) {
	t.Parallel()
	const seeds = 60
	r := &reportview.Report{Title: "wide", Traces: seeds}
	task := reportview.TaskRow{TaskID: "T01", Runs: seeds}
	for s := range seeds {
		r.Grid.Seeds = append(r.Grid.Seeds, s)
		task.Cells = append(task.Cells, reportview.Cell{RunID: "r1", Seed: s, Primary: triage.ToolLoop})
	}
	r.Grid.Tasks = []reportview.TaskRow{task}
	m := settle(t, NewReportView(r), tea.WindowSizeMsg{Width: 80, Height: 24})
	require.Equal(t, "task T01 seed 0", cursorTitle(m))
	require.Zero(t, m.docScreen().xoff)
	for range 50 {
		m = press(t, m, "l")
	}
	require.Equal(t, "task T01 seed 50", cursorTitle(m))
	d := m.docScreen()
	require.Positive(t, d.xoff)
	cur := d.current()
	require.GreaterOrEqual(t, cur.col, d.xoff)
	require.LessOrEqual(t, cur.col+cur.width, d.xoff+80)
	v := m.View()
	for _, l := range strings.Split(v, "\n") {
		require.LessOrEqual(t, ansi.StringWidth(l), 80)
	}
	require.Contains(t, v, "  50", "the seeds' header scrolls with the cells")
	require.Contains(t, v, "▸ T01  ", "the task label stays put")
	// A click on a shifted cell is that cell.
	y := cur.line - d.offset + 1
	x := cur.col - d.xoff - 4
	m.cfg.Mouse = true
	m = settle(t, m, tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	require.Equal(t, "task T01 seed 49", cursorTitle(m))
	m = press(t, m, "g")
	require.Zero(t, m.docScreen().xoff, "back at the first figure, the page is not shifted")
}
