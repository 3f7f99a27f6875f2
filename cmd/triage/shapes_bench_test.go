package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// benchShapes are issue 27's shapes at 20,000 rows, a size CI runs: the
// same rows in one run of 1,000 tasks, in 400 runs of 50 tasks (a nightly
// suite; 2,000 × 50 at 100k), and a task a row (a large benchmark, one
// attempt each). Their costs must be within 1.5× of each other.
var benchShapes = []struct {
	name        string
	runs, tasks int
}{
	{"one-run", 0, 1000},
	{"nightly", 400, 50},
	{"wide", 0, benchShapeRows},
}

const benchShapeRows = 20000

// BenchmarkShapes is `rules run` (on a copy of an imported store, made
// outside the timer) and `import --rules` (into a fresh store) on each
// shape; rows/s is the figure to compare between shapes. Run with
//
//	go test -run XXX -bench Shapes -benchmem ./cmd/triage/
func BenchmarkShapes(b *testing.B) {
	ctx := context.Background()
	for _, sh := range benchShapes {
		b.Run(sh.name, func(b *testing.B) {
			dir := b.TempDir()
			rows := filepath.Join(dir, "rows.jsonl")
			out, err := exec.Command("go", "run", "../gentraces", "-n", strconv.Itoa(benchShapeRows), "-seed", "1",
				"-runs", strconv.Itoa(sh.runs), "-tasks", strconv.Itoa(sh.tasks)).Output()
			if err != nil {
				b.Skipf("no rows: make go run ../gentraces work: %v", err)
			}
			if err := os.WriteFile(rows, out, 0o644); err != nil {
				b.Fatal(err)
			}
			cli := func(db string, args ...string) string {
				b.Helper()
				var outb, errb bytes.Buffer
				if code := run(ctx, append([]string{"--db", db}, args...), strings.NewReader(""), &outb, &errb); code != exitOK {
					b.Fatalf("%v: exit %d: %s", args, code, errb.String())
				}
				return outb.String()
			}
			imported := filepath.Join(dir, "imported.db")
			cli(imported, "import", rows)
			b.Run("rules", func(b *testing.B) {
				i := 0
				for b.Loop() {
					b.StopTimer()
					db := filepath.Join(dir, fmt.Sprintf("rules-%d.db", i))
					i++
					copyFile(b, imported, db)
					b.StartTimer()
					if out := cli(db, "rules", "run"); !strings.Contains(out, strconv.Itoa(benchShapeRows)+" traces labelled") {
						b.Fatalf("rules run on the copy: %s", out)
					}
				}
				b.ReportMetric(float64(benchShapeRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
			b.Run("onepass", func(b *testing.B) {
				i := 0
				for b.Loop() {
					db := filepath.Join(dir, fmt.Sprintf("onepass-%d.db", i))
					i++
					cli(db, "import", "--rules", rows)
				}
				b.ReportMetric(float64(benchShapeRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		})
	}
}

// copyFile copies a closed SQLite store (its WAL is checkpointed on close).
func copyFile(b *testing.B, from, to string) {
	b.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		b.Fatal(err)
	}
}
