package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui/diffview"
)

// longLine is 300 cells whose last word only shows scrolled or wrapped.
var longLine = "cmd " + strings.Repeat("--flag=value ", 22) + "THE-END"

// longTrace is a trajectory to read: two calls with long outputs, one
// with a line wider than any screen, coloured pytest output, and a diff
// whose first file is longer than a screen.
func longTrace(f *fakeStore) {
	var out strings.Builder
	for i := range 30 {
		fmt.Fprintf(&out, "line %02d of the first output\n", i)
	}
	colours := "\x1b[32mtests/a.py::ok PASSED\x1b[0m\n\x1b[1;31mtests/b.py::x FAILED\x1b[0m\n\x1b[38;5;196mHOT\x1b[0m \x1b[2Jclear"
	var diff strings.Builder
	diff.WriteString("diff --git a/big.py b/big.py\n--- a/big.py\n+++ b/big.py\n@@ -1,40 +1,40 @@\n")
	for i := range 40 {
		fmt.Fprintf(&diff, " context %d\n", i)
	}
	diff.WriteString("@@ -90,1 +90,1 @@\n-" + longLine + "\n+x\n")
	diff.WriteString("diff --git a/small.py b/small.py\n--- a/small.py\n+++ b/small.py\n@@ -1 +1 @@\n-a\n+b\n")
	d := diff.String()
	tr := f.traces[1]
	tr.ToolCalls = []triage.ToolCall{
		{Name: "bash", Args: json.RawMessage(`{"cmd":"ls"}`), Output: out.String()},
		{Name: "bash", Args: json.RawMessage(`{"cmd":"wide"}`), Output: longLine},
		{Name: "pytest", Args: json.RawMessage(`{}`), Output: colours},
		{Name: "bash", Args: json.RawMessage(`{"cmd":"more"}`), Output: out.String()},
	}
	tr.Diff = &d
}

func openLong(t *testing.T, w, h int) Model {
	t.Helper()
	f := newFake(3)
	longTrace(f)
	m := started(t, f, testConfig(), w, h)
	return press(t, m, "enter")
}

func TestTimelineCursorAndFolds(t *testing.T) {
	t.Parallel()
	m := openLong(t, 100, 30)
	v := &m.trace
	require.Equal(t, 0, v.cur, "the cursor starts on the first call")
	folded := len(v.doc().lines)
	m = press(t, m, "z")
	v = &m.trace
	require.Equal(t, folded+22-1, len(v.doc().lines), "z unfolds only the call under the cursor")
	require.Contains(t, strings.Join(texts(v.doc()), "\n"), "(z unfolds this call, Z all)", "the last call stays folded")
	m = press(t, m, "z")
	require.Len(t, m.trace.doc().lines, folded)

	m = press(t, m, "]")
	require.Equal(t, 0, m.trace.cur, "the first ] shows call #1, which the messages kept below the top")
	require.Equal(t, m.trace.doc().tools[0], m.trace.offset[tabTimeline])
	m = press(t, m, "]", "]", "]")
	require.Equal(t, 3, m.trace.cur)
	require.Equal(t, min(m.trace.doc().tools[3], len(m.trace.doc().lines)-m.trace.height), m.trace.offset[tabTimeline], "the call's header is on top, or as high as the end allows")
	require.Contains(t, m.View(), "▶ #4 ")
	m = press(t, m, "z")
	require.True(t, m.trace.flip[3])
	all := strings.Join(texts(m.trace.doc()), "\n")
	require.Contains(t, all, "line 29 of the first output", "z opened #4")
	require.Contains(t, all, "… 22 more lines", "not #1")
	m = press(t, m, "[")
	require.Equal(t, 2, m.trace.cur)

	m = press(t, m, "Z")
	require.True(t, m.trace.unfolded)
	require.Empty(t, m.trace.flip, "Z sets every call the same way")
	require.NotContains(t, strings.Join(texts(m.trace.doc()), "\n"), "more lines")

	// Scrolling the cursor's call away moves the cursor to what is shown.
	m = press(t, m, "g", "ctrl+d", "ctrl+d", "ctrl+d", "ctrl+d")
	top := m.trace.doc().lines[m.trace.offset[tabTimeline]].tool
	require.Equal(t, top, m.trace.cur)
}

func texts(d *doc) []string {
	var out []string
	for _, l := range d.lines {
		out = append(out, l.text)
	}
	return out
}

