package sqlite

// Benchmarks that justify how the store keeps tool calls, and measure
// LabelPending (the store's half of `triage rules run`). Figures and the
// decision they support are in docs/PERFORMANCE.md; run them with
//
//	go test -run XXX -bench . -benchmem ./internal/store/

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/triage-dev/triage/internal/triage"
)

// benchN is the number of traces each storage benchmark writes or reads.
const benchN = 10_000

// benchTools are ordinary tool calls of an invoice-client task, the same
// shape cmd/gentraces writes.
var benchTools = []string{
	`{"name":"read_file","args":{"path":"src/client.py"}}`,
	`{"name":"read_file","args":{"path":"openapi.yaml"}}`,
	`{"name":"list_dir","args":{"path":"src"}}`,
	`{"name":"grep","args":{"pattern":"invoice_id"}}`,
	`{"name":"bash","args":{"cmd":"pytest -q tests/test_client.py"}}`,
	`{"name":"edit_file","args":{"path":"src/client.py"}}`,
	`{"name":"write_file","args":{"path":"src/models.py"}}`,
	`{"name":"http","args":{"url":"/v1/invoices/inv_102/pay"}}`,
}

// benchRows makes n seed-format rows of about 640 bytes with 6 to 10
// (on average 8) tool calls each, decoded the way the store's tests
// decode, with Raw and ContentHash set as ingest sets them.
func benchRows(b *testing.B, n int) []*triage.Trace {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]*triage.Trace, n)
	var sb strings.Builder
	for i := range out {
		sb.Reset()
		fmt.Fprintf(&sb, `{"task_id":"T%03d","seed":%d,"model":"gpt-5.1","exit_code":%d,"tool_calls":[`, i%200, i/200, rng.IntN(2))
		for k := range 6 + rng.IntN(5) {
			if k > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(benchTools[rng.IntN(len(benchTools))])
		}
		fmt.Fprintf(&sb, `],"written_tests":false,"wall_s":%d.5,"wall_cap":180,"tokens":{"input":%d,"output":%d},"cost_usd":0.0057}`,
			10+rng.IntN(150), 8000+rng.IntN(40000), 300+rng.IntN(3500))
		raw := []byte(sb.String())
		t, err := testDecode(raw, "bench")
		if err != nil {
			b.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		t.Raw, t.Source, t.ContentHash = raw, "jsonl", hex.EncodeToString(sum[:])
		out[i] = t
	}
	return out
}

// toolCallSchema is alternative (b): one row per tool call, clustered by
// trace so one trace's calls are one range scan. It lives only in the
// benchmark's own database, never in a migration.
const toolCallSchema = `CREATE TABLE tool_calls (
    trace_id INTEGER NOT NULL REFERENCES traces(id),
    idx      INTEGER NOT NULL,
    name     TEXT NOT NULL,
    args     TEXT,
    output   TEXT NOT NULL DEFAULT '',
    error    TEXT NOT NULL DEFAULT '',
    wall_s   REAL,
    ts       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (trace_id, idx)
) STRICT, WITHOUT ROWID`

const toolCallCols = 8

// toolCallBatch is how many tool-call rows one INSERT writes, matching the
// multi-row batching import uses for traces.
const toolCallBatch = 64

// BenchmarkToolCallStorage writes benchN traces into a fresh store:
// "in-row" is what the store does (tool calls stay inside traces.raw,
// n_tool_calls is a column); "table" also writes one row per tool call
// into a separate table in the same transaction. It reports ns/trace and
// the bytes the file takes on disk per trace.
func BenchmarkToolCallStorage(b *testing.B) {
	traces := benchRows(b, benchN)
	calls := 0
	for _, t := range traces {
		calls += len(t.ToolCalls)
	}
	b.Logf("%d traces, %d tool calls (%.1f a trace)", len(traces), calls, float64(calls)/float64(len(traces)))
	b.Run("in-row", func(b *testing.B) { benchStorage(b, traces, false) })
	b.Run("table", func(b *testing.B) { benchStorage(b, traces, true) })
}

func benchStorage(b *testing.B, traces []*triage.Trace, table bool) {
	ctx := context.Background()
	dir := b.TempDir()
	var disk int64
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		path := filepath.Join(dir, strconv.Itoa(i)+".db")
		db, err := Open(ctx, path, testDecode)
		if err != nil {
			b.Fatal(err)
		}
		if table {
			if _, err := db.db.ExecContext(ctx, toolCallSchema); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if err := writeTraces(ctx, db, traces, table); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if table {
			checkToolCalls(b, db, traces)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		disk = diskBytes(b, path)
		removeDB(path)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(traces)), "ns/trace")
	b.ReportMetric(float64(disk)/float64(len(traces)), "disk-B/trace")
	b.ReportMetric(float64(disk)/(1<<20), "disk-MiB")
}

