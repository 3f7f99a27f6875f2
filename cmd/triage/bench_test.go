package main

// Decoding baselines for docs/PERFORMANCE.md: the standard library's
// encoding/json on seed-format rows beside the project's decoder, on the
// same bytes. Run with
//
//	go test -run XXX -bench DecodeRows -benchmem ./cmd/triage/
//
// TRIAGE_BENCH_ROWS=FILE uses the first benchDecodeRows rows of a JSONL file
// (scripts/bench.sh passes its 100k file); otherwise the rows come from
// `go run ./cmd/gentraces -seed 1`, the generator the import figures use.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/triage-dev/triage/internal/ingest"
	"github.com/triage-dev/triage/internal/triage"
)

// benchDecodeRows is how many rows one benchmark operation decodes.
const benchDecodeRows = 20_000

// benchRowsFile returns the benchmark's input: one row a line.
func benchRowsFile(b *testing.B) []byte {
	b.Helper()
	var data []byte
	if path := os.Getenv("TRIAGE_BENCH_ROWS"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		var buf bytes.Buffer
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for n := 0; n < benchDecodeRows && sc.Scan(); n++ {
			buf.Write(sc.Bytes())
			buf.WriteByte('\n')
		}
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
		data = buf.Bytes()
	} else {
		out, err := exec.Command("go", "run", "../gentraces", "-n", strconv.Itoa(benchDecodeRows), "-seed", "1").Output()
		if err != nil {
			b.Skipf("no rows: set TRIAGE_BENCH_ROWS or make go run ../gentraces work: %v", err)
		}
		data = out
	}
	if len(data) == 0 {
		b.Fatal("no rows to decode")
	}
	return data
}

// BenchmarkDecodeRows decodes the same rows four ways and reports MB/s and
// rows/s: encoding/json into a map (what a script would do) and into
// triage.Trace, ingest.DecodeRow (strict: UTF-8, NUL and syntax checks,
// every field, the content hash) on one goroutine, and the JSONL format's
// streaming decoder with the options import uses (lite rows, split and
// decoded over every core).
func BenchmarkDecodeRows(b *testing.B) {
	data := benchRowsFile(b)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	b.Logf("%d rows, %d bytes (%.0f a row)", len(lines), len(data), float64(len(data))/float64(len(lines)))
	each := func(b *testing.B, decode func(row []byte) error) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if err := decode(l); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N*len(lines))/b.Elapsed().Seconds(), "rows/s")
	}
	b.Run("encoding-json-map", func(b *testing.B) {
		each(b, func(row []byte) error {
			var m map[string]any
			return json.Unmarshal(row, &m)
		})
	})
	b.Run("encoding-json-struct", func(b *testing.B) {
		each(b, func(row []byte) error {
			var t triage.Trace
			return json.Unmarshal(row, &t)
		})
	})
	b.Run("ingest-DecodeRow", func(b *testing.B) {
		each(b, func(row []byte) error {
			_, err := ingest.DecodeRow(row, "bench")
			return err
		})
	})
	b.Run("ingest-jsonl-stream-lite", func(b *testing.B) {
		f, ok := ingest.Lookup("jsonl")
		if !ok {
			b.Fatal("no jsonl format")
		}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		ctx := context.Background()
		for b.Loop() {
			n := 0
			src := ingest.Source{Name: "bench.jsonl", R: bytes.NewReader(data), Opts: ingest.Options{RunID: "bench", Lite: true}}
			err := f.Decode(ctx, src, func(r ingest.Record) error {
				if r.Reject != nil {
					return r.Reject
				}
				if r.Trace != nil {
					n++
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			if n != len(lines) {
				b.Fatalf("decoded %d rows, want %d", n, len(lines))
			}
		}
		b.ReportMetric(float64(b.N*len(lines))/b.Elapsed().Seconds(), "rows/s")
	})
}
