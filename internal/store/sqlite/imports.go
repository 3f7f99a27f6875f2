package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// Import is one write transaction over many traces: callers add traces
// and rejects, then Commit (or Rollback, as --strict does on bad input).
// Traces are written in batches, so each one's result arrives through the
// callback given to BeginImport, in the order added, at the latest on
// Flush or Commit. It is not safe for concurrent use.
type Import struct {
	db   *DB
	conn *sql.Conn
	tx   *sql.Tx
	// probe asks the writer queue whether anyone waits for the lock;
	// stepStart is when the current step's transaction began; whole
	// (Whole) forbids steps.
	probe     queueProbe
	stepStart time.Time
	whole     bool
	// steps counts the steps committed before the last (for tests).
	steps int
	rej   *sql.Stmt
	// inserts holds the prepared INSERTs of a full batch, one for each
	// set of shared columns met so far (insertSQL).
	inserts  map[uint32]*sql.Stmt
	lookFull *sql.Stmt
	chunk    *sql.Stmt
	newFile  *sql.Stmt
	// imports are the imports rows of the files met so far.
	imports map[string]int64
	runs    map[string]bool
	stamp   string
	closed  bool
	pending []Added
	// pendingBytes is the bodies' size in pending: a batch also ends at
	// importBatchBytes, so a file of large traces holds few at once.
	pendingBytes int
	inflight     []*packing
	onResult     func(Added) error
	// maxID is the highest trace id before the current insert: rows above
	// it were written by this import.
	maxID       int64
	lookupFirst bool
	// label, when set (LabelWith), gives every stored trace its rule
	// verdict in this transaction.
	label *importLabel
	// grown says the import's traces came in no key order and it went
	// back to the usual page cache (growCache); written counts the
	// traces its batches have held so far, and sweepRows is the bound
	// on them past which a descent grows the cache (a test lowers it).
	grown     bool
	written   int
	sweepRows int
}

// importBatch is how many traces one statement writes: a multi-row
// INSERT amortises the per-statement cost of database/sql and the driver,
// which dominates single-row inserts (docs/PERFORMANCE.md). A batch also
// ends once its bodies pass importBatchBytes.
const (
	importBatch      = 256
	importBatchBytes = 8 << 20
)

// maxInflight is how many batches may be packing while one is written.
// With one, the writer waited for the packing of the next batch for a
// quarter of `import --rules`: packing shares its core with decoding, and
// the two together take about what writing takes. Each more batch in
// flight costs about 9 MB of peak memory (docs/PERFORMANCE.md).
const maxInflight = 2

// BeginImport starts an import transaction. The transaction is immediate:
// a second writer waits (busy_timeout) instead of failing. onResult
// receives every added trace with its result.
//
// The transaction runs with foreign-key checks off, on a connection pinned
// for it: with them on, every multi-row INSERT may abort halfway, so SQLite
// copies each page it touches into a statement journal first (17 % of
// import's writer in a profile). Import itself keeps the keys true: a
// trace's run is inserted before the trace, and a body names the id its
// trace has just been given. The checks are back on when the import ends.
//
// While another writer waits for the lock (the review screen saving a
// label, a second import, a rules run), the import commits what it has
// written at the end of a batch and lets that writer go first, then goes
// on in a new transaction: a step. So a big file may land in several
// transactions; one killed between steps leaves its first steps, and the
// next import of the file adds the rest (the others come back as
// duplicates). Whole keeps a file in one transaction, as --strict needs.
func (s *DB) BeginImport(ctx context.Context, onResult func(Added) error) (store.Import, error) {
	im, err := s.beginImport(ctx, onResult)
	if err != nil {
		return nil, err
	}
	return im, nil
}

// beginImport is BeginImport with the concrete type, for tests.
func (s *DB) beginImport(ctx context.Context, onResult func(Added) error) (*Import, error) {
	conn, err := s.pinWithoutForeignKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin import: %w", err)
	}
	im := &Import{db: s, conn: conn, runs: map[string]bool{}, stamp: s.stamp(), onResult: onResult, imports: map[string]int64{}, probe: s.queue.probe(), sweepRows: sweepRows}
	if err := im.beginStep(ctx); err != nil {
		im.probe.close()
		restoreForeignKeys(conn)
		return nil, fmt.Errorf("begin import: %w", err)
	}
	return im, nil
}

