package diffview

import (
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

func BenchmarkTimelineHugeOutputFolded(b *testing.B) {
	calls := []triage.ToolCall{{Name: "cat", Output: hugeOutput()}}
	st := testStyle(termenv.TrueColor)
	b.ReportAllocs()
	for b.Loop() {
		tl := NewTimeline(nil, calls).Width(120).Style(st)
		_ = tl.RenderRange(0, benchWindow)
	}
}

func BenchmarkTimelineHugeOutputExpandedFirst(b *testing.B) {
	calls := []triage.ToolCall{{Name: "cat", Output: hugeOutput()}}
	st := testStyle(termenv.TrueColor)
	b.ReportAllocs()
	for b.Loop() {
		tl := NewTimeline(nil, calls).Width(120).Style(st).Expanded(map[int]bool{0: true})
		_ = tl.RenderRange(tl.Len()/2, benchWindow)
	}
}

func BenchmarkTimelineHugeOutputCachedWindow(b *testing.B) {
	calls := []triage.ToolCall{{Name: "cat", Output: hugeOutput()}}
	tl := NewTimeline(nil, calls).Width(120).Style(testStyle(termenv.TrueColor)).Expanded(map[int]bool{0: true})
	_ = tl.RenderRange(tl.Len()/2, benchWindow)
	b.ReportAllocs()
	for b.Loop() {
		_ = tl.RenderRange(tl.Len()/2, benchWindow)
	}
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