func TestSidewaysScrollReachesTheEnd(t *testing.T) {
	t.Parallel()
	m := openLong(t, 80, 40)
	require.NotContains(t, m.View(), "THE-END")
	require.Contains(t, m.View(), "…")
	for i := 0; i < 60 && !strings.Contains(m.View(), "THE-END"); i++ {
		m = press(t, m, "right")
	}
	require.Contains(t, m.View(), "THE-END", "→ reaches the end of the wide line")
	x := m.trace.xoff[tabTimeline]
	m = press(t, m, "right", "right", "right", "right")
	require.LessOrEqual(t, m.trace.xoff[tabTimeline], x+sidewaysStep, "→ stops at the end of the widest line")
	require.Contains(t, m.View(), " col ", "the tab bar says the pane is scrolled")
	for range 80 {
		m = press(t, m, "left")
	}
	require.Zero(t, m.trace.xoff[tabTimeline])

	// The diff scrolls its text, not its gutter.
	m = press(t, m, "tab", "G")
	require.NotContains(t, m.View(), "THE-END")
	for i := 0; i < 60 && !strings.Contains(m.View(), "THE-END"); i++ {
		m = press(t, m, "right")
	}
	require.Contains(t, m.View(), "THE-END")
}

func TestWrapShowsWholeLines(t *testing.T) {
	t.Parallel()
	m := openLong(t, 80, 40)
	m = press(t, m, "w")
	require.True(t, m.trace.wrap)
	v := m.View()
	require.Contains(t, v, "THE-END", "the wide line wraps onto more lines")
	for _, l := range strings.Split(v, "\n") {
		require.LessOrEqual(t, ansi.StringWidth(l), 80)
	}
	require.Contains(t, v, " wrap")
	// j steps one screen line at a time through a wrapped row.
	m = press(t, m, "G")
	require.Contains(t, m.View(), "(z unfolds this call, Z all)")
	last := m.trace.offset[tabTimeline]
	m = press(t, m, "j")
	require.Equal(t, last, m.trace.offset[tabTimeline], "G is the end")
	m = press(t, m, "g")
	for range 30 {
		m = press(t, m, "j")
	}
	off, sub := m.trace.offset[tabTimeline], m.trace.sub[tabTimeline]
	m = press(t, m, "k")
	require.True(t, pos{m.trace.offset[tabTimeline], m.trace.sub[tabTimeline]}.before(pos{off, sub}))
	// Every pane wraps: the diff's long removed line too.
	m = press(t, m, "tab", "G")
	require.Contains(t, m.View(), "THE-END")
	m = press(t, m, "w")
	require.False(t, m.trace.wrap)
	require.NotContains(t, m.View(), "THE-END")
}

func TestWrapDefaultFromConfig(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Wrap = true
	f := newFake(2)
	longTrace(f)
	m := started(t, f, cfg, 80, 40)
	m = press(t, m, "enter")
	require.True(t, m.trace.wrap)
	require.Contains(t, m.View(), "THE-END")
	m = press(t, m, "L", "H")
	require.True(t, m.trace.wrap, "wrap stays on across traces")
}

func TestDiffKeepsTheFileHeaderOnTop(t *testing.T) {
	t.Parallel()
	m := openLong(t, 80, 24)
	m = press(t, m, "tab")
	for range 10 {
		m = press(t, m, "j")
	}
	body := strings.Split(m.View(), "\n")[4:]
	require.Contains(t, body[0], "big.py", "the current file's header stays on the top line")
	require.Contains(t, body[1], "context", "rows scroll under it")
	m = press(t, m, "}")
	require.Contains(t, m.View(), "▶ small.py", "the next file is marked (over its first cells)")
	require.Contains(t, m.status, "file 2/2")
	m = press(t, m, "[")
	require.Contains(t, m.status, "file 1/2 big.py")
	require.Contains(t, m.status, "hunk 2/2")
}

func TestFileList(t *testing.T) {
	t.Parallel()
	m := openLong(t, 80, 24)
	m = press(t, m, "tab", "F")
	require.Equal(t, modalFiles, m.modal)
	v := m.View()
	require.Contains(t, v, "Files (2)")
	require.Contains(t, v, "small.py  +1 -1")
	m = press(t, m, "esc")
	require.Equal(t, modalNone, m.modal)
	m = press(t, m, "F", "G", "enter")
	require.Equal(t, m.trace.doc().files[1], m.trace.target[tabDiff])
	require.Contains(t, m.View(), "▶ small.py")
}

func TestToolOutputColoursAreDrawnInert(t *testing.T) {
	t.Parallel()
	m := openLong(t, 100, 40)
	m = press(t, m, "]", "]")
	v := m.View()
	require.Contains(t, v, "tests/b.py::x FAILED")
	require.Contains(t, v, "HOT ␛[2Jclear", "a colour is consumed, a screen clear stays inert")
	require.NotContains(t, v, "␛[32m", "colour sequences are no longer noise")
	require.NotContains(t, v, "\x1b", "without colour, no escape reaches the frame")
}

