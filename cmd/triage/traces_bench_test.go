package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkTracesJSON is `traces --json` over a store of the benchmark
// rows (benchRowsFile: 20,000 gentraces rows, or TRIAGE_BENCH_ROWS),
// imported and labelled by the rules, so every row carries a root cause
// read from its verdict's evidence. Run with
//
//	go test -run XXX -bench TracesJSON -benchmem ./cmd/triage/
func BenchmarkTracesJSON(b *testing.B) {
	dir := b.TempDir()
	db, rows := filepath.Join(dir, "b.db"), filepath.Join(dir, "rows.jsonl")
	if err := os.WriteFile(rows, benchRowsFile(b), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var errb bytes.Buffer
	for _, args := range [][]string{{"import", rows}, {"rules", "run"}} {
		if code := run(ctx, append([]string{"--db", db}, args...), strings.NewReader(""), io.Discard, &errb); code != exitOK {
			b.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	var out bytes.Buffer
	if code := run(ctx, []string{"--db", db, "traces", "--json"}, strings.NewReader(""), &out, &errb); code != exitOK {
		b.Fatalf("traces: exit %d: %s", code, errb.String())
	}
	if !bytes.Contains(out.Bytes(), []byte(`"root_cause":"`)) || bytes.Contains(out.Bytes(), []byte(`"root_cause":"",`)) {
		b.Fatal("every row should carry a root cause")
	}
	b.SetBytes(int64(out.Len()))
	b.ResetTimer()
	for b.Loop() {
		if code := run(ctx, []string{"--db", db, "traces", "--json"}, strings.NewReader(""), io.Discard, &errb); code != exitOK {
			b.Fatalf("traces: exit %d: %s", code, errb.String())
		}
	}
}
