package ingest

import (
	"io"
	"testing"
)

// BenchmarkCaptureTail reads a terminal capture (a colour prompt, a
// command and a redrawn progress line, 58 bytes with 4 escape sequences)
// through the stripper, keeping its last maxCaptureText bytes.
func BenchmarkCaptureTail(b *testing.B) {
	line := []byte("\x1b[32mroot@box:/app#\x1b[0m python run.py\r\nprogress 10%\rprogress 100%\r\n")
	const size = 32 << 20
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readCaptureTail(io.LimitReader(&repeatReader{b: line}, size), maxCaptureText); err != nil {
			b.Fatal(err)
		}
	}
}
