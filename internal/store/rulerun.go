package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// This file is `rules run`'s side of the store: which traces wait for a
// verdict, reading their bodies in batches, and writing verdicts with
// their evidence in chunks, in one transaction.

// RuleBatch is one batch of stored rows for the rules to label. It runs
// on its own goroutine while the store writes the previous batch, and
// must not call the store. The rows carry ID, RunID, Raw and Norm, all
// the rules read; Hash and Source are left empty.
type RuleBatch func(rows []StoredRow) ([]triage.LabelEvent, error)

// ruleEventBatch is how many verdicts one INSERT writes.
const ruleEventBatch = 256

// labelled is a labelled batch with its verdicts already encoded, off the
// writing goroutine.
type labelled struct {
	events []triage.LabelEvent
	// blocks[g] packs the evidence of events g*ruleEventBatch onwards,
	// one verdict chunk each.
	blocks [][]byte
	secs   [][]byte
	err    error
}

// LabelPending runs label over every trace of a run (all runs when runID
// is empty) that has no rule verdict under this taxonomy and rules
// version, in batches, reading and writing in one transaction so a second
// `rules run` at the same time waits and then finds nothing to do. While
// one batch is written the next is labelled.
func (s *DB) LabelPending(ctx context.Context, runID, taxonomyVersion, rulesVersion string, label RuleBatch) (int, error) {
	// Every verdict names a trace this transaction has just read, so the
	// foreign key check on each insert is a seek into traces that cannot
	// fail: a quarter of the insert's time.
	conn, err := s.pinWithoutForeignKeys(ctx)
	if err != nil {
		return 0, err
	}
	defer restoreForeignKeys(conn)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, mapErr(err)
	}
	defer tx.Rollback()
	// Collect the pending traces first (12 bytes a trace: the id and its
	// run), then read their bodies a batch at a time from the chunks: the
	// traces' rows are not read again, memory stays bounded by two
	// batches, and no write happens while a read cursor over label_events
	// is open.
	pend, err := pendingTraces(ctx, tx, runID, taxonomyVersion, rulesVersion)
	if err != nil {
		return 0, err
	}
	ids := pend.ids
	const batchSize = 2048
	start := func(lo int) (chan labelled, error) {
		hi := min(lo+batchSize, len(ids))
		rows := make([]StoredRow, hi-lo)
		for i := range rows {
			rows[i].ID, rows[i].RunID = ids[lo+i], pend.runs[pend.run[lo+i]]
		}
		if err := fillBodies(ctx, tx, rows); err != nil {
			return nil, err
		}
		ch := make(chan labelled, 1)
		go func() {
			var l labelled
			l.events, l.err = label(rows)
			if l.err == nil {
				l.blocks, l.secs, l.err = encodeVerdicts(l.events)
			}
			ch <- l
		}()
		return ch, nil
	}
	n := 0
	w := newVerdictWriter(tx, taxonomyVersion, rulesVersion, s.stamp())
	defer w.close()
	var cur chan labelled
	if len(ids) > 0 {
		if cur, err = start(0); err != nil {
			return 0, err
		}
	}
	for lo := 0; lo < len(ids); lo += batchSize {
		var next chan labelled
		if lo+batchSize < len(ids) {
			if next, err = start(lo + batchSize); err != nil {
				<-cur
				return n, err
			}
		}
		l := <-cur
		if l.err != nil {
			if next != nil {
				<-next
			}
			return n, l.err
		}
		if err := w.write(ctx, l); err != nil {
			if next != nil {
				<-next
			}
			return n, err
		}
		n += len(l.events)
		cur = next
	}
	return n, mapErr(tx.Commit())
}

// encodeVerdicts writes each event's secondary tags, and packs the
// evidence of each run of ruleEventBatch events into one chunk block:
// together they compress to a fraction of what they did one by one.
func encodeVerdicts(events []triage.LabelEvent) (blocks, secs [][]byte, err error) {
	secs = make([][]byte, len(events))
	jsons := make([][]byte, 0, ruleEventBatch)
	none := make([][]byte, ruleEventBatch)
	var buf []byte
	for lo := 0; lo < len(events); lo += ruleEventBatch {
		jsons, buf = jsons[:0], buf[:0]
		for i := lo; i < min(lo+ruleEventBatch, len(events)); i++ {
			e := &events[i]
			if e.Verdict == nil {
				return nil, nil, fmt.Errorf("rule event for trace %d has no verdict", e.TraceID)
			}
			start := len(buf)
			buf = appendVerdictRest(buf, e.Verdict)
			jsons = append(jsons, buf[start:len(buf):len(buf)])
			secs[i] = appendStrings(nil, nonNil(e.Verdict.Secondary))
		}
		blocks = append(blocks, packBodies(jsons, none[:len(jsons)]))
	}
	return blocks, secs, nil
}

// verdictWriter writes rule verdicts in one transaction: each run of
// ruleEventBatch events as one INSERT and one verdict chunk. What every
// verdict of a `rules run` shares (actor, versions, time) is written into
// the INSERT as literals: binding a text parameter copies it into C
// memory under the connection's mutex, and these were 4 of a row's 11
// parameters. (Numbered parameters, bound once and named by every row,
// were slower: the driver looks up each one's name, and SQLite scans its
// list of names for each.)
type verdictWriter struct {
	tx                                   *sql.Tx
	taxonomyVersion, rulesVersion, stamp string
	inserts                              map[int]*sql.Stmt // by rows
	chunk                                *sql.Stmt
}

func newVerdictWriter(tx *sql.Tx, taxonomyVersion, rulesVersion, stamp string) *verdictWriter {
	return &verdictWriter{tx: tx, taxonomyVersion: taxonomyVersion, rulesVersion: rulesVersion, stamp: stamp, inserts: map[int]*sql.Stmt{}}
}

