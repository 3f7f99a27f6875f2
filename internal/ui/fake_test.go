package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// fakeStore is an in-memory Store. Fn fields override a method; calls
// records every call so tests can assert what was (not) fetched.
type fakeStore struct {
	mu       sync.Mutex
	items    []QueueItem
	traces   map[int64]*triage.Trace
	verdicts map[int64]*triage.Verdict
	events   []triage.LabelEvent
	calls    []string
	nextID   int64
	queries  []QueueQuery

	AppendLabelFn func(triage.LabelEvent) error
}

func (f *fakeStore) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

// lastQuery is the latest queue query the store answered.
func (f *fakeStore) lastQuery() QueueQuery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries[len(f.queries)-1]
}

func (f *fakeStore) called(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func (f *fakeStore) Queue(_ context.Context, q QueueQuery) ([]QueueItem, error) {
	f.record(fmt.Sprintf("Queue(blind=%v)", q.Blind))
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	n := len(f.items)
	if q.Limit > 0 {
		n = min(n, q.Limit)
	}
	out := make([]QueueItem, n)
	copy(out, f.items)
	return out, nil
}

func (f *fakeStore) Trace(_ context.Context, id int64) (*triage.Trace, error) {
	f.record(fmt.Sprintf("Trace(%d)", id))
	if t, ok := f.traces[id]; ok {
		return t, nil
	}
	return nil, errors.New("no such trace")
}

func (f *fakeStore) Verdict(_ context.Context, id int64) (*triage.Verdict, error) {
	f.record(fmt.Sprintf("Verdict(%d)", id))
	return f.verdicts[id], nil
}

func (f *fakeStore) Context(_ context.Context, _, taskID string) (TraceContext, error) {
	f.record("Context(" + taskID + ")")
	n := int64(12)
	return TraceContext{
		Task:     &triage.Task{ID: taskID, Allowlist: []string{"src/**"}, Spec: []string{"openapi.yaml"}},
		Controls: &triage.Controls{MaxToolCalls: &n},
	}, nil
}

func (f *fakeStore) AppendLabel(_ context.Context, e triage.LabelEvent) (triage.LabelEvent, error) {
	f.record("AppendLabel(" + string(e.Kind) + ")")
	if f.AppendLabelFn != nil {
		if err := f.AppendLabelFn(e); err != nil {
			return e, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	e.ID = f.nextID
	f.events = append(f.events, e)
	return e, nil
}

func (f *fakeStore) History(_ context.Context, id int64, actor string) ([]triage.LabelEvent, error) {
	f.record(fmt.Sprintf("History(%d,%q)", id, actor))
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []triage.LabelEvent
	for _, e := range f.events {
		if e.TraceID == id && (actor == "" || e.Actor == actor) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f *fakeStore) eventsCopy() []triage.LabelEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]triage.LabelEvent(nil), f.events...)
}

var fixedNow = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)

// Strings the rules produce for the sample traces; blind tests assert
// they never reach the screen.
const (
	secretReason = "several rules fired: tool-loop, assume-api"
	secretIdent  = "/v2/invoices"
	secretMsg    = "path not in the frozen spec"
	// secretClass stands for the rules' primary: a name no taxonomy
	// legend shows, so a leak cannot hide behind the help overlay.
	secretClass = "RULES_PICK"
)

func ptr[T any](v T) *T { return &v }

// sampleTrace is a realistic failing trace: an invented API path, a loop
// of identical reads, a diff, failing tests and hostile escapes.
func sampleTrace(id int64, task string) *triage.Trace {
	diff := "diff --git a/src/client.py b/src/client.py\n--- a/src/client.py\n+++ b/src/client.py\n@@ -1,3 +1,4 @@\n import requests\n-BASE = '/v1/invoices'\n+BASE = '/v2/invoices'\n+TIMEOUT = 5\n def get(i):\n" +
		"diff --git a/tests/test_client.py b/tests/test_client.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_client.py\n@@ -0,0 +1,2 @@\n+def test_get():\n+    assert get(1).status_code == 200\n"
	read := triage.ToolCall{Name: "read", Args: json.RawMessage(`{"path": "README.md"}`), Output: "# Invoice client\nUse the API."}
	raw := fmt.Sprintf(`{"task_id":%q,"exit_code":1,"note":"\u001b]0;pwned\u0007"}`, task)
	return &triage.Trace{
		ID: id, RunID: "r1", TaskID: task, Seed: 0, Model: "gpt-x",
		ExitCode: ptr(1), Outcome: triage.OutcomeFailed,
		Messages: []triage.Message{
			{Role: "user", Content: "Write a client for the invoice API."},
			{Role: "assistant", Content: "Plan:\n1. read the README\n2. guess the path\n3. write the client\n4. write a test\n5. run it"},
		},
		ToolCalls: []triage.ToolCall{
			read, read, read,
			{Name: "http", Args: json.RawMessage(`{"url":"/v2/invoices"}`), Output: "404 \x1b]0;owned\x07 not found\x1b[2J"},
		},
		HasToolLog: true,
		Diff:       &diff,
		TestOutput: ptr("tests/test_client.py::test_get PASSED\nhidden/test_contract.py::test_path FAILED\nAssertionError: expected /v1"),
		WallS:      ptr(41.0), WallCap: ptr(180.0),
		Tokens:  &triage.Tokens{Input: 1200, Output: 340},
		CostUSD: ptr(0.12),
		Raw:     []byte(raw),
	}
}

