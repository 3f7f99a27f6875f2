package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/require"
)

// switchConfig is a report session with two runs and a slice to switch to.
func switchConfig() Config {
	cfg := reportConfig()
	cfg.Runs, cfg.Slices = []string{"r1", "r2"}, []string{"s1"}
	return cfg
}

func labels(es []switchEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.label)
	}
	return out
}

// TestSwitcherKeys is the : switcher's key table.
func TestSwitcherKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		keys  []string
		check func(t *testing.T, m Model, f *fakeStore)
	}{
		{": opens every entry", []string{":"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, modalSwitch, m.modal)
			require.Equal(t, []string{"screen review", "screen report", "run * (every run)", "run r1", "run r2", "slice s1 (blind)"}, labels(m.switching))
		}},
		{"typing filters by every word", []string{":", "run", " r2"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, []string{"run r2"}, labels(m.switching))
		}},
		{"q is text, not quit", []string{":", "q"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, modalSwitch, m.modal)
			require.False(t, m.quitting)
			require.Empty(t, m.switching)
		}},
		{"down and tab move, up and shift+tab back", []string{":", "down", "tab", "up"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, 1, m.picker.cursor)
			m = press(t, m, "shift+tab", "shift+tab")
			require.Equal(t, 0, m.picker.cursor)
		}},
		{"enter on a screen shows it", []string{":", "review", "enter"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, modalNone, m.modal)
			require.Equal(t, screenQueue, m.screen)
			m = press(t, m, ":", "report", "enter")
			require.Equal(t, screenReport, m.screen)
		}},
		{"enter on a run reloads its queue", []string{":", "r2", "enter"}, func(t *testing.T, m Model, f *fakeStore) {
			require.Equal(t, screenQueue, m.screen)
			require.Equal(t, "r2", m.cfg.RunID)
			require.Equal(t, "r2", f.lastQuery().RunID)
		}},
		{"enter on a slice goes blind", []string{":", "slice", "enter"}, func(t *testing.T, m Model, f *fakeStore) {
			require.True(t, m.cfg.Blind)
			require.Equal(t, "s1", f.lastQuery().Slice)
			require.True(t, f.lastQuery().Blind)
			m = press(t, m, ":")
			require.Equal(t, []string{"screen review", "slice s1 (blind)"}, labels(m.switching), "blind hides the report and the runs")
		}},
		{"esc cancels", []string{":", "r2", "esc"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, modalNone, m.modal)
			require.Equal(t, screenReport, m.screen)
			require.Equal(t, "r1", m.cfg.RunID)
			require.Equal(t, "/", m.input.Prompt, "the line is the filter's again")
		}},
		{"enter with nothing matching", []string{":", "zzz", "enter"}, func(t *testing.T, m Model, _ *fakeStore) {
			require.Equal(t, "nothing to switch to", m.status)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(3)
			m := started(t, f, switchConfig(), 140, 45)
			tt.check(t, press(t, m, tt.keys...), f)
		})
	}
}

func TestSwitcherInAdjudication(t *testing.T) {
	t.Parallel()
	f := newFakeAdj(t, 4)
	m := startedAdj(t, f, 120, 30)
	m = press(t, m, ":")
	require.Equal(t, []string{"screen review", "screen agreement"}, labels(m.switching))
	m = press(t, m, "agr", "enter")
	require.Equal(t, screenAgreement, m.screen)
	m = press(t, m, "esc")
	require.Equal(t, screenQueue, m.screen)
}

// TestSwitcherGolden pins the switcher at 80×24 and 140×45, plain, dark
// and light.
func TestSwitcherGolden(t *testing.T) {
	inEveryLook(t, func(th look, sz [2]int) {
		m := started(t, newFake(3), switchConfig(), sz[0], sz[1])
		v := press(t, m, ":", "r", "down").View()
		t.Run(fmt.Sprintf("switcher_%s_%03d", th.name, sz[0]), func(t *testing.T) {
			for _, l := range strings.Split(v, "\n") {
				require.LessOrEqual(t, ansi.StringWidth(l), sz[0])
			}
			require.Len(t, strings.Split(v, "\n"), sz[1])
			golden.RequireEqual(t, []byte(v))
		})
	})
}
