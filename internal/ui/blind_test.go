package ui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

// views walks every screen and pane and returns what each one drew.
func views(t *testing.T, m Model) []string {
	t.Helper()
	out := []string{m.View()}
	m = press(t, m, "?")
	out = append(out, m.View())
	m = press(t, m, "esc", "enter")
	for range numTabs {
		out = append(out, m.View())
		m = press(t, m, "G")
		out = append(out, m.View())
		m = press(t, m, "tab")
	}
	m = press(t, m, "?")
	return append(out, m.View())
}

func TestBlindHidesRulesAndOthers(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	// Another reviewer has labelled trace 1; blind mode must not show it.
	f.events = append(f.events, triage.LabelEvent{TraceID: 1, Actor: "bob", Kind: triage.KindHuman, Primary: "BOBS_PICK"})
	cfg := testConfig()
	cfg.Blind = true
	m := started(t, f, cfg, 160, 40)
	for _, v := range views(t, m) {
		for _, secret := range []string{secretClass, secretReason, secretMsg, "BOBS_PICK", "bob", "tool-loop"} {
			require.NotContains(t, v, secret)
		}
	}
	require.Zero(t, f.called("Verdict("), "blind mode never fetches the verdict")
	m = press(t, m, "enter")
	require.Nil(t, m.trace.verdict)
	require.Empty(t, m.trace.idents, "no evidence highlights in blind mode")
	require.Empty(t, m.trace.others)
	require.Equal(t, 2, f.called("Queue(blind=true)"), "the first page and the whole queue, both blind")
	require.Zero(t, f.called(`History(1,"")`), "blind mode never fetches others' labels")
	require.Positive(t, f.called(`History(1,"ana")`))
}

func TestBlindRefusesRuleFiltersAndSort(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Blind = true
	m := started(t, newFake(3), cfg, 100, 30)
	m = press(t, m, "/", "class:TOOL", "enter")
	require.Contains(t, m.errText, "blind")
	for range numSorts {
		m = press(t, m, "o")
		require.NotEqual(t, sortRules, m.queue.sortBy)
	}
}

func TestNotBlindShowsRulesAndOthers(t *testing.T) {
	t.Parallel()
	f := newFake(3)
	f.events = append(f.events, triage.LabelEvent{TraceID: 1, Actor: "bob", Kind: triage.KindHuman, Primary: "BOBS_PICK"})
	m := started(t, f, testConfig(), 160, 40)
	all := strings.Join(views(t, m), "\n")
	for _, want := range []string{secretClass, secretReason, secretMsg, "BOBS_PICK"} {
		require.Contains(t, all, want)
	}
}

func TestHostileTextStaysInert(t *testing.T) {
	t.Parallel()
	f := newFake(2)
	f.items[0].TaskID = "T\x1b]0;title\x07"
	f.items[0].Model = "m\x1b[31mred"
	m := started(t, f, testConfig(), 120, 40)
	for _, v := range views(t, m) {
		// The test profile is ASCII, so any ESC at all came from a trace.
		require.NotContains(t, v, "\x1b")
		require.NotContains(t, v, "\u009b")
		require.NotContains(t, v, "\a")
	}
	m = press(t, m, "enter")
	m = press(t, m, "z")
	require.Contains(t, m.View(), "␛]0;owned␇")
}
