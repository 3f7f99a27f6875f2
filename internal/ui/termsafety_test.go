package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/agreement"
	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/termtest"
	"github.com/triage-dev/triage/internal/triage"
)

// hostileShort is the payload for names that sit in narrow columns, so
// the dangerous part is not simply cut off by truncation.
const hostileShort = "\x1b]0;t\x07\u009b\x9b\u202e\x1b[2J"

// hostileTrace puts the payload in every text field a trace has: task,
// run and model names, messages, tool names, args, outputs and errors,
// the diff's file names and lines, the test output, the answer and the
// raw row with an unknown field.
func hostileTrace(id int64) *triage.Trace {
	h := termtest.Hostile
	file := "src/ev\x1b]0;il\x07\u202e.py"
	diff := "diff --git a/" + file + " b/" + file + "\n--- a/" + file + "\n+++ b/" + file + "\n@@ -1,3 +1,4 @@ " + h + "\n ctx " + h + "\n-old " + h + "\n+new " + h + "\n+/v2/invoices" + h + "\n" +
		"diff --git a/tests/t\x1b[2J.py b/tests/t\x1b[2J.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/t\x1b[2J.py\n@@ -0,0 +1 @@\n+def test_x(): " + h + "\n"
	args, err := json.Marshal(map[string]string{"path": h, "url": "/v2/invoices" + h})
	if err != nil {
		panic(err)
	}
	call := triage.ToolCall{Name: "read" + h, Args: args, Output: h + "\n" + h, Error: h, TS: h}
	raw := `{"task_id":"T` + hostileShort + `","note":"` + strings.ReplaceAll(h, `\`, `\\`) + `"}` + "\x1b[2J\x9b"
	return &triage.Trace{
		ID: id, RunID: "r" + hostileShort, TaskID: fmt.Sprintf("T%02d%s", id, hostileShort), Model: "m" + hostileShort,
		Agent: h, PromptID: h, ExitCode: ptr(1), Outcome: triage.OutcomeFailed,
		Messages:   []triage.Message{{Role: "user" + h, Content: h}, {Role: "assistant", Content: "plan\n" + h + "\n" + h}},
		ToolCalls:  []triage.ToolCall{call, call, call, {Name: "http" + h, Args: json.RawMessage(`{"u":"\u001b]0;x\u0007\u009b\u202e"}`), Output: h}},
		HasToolLog: true, Diff: &diff, TestOutput: ptr("tests/t.py::test_x FAILED " + h + "\n" + h),
		Answer: ptr(h), WallS: ptr(3.0), Tokens: &triage.Tokens{Input: 1, Output: 2}, CostUSD: ptr(0.1),
		Raw: []byte(raw),
	}
}

func hostileVerdict() *triage.Verdict {
	return &triage.Verdict{
		Primary: triage.AssumeAPI + hostileShort, Secondary: []string{"leak" + hostileShort}, Decision: triage.DecisionLeftover,
		Reason: termtest.Hostile, Fired: []string{"assume-api" + hostileShort, "tool-loop"},
		Evidence: []triage.Evidence{
			{Rule: "assume-api" + hostileShort, Message: termtest.Hostile, ToolCall: 3, Ident: "/v2/invoices" + hostileShort},
			{Rule: "scope" + hostileShort, Message: termtest.Hostile, ToolCall: -1, File: "src/ev\x1b]0;il\x07\u202e.py", Line: 1},
		},
		Unevaluated: []triage.Evidence{{Rule: "guard" + hostileShort, Message: termtest.Hostile, ToolCall: -1}},
	}
}

// hostileStore is the fake store full of hostile text: queue items, the
// task and controls of the context, other reviewers' labels, and one
// trace whose load fails with an error that quotes hostile text.
type hostileStore struct{ *fakeAdj }

func (h *hostileStore) Context(context.Context, string, string) (TraceContext, error) {
	return TraceContext{
		Task: &triage.Task{ID: "T" + hostileShort, Allowlist: []string{"src/**" + hostileShort}, Spec: []string{termtest.Hostile},
			Withheld: []string{termtest.Hostile}, HiddenTests: []string{termtest.Hostile}, Sentinels: []string{termtest.Hostile}, AskTools: []string{termtest.Hostile}},
		Controls: &triage.Controls{RunID: termtest.Hostile, DatasetID: termtest.Hostile, Scorer: termtest.Hostile, ImageDigest: termtest.Hostile, PromptID: termtest.Hostile},
	}, nil
}

func newHostileStore(t testing.TB) *hostileStore {
	t.Helper()
	const n = 3
	f := &fakeAdj{fakeStore: &fakeStore{traces: map[int64]*triage.Trace{}, verdicts: map[int64]*triage.Verdict{}}, reviews: map[int64][]triage.LabelEvent{}}
	var rs []agreement.Rating
	for i := int64(1); i <= n; i++ {
		tr := hostileTrace(i)
		f.traces[i] = tr
		f.verdicts[i] = hostileVerdict()
		f.items = append(f.items, QueueItem{
			TraceID: i, RunID: tr.RunID, TaskID: tr.TaskID, Model: tr.Model, Suggestion: triage.AssumeAPI + hostileShort,
			Reason: termtest.Hostile, Rules: []string{"r" + hostileShort}, Primary: triage.ToolLoop + hostileShort,
			Secondary: []string{"t" + hostileShort}, Note: termtest.Hostile, Status: StatusLabelled,
		})
		f.events = append(f.events, triage.LabelEvent{TraceID: i, Actor: "ana", Kind: triage.KindHuman, Primary: triage.ToolLoop + hostileShort, Secondary: []string{"t" + hostileShort}, Note: termtest.Hostile})
		f.reviews[i] = []triage.LabelEvent{
			{TraceID: i, Actor: "ann" + hostileShort, Kind: triage.KindHuman, Primary: triage.AssumeAPI + hostileShort, Secondary: []string{"t" + hostileShort}, Note: termtest.Hostile},
			{TraceID: i, Actor: "bob" + termtest.Hostile, Kind: triage.KindHuman, Primary: triage.ToolLoop, Note: termtest.Hostile},
		}
		unit := tr.Key()
		rs = append(rs, agreement.Rating{Unit: unit, Rater: "ann" + hostileShort, Label: triage.AssumeAPI + hostileShort},
			agreement.Rating{Unit: unit, Rater: "bob" + termtest.Hostile, Label: triage.ToolLoop})
	}
	// A fourth item whose trace cannot be read: the error quotes it.
	f.items = append(f.items, QueueItem{TraceID: 99, RunID: "r", TaskID: "gone" + hostileShort})
	rep, err := agreement.Compute(rs, agreement.Options{Resamples: 50, Seed: 1})
	require.NoError(t, err)
	f.rep = rep
	return &hostileStore{f}
}

func (h *hostileStore) Trace(ctx context.Context, id int64) (*triage.Trace, error) {
	if id == 99 {
		return nil, errors.New("trace gone" + termtest.Hostile + ": unreadable")
	}
	return h.fakeAdj.Trace(ctx, id)
}

// hostileTaxonomy's class names, rules of thumb, advice and tags carry
// the payload; the codes stay codes.
func hostileTaxonomy() *triage.Taxonomy {
	tax := seedTaxonomy()
	tax.Name = termtest.Hostile
	for i := range tax.Classes {
		c := &tax.Classes[i]
		c.Name, c.ApplyWhen, c.DoNot, c.DoThis = termtest.Hostile, termtest.Hostile, termtest.Hostile, termtest.Hostile
	}
	tax.SecondaryTags = append(tax.SecondaryTags, "tag"+termtest.Hostile)
	return tax
}

// paste is a bracketed paste of the payload, as a terminal delivers a
// reviewer's paste of trace text into a text box.
func paste() tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(termtest.Hostile), Paste: true}
}

