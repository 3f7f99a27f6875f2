package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui"
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
			rows := shapeRows(b, dir, sh.runs, sh.tasks)
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

// BenchmarkReviewShapes is the review screen on a labelled store of each
// shape (issue 27 item 4: the first frame and a key press must not depend
// on how the rows spread over runs and tasks): "first" is a new screen
// sized and its first page of the queue read from the store and drawn,
// "next" the key that opens the next leftover's trace, drawn. Compare the
// shapes' ns/op; the targets are 150 ms and 16 ms.
//
//	go test -run XXX -bench ReviewShapes ./cmd/triage/
func BenchmarkReviewShapes(b *testing.B) {
	ctx := context.Background()
	for _, sh := range benchShapes {
		b.Run(sh.name, func(b *testing.B) {
			dir := b.TempDir()
			rows := shapeRows(b, dir, sh.runs, sh.tasks)
			dbPath := filepath.Join(dir, "labelled.db")
			var errb bytes.Buffer
			if code := run(ctx, []string{"--db", dbPath, "import", "--rules", rows}, strings.NewReader(""), io.Discard, &errb); code != exitOK {
				b.Fatalf("import --rules: exit %d: %s", code, errb.String())
			}
			db, err := openDB(ctx, dbPath, decodeRow)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			db.AllowConcurrentReads(2)
			us := &uiStore{db: db, tax: &triage.Taxonomy{}, app: &app{}}
			open := func() tea.Model {
				m := tea.Model(ui.New(us, ui.Config{Reviewer: "bench", Taxonomy: &triage.Taxonomy{}}))
				m = settleUI(b, m, tea.WindowSizeMsg{Width: 120, Height: 40})
				return settleUI(b, m, m.Init()())
			}
			b.Run("first", func(b *testing.B) {
				for b.Loop() {
					if v := open().View(); !strings.Contains(v, "labelled") {
						b.Fatalf("no queue on the first frame:\n%s", v)
					}
				}
			})
			b.Run("next", func(b *testing.B) {
				m := pressUI(b, open(), "enter")
				for b.Loop() {
					m = pressUI(b, m, "l")
					_ = m.View()
				}
			})
		})
	}
}

// shapeRows writes a shape's rows (gentraces -runs runs -tasks tasks) into
// dir and returns the file, or skips the benchmark where gentraces cannot run.
func shapeRows(b *testing.B, dir string, runs, tasks int) string {
	b.Helper()
	rows := filepath.Join(dir, "rows.jsonl")
	out, err := exec.Command("go", "run", "../gentraces", "-n", strconv.Itoa(benchShapeRows), "-seed", "1",
		"-runs", strconv.Itoa(runs), "-tasks", strconv.Itoa(tasks)).Output()
	if err != nil {
		b.Skipf("no rows: make go run ../gentraces work: %v", err)
	}
	if err := os.WriteFile(rows, out, 0o644); err != nil {
		b.Fatal(err)
	}
	return rows
}
