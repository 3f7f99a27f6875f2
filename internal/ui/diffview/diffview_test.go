package diffview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

func TestDiffGolden(t *testing.T) {
	t.Parallel()
	for _, p := range profiles {
		for _, w := range goldenWidths {
			t.Run(fmt.Sprintf("%s/w%03d", p.name, w), func(t *testing.T) {
				t.Parallel()
				d := sampleDiffView(testStyle(p.p), w)
				lines := d.Lines(0, d.Len())
				requireSafeOutput(t, lines, w)
				golden.RequireEqual(t, strings.Join(lines, "\n")+"\n")
			})
		}
	}
}

func TestDiffLayout(t *testing.T) {
	t.Parallel()
	d := New(triage.ParseDiff(sampleDiff))
	require.Equal(t, []int{0, 17, 22, 26, 28}, d.FileStarts())
	require.Equal(t, []int{1, 12, 18, 23}, d.HunkStarts())
	require.Equal(t, 30, d.Len())
	require.Equal(t, Row{Kind: RowFileHeader, File: 1, Hunk: -1, Line: -1}, d.At(17))
	require.Equal(t, RowNote, d.At(27).Kind)
	require.Equal(t, Row{}, d.At(-1))
	require.Equal(t, Row{}, d.At(d.Len()))
	// Nothing is drawn until a width is set.
	require.Empty(t, d.Lines(0, 10))
	require.Equal(t, "", d.RenderRange(0, 10))
}

func TestDiffNavigation(t *testing.T) {
	t.Parallel()
	d := New(triage.ParseDiff(sampleDiff))
	tests := []struct {
		name      string
		got, want int
	}{
		{"next file from top", NextStart(d.FileStarts(), 0), 17},
		{"next file from inside", NextStart(d.FileStarts(), 18), 22},
		{"next file at last stays", NextStart(d.FileStarts(), 29), 29},
		{"prev file", PrevStart(d.FileStarts(), 18), 17},
		{"prev file from header", PrevStart(d.FileStarts(), 17), 0},
		{"prev file at first stays", PrevStart(d.FileStarts(), 0), 0},
		{"next hunk", NextStart(d.HunkStarts(), 1), 12},
		{"prev hunk", PrevStart(d.HunkStarts(), 14), 12},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.got, tt.name)
	}
}

func TestDiffRowFor(t *testing.T) {
	t.Parallel()
	d := New(triage.ParseDiff(sampleDiff))
	tests := []struct {
		name string
		file string
		line int
		want int
	}{
		{"exact added line", "src/client.py", 2, 4},
		{"exact context line", "src/client.py", 4, 6},
		{"a/ prefix", "b/src/client.py", 2, 4},
		{"between hunks goes to next line", "src/client.py", 20, 13},
		{"past the end goes to header", "src/client.py", 999, 0},
		{"no line goes to header", "tests/test_client.py", 0, 17},
		{"new file line", "tests/test_client.py", 3, 21},
		{"renamed by old name", "docs/old.md", 1, 26},
		{"unknown file", "nope.go", 1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, d.RowFor(tt.file, tt.line))
		})
	}
}

func TestDiffSearch(t *testing.T) {
	t.Parallel()
	d := New(triage.ParseDiff(sampleDiff))
	require.Equal(t, []int{3, 4}, d.Search("API.EXAMPLE.COM/V"))
	require.Equal(t, []int{17}, d.Search("test_client"))
	require.Equal(t, []int{14}, d.Search("PWNED"))
	require.Equal(t, []int{8}, d.Search("払い戻し"))
	require.Nil(t, d.Search(""))
	require.Nil(t, d.Search("no such text"))
}

func TestDiffQueryHighlights(t *testing.T) {
	t.Parallel()
	st := testStyle(profiles[1].p)
	d := New(triage.ParseDiff(sampleDiff)).Width(80).Style(st)
	before := d.Lines(3, 1)[0]
	d.SetQuery("example")
	after := d.Lines(3, 1)[0]
	require.NotEqual(t, before, after, "a search hit changes the drawn row")
	require.Contains(t, after, st.Match.Render("example"))
	d.SetQuery("")
	require.Equal(t, before, d.Lines(3, 1)[0])
}

func TestDiffMarks(t *testing.T) {
	t.Parallel()
	d := sampleDiffView(testStyle(profiles[0].p), 80)
	// Without colour, marks still show as "!".
	require.True(t, strings.HasPrefix(d.Lines(22, 1)[0], "! setup.cfg"), d.Lines(22, 1)[0])
	require.Contains(t, d.Lines(8, 1)[0], "+!")
	require.NotContains(t, d.Lines(9, 1)[0], "+!")
}

