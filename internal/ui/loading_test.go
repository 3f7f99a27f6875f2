package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"
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
// --tui over a store, before their figures are computed, at 80×24 and
// 140×45, without colour and in the dark and light palettes. Colour is
// global state, so it does not run in parallel.
func TestLoadingFrameGolden(t *testing.T) {
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii); lipgloss.SetHasDarkBackground(false) })
	never := func(context.Context) (*reportview.Report, error) {
		panic("the first frame must not wait for the report")
	}
	for _, th := range []struct {
		name    string
		profile termenv.Profile
		dark    bool
	}{{"plain", termenv.Ascii, false}, {"dark", termenv.ANSI256, true}, {"light", termenv.ANSI256, false}} {
		for _, sz := range [][2]int{{80, 24}, {140, 45}} {
			lipgloss.SetColorProfile(th.profile)
			lipgloss.SetHasDarkBackground(th.dark)
			shots := map[string]string{}
			m := settle(t, New(newFake(3), loadingReportConfig(never)), tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			shots["report"] = m.View()
			cfg := testConfig()
			cfg.All = true
			cfg.LoadAgreement = func(context.Context) (*AgreementView, error) { panic("not in the first frame") }
			shots["agreement"] = settle(t, New(newFake(3), cfg), tea.WindowSizeMsg{Width: sz[0], Height: sz[1]}).View()
			for name, v := range shots {
				t.Run(fmt.Sprintf("%s_%s_%03d", name, th.name, sz[0]), func(t *testing.T) {
					require.Contains(t, ansi.Strip(v), "Computing")
					for _, l := range strings.Split(v, "\n") {
						require.LessOrEqual(t, ansi.StringWidth(l), sz[0])
					}
					require.Len(t, strings.Split(v, "\n"), sz[1])
					golden.RequireEqual(t, []byte(v))
				})
			}
		}
	}
}

// TestReportComputedInACommand: Init returns the computation as a
// command (with the queue's), and the report replaces the loading note
// when its message comes; the screen's keys work on it as on a report
// given up front.
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
	m = settle(t, m, m.Init()())
	require.Equal(t, 1, calls)
	v := m.View()
	require.NotContains(t, v, computingReport)
	require.Contains(t, v, "Failure mix")
	require.Contains(t, v, "run demo · invoice-client-v3", "the title comes with the report")
	require.True(t, m.queue.loaded, "the queue loaded alongside")
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
// caveats (a whole-store read) come after the first frame.
func TestAgreementComputedInACommand(t *testing.T) {
	t.Parallel()
	f := newFakeAdj(t, 4)
	cfg := testConfig()
	cfg.All = true
	cfg.LoadAgreement = func(context.Context) (*AgreementView, error) { return f.view("slice s1"), nil }
	m := settle(t, New(f.fakeStore, cfg), tea.WindowSizeMsg{Width: 100, Height: 30})
	require.Equal(t, screenAgreement, m.screen)
	require.Contains(t, m.View(), computingAgreement)
	m = settle(t, m, m.Init()())
	require.NotContains(t, m.View(), computingAgreement)
	require.Contains(t, m.View(), "triage agreement · slice s1")
}