// writeTraces imports traces through the store's Import. With table set
// it also writes every tool call as a row, inside the import's own
// transaction, as each trace's result arrives. The store is fresh, so the
// k-th imported trace has id k (foreign keys check it).
func writeTraces(ctx context.Context, db *DB, traces []*triage.Trace, table bool) error {
	var im *Import
	var full *sql.Stmt
	var pending []any
	nextID := int64(0)
	flushCalls := func(final bool) error {
		n := len(pending) / toolCallCols
		if n == 0 || (!final && n < toolCallBatch) {
			return nil
		}
		st := full
		if n != toolCallBatch {
			var err error
			if st, err = im.tx.PrepareContext(ctx, toolCallInsert(n)); err != nil {
				return err
			}
			defer st.Close()
		}
		_, err := st.ExecContext(ctx, pending...)
		clear(pending)
		pending = pending[:0]
		return err
	}
	onResult := func(a Added) error {
		if a.Result != Imported {
			return fmt.Errorf("%s: want imported, got %d", a.Trace.Key(), a.Result)
		}
		nextID++
		if !table {
			return nil
		}
		for k, c := range a.Trace.ToolCalls {
			var args any
			if c.Args != nil {
				args = string(c.Args)
			}
			pending = append(pending, nextID, k, c.Name, args, c.Output, c.Error, nullFloat(c.WallS), c.TS)
			if err := flushCalls(false); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	if im, err = db.beginImport(ctx, onResult); err != nil {
		return err
	}
	defer im.Rollback()
	if table {
		if full, err = im.tx.PrepareContext(ctx, toolCallInsert(toolCallBatch)); err != nil {
			return err
		}
		defer full.Close()
	}
	for i, t := range traces {
		if err := im.Add(ctx, t, nil, "bench.jsonl", i+1); err != nil {
			return err
		}
	}
	if err := im.Flush(ctx); err != nil {
		return err
	}
	if err := flushCalls(true); err != nil {
		return err
	}
	return im.Commit(ctx)
}

func toolCallInsert(n int) string {
	row := "(" + placeholders(toolCallCols) + ")"
	return `INSERT INTO tool_calls (trace_id, idx, name, args, output, error, wall_s, ts) VALUES ` +
		strings.TrimSuffix(strings.Repeat(row+",", n), ",")
}

// checkToolCalls makes sure alternative (b) really wrote every call
// against the right trace, so its figure is not a figure of nothing.
func checkToolCalls(b *testing.B, db *DB, traces []*triage.Trace) {
	b.Helper()
	want := 0
	for _, t := range traces {
		want += len(t.ToolCalls)
	}
	var got, mismatched int
	err := db.db.QueryRow(`SELECT count(*), coalesce(sum(t.n_tool_calls <= c.idx), 0) FROM tool_calls c JOIN traces t ON t.id = c.trace_id`).Scan(&got, &mismatched)
	if err != nil {
		b.Fatal(err)
	}
	if got != want || mismatched != 0 {
		b.Fatalf("tool_calls: %d rows (%d out of range), want %d", got, mismatched, want)
	}
}

// diskBytes is the store's size on disk: the file plus any WAL left.
func diskBytes(b *testing.B, path string) int64 {
	b.Helper()
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func removeDB(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		os.Remove(p)
	}
}

// BenchmarkToolCallRead reads every trace's tool calls back, the access
// `rules run` makes: "in-row" reads stored rows in batches as LabelPending
// does and decodes their tool calls with fastjson (the parser ingest
// uses) through the store's own Decode, so whatever encoding the store
// gives raw is paid for; "table" scans the tool_calls table in trace
// order, which needs no JSON parsing at all.
func BenchmarkToolCallRead(b *testing.B) {
	traces := benchRows(b, benchN)
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "read.db")
	db, err := Open(ctx, path, toolCallDecode)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.db.ExecContext(ctx, toolCallSchema); err != nil {
		b.Fatal(err)
	}
	if err := writeTraces(ctx, db, traces, true); err != nil {
		b.Fatal(err)
	}
	want := 0
	for _, t := range traces {
		want += len(t.ToolCalls)
	}
	ids := make([]int64, len(traces))
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	read := func(b *testing.B, f func() (int, error)) {
		b.ReportAllocs()
		for b.Loop() {
			n, err := f()
			if err != nil {
				b.Fatal(err)
			}
			if n != want {
				b.Fatalf("read %d tool calls, want %d", n, want)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(traces)), "ns/trace")
	}
	b.Run("in-row", func(b *testing.B) {
		read(b, func() (int, error) {
			n := 0
			for lo := 0; lo < len(ids); lo += 2048 {
				part := ids[lo:min(lo+2048, len(ids))]
				rows := make([]StoredRow, len(part))
				for i, id := range part {
					rows[i] = StoredRow{ID: id, RunID: "bench"}
				}
				if _, err := fillBodies(ctx, db.db, rows, 0); err != nil {
					return 0, err
				}
				for _, r := range rows {
					t, err := db.Decode(r)
					if err != nil {
						return 0, err
					}
					n += len(t.ToolCalls)
				}
			}
			return n, nil
		})
	})
	b.Run("table", func(b *testing.B) {
		read(b, func() (int, error) {
			rows, err := db.db.QueryContext(ctx, `SELECT trace_id, idx, name, args, output, error, wall_s, ts FROM tool_calls ORDER BY trace_id, idx`)
			if err != nil {
				return 0, err
			}
			defer rows.Close()
			var calls []triage.ToolCall
			var id, prev int64
			var idx int
			var name, output, errText, ts string
			var args sql.RawBytes
			var wall sql.NullFloat64
			n := 0
			for rows.Next() {
				if err := rows.Scan(&id, &idx, &name, &args, &output, &errText, &wall, &ts); err != nil {
					return 0, err
				}
				if id != prev {
					n += len(calls)
					calls, prev = calls[:0], id
				}
				calls = append(calls, triage.ToolCall{Name: name, Args: append([]byte(nil), args...), Output: output, Error: errText, WallS: floatPtr(wall), TS: ts})
			}
			return n + len(calls), rows.Err()
		})
	})
}

// parsers reuses fastjson parsers (and their value caches) as ingest does.
var parsers fastjson.ParserPool

// toolCallDecode is a store Decoder that keeps only the tool calls, read
// with fastjson as ingest reads them.
func toolCallDecode(row []byte, run string) (*triage.Trace, error) {
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(row)
	if err != nil {
		return nil, err
	}
	t := &triage.Trace{RunID: run}
	for _, c := range v.GetArray("tool_calls") {
		tc := triage.ToolCall{Name: string(c.GetStringBytes("name"))}
		if a := c.Get("args"); a != nil {
			tc.Args = a.MarshalTo(nil)
		}
		t.ToolCalls = append(t.ToolCalls, tc)
	}
	return t, nil
}

// BenchmarkLabelPending measures the store's side of `rules run`: find
// the unlabelled traces among benchN, read their rows in batches, and
// write one rule verdict each, with a labeller that does no work. Each
// iteration starts from a copy of the same unlabelled store.
func BenchmarkLabelPending(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	tmpl := filepath.Join(dir, "template.db")
	db, err := Open(ctx, tmpl, testDecode)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeTraces(ctx, db, benchRows(b, benchN), false); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	trivial := func(rows []StoredRow) ([]triage.LabelEvent, error) {
		out := make([]triage.LabelEvent, len(rows))
		for i, r := range rows {
			out[i] = triage.LabelEvent{TraceID: r.ID, Actor: "rules", Kind: triage.KindRule, Verdict: &triage.Verdict{
				Primary: "PASS_CONTRACT", Secondary: []string{}, Fired: []string{"PASS_CONTRACT"}, Decision: triage.DecisionCertain,
				Outcome: triage.OutcomeSuccess, TaxonomyVersion: "tv", RulesVersion: "1",
			}}
		}
		return out, nil
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		path := filepath.Join(dir, strconv.Itoa(i)+".db")
		if err := copyFile(tmpl, path); err != nil {
			b.Fatal(err)
		}
		db, err := Open(ctx, path, testDecode)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		n, err := db.LabelPending(ctx, "", "tv", "1", trivial)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if n != benchN {
			b.Fatalf("labelled %d, want %d", n, benchN)
		}
		db.Close()
		removeDB(path)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchN), "ns/trace")
	b.ReportMetric(float64(b.N*benchN)/b.Elapsed().Seconds(), "traces/s")
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