func sampleVerdict() *triage.Verdict {
	return &triage.Verdict{
		Primary: secretClass, Decision: triage.DecisionLeftover, Reason: secretReason,
		Fired: []string{"tool-loop", "assume-api"},
		Evidence: []triage.Evidence{
			{Rule: "tool-loop", Message: "read called 3 times with the same args", ToolCall: 0},
			{Rule: "assume-api", Message: secretMsg, ToolCall: 3, Ident: secretIdent},
			{Rule: "scope", Message: "test file written", ToolCall: -1, File: "tests/test_client.py", Line: 2},
		},
	}
}

// newFake builds a store with n sample traces; non-blind items carry the
// rules' suggestion.
func newFake(n int) *fakeStore {
	f := &fakeStore{traces: map[int64]*triage.Trace{}, verdicts: map[int64]*triage.Verdict{}}
	for i := 1; i <= n; i++ {
		id := int64(i)
		task := fmt.Sprintf("T%02d", i)
		f.traces[id] = sampleTrace(id, task)
		f.verdicts[id] = sampleVerdict()
		f.items = append(f.items, QueueItem{
			TraceID: id, RunID: "r1", TaskID: task, Model: "gpt-x",
			Suggestion: secretClass, Reason: secretReason, Rules: []string{"tool-loop", "assume-api"},
		})
	}
	return f
}

func testConfig() Config {
	return Config{Reviewer: "ana", RunID: "r1", Now: func() time.Time { return fixedNow }}
}

// keyMsg builds a v1 key message the way a terminal sends it.
func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "ctrl+d":
		return tea.KeyMsg{Type: tea.KeyCtrlD}
	case "ctrl+u":
		return tea.KeyMsg{Type: tea.KeyCtrlU}
	case "ctrl+s":
		return tea.KeyMsg{Type: tea.KeyCtrlS}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "ctrl+a":
		return tea.KeyMsg{Type: tea.KeyCtrlA}
	case "ctrl+k":
		return tea.KeyMsg{Type: tea.KeyCtrlK}
	case "ctrl+r":
		return tea.KeyMsg{Type: tea.KeyCtrlR}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// settle applies msg, then runs every returned command synchronously and
// feeds its messages back, as the runtime would, until none is left.
func settle(t testing.TB, m Model, msg tea.Msg) Model {
	t.Helper()
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		if b, ok := next.(tea.BatchMsg); ok {
			for _, c := range b {
				if c != nil {
					queue = append(queue, c())
				}
			}
			continue
		}
		if _, ok := next.(tea.QuitMsg); ok {
			continue
		}
		tm, cmd := m.Update(next)
		m = tm.(Model)
		if cmd != nil {
			queue = append(queue, cmd())
		}
	}
	return m
}

// press sends keys one by one, settling after each.
func press(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		m = settle(t, m, keyMsg(k))
	}
	return m
}

// started is a model sized w×h with its queue loaded.
func started(t testing.TB, f *fakeStore, cfg Config, w, h int) Model {
	t.Helper()
	m := New(f, cfg)
	m = settle(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m = settle(t, m, m.Init()())
	require.True(t, m.queue.loaded)
	return m
}

// look is one palette the goldens are pinned in.
type look struct {
	name    string
	profile termenv.Profile
	dark    bool
}

// inEveryLook runs shoot in each look (no colour, the dark and the light
// palette) at 80×24 and at 140×45, the sizes every screen's goldens are
// pinned at. Colour is lipgloss's global state, so a test using it does
// not run in parallel; it is put back when the test ends.
func inEveryLook(t *testing.T, shoot func(th look, sz [2]int)) {
	t.Helper()
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii); lipgloss.SetHasDarkBackground(false) })
	for _, th := range []look{{"plain", termenv.Ascii, false}, {"dark", termenv.ANSI256, true}, {"light", termenv.ANSI256, false}} {
		for _, sz := range [][2]int{{80, 24}, {140, 45}} {
			lipgloss.SetColorProfile(th.profile)
			lipgloss.SetHasDarkBackground(th.dark)
			shoot(th, sz)
		}
	}
}