func (w *verdictWriter) close() {
	for _, st := range w.inserts {
		st.Close()
	}
	if w.chunk != nil {
		w.chunk.Close()
	}
}

// write stores every event of l, whose blocks encodeVerdicts made.
func (w *verdictWriter) write(ctx context.Context, l labelled) error {
	for i := 0; i < len(l.events); i += ruleEventBatch {
		if err := w.insert(ctx, l, i, min(i+ruleEventBatch, len(l.events))); err != nil {
			return err
		}
	}
	return nil
}

// insert writes events i..j of l, block i/ruleEventBatch, in one INSERT.
func (w *verdictWriter) insert(ctx context.Context, l labelled, i, j int) error {
	k := j - i
	st := w.inserts[k]
	if st == nil {
		row := "(?,'rules','rule',?,?,''," + sqlString(w.taxonomyVersion) + "," + sqlString(w.rulesVersion) + ",?,?,?,NULL,''," + sqlString(w.stamp) + ")"
		var err error
		st, err = w.tx.PrepareContext(ctx, `INSERT INTO label_events (trace_id, actor, kind, primary_label, secondary, note, taxonomy_version, rules_version, decision, reason, outcome, verdict, slice, created_at) VALUES `+
			strings.TrimSuffix(strings.Repeat(row+",", k), ","))
		if err != nil {
			return mapErr(err)
		}
		w.inserts[k] = st
	}
	args := make([]any, 0, 6*k)
	for x := i; x < j; x++ {
		e := l.events[x]
		v := e.Verdict
		if e.Actor != triage.ActorRules || v.TaxonomyVersion != w.taxonomyVersion || v.RulesVersion != w.rulesVersion {
			return fmt.Errorf("rule event for trace %d: actor %q, versions %q/%q, labelling under %q/%q", e.TraceID, e.Actor, v.TaxonomyVersion, v.RulesVersion, w.taxonomyVersion, w.rulesVersion)
		}
		args = append(args, e.TraceID, v.Primary, string(l.secs[x]), string(v.Decision), v.Reason, string(v.Outcome))
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return mapErr(err)
	}
	// One INSERT in a write transaction gives its rows consecutive ids,
	// in VALUES order, ending at the last insert id.
	last, err := res.LastInsertId()
	if err != nil {
		return mapErr(err)
	}
	if n, _ := res.RowsAffected(); n != int64(k) {
		return fmt.Errorf("rule events: %d of %d written", n, k)
	}
	ids := make([]int64, k)
	for x := range ids {
		ids[x] = last - int64(k-1-x)
	}
	if w.chunk == nil {
		if w.chunk, err = w.tx.PrepareContext(ctx, `INSERT INTO verdict_chunks (first_id, last_id, body) VALUES (?,?,?)`); err != nil {
			return mapErr(err)
		}
	}
	_, err = w.chunk.ExecContext(ctx, ids[0], last, chunkBody(ids, l.blocks[i/ruleEventBatch]))
	return mapErr(err)
}

// sqlString quotes s as an SQL string literal. SQLite knows no escape but
// the doubled quote; a NUL would end the literal early, so it is written
// as a char() call instead.
func sqlString(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		parts := strings.Split(s, "\x00")
		for i, p := range parts {
			parts[i] = sqlString(p)
		}
		return "(" + strings.Join(parts, "||char(0)||") + ")"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// pending is the traces rules run will label: ids ascending, and each
// one's run as an index into runs (4 bytes a trace, not a string).
type pending struct {
	ids  []int64
	run  []uint32
	runs []string
}

// pendingTraces lists the traces (of run, when set) with no rule verdict
// under these versions, with their runs. It is two sequential scans, the
// verdicts of these versions into a bitmap and then the traces' ids and
// runs, instead of a lookup into label_events for every trace: when
// nothing is pending (the rules ran, or import --rules labelled
// everything), `rules run` costs a fraction of what it did; and the runs
// read here spare reading each trace's row again with its body.
func pendingTraces(ctx context.Context, q querier, runID, taxonomyVersion, rulesVersion string) (pending, error) {
	var out pending
	var maxID int64
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM traces`).Scan(&maxID); err != nil {
		return out, mapErr(err)
	}
	done := make([]uint64, maxID/64+1)
	rows, err := q.QueryContext(ctx, `SELECT trace_id FROM label_events WHERE kind = 'rule' AND taxonomy_version = ? AND rules_version = ?`, taxonomyVersion, rulesVersion)
	if err != nil {
		return out, mapErr(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return out, mapErr(err)
		}
		if id >= 0 && id <= maxID {
			done[id/64] |= 1 << (id % 64)
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return out, mapErr(err)
	}
	query, args := `SELECT id, run_id FROM traces ORDER BY id`, []any(nil)
	if runID != "" {
		query, args = `SELECT id, run_id FROM traces WHERE run_id = ? ORDER BY id`, []any{runID}
	}
	rs, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return out, mapErr(err)
	}
	defer rs.Close()
	index := map[string]uint32{}
	var run sql.RawBytes
	for rs.Next() {
		var id int64
		if err := rs.Scan(&id, &run); err != nil {
			return out, mapErr(err)
		}
		if id <= maxID && done[id/64]&(1<<(id%64)) != 0 {
			continue
		}
		k, ok := index[string(run)]
		if !ok {
			k = uint32(len(out.runs))
			out.runs = append(out.runs, string(run))
			index[string(run)] = k
		}
		out.ids = append(out.ids, id)
		out.run = append(out.run, k)
	}
	return out, mapErr(rs.Err())
}

func queryIDs(ctx context.Context, q querier, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, mapErr(err)
		}
		ids = append(ids, id)
	}
	return ids, mapErr(rows.Err())
}
