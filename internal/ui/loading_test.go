package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/reportview"
)

// loadingReportConfig is report --tui's settings: the report is computed
// by a function, after the first frame.
func loadingReportConfig(load func(context.Context) (*reportview.Report, error)) Config {
	cfg := testConfig()
	cfg.All, cfg.LoadReport = true, load
	return cfg
}

// TestLoadingFrameGolden pins the first frame of report --tui and agree
// --tui over a store, before the report and the agreement's caveats are
// computed, at 80×24 and 140×45, without colour and in the dark and light
// palettes. Colour is global state, so it does not run in parallel.
func TestLoadingFrameGolden(t *testing.T) {
	never := func(context.Context) (*reportview.Report, error) {
		panic("the first frame must not wait for the report")
	}
	inEveryLook(t, func(th look, sz [2]int) {
		shots := map[string]string{}
		m := settle(t, New(newFake(3), loadingReportConfig(never)), tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		shots["report"] = m.View()
		f := newFakeAdj(t, 4)
		cfg := testConfig()
		cfg.All, cfg.Agreement = true, f.view("slice s1")
		cfg.LoadAgreement = func(context.Context) (*AgreementView, error) { panic("not in the first frame") }
		shots["agreement"] = settle(t, New(f.fakeStore, cfg), tea.WindowSizeMsg{Width: sz[0], Height: sz[1]}).View()
		for name, v := range shots {
			t.Run(fmt.Sprintf("%s_%s_%03d", name, th.name, sz[0]), func(t *testing.T) {
				if name == "report" {
					require.Contains(t, ansi.Strip(v), computingReport)
				} else {
					require.Contains(t, ansi.Strip(v), "left out: "+countingCaveats[:20])
				}
				for _, l := range strings.Split(v, "\n") {
					require.LessOrEqual(t, ansi.StringWidth(l), sz[0])
				}
				require.Len(t, strings.Split(v, "\n"), sz[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	})
}

// TestReportComputedInACommand: Init returns the computation as its only
// command, the report replaces the loading note when its message comes,
// and the queue is read after it; the screen's keys work on it as on a
// report given up front.
func TestReportComputedInACommand(t *testing.T) {
	t.Parallel()
	calls := 0
	load := func(ctx context.Context) (*reportview.Report, error) {
		calls++
		require.NotNil(t, ctx)
		return sampleReport(), nil
	}
	m := settle(t, New(newFake(3), loadingReportConfig(load)), tea.WindowSizeMsg{Width: 100, Height: 30})
	require.Equal(t, screenReport, m.screen)
	require.Contains(t, m.View(), computingReport)
	require.Zero(t, calls, "nothing is computed before Init's command runs")
	msg := m.Init()()
	require.IsType(t, reportLoadedMsg{}, msg, "the report first, alone: the queue waits for it")
	require.Equal(t, 1, calls)
	m = settle(t, m, msg)
	v := m.View()
	require.NotContains(t, v, computingReport)
	require.Contains(t, v, "Failure mix")
	require.Contains(t, v, "run demo · invoice-client-v3", "the title comes with the report")
	require.True(t, m.queue.loaded, "the queue is read once the report is in")
	// The same screen as report --tui with the report given: a drill
	// opens the figure's traces.
	given := started(t, newFake(3), reportConfig(), 100, 30)
	require.Equal(t, given.View(), v)
	m = press(t, m, "j", "j", "j", "j", "j", "enter")
	require.Equal(t, screenQueue, m.screen)
	require.True(t, m.drilled)
}

// TestReportComputationFails: the screen says why, and q still quits.
func TestReportComputationFails(t *testing.T) {
	t.Parallel()
	load := func(context.Context) (*reportview.Report, error) { return nil, errors.New("run r9: not found") }
	m := started(t, newFake(3), loadingReportConfig(load), 100, 30)
	v := m.View()
	require.Contains(t, v, "No report: run r9: not found")
	require.Contains(t, v, "error: report: run r9: not found")
	_, cmd := m.Update(keyMsg("q"))
	require.NotNil(t, cmd)
}

// TestAgreementComputedInACommand is agree --tui over a store: the
// figures show at once, the caveats (a whole-store read) come after the
// first frame, then the queue is read; a failed count leaves the figures.
func TestAgreementComputedInACommand(t *testing.T) {
	t.Parallel()
	f := newFakeAdj(t, 4)
	cfg := testConfig()
	cfg.All, cfg.Agreement = true, f.view("slice s1")
	shown := cfg.Agreement
	cfg.LoadAgreement = func(context.Context) (*AgreementView, error) {
		v := *shown
		v.Caveats = "3 of 40 traces are unlabelled leftovers"
		return &v, nil
	}
	m := settle(t, New(f.fakeStore, cfg), tea.WindowSizeMsg{Width: 100, Height: 30})
	require.Equal(t, screenAgreement, m.screen)
	v := ansi.Strip(m.View())
	require.Contains(t, v, "triage agreement · slice s1")
	require.Contains(t, v, "left out: still being counted")
	require.Empty(t, shown.Caveats, "the caller's view is not written")
	msg := m.Init()()
	require.IsType(t, agreementLoadedMsg{}, msg)
	m = settle(t, m, msg)
	v = ansi.Strip(m.View())
	require.Contains(t, v, "left out: 3 of 40 traces are unlabelled leftovers")
	require.True(t, m.queue.loaded)

	cfg.LoadAgreement = func(context.Context) (*AgreementView, error) { return nil, errors.New("store gone") }
	m = started(t, f.fakeStore, cfg, 100, 30)
	v = ansi.Strip(m.View())
	require.Contains(t, v, "error: agreement: store gone")
	require.Contains(t, v, "triage agreement · slice s1", "the figures stay")
}

// TestSwitchWhileTheReportComputes: a run chosen with : before the report
// is in reads its queue at once, and the report's arrival reads no
// second one.
func TestSwitchWhileTheReportComputes(t *testing.T) {
	t.Parallel()
	cfg := loadingReportConfig(func(context.Context) (*reportview.Report, error) { return sampleReport(), nil })
	cfg.Runs = []string{"r1"}
	m := settle(t, New(newFake(3), cfg), tea.WindowSizeMsg{Width: 100, Height: 30})
	report := m.Init()
	m = press(t, m, ":", "r", "u", "n", " ", "r", "1", "enter")
	require.Equal(t, screenQueue, m.screen)
	require.True(t, m.queue.loaded, "the switch read the queue")
	tm, cmd := m.Update(report())
	require.Nil(t, cmd, "no second read of the queue")
	m = tm.(Model)
	m.screen = screenReport
	require.Contains(t, ansi.Strip(m.View()), "Failure mix", "the report is there to switch back to")
}