// Whole keeps the import in one transaction: it never steps aside for a
// waiting writer, who waits until it commits or rolls back (--strict,
// which must be able to roll everything back).
func (im *Import) Whole() { im.whole = true }

// beginStep begins the import's transaction (again, after a step) and
// prepares its statements, which live as long as the transaction.
func (im *Import) beginStep(ctx context.Context) error {
	tx, err := im.db.beginWrite(ctx, func() (*sql.Tx, error) { return im.conn.BeginTx(ctx, nil) })
	if err != nil {
		return err
	}
	im.tx, im.stepStart = tx, time.Now()
	im.inserts = map[uint32]*sql.Stmt{}
	if im.label != nil {
		im.label.w = nil
	}
	im.rej, err = tx.PrepareContext(ctx, `INSERT INTO rejects (file, line, reason, raw, raw_sha256, created_at) VALUES (?,?,?,?,?,?) ON CONFLICT DO NOTHING`)
	if err == nil {
		im.lookFull, err = tx.PrepareContext(ctx, lookupSQL(importBatch))
	}
	if err == nil {
		im.chunk, err = tx.PrepareContext(ctx, `INSERT INTO trace_chunks (first_id, last_id, body) VALUES (?,?,?)`)
	}
	if err == nil {
		im.newFile, err = tx.PrepareContext(ctx, `INSERT INTO imports (file, imported_at) VALUES (?,?)`)
	}
	if err == nil {
		// Other writers may have added traces during the last step.
		err = tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM traces`).Scan(&im.maxID)
	}
	if err != nil {
		tx.Rollback()
		im.tx = nil
		return mapErr(err)
	}
	return nil
}

// maybeStep ends a step after a batch was written, when another writer
// waits and this one has held the lock for minStep: it commits, lets the
// waiting writers take the lock, and begins again.
func (im *Import) maybeStep(ctx context.Context) error {
	if im.whole || time.Since(im.stepStart) < minStep || !im.probe.waiting() {
		return nil
	}
	im.probe.say("")
	if err := im.db.committed(im.tx.Commit()); err != nil {
		im.tx = nil
		return err
	}
	im.tx = nil
	im.steps++
	// The waiting writers leave the queue once their transaction has
	// begun; until then, this one keeps off the lock.
	for deadline := time.Now().Add(maxYield); im.probe.waiting() && time.Now().Before(deadline); {
		time.Sleep(2 * time.Millisecond)
	}
	return im.beginStep(ctx)
}

// pinWithoutForeignKeys takes a connection of its own for one write
// transaction and turns foreign-key checks off on it (SQLite ignores the
// pragma inside a transaction), with the small page cache of a bulk write
// (pinBulk). restoreForeignKeys gives it back.
func (s *DB) pinWithoutForeignKeys(ctx context.Context) (*sql.Conn, error) {
	conn, err := s.pinBulk(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		unpinBulk(conn)
		return nil, mapErr(err)
	}
	return conn, nil
}

// restoreForeignKeys turns the checks back on and returns a pinned
// connection to the pool. It runs even when the caller's context is done:
// a pooled connection without foreign keys would weaken every later
// writer.
func restoreForeignKeys(conn *sql.Conn) {
	conn.ExecContext(context.Background(), `PRAGMA foreign_keys = ON`)
	unpinBulk(conn)
}

// traceCols are the columns an import binds and how to read each from
// an Added. same is set for the columns whose value most batches hold for
// every row: insertSQL binds such a column once for the whole batch.
//
// Binding a parameter takes the connection's mutex and, for text, a C
// allocation, a copy and a free: the binds were a quarter of the import's
// writer (docs/PERFORMANCE.md). The mostly empty text columns (model,
// agent, prompt, outcome) are bound as NULL when empty and coalesced to
// the empty string by SQLite, so that no NULL reaches them. Integers go in
// as int64: database/sql passes driver.Value types through as they are,
// and converts any other by reflection and a second allocation.
var traceCols = [...]struct {
	name, param string
	value       func(a *Added) any
	same        func(a, b *Added) bool
}{
	{"run_id", "?", func(a *Added) any { return a.Trace.RunID }, func(a, b *Added) bool { return a.Trace.RunID == b.Trace.RunID }},
	{"task_id", "?", func(a *Added) any { return a.Trace.TaskID }, nil},
	{"seed", "?", func(a *Added) any { return int64(a.Trace.Seed) }, nil},
	{"model", "coalesce(?,'')", func(a *Added) any { return orNull(a.Trace.Model) }, func(a, b *Added) bool { return a.Trace.Model == b.Trace.Model }},
	{"agent", "coalesce(?,'')", func(a *Added) any { return orNull(a.Trace.Agent) }, func(a, b *Added) bool { return a.Trace.Agent == b.Trace.Agent }},
	{"prompt_id", "coalesce(?,'')", func(a *Added) any { return orNull(a.Trace.PromptID) }, func(a, b *Added) bool { return a.Trace.PromptID == b.Trace.PromptID }},
	{"exit_code", "?", func(a *Added) any {
		if a.Trace.ExitCode == nil {
			return nil
		}
		return int64(*a.Trace.ExitCode)
	}, nil},
	{"outcome", "coalesce(?,'')", func(a *Added) any { return orNull(string(a.Trace.Outcome)) }, func(a, b *Added) bool { return a.Trace.Outcome == b.Trace.Outcome }},
	{"n_tool_calls", "?", func(a *Added) any { return int64(len(a.Trace.ToolCalls)) }, nil},
	{"wall_s", "?", func(a *Added) any { return nullFloat(a.Trace.WallS) }, nil},
	{"tokens_in", "?", func(a *Added) any {
		if a.Trace.Tokens == nil {
			return nil
		}
		return a.Trace.Tokens.Input
	}, nil},
	{"tokens_out", "?", func(a *Added) any {
		if a.Trace.Tokens == nil {
			return nil
		}
		return a.Trace.Tokens.Output
	}, nil},
	{"cost_usd", "?", func(a *Added) any { return nullFloat(a.Trace.CostUSD) }, nil},
	{"source", "?", func(a *Added) any { return a.Trace.Source }, func(a, b *Added) bool { return a.Trace.Source == b.Trace.Source }},
	{"content_hash", "?", func(a *Added) any { return a.Trace.ContentHash }, nil},
	{"import_id", "?", func(a *Added) any { return a.ImportID }, func(a, b *Added) bool { return a.ImportID == b.ImportID }},
	{"line", "?", func(a *Added) any { return int64(a.Line) }, nil},
}

// sharedMask has bit c set when column c can be shared and holds one
// value in every trace of batch at idx.
func sharedMask(batch []Added, idx []int) uint32 {
	var mask uint32
	for c, col := range traceCols {
		if col.same == nil || len(idx) == 0 {
			continue
		}
		first := &batch[idx[0]]
		same := true
		for _, i := range idx[1:] {
			if same = col.same(first, &batch[i]); !same {
				break
			}
		}
		if same {
			mask |= 1 << c
		}
	}
	return mask
}

// insertSQL is the INSERT of n traces whose columns in mask are bound
// once: they come first in every row as ?1…?k, so that the anonymous
// parameters of the first row number on from k+1 and the statement takes
// the shared values, then each row's others.
//
// It says OR IGNORE, not ON CONFLICT DO NOTHING: only then can no
// constraint abort the statement (NOT NULL and CHECK would, under the
// upsert's clause), and SQLite needs no statement journal for it. Import
// binds no NULL to a NOT NULL column and no value of the wrong type, so
// the only row IGNORE skips is a key already stored: the duplicate the
// lookup then reports.
func insertSQL(mask uint32, n int) string {
	var cols, row []string
	k := 0
	for i, c := range traceCols {
		if mask&(1<<i) != 0 {
			k++
			cols = append(cols, c.name)
			row = append(row, strings.Replace(c.param, "?", "?"+strconv.Itoa(k), 1))
		}
	}
	for i, c := range traceCols {
		if mask&(1<<i) == 0 {
			cols = append(cols, c.name)
			row = append(row, c.param)
		}
	}
	tuple := "(" + strings.Join(row, ",") + ")"
	return `INSERT OR IGNORE INTO traces (` + strings.Join(cols, ", ") + `) VALUES ` + strings.TrimSuffix(strings.Repeat(tuple+",", n), ",")
}

// orNull is s, or NULL when s is empty (see traceCols).
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func lookupSQL(n int) string {
	return `SELECT run_id, task_id, seed, content_hash, id FROM traces WHERE (run_id, task_id, seed) IN (VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?,?,?),", n), ",") + `)`
}

// Add queues t for writing. norm is the normalised row to keep beside Raw
// when the source was not our JSONL (nil otherwise).
func (im *Import) Add(ctx context.Context, t *triage.Trace, norm []byte, file string, line int) error {
	if !im.runs[t.RunID] {
		if _, err := im.tx.ExecContext(ctx, `INSERT INTO runs (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`, t.RunID, im.stamp); err != nil {
			return mapErr(err)
		}
		im.runs[t.RunID] = true
	}
	importID, ok := im.imports[file]
	if !ok {
		res, err := im.newFile.ExecContext(ctx, file, im.stamp)
		if err != nil {
			return mapErr(err)
		}
		if importID, err = res.LastInsertId(); err != nil {
			return mapErr(err)
		}
		im.imports[file] = importID
	}
	im.pending = append(im.pending, Added{Trace: t, Norm: norm, File: file, Line: line, ImportID: importID})
	im.pendingBytes += len(t.Raw) + len(norm)
	if len(im.pending) < importBatch && im.pendingBytes < importBatchBytes {
		return nil
	}
	// Compress the full batch on another goroutine while the previous
	// one is written: compression is parallel work, writing is not.
	b := im.takePending()
	go b.pack()
	im.inflight = append(im.inflight, b)
	if len(im.inflight) > maxInflight {
		return im.writeOldest(ctx)
	}
	return nil
}

// packing is a batch being compressed for storage.
type packing struct {
	batch []Added
	// blocks are the batch's bodies packed as chunk blocks, one for each
	// run of traces packRuns cut (runs[r] is block r's [start, end)).
	runs   [][2]int
	blocks [][]byte
	// With LabelWith, the batch's verdicts, labelled and encoded here
	// too: labelling is parallel work as well.
	label    *importLabel
	verdicts labelled
	// firstOf[i] is the place of the batch's first trace with batch[i]'s
	// key, and uniq those first places in order; mask and args are the
	// INSERT of uniq (insertArgs). Worked out here too, so that the
	// writer, which is the import's bottleneck, only writes.
	firstOf []int
	uniq    []int
	mask    uint32
	args    []any
	// descents is how many of the batch's keys are below the one
	// before (growCache).
	descents int
	done     chan struct{}
}

func (p *packing) pack() {
	defer close(p.done)
	raws, norms := make([][]byte, len(p.batch)), make([][]byte, len(p.batch))
	for i, a := range p.batch {
		raws[i], norms[i] = a.Trace.Raw, a.Norm
	}
	p.runs, p.blocks = packRuns(raws, norms)
	if p.label != nil {
		p.verdicts = p.label.batch(p.batch)
	}
	p.firstOf, p.uniq = firstOfKeys(p.batch)
	p.descents = keyDescents(p.batch)
	p.mask, p.args = insertArgs(p.batch, p.uniq)
}

// firstOfKeys finds, for each trace of batch, the first trace with its
// key, and lists those first ones: a key repeated in one batch is
// written once.
func firstOfKeys(batch []Added) (firstOf, uniq []int) {
	firstOf = make([]int, len(batch))
	seen := make(map[traceKey]int, len(batch))
	for i := range batch {
		k := keyOf(batch[i].Trace)
		f, ok := seen[k]
		if !ok {
			f = i
			seen[k] = i
			uniq = append(uniq, i)
		}
		firstOf[i] = f
	}
	return firstOf, uniq
}

// takePending hands the queued traces to a new packing.
func (im *Import) takePending() *packing {
	b := &packing{batch: im.pending, label: im.label, done: make(chan struct{})}
	im.pending, im.pendingBytes = nil, 0
	return b
}

func (im *Import) writeOldest(ctx context.Context) error {
	b := im.inflight[0]
	im.inflight = im.inflight[1:]
	<-b.done
	if b.verdicts.err != nil {
		return b.verdicts.err
	}
	if err := im.write(ctx, b); err != nil {
		return err
	}
	return im.maybeStep(ctx)
}

// Flush writes every queued trace and reports their results.
func (im *Import) Flush(ctx context.Context) error {
	if len(im.pending) > 0 {
		b := im.takePending()
		b.pack()
		im.inflight = append(im.inflight, b)
	}
	for len(im.inflight) > 0 {
		if err := im.writeOldest(ctx); err != nil {
			return err
		}
	}
	return nil
}

type traceKey struct {
	run, task string
	seed      int
}

func keyOf(t *triage.Trace) traceKey { return traceKey{t.RunID, t.TaskID, t.Seed} }

// write stores one packed batch and reports its results. New traces cost
// one multi-row INSERT; only when some did not land (already stored) does
// a lookup follow. After a batch of nothing but duplicates the next batch
// is looked up first, so a re-import costs one query a batch.
func (im *Import) write(ctx context.Context, p *packing) error {
	if err := im.growCache(ctx, p.descents, len(p.batch)); err != nil {
		return err
	}
	batch := p.batch
	var ids []int64
	var ours []int
	// stored is what the store holds under each key of the batch, when
	// not every key was new; nil when the batch's INSERT wrote them all.
	var stored map[traceKey]storedKey
	if im.lookupFirst {
		var err error
		if stored, err = im.lookup(ctx, batch, p.uniq); err != nil {
			return err
		}
		var toInsert []int
		for _, i := range p.uniq {
			if _, ok := stored[keyOf(batch[i].Trace)]; !ok {
				toInsert = append(toInsert, i)
			}
		}
		if len(toInsert) > 0 {
			mask, args := insertArgs(batch, toInsert)
			if err := im.insertSome(ctx, batch, toInsert, mask, args, stored); err != nil {
				return err
			}
		}
	} else {
		prev := im.maxID
		n, err := im.insert(ctx, p.mask, p.args, len(p.uniq))
		if err != nil {
			return err
		}
		if n == len(p.uniq) {
			// All landed: one statement in one transaction assigns
			// consecutive rowids in VALUES order.
			ids, ours = make([]int64, n), p.uniq
			for j := range ids {
				ids[j] = im.maxID - int64(n) + 1 + int64(j)
			}
		} else {
			// Someone else stored some of these keys meanwhile.
			if stored, err = im.lookup(ctx, batch, p.uniq); err != nil {
				return err
			}
			markOurs(stored, prev)
		}
	}
	if stored != nil {
		ids, ours = storedByUs(batch, p.uniq, stored)
	}
	if len(ids) > 0 {
		if err := im.insertChunk(ctx, p, ids, ours); err != nil {
			return err
		}
		if im.label != nil {
			if err := im.label.write(ctx, im.tx, p, ids, ours, im.stamp); err != nil {
				return err
			}
		}
	}
	// idAt[i] is the id written for batch[i] when stored is nil (then
	// every first of a key is ours, and ids follows ours).
	var idAt []int64
	if stored == nil {
		idAt = make([]int64, len(batch))
		for j, i := range ours {
			idAt[i] = ids[j]
		}
	}
	imported := 0
	for i := range batch {
		f := p.firstOf[i]
		hash, ours, id := batch[f].Trace.ContentHash, true, int64(0)
		if stored != nil {
			st := stored[keyOf(batch[i].Trace)]
			hash, ours, id = st.hash, st.ours, st.id
		} else {
			id = idAt[f]
		}
		switch {
		case f == i && ours:
			batch[i].Result, batch[i].ID = Imported, id
			imported++
		case hash == batch[i].Trace.ContentHash:
			batch[i].Result, batch[i].ID = Duplicate, id
		default:
			batch[i].Result = Conflict
		}
	}
	im.lookupFirst = imported == 0
	for _, a := range batch {
		if err := im.onResult(a); err != nil {
			return err
		}
	}
	return nil
}

// insertSome writes the traces at idx, none of which the lookup found,
// and adds what the store then holds under their keys to stored.
func (im *Import) insertSome(ctx context.Context, batch []Added, idx []int, mask uint32, args []any, stored map[traceKey]storedKey) error {
	prev := im.maxID
	n, err := im.insert(ctx, mask, args, len(idx))
	if err != nil {
		return err
	}
	if n == len(idx) {
		for j, i := range idx {
			stored[keyOf(batch[i].Trace)] = storedKey{hash: batch[i].Trace.ContentHash, id: im.maxID - int64(n) + 1 + int64(j), ours: true}
		}
		return nil
	}
	// Someone else stored some of these keys meanwhile.
	more, err := im.lookup(ctx, batch, idx)
	if err != nil {
		return err
	}
	markOurs(more, prev)
	maps.Copy(stored, more)
	return nil
}

// markOurs marks the keys whose trace this import wrote: those with an id
// above prev, the highest before its INSERT.
func markOurs(stored map[traceKey]storedKey, prev int64) {
	for k, v := range stored {
		if v.id > prev {
			v.ours = true
			stored[k] = v
		}
	}
}

// storedByUs lists the ids of the traces of uniq this import wrote,
// ascending, and their places in batch.
func storedByUs(batch []Added, uniq []int, stored map[traceKey]storedKey) ([]int64, []int) {
	var ours []int
	for _, i := range uniq {
		if stored[keyOf(batch[i].Trace)].ours {
			ours = append(ours, i)
		}
	}
	id := func(i int) int64 { return stored[keyOf(batch[i].Trace)].id }
	sort.Slice(ours, func(a, b int) bool { return id(ours[a]) < id(ours[b]) })
	ids := make([]int64, len(ours))
	for j, i := range ours {
		ids[j] = id(i)
	}
	return ids, ours
}

// storedKey is what the store holds under a key: its content hash, and
// whether this import wrote it.
type storedKey struct {
	hash string
	id   int64
	ours bool
}

// maxInsertShapes bounds the prepared INSERTs an import keeps: a file
// whose batches share ever-changing sets of columns prepares the rest
// for one batch each.
const maxInsertShapes = 8

// insertArgs are the mask of columns the traces at idx share and the
// arguments of their INSERT (insertSQL).
func insertArgs(batch []Added, idx []int) (uint32, []any) {
	mask := sharedMask(batch, idx)
	args := make([]any, 0, len(traceCols)*len(idx))
	for c, col := range traceCols {
		if mask&(1<<c) != 0 {
			args = append(args, col.value(&batch[idx[0]]))
		}
	}
	for _, i := range idx {
		for c, col := range traceCols {
			if mask&(1<<c) == 0 {
				args = append(args, col.value(&batch[i]))
			}
		}
	}
	return mask, args
}

// insert writes n traces: the INSERT of mask with args (insertArgs). It
// returns how many landed.
func (im *Import) insert(ctx context.Context, mask uint32, args []any, n int) (int, error) {
	st, ok := im.inserts[mask]
	if !ok || n != importBatch {
		var err error
		if st, err = im.tx.PrepareContext(ctx, insertSQL(mask, n)); err != nil {
			return 0, mapErr(err)
		}
		if n == importBatch && len(im.inserts) < maxInsertShapes {
			im.inserts[mask] = st
		} else {
			defer st.Close()
		}
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, mapErr(err)
	}
	landed, _ := res.RowsAffected()
	if landed > 0 {
		im.maxID, _ = res.LastInsertId()
	}
	return int(landed), nil
}

// insertChunk stores the bodies of the traces this import wrote (ids,
// ascending, at places ours of the batch), a chunk for each run packRuns
// cuts. The blocks packed ahead hold the whole batch; when only some of
// it was written (rare outside a re-import, which writes no chunk) those
// are packed again on their own.
func (im *Import) insertChunk(ctx context.Context, p *packing, ids []int64, ours []int) error {
	runs, blocks := p.runs, p.blocks
	whole := len(ours) == len(p.batch)
	for j, i := range ours {
		whole = whole && i == j
	}
	if !whole {
		raws, norms := make([][]byte, len(ours)), make([][]byte, len(ours))
		for j, i := range ours {
			raws[j], norms[j] = p.batch[i].Trace.Raw, p.batch[i].Norm
		}
		runs, blocks = packRuns(raws, norms)
	}
	for r, run := range runs {
		part := ids[run[0]:run[1]]
		if _, err := im.chunk.ExecContext(ctx, part[0], part[len(part)-1], chunkBody(part, blocks[r])); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

func (im *Import) lookup(ctx context.Context, batch []Added, idx []int) (map[traceKey]storedKey, error) {
	st := im.lookFull
	if len(idx) != importBatch {
		var err error
		if st, err = im.tx.PrepareContext(ctx, lookupSQL(len(idx))); err != nil {
			return nil, mapErr(err)
		}
		defer st.Close()
	}
	args := make([]any, 0, 3*len(idx))
	for _, i := range idx {
		t := batch[i].Trace
		args = append(args, t.RunID, t.TaskID, t.Seed)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	out := make(map[traceKey]storedKey, len(idx))
	for rows.Next() {
		var k traceKey
		var v storedKey
		if err := rows.Scan(&k.run, &k.task, &k.seed, &v.hash, &v.id); err != nil {
			return nil, mapErr(err)
		}
		out[k] = v
	}
	return out, mapErr(rows.Err())
}

// Reject files a line that could not be imported, with at most
// MaxRejectRaw of its bytes; the hash that keeps it once is of all of
// them.
func (im *Import) Reject(ctx context.Context, r Reject) error {
	sum := sha256.Sum256(r.Raw)
	raw, reason := r.Raw, r.Reason
	if raw == nil {
		raw = []byte{}
	}
	if len(raw) > MaxRejectRaw {
		reason = fmt.Sprintf("%s (the line is %d bytes; its first %d are kept)", reason, len(raw), MaxRejectRaw)
		raw = raw[:MaxRejectRaw]
	}
	_, err := im.rej.ExecContext(ctx, r.File, r.Line, reason, raw, hex.EncodeToString(sum[:]), im.stamp)
	return mapErr(err)
}

// Commit writes what is queued and makes the import durable.
func (im *Import) Commit(ctx context.Context) error {
	if im.closed {
		return errors.New("import already closed")
	}
	if err := im.Flush(ctx); err != nil {
		im.Rollback()
		return err
	}
	if im.tx == nil {
		im.Rollback()
		return errors.New("import: no transaction to commit")
	}
	im.closed = true
	im.probe.say("")
	im.probe.close()
	err := im.tx.Commit()
	restoreForeignKeys(im.conn)
	return im.db.committed(err)
}

// Rollback discards the import; it is safe after Commit.
func (im *Import) Rollback() error {
	if im.closed {
		return nil
	}
	im.closed = true
	im.probe.say("")
	im.probe.close()
	var err error
	if im.tx != nil {
		err = im.tx.Rollback()
	}
	restoreForeignKeys(im.conn)
	return err
}

// Rejects lists filed rejects, newest import last; file filters when set.
func (s *DB) Rejects(ctx context.Context, file string) ([]Reject, error) {
	var out []Reject
	err := s.EachReject(ctx, file, func(r Reject) error {
		r.Raw = bytes.Clone(r.Raw)
		out = append(out, r)
		return nil
	})
	return out, err
}

// EachReject calls fn with every filed reject in turn, newest import last;
// file filters when set. Memory stays one reject: r.Raw is valid only
// during the call. fn's error stops the walk and is returned.
func (s *DB) EachReject(ctx context.Context, file string, fn func(r Reject) error) error {
	q := `SELECT id, file, line, reason, raw, created_at FROM rejects`
	var args []any
	if file != "" {
		q += ` WHERE file = ?`
		args = append(args, file)
	}
	q += ` ORDER BY id`
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	var raw sql.RawBytes
	for rows.Next() {
		var r Reject
		if err := rows.Scan(&r.ID, &r.File, &r.Line, &r.Reason, &raw, &r.CreatedAt); err != nil {
			return mapErr(err)
		}
		r.Raw = raw
		if err := fn(r); err != nil {
			return err
		}
	}
	return mapErr(rows.Err())
}