// walk drives m through every screen, tab and modal, scrolling each to
// its end, and checks every frame.
func walk(t *testing.T, name string, m Model) {
	t.Helper()
	check := func(where string) {
		t.Helper()
		v := m.View()
		termtest.RequireInert(t, name+": "+where, v)
		// Tests draw without colour (fake_test.go's init), so our own
		// styles emit no escape at all: any ESC in a frame, a colour
		// sequence of the trace's included, came through raw.
		if i := strings.IndexByte(v, 0x1b); i >= 0 {
			t.Errorf("%s: %s: an escape sequence reaches the frame raw at byte %d: %q", name, where, i, v[max(0, i-20):min(len(v), i+20)])
		}
	}
	step := func(where string, msgs ...tea.Msg) {
		t.Helper()
		for _, msg := range msgs {
			m = settle(t, m, msg)
		}
		check(where)
	}
	scrollAll := func(where string) {
		t.Helper()
		for i := 0; i < 12; i++ {
			step(fmt.Sprintf("%s, page %d", where, i), keyMsg("ctrl+d"))
		}
		step(where+", top", keyMsg("g"))
	}
	check("queue")
	scrollAll("queue")
	step("queue filter with a pasted payload", keyMsg("/"), paste())
	step("queue filter cleared", keyMsg("esc"))
	step("help overlay", keyMsg("?"))
	step("help closed", keyMsg("esc"))
	for i := 0; i < 4; i++ {
		step(fmt.Sprintf("queue row %d", i), keyMsg("j"))
	}
	step("unreadable trace", keyMsg("G"), keyMsg("enter"))
	require.Contains(t, m.View(), "error: ", "%s: the unreadable trace shows its error", name)
	step("back from the unreadable trace", keyMsg("esc"))
	step("trace opened", keyMsg("g"), keyMsg("enter"))
	require.NotNil(t, m.trace.trace, "%s: a hostile trace is open", name)
	for tab := tabTimeline; tab < numTabs; tab++ {
		if tab != tabEvidence || !m.cfg.Blind {
			require.Contains(t, m.View(), "␛", "%s: tab %s shows the payload's stand-ins", name, tab)
		}
		scrollAll("trace tab " + tab.String())
		step("trace tab "+tab.String()+" unfolded", keyMsg("z"))
		scrollAll("trace tab " + tab.String() + " unfolded")
		step("trace tab "+tab.String()+" folded", keyMsg("z"))
		step("trace tab "+tab.String()+" search", keyMsg("/"), paste(), keyMsg("enter"), keyMsg("n"))
		step("trace tab "+tab.String()+" jump", keyMsg("esc"), keyMsg("enter"), keyMsg("]"), keyMsg("}"))
		step("trace tab "+tab.String()+" marks back", keyMsg("["), keyMsg("{"))
		for i := 0; i < 6; i++ {
			step(fmt.Sprintf("trace tab %s sideways %d", tab, i), keyMsg("right"))
		}
		step("trace tab "+tab.String()+" wrapped", keyMsg("w"))
		scrollAll("trace tab " + tab.String() + " wrapped")
		step("trace tab "+tab.String()+" wrapped, folded all", keyMsg("Z"))
		step("trace tab "+tab.String()+" unwrapped", keyMsg("w"), keyMsg("Z"))
		if tab == tabDiff {
			step("file list", keyMsg("F"), keyMsg("j"))
			step("file chosen", keyMsg("enter"))
		}
		step("next tab", keyMsg("tab"))
	}
	step("picker", keyMsg("p"))
	for i := 0; i < 10; i++ {
		step(fmt.Sprintf("picker row %d", i), keyMsg("j"))
	}
	step("picker closed", keyMsg("esc"))
	step("tags", keyMsg("t"))
	for i := 0; i < 4; i++ {
		step(fmt.Sprintf("tags row %d", i), keyMsg("j"), keyMsg("space"))
	}
	step("tags closed", keyMsg("esc"))
	step("note editor with the stored note", keyMsg("c"))
	step("note editor with a pasted payload", paste(), keyMsg("enter"), paste())
	step("note saved", keyMsg("ctrl+s"))
	step("help on the trace", keyMsg("?"))
	step("help closed", keyMsg("esc"))
	step("label set", keyMsg("1"))
	for i := 0; i < 4; i++ {
		step(fmt.Sprintf("next trace %d", i), keyMsg("L"))
		scrollAll(fmt.Sprintf("next trace %d", i))
	}
	step("back to the queue", keyMsg("esc"))
	if m.adjudicating() {
		step("agreement", keyMsg("A"))
		scrollAll("agreement")
		step("agreement closed", keyMsg("esc"))
		step("all items", keyMsg("a"))
		step("adjudication reason", keyMsg("enter"), keyMsg("3"), paste(), keyMsg("ctrl+s"))
	}
}

