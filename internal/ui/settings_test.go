package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/require"
)

func click(x, y int) tea.MouseMsg {
	return tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft}
}

func TestMouseClicks(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Mouse = true
	m := started(t, newFake(10), cfg, 100, 30)
	m = settle(t, m, click(10, queueRowsTop+3))
	require.Equal(t, 3, m.queue.cursor, "a click picks a row")
	m = settle(t, m, click(10, 0))
	require.Equal(t, 3, m.queue.cursor, "the title is no row")
	m = settle(t, m, click(10, queueRowsTop+20))
	require.Equal(t, 3, m.queue.cursor, "below the last row")
	m = settle(t, m, click(10, queueRowsTop+3))
	require.Equal(t, screenTrace, m.screen, "a click on the cursor's row opens it")
	require.Equal(t, int64(4), m.trace.id)

	// Tabs: " [Timeline 4] " then " Diff 2 ", " Tests ", …
	bar := tabBarRow(&m.pol)
	m = settle(t, m, click(16, bar))
	require.Equal(t, tabDiff, m.trace.tab)
	m = settle(t, m, click(2, bar))
	require.Equal(t, tabTimeline, m.trace.tab)
	m = settle(t, m, click(2, bar+1))
	require.Equal(t, tabTimeline, m.trace.tab, "the body is no tab bar")
	for tab := range numTabs {
		x, found := 0, false
		for ; x < 100; x++ {
			if got, ok := m.trace.tabAt(m.st, x); ok && got == tab {
				found = true
				break
			}
		}
		require.True(t, found, tab.String())
		m = settle(t, m, click(x, bar))
		require.Equal(t, tab, m.trace.tab)
	}
}

func TestMouseToggle(t *testing.T) {
	t.Parallel()
	m := started(t, newFake(10), testConfig(), 100, 30)
	require.False(t, m.cfg.Mouse)
	m = settle(t, m, click(10, queueRowsTop+3))
	require.Zero(t, m.queue.cursor, "mouse off: a click is the terminal's")
	tm, cmd := m.Update(keyMsg("M"))
	m = tm.(Model)
	require.True(t, m.cfg.Mouse)
	require.NotNil(t, cmd)
	require.Equal(t, tea.EnableMouseCellMotion(), cmd())
	m = settle(t, m, click(10, queueRowsTop+3))
	require.Equal(t, 3, m.queue.cursor)
	tm, cmd = m.Update(keyMsg("M"))
	m = tm.(Model)
	require.False(t, m.cfg.Mouse)
	require.Equal(t, tea.DisableMouse(), cmd())
	require.Contains(t, m.status, "selects text")
}

func TestParseTheme(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Theme{"": ThemeAuto, "auto": ThemeAuto, "dark": ThemeDark, "light": ThemeLight, "high-contrast": ThemeHighContrast} {
		got, err := ParseTheme(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := ParseTheme("solarized")
	require.ErrorContains(t, err, `theme "solarized": want auto, dark, light or high-contrast`)
}

// TestThemes draws with colour, so it does not run in parallel.
func TestThemes(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	lipgloss.SetHasDarkBackground(false)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	fail := func(th Theme) string { return StylesFor(th).Content.Fail.Render("x") }
	require.Equal(t, "\x1b[91mx\x1b[0m", fail(ThemeDark), "dark whatever the terminal says")
	require.Equal(t, "\x1b[31mx\x1b[0m", fail(ThemeLight))
	require.Equal(t, fail(ThemeLight), fail(ThemeAuto), "auto follows the terminal, light here")
	muted := func(th Theme) string { return StylesFor(th).App.Muted.Render("x") }
	require.Equal(t, "\x1b[90mx\x1b[0m", muted(ThemeAuto))
	require.Equal(t, "\x1b[30mx\x1b[0m", muted(ThemeHighContrast), "high contrast: no grey on a light terminal")
	require.Empty(t, StylesFor(ThemeHighContrast).DiffView.Chroma, "and no syntax colours under the lines' backgrounds")
	require.Equal(t, "github-dark", StylesFor(ThemeDark).DiffView.Chroma)
	require.Equal(t, "github", StylesFor(ThemeLight).DiffView.Chroma)

	lipgloss.SetColorProfile(termenv.Ascii) // NO_COLOR, as lipgloss reads it
	for _, th := range []Theme{ThemeAuto, ThemeDark, ThemeLight, ThemeHighContrast} {
		require.Equal(t, "x", StylesFor(th).Content.Fail.Render("x"), "no colour in %q", th)
	}
}
