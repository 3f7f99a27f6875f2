package ingest

import (
	"bufio"
	"os"
	"testing"
)

// BenchmarkDecodeStored decodes rows the way `rules run` does (trusted,
// full): the rules' read side. TRIAGE_BENCH_ROWS names a JSONL file
// (scripts/bench.sh sets it); otherwise the sample traces are used.
func BenchmarkDecodeStored(b *testing.B) {
	rows := benchRows(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := DecodeStored(rows[i%len(rows)], "bench"); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func benchRows(b *testing.B) [][]byte {
	path := os.Getenv("TRIAGE_BENCH_ROWS")
	if path == "" {
		path = "../../testdata/sample/traces.jsonl"
	}
	f, err := os.Open(path)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	var rows [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() && len(rows) < 20000 {
		if len(sc.Bytes()) > 0 {
			rows = append(rows, append([]byte(nil), sc.Bytes()...))
		}
	}
	if len(rows) == 0 {
		b.Skip("no rows in " + path)
	}
	return rows
}
