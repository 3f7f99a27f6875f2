package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"slices"

	"github.com/triage-dev/triage/internal/triage"
)

// This file is `rules run`'s side of the store: which traces wait for a
// verdict, reading their bodies in batches, and writing verdicts with
// their evidence in chunks, in one transaction.

// ruleEventBatch is how many verdicts one rule_verdicts row holds.
const ruleEventBatch = 256

// labelled is a labelled batch with its verdicts already encoded, off the
// writing goroutine.
type labelled struct {
	events []triage.LabelEvent
	// groups[g] encodes events g*ruleEventBatch onwards, one
	// rule_verdicts row each.
	groups []verdictGroup
	err    error
}

// LabelPending runs label over every trace of a run (all runs when runID
// is empty) that has no rule verdict under this taxonomy and rules
// version, in batches, reading and writing in one transaction so a second
// `rules run` at the same time waits and then finds nothing to do. While
// one batch is written the next is labelled.
func (s *DB) LabelPending(ctx context.Context, runID, taxonomyVersion, rulesVersion string, label RuleBatch) (int, error) {
	conn, err := s.pinBulk(ctx)
	if err != nil {
		return 0, err
	}
	defer unpinBulk(conn)
	tx, err := s.beginWrite(ctx, func() (*sql.Tx, error) { return conn.BeginTx(ctx, nil) })
	if err != nil {
		return 0, mapErr(err)
	}
	defer tx.Rollback()
	// Collect the pending traces first (12 bytes a trace: the id and its
	// run), then read their bodies a batch at a time from the chunks: the
	// traces' rows are not read again, memory stays bounded by two
	// batches (each of at most batchSize traces and bodies of about
	// store.BatchBytes), and no write happens while a read cursor over
	// the verdicts is open.
	pend, err := pendingTraces(ctx, tx, runID, taxonomyVersion, rulesVersion)
	if err != nil {
		return 0, err
	}
	ids := pend.ids
	const batchSize = 2048
	// start reads the batch from lo (up to batchSize traces, fewer when
	// their bodies pass the budget) and labels it; the batch ends at hi.
	start := func(lo int) (ch chan labelled, hi int, err error) {
		rows := make([]StoredRow, min(lo+batchSize, len(ids))-lo)
		for i := range rows {
			rows[i].ID, rows[i].RunID = ids[lo+i], pend.runs[pend.run[lo+i]]
		}
		n, err := fillBodies(ctx, tx, rows, s.batchBudget())
		if err != nil {
			return nil, lo, err
		}
		rows = rows[:n:n]
		ch = make(chan labelled, 1)
		go func() {
			var l labelled
			l.events, l.err = label(rows)
			if l.err == nil {
				l.err = ofRows(l.events, rows)
			}
			if l.err == nil {
				l.groups, l.err = encodeVerdicts(l.events)
			}
			ch <- l
		}()
		return ch, lo + n, nil
	}
	n := 0
	w := newVerdictWriter(tx, triage.ActorRules, taxonomyVersion, rulesVersion, s.stamp())
	defer w.close()
	var cur chan labelled
	hi := 0
	if len(ids) > 0 {
		if cur, hi, err = start(0); err != nil {
			return 0, err
		}
	}
	for hi > 0 {
		var next chan labelled
		nextHi := 0
		if hi < len(ids) {
			if next, nextHi, err = start(hi); err != nil {
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
		cur, hi = next, nextHi
	}
	return n, s.committed(tx.Commit())
}

// ofRows checks that events label rows of the batch, in their order, at
// most one each: rule_verdicts has no foreign key, and a verdict on a
// trace the batch does not hold would name one that may not exist.
func ofRows(events []triage.LabelEvent, rows []StoredRow) error {
	j := 0
	for _, e := range events {
		for j < len(rows) && rows[j].ID < e.TraceID {
			j++
		}
		if j == len(rows) || rows[j].ID != e.TraceID {
			return fmt.Errorf("rule event for trace %d, which is not one of the batch's pending traces (or is out of order)", e.TraceID)
		}
		j++
	}
	return nil
}

// encodeVerdicts encodes each run of ruleEventBatch events as one
// rule_verdicts row: together their evidence compresses to a fraction of
// what it did verdict by verdict, and their summaries repeat.
func encodeVerdicts(events []triage.LabelEvent) ([]verdictGroup, error) {
	var groups []verdictGroup
	sc := getScratch() // import --rules calls this once a batch
	defer putScratch(sc)
	for lo := 0; lo < len(events); lo += ruleEventBatch {
		g, err := encodeGroup(events[lo:min(lo+ruleEventBatch, len(events))], sc)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// verdictWriter writes rule verdicts in one transaction, each run of
// ruleEventBatch events as one rule_verdicts row. Every verdict of a
// writer shares its actor, versions and time, the row's columns.
type verdictWriter struct {
	tx                                          *sql.Tx
	actor, taxonomyVersion, rulesVersion, stamp string
	insert                                      *sql.Stmt
}

func newVerdictWriter(tx *sql.Tx, actor, taxonomyVersion, rulesVersion, stamp string) *verdictWriter {
	return &verdictWriter{tx: tx, actor: actor, taxonomyVersion: taxonomyVersion, rulesVersion: rulesVersion, stamp: stamp}
}

func (w *verdictWriter) close() {
	if w.insert != nil {
		w.insert.Close()
	}
}

// write stores every event of l, whose groups encodeVerdicts made. The
// events' trace ids must ascend.
func (w *verdictWriter) write(ctx context.Context, l labelled) error {
	for g, i := 0, 0; i < len(l.events); g, i = g+1, i+ruleEventBatch {
		if err := w.row(ctx, l.events[i:min(i+ruleEventBatch, len(l.events))], l.groups[g]); err != nil {
			return err
		}
	}
	return nil
}

// row writes one group of events as one rule_verdicts row.
func (w *verdictWriter) row(ctx context.Context, events []triage.LabelEvent, g verdictGroup) error {
	ids := make([]int64, len(events))
	for x, e := range events {
		v := e.Verdict
		if e.Actor != w.actor || v.TaxonomyVersion != w.taxonomyVersion || v.RulesVersion != w.rulesVersion {
			return fmt.Errorf("rule event for trace %d: actor %q, versions %q/%q, labelling as %q under %q/%q", e.TraceID, e.Actor, v.TaxonomyVersion, v.RulesVersion, w.actor, w.taxonomyVersion, w.rulesVersion)
		}
		if x > 0 && e.TraceID <= ids[x-1] {
			return fmt.Errorf("rule events out of order: trace %d after %d", e.TraceID, ids[x-1])
		}
		ids[x] = e.TraceID
	}
	if w.insert == nil {
		var err error
		if w.insert, err = w.tx.PrepareContext(ctx, `INSERT INTO rule_verdicts (first_trace, last_trace, actor, taxonomy_version, rules_version, created_at, labels, evidence) VALUES (?,?,?,?,?,?,?,?)`); err != nil {
			return mapErr(err)
		}
	}
	_, err := w.insert.ExecContext(ctx, ids[0], ids[len(ids)-1], w.actor, w.taxonomyVersion, w.rulesVersion, w.stamp, labelsBlob(ids, g.tail), g.evidence)
	return mapErr(err)
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
	mark := func(id int64) {
		if id >= 0 && id <= maxID {
			done[id/64] |= 1 << (id % 64)
		}
	}
	// Verdicts of stores labelled before migration 0005, then the rows.
	old, err := queryIDs(ctx, q, `SELECT trace_id FROM label_events WHERE kind = 'rule' AND taxonomy_version = ? AND rules_version = ?`, taxonomyVersion, rulesVersion)
	if err != nil {
		return out, err
	}
	for _, id := range old {
		mark(id)
	}
	rows, err := q.QueryContext(ctx, `SELECT id, first_trace, labels FROM rule_verdicts WHERE taxonomy_version = ? AND rules_version = ?`, taxonomyVersion, rulesVersion)
	if err != nil {
		return out, mapErr(err)
	}
	for rows.Next() {
		var row, first int64
		var labels sql.RawBytes
		if err := rows.Scan(&row, &first, &labels); err != nil {
			rows.Close()
			return out, mapErr(err)
		}
		ids, _, err := labelTraces(row, first, labels)
		if err != nil {
			rows.Close()
			return out, err
		}
		for _, id := range ids {
			mark(id)
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return out, mapErr(err)
	}
	if runID == "" {
		if all, err := allMarked(ctx, q, maxID, done); all || err != nil {
			return out, err
		}
	}
	if ok, err := pendingInSpans(ctx, q, runID, maxID, done, &out); ok || err != nil {
		return out, err
	}
	query, args := `SELECT id, run_id FROM traces ORDER BY id`, []any(nil)
	if runID != "" {
		lo, hi, err := traceRange(ctx, q, runID)
		if err != nil {
			return out, err
		}
		var cond string
		cond, args = inRun("", lo, hi, runID)
		query = `SELECT id, run_id FROM traces WHERE ` + cond + ` ORDER BY id`
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

// pendingInSpans is pendingTraces' shortcut for the usual store, where
// each run's traces have consecutive ids (one import a run): the runs'
// spans come from the (run, task, seed) index in one aggregate, and a
// span whose count fills it holds exactly the run's traces, so no trace
// row is read. It reports false, having added nothing, when some run's
// ids are interleaved with another's.
// allMarked reports whether done marks every trace, without reading the
// traces: their ids are dense (1…maxID, as import writes them) when there
// are maxID of them, and done marks only ids up to maxID, so maxID marks
// are all of them. It answers a `rules run` with nothing to do, after
// import --rules or a first run, from a page count instead of a walk of
// every trace's index entry (that query alone: 21 ms at 100k).
func allMarked(ctx context.Context, q querier, maxID int64, done []uint64) (bool, error) {
	marked := 0
	for _, w := range done {
		marked += bits.OnesCount64(w)
	}
	marked -= int(done[0] & 1) // no trace has id 0
	if int64(marked) != maxID {
		return false, nil
	}
	var n int64
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM traces`).Scan(&n); err != nil {
		return false, mapErr(err)
	}
	return n == maxID, nil
}

func pendingInSpans(ctx context.Context, q querier, runID string, maxID int64, done []uint64, out *pending) (bool, error) {
	query, args := `SELECT run_id, min(id), max(id), count(*) FROM traces GROUP BY run_id`, []any(nil)
	if runID != "" {
		query, args = `SELECT run_id, min(id), max(id), count(*) FROM traces WHERE run_id = ? GROUP BY run_id`, []any{runID}
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return false, mapErr(err)
	}
	type span struct {
		run       string
		lo, hi, n int64
	}
	var spans []span
	for rows.Next() {
		var sp span
		if err := rows.Scan(&sp.run, &sp.lo, &sp.hi, &sp.n); err != nil {
			rows.Close()
			return false, mapErr(err)
		}
		if sp.hi-sp.lo+1 != sp.n || sp.lo < 0 || sp.hi > maxID {
			rows.Close()
			return false, mapErr(rows.Err())
		}
		spans = append(spans, sp)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return false, mapErr(err)
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	for _, sp := range spans {
		k := uint32(len(out.runs))
		out.runs = append(out.runs, sp.run)
		for id := sp.lo; id <= sp.hi; id++ {
			if done[id/64]&(1<<(id%64)) == 0 {
				out.ids = append(out.ids, id)
				out.run = append(out.run, k)
			}
		}
	}
	return true, nil
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
