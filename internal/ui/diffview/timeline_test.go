package diffview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

func TestTimelineGolden(t *testing.T) {
	t.Parallel()
	for _, p := range profiles {
		for _, w := range goldenWidths {
			t.Run(fmt.Sprintf("%s/w%03d", p.name, w), func(t *testing.T) {
				t.Parallel()
				tl := sampleTimeline(testStyle(p.p), w)
				lines := tl.Lines(0, tl.Len())
				requireSafeOutput(t, lines, w)
				golden.RequireEqual(t, strings.Join(lines, "\n")+"\n")
			})
		}
	}
}

func TestTimelineOrderAndJumps(t *testing.T) {
	t.Parallel()
	tl := sampleTimeline(testStyle(profiles[0].p), 80)
	// System and user messages first, then calls, then the answer.
	require.Equal(t, 0, tl.RowForMessage(0))
	require.Equal(t, 2, tl.RowForMessage(1))
	require.Equal(t, RowMessage, tl.At(tl.RowForMessage(2)).Kind)
	require.Equal(t, tl.Len()-2, tl.RowForMessage(2))
	for i := range 7 {
		r := tl.RowForCall(i)
		require.Equal(t, RowCall, tl.At(r).Kind, "call %d", i)
	}
	// Calls 2, 3 and 4 are one run and share its header.
	require.Equal(t, tl.RowForCall(2), tl.RowForCall(3))
	require.Equal(t, tl.RowForCall(2), tl.RowForCall(4))
	require.Equal(t, 2, tl.At(tl.RowForCall(4)).Call)
	require.Equal(t, -1, tl.RowForCall(7))
	require.Equal(t, -1, tl.RowForCall(-1))
	require.Equal(t, -1, tl.RowForMessage(3))
	require.Len(t, tl.CallStarts(), 5)
	require.Contains(t, tl.Lines(tl.RowForCall(2), 1)[0], "×3 identical calls (#3–#5)")
}

func TestTimelineFoldAndExpand(t *testing.T) {
	t.Parallel()
	tl := sampleTimeline(testStyle(profiles[0].p), 80)
	head := tl.RowForCall(1)
	// Header, two argument rows, ten output lines, then the fold.
	fold := head + 3 + DefaultFold
	require.Equal(t, Row{Kind: RowFold, File: -1, Hunk: -1, Line: 10, Call: 1, Message: -1, Of: RowOutput}, tl.At(fold))
	require.Contains(t, tl.Lines(fold, 1)[0], "… 15 more lines (enter to expand)")
	folded := tl.Len()

	tl.Expanded(map[int]bool{1: true})
	require.Equal(t, folded+15-1, tl.Len())
	require.Equal(t, RowOutput, tl.At(fold).Kind)
	require.Contains(t, tl.Lines(head+3+24, 1)[0], "line 25")

	tl.Expanded(nil).Fold(0)
	require.Equal(t, folded+15-1, tl.Len(), "fold 0 never folds")
	tl.Fold(3)
	require.Contains(t, tl.Lines(head+3+3, 1)[0], "… 22 more lines")
}

func TestTimelineGrouping(t *testing.T) {
	t.Parallel()
	tl := sampleTimeline(testStyle(profiles[0].p), 80).GroupRepeats(false)
	require.Len(t, tl.CallStarts(), 7)
	require.NotEqual(t, tl.RowForCall(2), tl.RowForCall(3))
	require.NotContains(t, tl.RenderRange(0, tl.Len()), "identical")
}

func TestTimelineSearch(t *testing.T) {
	t.Parallel()
	tl := sampleTimeline(testStyle(profiles[0].p), 80)
	head := tl.RowForCall(1)
	// "line 03" is visible; "line 20" is folded and found at the fold row.
	require.Equal(t, []int{head + 3 + 2}, tl.Search("LINE 03"))
	require.Equal(t, []int{head + 3 + DefaultFold}, tl.Search("line 20"))
	require.Equal(t, []int{tl.RowForCall(2) + 1}, tl.Search("/refund"))
	require.Contains(t, tl.Search("write_file"), tl.RowForCall(6))
	require.Nil(t, tl.Search(""))
}

func TestTimelineArgsAndMarks(t *testing.T) {
	t.Parallel()
	tl := sampleTimeline(testStyle(profiles[0].p), 120)
	all := tl.RenderRange(0, tl.Len())
	require.Contains(t, all, `    cmd: "ls -R"`)
	require.Contains(t, all, `    timeout: 30`)
	require.Contains(t, all, `    args: "echo pwn"`)
	require.Contains(t, all, `    content: "import requests\n\nBASE = 1\n"`)
	require.Contains(t, all, `!   url: "https://api.example.com/v2/invoices/{invoice_id}/refund"`)
	require.Contains(t, all, " │ error: 404 Not Found")
	require.Contains(t, all, "␛]0;owned␇␛[2Jhello")
}

func TestArgRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{`{"b": 1, "a": [1, 2]}`, []string{"b: 1", "a: [1,2]"}},
		{`{}`, nil},
		{``, nil},
		{`null`, nil},
		{`[1, 2]`, []string{"args: [1,2]"}},
		{`{"a": `, []string{`args: {"a":`}},
		{`not json`, []string{"args: not json"}},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, argRows([]byte(tt.in)), tt.in)
	}
}

func TestTimelineWidths(t *testing.T) {
	t.Parallel()
	for _, w := range []int{1, 2, 4, 5, 9, 33, 80, 200} {
		for _, p := range profiles {
			tl := sampleTimeline(testStyle(p.p), w).Expanded(map[int]bool{1: true, 2: true})
			requireSafeOutput(t, tl.Lines(0, tl.Len()), w)
		}
	}
}

// hugeOutput is about 10 MB of tool output in short lines.
func hugeOutput() string {
	line := strings.Repeat("x", 60) + "\t世界 \x1b[31mred\x1b[0m\n"
	return strings.Repeat(line, 10<<20/len(line))
}

func TestTimelineHugeOutput(t *testing.T) {
	t.Parallel()
	calls := []triage.ToolCall{{Name: "cat", Output: hugeOutput()}}
	tl := NewTimeline(nil, calls).Width(100).Style(testStyle(profiles[1].p))
	require.Equal(t, 1+DefaultFold+1, tl.Len())
	require.LessOrEqual(t, len(tl.outs[0].starts), DefaultFold+1, "folded output is not split")
	requireSafeOutput(t, tl.Lines(0, tl.Len()), 100)
	tl.Expanded(map[int]bool{0: true})
	n := tl.outs[0].count()
	require.Equal(t, 1+n, tl.Len())
	requireSafeOutput(t, tl.Lines(n/2, 60), 100)
}

func TestTestOutput(t *testing.T) {
	t.Parallel()
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			o := NewTestOutput(sampleTestOutput).Width(80).Style(testStyle(p.p))
			lines := o.Lines(0, o.Len())
			requireSafeOutput(t, lines, 80)
			golden.RequireEqual(t, strings.Join(lines, "\n")+"\n")
		})
	}
	o := NewTestOutput(sampleTestOutput)
	require.Equal(t, 18, o.Len())
	require.Equal(t, []int{4, 7, 10, 11, 13, 14, 15}, o.Failures())
	require.Equal(t, []int{4, 8, 13}, o.Search("test_REFUND"))
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want LineClass
	}{
		{"tests/test_x.py::test_a FAILED", ClassFail},
		{"E   assert 1 == 2", ClassFail},
		{"AssertionError: boom", ClassFail},
		{"requests.exceptions.HTTPError: 404", ClassFail},
		{"--- FAIL: TestX (0.00s)", ClassFail},
		{"FAIL\tgithub.com/x 0.1s", ClassFail},
		{"panic: runtime error", ClassFail},
		{"Traceback (most recent call last):", ClassFail},
		{"==== 1 failed, 2 passed in 0.1s ====", ClassFail},
		{"ERROR tests/test_x.py - ImportError", ClassFail},
		{`  File "x.py", line 3, in f`, ClassLocation},
		{"    x_test.go:12: got 1", ClassLocation},
		{"tests/test_x.py::test_a PASSED", ClassPass},
		{"--- PASS: TestX (0.00s)", ClassPass},
		{"ok  \tgithub.com/x\t0.1s", ClassPass},
		{"==== 3 passed in 0.1s ====", ClassPass},
		{"the error handling is fine", ClassPlain},
		{"", ClassPlain},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, Classify(tt.line), tt.line)
	}
}

func FuzzTimeline(f *testing.F) {
	f.Add("out\x1b[2J\n\tline 2\n", "err\r\n", `{"a": [1, "x"]}`, 80, 2)
	f.Add("", "", "not json", 1, 0)
	f.Fuzz(func(t *testing.T, out, errText, args string, w, fold int) {
		w = ((w % 300) + 300) % 300
		calls := []triage.ToolCall{
			{Name: "t", Args: []byte(args), Output: out, Error: errText},
			{Name: "t", Args: []byte(args), Output: out},
		}
		msgs := []triage.Message{{Role: out, Content: errText}}
		tl := NewTimeline(msgs, calls).Width(w).Style(testStyle(profiles[1].p)).Fold(fold % 50).Marks([]string{"x"}).Query("a")
		lines := tl.Lines(0, 500)
		if w > 0 {
			requireSafeOutput(t, lines, w)
		}
		_ = tl.Search("x")
	})
}