// TestToolOutputColoursAreOurs draws with colour: the trace's colours
// come out as our palette's, never as the trace's own sequences. It sets
// the global colour profile, so it does not run in parallel (parallel
// tests wait until it is done).
func TestToolOutputColoursAreOurs(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	lipgloss.SetHasDarkBackground(true)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	m := openLong(t, 100, 40)
	m = press(t, m, "]", "]")
	v := m.View()
	require.NotContains(t, v, "\x1b[38;5;196m", "the trace's 256-colour red never reaches the terminal")
	require.NotContains(t, v, "\x1b[2J")
	want := m.st.sgrStyle(lipgloss.NewStyle(), diffview.Attr{FG: 2}).Render("HOT")
	require.Contains(t, v, want, "HOT is drawn in our error colour")
	bold := m.st.sgrStyle(lipgloss.NewStyle(), diffview.Attr{FG: 2, Bold: true}).Render("tests/b.py::x FAILED")
	require.Contains(t, v, bold)
}

// TestTrajectoryGolden pins the new reading screens (the wrapped
// timeline with coloured output, the diff's sticky header, the file
// list) at 80×24 and 140×45, without colour and in the dark and light
// palettes. Colour is global state, so it does not run in parallel.
func TestTrajectoryGolden(t *testing.T) {
	inEveryLook(t, func(th look, sz [2]int) {
		m := openLong(t, sz[0], sz[1])
		shots := map[string]string{}
		m = press(t, m, "]", "]", "]")
		shots["colours"] = m.View()
		m = press(t, m, "w", "[")
		shots["wrapped"] = m.View()
		m = press(t, m, "w", "tab", "ctrl+d")
		shots["sticky"] = m.View()
		m = press(t, m, "F")
		shots["files"] = m.View()
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

// TestTrajectoryFlow drives the program: step to a call, fold it, wrap.
func TestTrajectoryFlow(t *testing.T) {
	t.Parallel()
	f := newFake(2)
	longTrace(f)
	tm := teatest.NewTestModel(t, New(f, testConfig()), teatest.WithInitialTermSize(100, 30))
	waitFor(t, tm, "0 of 2 labelled")
	tm.Send(keyMsg("enter"))
	// The tab bar is drawn before the trace arrives; ] on a trace still
	// loading has no call to move to, so wait for the calls themselves.
	waitFor(t, tm, "Tool calls (4)")
	tm.Send(keyMsg("]"))
	tm.Send(keyMsg("]"))
	waitFor(t, tm, "▶ #2 other · none  bash")
	tm.Send(keyMsg("w"))
	waitFor(t, tm, "THE-END")
	tm.Send(keyMsg("Z"))
	waitFor(t, tm, "line 29 of the first output")
	require.NoError(t, tm.Quit())
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	require.True(t, final.trace.wrap)
	require.True(t, final.trace.unfolded)
	require.Equal(t, 1, final.trace.cur)
}

// TestStepMarksAndFailingChecks: each call's row leads with its step's
// kind and result (DESIGN §8), and } / { go to the next and previous
// check that did not pass, skipping the calls that did.
func TestStepMarksAndFailingChecks(t *testing.T) {
	t.Parallel()
	sh := func(cmd, out string, exit int) triage.ToolCall {
		return triage.ToolCall{Name: "bash", Args: json.RawMessage(`{"command":"` + cmd + `"}`), Output: out, ExitCode: &exit}
	}
	tr := &triage.Trace{RunID: "r", TaskID: "T1", HasToolLog: true, ToolCalls: []triage.ToolCall{
		sh("ls", "a.py", 0),
		sh("pytest -q", "1 failed, 2 passed in 0.1s", 1),
		sh("cat a.py", "x = 1", 0),
		sh("pytest -q", "bash: pytest: command not found", 127),
		sh("pytest -q", "3 passed in 0.1s", 0),
	}}
	steps := triage.ReadActivity(tr).Steps
	d := buildTimeline(tr, steps, allFolded, nil)
	require.Equal(t, "#2 test · failed  bash {\"command\":\"pytest -q\"}", d.lines[d.calls[1]].text)
	require.Equal(t, []int{d.calls[1], d.calls[3]}, d.failing, "the failed run and the runner that never started")

	v := traceView{cur: 0, height: 40, width: 120}
	v.docs[tabTimeline] = d
	require.True(t, v.stepFailing(1))
	require.Equal(t, 1, v.cur)
	require.True(t, v.stepFailing(1))
	require.Equal(t, 3, v.cur, "past the passing read")
	require.False(t, v.stepFailing(1), "nothing failed after #4")
	require.Equal(t, "no failing check after this call", v.failingStatus("no failing check after this call"))
	require.True(t, v.stepFailing(-1))
	require.Equal(t, 1, v.cur)

	none := traceView{cur: 0}
	none.docs[tabTimeline] = buildTimeline(&triage.Trace{ToolCalls: tr.ToolCalls[:1]}, steps[:1], allFolded, nil)
	require.False(t, none.stepFailing(1))
	require.Equal(t, "no check failed in this trace", none.failingStatus("x"))
}