func TestDiffHostileTextIsInert(t *testing.T) {
	t.Parallel()
	for _, p := range profiles {
		d := sampleDiffView(testStyle(p.p), 200)
		lines := d.Lines(0, d.Len())
		requireSafeOutput(t, lines, 200)
		all := strings.Join(lines, "\n")
		require.Contains(t, all, "␛]0;pwned␇")
		require.Contains(t, all, "<U+202E>")
	}
}

func TestDiffWidths(t *testing.T) {
	t.Parallel()
	for _, w := range []int{1, 2, 3, 7, 13, 25, 40, 61, 80, 120, 300} {
		for _, p := range profiles {
			for _, numbers := range []bool{true, false} {
				d := sampleDiffView(testStyle(p.p), w).LineNumbers(numbers).TabWidth(8)
				requireSafeOutput(t, d.Lines(0, d.Len()), w)
			}
		}
	}
}

func TestTabsExpandToStops(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"\tx", "    x"},
		{"ab\tx", "ab  x"},
		{"abcd\tx", "abcd    x"},
		{"世\tx", "世  x"},
		{"no tabs", "no tabs"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, expandTabs(tt.in, 4), "%q", tt.in)
	}
}

func TestDiffRenderRangeClamps(t *testing.T) {
	t.Parallel()
	d := sampleDiffView(testStyle(profiles[0].p), 40)
	require.Len(t, d.Lines(-5, 3), 3)
	require.Len(t, d.Lines(d.Len()-2, 60), 2)
	require.Empty(t, d.Lines(d.Len(), 5))
	require.Empty(t, d.Lines(0, 0))
	require.Equal(t, strings.Join(d.Lines(3, 4), "\n"), d.RenderRange(3, 4))
}

// bigDiff builds a diff of about n lines over several files.
func bigDiff(n int) string {
	var b strings.Builder
	per := 2000
	for f := 0; f*per < n; f++ {
		fmt.Fprintf(&b, "diff --git a/pkg/f%d.go b/pkg/f%d.go\n--- a/pkg/f%d.go\n+++ b/pkg/f%d.go\n", f, f, f, f)
		for h := 0; h < per/20; h++ {
			fmt.Fprintf(&b, "@@ -%d,20 +%d,20 @@ func f%d()\n", h*20+1, h*20+1, h)
			for l := range 20 {
				switch l % 4 {
				case 0:
					fmt.Fprintf(&b, "-\tx%d := compute(%d, \"old\") // 世界\n", l, h)
				case 1:
					fmt.Fprintf(&b, "+\tx%d := compute(%d, \"new\") // 🎉\n", l-1, h)
				default:
					fmt.Fprintf(&b, " \tif err := step(%d); err != nil { return err }\n", l)
				}
			}
		}
	}
	return b.String()
}

func TestDiffVirtualised(t *testing.T) {
	t.Parallel()
	d := New(triage.ParseDiff(bigDiff(20000))).Width(100).Style(testStyle(profiles[1].p))
	require.Greater(t, d.Len(), 20000)
	lines := d.Lines(10000, 60)
	require.Len(t, lines, 60)
	requireSafeOutput(t, lines, 100)
	require.LessOrEqual(t, len(d.cache), 60, "only the visible rows are drawn")
}

func FuzzDiff(f *testing.F) {
	f.Add(sampleDiff, 80)
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-\t\x1b[2J\n+世界🎉\n c\n", 3)
	f.Add("@@ -1 +1 @@\n", 0)
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = ((w % 300) + 300) % 300
		st := testStyle(profiles[1].p)
		d := New(triage.ParseDiff(s)).Width(w).Style(st).Marks([]string{"x"}, []string{"x"}).Query("a")
		lines := d.Lines(0, 500)
		if w > 0 {
			requireSafeOutput(t, lines, w)
		}
		_ = d.Search("x")
		_ = d.RowFor("x", 1)
	})
}

func TestStyleDegrades(t *testing.T) {
	t.Parallel()
	require.Equal(t, "github-dark", testStyle(termenv.ANSI256).Chroma)
	require.Empty(t, testStyle(termenv.ANSI).Chroma, "no syntax colours on 16-colour terminals")
	require.Empty(t, testStyle(termenv.Ascii).Chroma)
	ascii := sampleDiffView(testStyle(termenv.Ascii), 80).RenderRange(0, 100)
	require.NotContains(t, ascii, "\x1b", "NO_COLOR output has no escape codes")
	ansi := sampleDiffView(testStyle(termenv.ANSI), 80).RenderRange(0, 100)
	require.Contains(t, ansi, "\x1b[42m", "added lines keep a green background on 16 colours")
	requireSafeOutput(t, strings.Split(ansi, "\n"), 80)
}