// TestScreensKeepHostileTextInert sends the payload through every field
// of every review and adjudication screen, at two sizes, and checks each
// frame.
func TestScreensKeepHostileTextInert(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{120, 40}, {200, 90}} {
		for _, blind := range []bool{false, true} {
			name := fmt.Sprintf("review %dx%d blind=%v", size[0], size[1], blind)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				cfg := testConfig()
				cfg.RunID, cfg.Reviewer, cfg.Blind, cfg.Taxonomy = termtest.Hostile, "ana"+termtest.Hostile, blind, hostileTaxonomy()
				if blind {
					cfg.Slice = "s" + termtest.Hostile
				}
				m := New(newHostileStore(t), cfg)
				m = settle(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m = settle(t, m, m.Init()())
				walk(t, name, m)
			})
		}
		name := fmt.Sprintf("report drill-down %dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := newHostileStore(t)
			// One grid row per item, so that the mix's bar opens them all.
			var tasks []reportview.TaskRow
			for _, it := range st.items {
				tasks = append(tasks, reportview.TaskRow{TaskID: it.TaskID, Runs: 1,
					Cells: []reportview.Cell{{RunID: it.RunID, Seed: it.Seed, Primary: triage.ToolLoop + hostileShort}}})
			}
			cfg := testConfig()
			cfg.All, cfg.Taxonomy = true, hostileTaxonomy()
			cfg.Runs, cfg.Slices = []string{termtest.Hostile}, []string{"s" + termtest.Hostile}
			// A hostile root cause of every item: the screen shows it and
			// enter on it opens them all.
			var keys []string
			for _, it := range st.items {
				keys = append(keys, it.Key())
			}
			cfg.Report = &reportview.Report{Title: termtest.Hostile, Traces: 3, Caveats: termtest.Hostile,
				Mix:        []reportview.MixRow{{Code: triage.ToolLoop + hostileShort, Count: 3}},
				Outcomes:   []reportview.Count{{Key: "failed", N: 3}},
				RootCauses: []reportview.RootCause{{Cause: termtest.Hostile, Count: len(keys), Traces: keys[:1], Keys: keys}},
				Grid:       reportview.Grid{Tasks: tasks}}
			m := New(st, cfg)
			m = settle(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m = settle(t, m, m.Init()())
			termtest.RequireInert(t, name+" report", m.View())
			m = press(t, m, "tab", "tab", "tab", "tab")
			require.True(t, strings.HasPrefix(cursorTitle(m), "root cause "), cursorTitle(m))
			termtest.RequireInert(t, name+" root cause", m.View())
			m = settle(t, m, keyMsg("enter"))
			require.Equal(t, screenQueue, m.screen)
			require.Len(t, m.queue.view, len(st.items))
			termtest.RequireInert(t, name+" root cause's traces", m.View())
			m = settle(t, m, keyMsg("esc"))
			m = press(t, m, "g")
			m = settle(t, m, keyMsg(":"))
			require.Len(t, m.switching, 5)
			termtest.RequireInert(t, name+" switcher", m.View())
			m = settle(t, m, keyMsg("\x1b]0;x\x07"))
			termtest.RequireInert(t, name+" switcher typed", m.View())
			m = settle(t, m, keyMsg("esc"))
			m = settle(t, m, keyMsg("enter"))
			require.Equal(t, screenQueue, m.screen)
			require.Len(t, m.queue.view, len(st.items))
			walk(t, name, m)
		})
		name = fmt.Sprintf("adjudicate %dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := adjConfig()
			cfg.Slice, cfg.Reviewer, cfg.Taxonomy = "s"+termtest.Hostile, "cy"+termtest.Hostile, hostileTaxonomy()
			m := NewAdjudicate(newHostileStore(t), cfg)
			m = settle(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m = settle(t, m, m.Init()())
			walk(t, name, m)
		})
	}
}

