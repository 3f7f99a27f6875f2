package diffview

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
	"github.com/triage-dev/triage/internal/triage"
)

const benchWindow = 60

func BenchmarkDiffLayout20k(b *testing.B) {
	files := triage.ParseDiff(bigDiff(20000))
	b.ReportAllocs()
	for b.Loop() {
		_ = New(files)
	}
}

// BenchmarkDiffParseLayoutFirstWindow is what opening a trace with a
// 20,000-line diff costs: parse, lay out, and draw the first screen with
// cold caches (lexer lookup included).
func BenchmarkDiffParseLayoutFirstWindow(b *testing.B) {
	text := bigDiff(20000)
	st := testStyle(termenv.TrueColor)
	b.ReportAllocs()
	for b.Loop() {
		d := New(triage.ParseDiff(text)).Width(120).Style(st)
		_ = d.RenderRange(10000, benchWindow)
	}
}

func BenchmarkDiffFirstWindow(b *testing.B) {
	files := triage.ParseDiff(bigDiff(20000))
	st := testStyle(termenv.TrueColor)
	b.ReportAllocs()
	for b.Loop() {
		d := New(files).Width(120).Style(st)
		_ = d.RenderRange(10000, benchWindow)
	}
}

func BenchmarkDiffCachedWindow(b *testing.B) {
	d := New(triage.ParseDiff(bigDiff(20000))).Width(120).Style(testStyle(termenv.TrueColor))
	_ = d.RenderRange(10000, benchWindow)
	b.ReportAllocs()
	for b.Loop() {
		_ = d.RenderRange(10000, benchWindow)
	}
}

func BenchmarkDiffSearch20k(b *testing.B) {
	d := New(triage.ParseDiff(bigDiff(20000)))
	b.ReportAllocs()
	for b.Loop() {
		_ = d.Search("STEP(7)")
	}
}

// hugeOutput is 10 MB of output lines with tabs, wide characters and
// escape sequences.
func hugeOutput() string {
	line := strings.Repeat("x", 60) + "\t世界 \x1b[31mred\x1b[0m\n"
	return strings.Repeat(line, 10<<20/len(line))
}

func BenchmarkTestOutputHuge(b *testing.B) {
	out := hugeOutput()
	st := testStyle(termenv.TrueColor)
	b.ReportAllocs()
	for b.Loop() {
		o := NewTestOutput(out).Width(120).Style(st)
		_ = o.RenderRange(o.Len()-benchWindow, benchWindow)
	}
}