// TestDocScreensKeepHostileTextInert checks the agreement grid (agree
// --tui) and the report screen (report --tui), cursor and search, with hostile raters, categories,
// task IDs, class names, advice and titles.
func TestDocScreensKeepHostileTextInert(t *testing.T) {
	t.Parallel()
	rep := newHostileStore(t).rep
	report := &reportview.Report{
		Title: "run " + termtest.Hostile, Traces: 3,
		Mix:      []reportview.MixRow{{Code: triage.AssumeAPI, Name: termtest.Hostile, Count: 2}, {Code: "X" + hostileShort, Name: termtest.Hostile, Count: 1}},
		Dominant: &reportview.Dominant{Code: triage.AssumeAPI + hostileShort, Share: 0.6, DoNot: termtest.Hostile, DoThis: termtest.Hostile},
		Grid: reportview.Grid{Seeds: []int{0, 1}, Tasks: []reportview.TaskRow{
			{TaskID: "T" + termtest.Hostile, Runs: 2, Cells: []reportview.Cell{{RunID: "r" + hostileShort, Seed: 0, Primary: "\x1b" + hostileShort}, {Seed: 1, Primary: "\u009b\u202e"}}},
			{TaskID: hostileShort, Runs: 1, Cells: []reportview.Cell{{Seed: 0, Leaked: true}}},
		}},
		NobodyClears: []string{"T" + termtest.Hostile, hostileShort},
		Saturated:    []string{termtest.Hostile},
		// What card.View adds beside the mix and the grid, every string
		// from the traces hostile.
		Outcomes:       []reportview.Count{{Key: "success", N: 1}, {Key: "o" + termtest.Hostile, N: 2}},
		Secondary:      []reportview.Count{{Key: "TAG" + termtest.Hostile, N: 1}},
		Leftovers:      1,
		LeftoverTraces: []string{"r/" + termtest.Hostile + "#0"},
		Leaked:         []string{"r/" + hostileShort + "#1"},
		NotChecked:     &reportview.Section{Title: "Not checked for the whole run", Notes: []string{"r" + termtest.Hostile + " · allowlist: no pack"}, List: true},
		RootCauses: []reportview.RootCause{{Cause: "ASSUME_API: called " + termtest.Hostile + " at step <n>", Count: 2,
			Traces: []string{"r/T" + termtest.Hostile + "#0"}, Keys: []string{"r/T" + termtest.Hostile + "#0", "r/" + hostileShort + "#0"}}},
		Sections: []reportview.Section{{Title: "Agreement", Notes: []string{"slice s" + termtest.Hostile + " · 4 units"}}},
	}
	for _, tt := range []struct {
		name string
		m    tea.Model
	}{
		{"agreement grid", NewAgreementView(&AgreementView{Title: "slice " + termtest.Hostile, Report: rep, Caveats: termtest.Hostile})},
		{"report", NewReportView(report)},
	} {
		for _, w := range []int{60, 120, 220} {
			m, _ := tt.m.Update(tea.WindowSizeMsg{Width: w, Height: 200})
			termtest.RequireInert(t, fmt.Sprintf("%s at width %d", tt.name, w), m.View())
			for i := 0; i < 10; i++ {
				m, _ = m.Update(keyMsg("ctrl+d"))
				termtest.RequireInert(t, fmt.Sprintf("%s at width %d, page %d", tt.name, w, i), m.View())
			}
			// The cursor on every figure in turn: the title names what
			// it opens (a hostile outcome, root cause, task).
			m, _ = m.Update(keyMsg("g"))
			for i := range 16 {
				m, _ = m.Update(keyMsg("tab"))
				termtest.RequireInert(t, fmt.Sprintf("%s at width %d, figure %d", tt.name, w, i), m.View())
			}
			// The cursor over every figure, whose title names hostile
			// classes and tasks, and a search for hostile text.
			for i, k := range []string{"g", "tab", "tab", "j", "l", "j", "G", "/", "\x1b[2J", "enter", "n", "?"} {
				m, _ = m.Update(keyMsg(k))
				termtest.RequireInert(t, fmt.Sprintf("%s at width %d, key %d", tt.name, w, i), m.View())
			}
		}
	}
}
