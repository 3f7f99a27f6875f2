package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/triage"
)

// AppendLabel stores one label event at once (a crash loses at most the
// event in flight) and returns it with its id and time.
func (s *DB) AppendLabel(ctx context.Context, e triage.LabelEvent) (triage.LabelEvent, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return e, mapErr(err)
	}
	defer tx.Rollback()
	if e.CreatedAt.IsZero() {
		e.CreatedAt = s.Now()
	}
	if _, err := s.appendLabel(ctx, tx, &e); err != nil {
		return e, err
	}
	return e, mapErr(tx.Commit())
}

// ExtKey identifies a human event across stores: the same event exported
// and imported twice is stored once.
func ExtKey(contentHash string, e *triage.LabelEvent) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s", contentHash, e.Actor, e.Kind, e.Primary,
		strings.Join(e.Secondary, ","), e.Note, e.Slice, e.CreatedAt.UTC().Format(time.RFC3339Nano))
	return hex.EncodeToString(h.Sum(nil))
}

// appendLabel inserts e; it reports false when an event with the same
// external key exists (idempotent label import).
func (s *DB) appendLabel(ctx context.Context, q querier, e *triage.LabelEvent) (bool, error) {
	sec, _ := json.Marshal(nonNil(e.Secondary))
	var verdict any
	var decision, reason, rulesV, outcome string
	if e.Verdict != nil {
		b, err := verdictBody(e.Verdict)
		if err != nil {
			return false, err
		}
		verdict, decision, reason, rulesV, outcome = b, string(e.Verdict.Decision), e.Verdict.Reason, e.Verdict.RulesVersion, string(e.Verdict.Outcome)
	}
	var ext any
	if e.Kind != triage.KindRule {
		var hash string
		if err := q.QueryRowContext(ctx, `SELECT content_hash FROM traces WHERE id = ?`, e.TraceID).Scan(&hash); err != nil {
			return false, fmt.Errorf("label trace %d: %w", e.TraceID, mapErr(err))
		}
		ext = ExtKey(hash, e)
	}
	res, err := q.ExecContext(ctx, `INSERT INTO label_events (trace_id, actor, kind, primary_label, secondary, note, taxonomy_version, rules_version, decision, reason, outcome, verdict, slice, created_at, ext_key)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (ext_key) WHERE ext_key IS NOT NULL DO NOTHING`,
		e.TraceID, e.Actor, string(e.Kind), e.Primary, string(sec), e.Note, e.TaxonomyVersion, rulesV, decision, reason, outcome, verdict, e.Slice,
		e.CreatedAt.UTC().Format(time.RFC3339Nano), ext)
	if err != nil {
		return false, mapErr(err)
	}
	n, _ := res.RowsAffected()
	if n == 0 {
		return false, nil
	}
	e.ID, _ = res.LastInsertId()
	return true, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

const eventCols = `id, trace_id, actor, kind, primary_label, secondary, note, taxonomy_version, rules_version, decision, reason, outcome, slice, created_at`

func scanEvent(r scanner) (triage.LabelEvent, error) {
	var e triage.LabelEvent
	var kind, sec, rulesV, decision, reason, outcome, created string
	if err := r.Scan(&e.ID, &e.TraceID, &e.Actor, &kind, &e.Primary, &sec, &e.Note, &e.TaxonomyVersion, &rulesV, &decision, &reason, &outcome, &e.Slice, &created); err != nil {
		return e, err
	}
	e.Kind = triage.LabelKind(kind)
	_ = json.Unmarshal([]byte(sec), &e.Secondary)
	e.CreatedAt = parseStamp(created)
	if e.Kind == triage.KindRule {
		e.Verdict = &triage.Verdict{Primary: e.Primary, Secondary: e.Secondary, Decision: triage.Decision(decision), Reason: reason,
			Outcome: triage.Outcome(outcome), TaxonomyVersion: e.TaxonomyVersion, RulesVersion: rulesV}
	}
	return e, nil
}

// History returns a trace's events in order; actor filters when set.
func (s *DB) History(ctx context.Context, traceID int64, actor string) ([]triage.LabelEvent, error) {
	q := `SELECT ` + eventCols + ` FROM label_events WHERE trace_id = ?`
	args := []any{traceID}
	if actor != "" {
		q += ` AND actor = ?`
		args = append(args, actor)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY id`, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []triage.LabelEvent
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, e)
	}
	return out, mapErr(rows.Err())
}

// Verdict returns the rules' latest full verdict on a trace, or
// ErrNotFound when the rules have not run on it.
func (s *DB) Verdict(ctx context.Context, traceID int64) (*triage.Verdict, error) {
	var body []byte
	var primary, sec, taxV, rulesV, decision, reason, outcome string
	err := s.db.QueryRowContext(ctx, `SELECT verdict, primary_label, secondary, taxonomy_version, rules_version, decision, reason, outcome
		FROM label_events WHERE trace_id = ? AND kind = 'rule' ORDER BY id DESC LIMIT 1`, traceID).
		Scan(&body, &primary, &sec, &taxV, &rulesV, &decision, &reason, &outcome)
	if err != nil {
		return nil, mapErr(err)
	}
	if body, err = unpackRow(body); err != nil {
		return nil, fmt.Errorf("verdict of trace %d: %w", traceID, err)
	}
	var v triage.Verdict
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("verdict of trace %d: %w", traceID, err)
	}
	// The columns hold what the body leaves out (verdictBody).
	v.Primary, v.TaxonomyVersion, v.RulesVersion = primary, taxV, rulesV
	v.Decision, v.Reason, v.Outcome = triage.Decision(decision), reason, triage.Outcome(outcome)
	v.Secondary = nil
	_ = json.Unmarshal([]byte(sec), &v.Secondary)
	if v.Secondary == nil {
		v.Secondary = []string{}
	}
	return &v, nil
}

// verdictBody encodes what a verdict holds beyond its label_events
// columns (evidence, fired rules, what could not be evaluated), packed:
// writing verdicts is the bottleneck of rules run, and the columns
// already carry the label, decision, reason, outcome and versions.
func verdictBody(v *triage.Verdict) ([]byte, error) {
	// The keys are triage.Verdict's, so the body decodes into one.
	rest := struct {
		Fired       []string          `json:"fired"`
		Evidence    []triage.Evidence `json:"evidence"`
		Unevaluated []triage.Evidence `json:"unevaluated,omitempty"`
	}{v.Fired, v.Evidence, v.Unevaluated}
	b, err := json.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	return packRow(b), nil
}

// LabelStates folds every event of a run's traces (all runs when runID is
// empty) into per-trace states: the latest rule verdict, each reviewer's
// live label and the latest live adjudication (undo applied to both).
func (s *DB) LabelStates(ctx context.Context, runID string) (map[int64]*triage.LabelState, error) {
	q := `SELECT ` + eventCols + ` FROM label_events`
	var args []any
	if runID != "" {
		q += ` WHERE trace_id IN (SELECT id FROM traces WHERE run_id = ?)`
		args = append(args, runID)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY trace_id, id`, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	out := map[int64]*triage.LabelState{}
	var f stateFolder
	cur := int64(-1)
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		if e.TraceID != cur {
			if cur >= 0 {
				if st := f.done(); st != nil {
					out[cur] = st
				}
			}
			cur = e.TraceID
			f.reset(cur)
		}
		f.add(e)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	if cur >= 0 {
		if st := f.done(); st != nil {
			out[cur] = st
		}
	}
	return out, nil
}

// RuleBatch is one batch of stored rows for the rules to label. It runs
// on its own goroutine while the store writes the previous batch, and
// must not call the store.
type RuleBatch func(rows []StoredRow) ([]triage.LabelEvent, error)

// ruleEventBatch is how many verdicts one INSERT writes.
const ruleEventBatch = 64

// labelled is a labelled batch with its verdicts already encoded, off the
// writing goroutine.
type labelled struct {
	events []triage.LabelEvent
	bodies [][]byte
	secs   [][]byte
	err    error
}

// LabelPending runs label over every trace of a run (all runs when runID
// is empty) that has no rule verdict under this taxonomy and rules
// version, in batches, reading and writing in one transaction so a second
// `rules run` at the same time waits and then finds nothing to do. While
// one batch is written the next is labelled.
func (s *DB) LabelPending(ctx context.Context, runID, taxonomyVersion, rulesVersion string, label RuleBatch) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, mapErr(err)
	}
	defer tx.Rollback()
	q := `SELECT id FROM traces t
		WHERE NOT EXISTS (SELECT 1 FROM label_events e WHERE e.trace_id = t.id AND e.kind = 'rule' AND e.taxonomy_version = ? AND e.rules_version = ?)`
	args := []any{taxonomyVersion, rulesVersion}
	if runID != "" {
		q += ` AND run_id = ?`
		args = append(args, runID)
	}
	// Collect the pending ids first (8 bytes a trace), then read rows in
	// batches: memory stays bounded by two batches, and no write happens
	// while a read cursor over label_events is open.
	ids, err := queryIDs(ctx, tx, q+` ORDER BY id`, args...)
	if err != nil {
		return 0, err
	}
	const batchSize = 2048
	start := func(lo int) (chan labelled, error) {
		rows, err := storedRows(ctx, tx, ids[lo:min(lo+batchSize, len(ids))])
		if err != nil {
			return nil, err
		}
		ch := make(chan labelled, 1)
		go func() {
			var l labelled
			l.events, l.err = label(rows)
			if l.err == nil {
				l.bodies, l.secs, l.err = encodeVerdicts(l.events)
			}
			ch <- l
		}()
		return ch, nil
	}
	n := 0
	stamp := s.stamp()
	var cur chan labelled
	if len(ids) > 0 {
		if cur, err = start(0); err != nil {
			return 0, err
		}
	}
	stmts := map[int]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
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
		for i := 0; i < len(l.events); i += ruleEventBatch {
			j := min(i+ruleEventBatch, len(l.events))
			if err := insertRuleEvents(ctx, tx, stmts, l, i, j, stamp); err != nil {
				if next != nil {
					<-next
				}
				return n, err
			}
			n += j - i
		}
		cur = next
	}
	return n, mapErr(tx.Commit())
}

func encodeVerdicts(events []triage.LabelEvent) (bodies, secs [][]byte, err error) {
	bodies, secs = make([][]byte, len(events)), make([][]byte, len(events))
	for i, e := range events {
		if e.Verdict == nil {
			return nil, nil, fmt.Errorf("rule event for trace %d has no verdict", e.TraceID)
		}
		if bodies[i], err = verdictBody(e.Verdict); err != nil {
			return nil, nil, err
		}
		secs[i], _ = json.Marshal(nonNil(e.Verdict.Secondary))
	}
	return bodies, secs, nil
}

func insertRuleEvents(ctx context.Context, tx *sql.Tx, stmts map[int]*sql.Stmt, l labelled, i, j int, stamp string) error {
	k := j - i
	st := stmts[k]
	if st == nil {
		row := "(?,?,'rule',?,?,'',?,?,?,?,?,?,'',?)"
		var err error
		st, err = tx.PrepareContext(ctx, `INSERT INTO label_events (trace_id, actor, kind, primary_label, secondary, note, taxonomy_version, rules_version, decision, reason, outcome, verdict, slice, created_at) VALUES `+
			strings.TrimSuffix(strings.Repeat(row+",", k), ","))
		if err != nil {
			return mapErr(err)
		}
		stmts[k] = st
	}
	args := make([]any, 0, 11*k)
	for x := i; x < j; x++ {
		e := l.events[x]
		v := e.Verdict
		args = append(args, e.TraceID, e.Actor, v.Primary, string(l.secs[x]), v.TaxonomyVersion, v.RulesVersion, string(v.Decision), v.Reason, string(v.Outcome), l.bodies[x], stamp)
	}
	_, err := st.ExecContext(ctx, args...)
	return mapErr(err)
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

func storedRows(ctx context.Context, q querier, ids []int64) ([]StoredRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := q.QueryContext(ctx, `SELECT t.id, t.run_id, t.content_hash, t.source, r.raw, r.norm FROM traces t JOIN trace_rows r ON r.trace_id = t.id WHERE t.id IN (`+placeholders(len(ids))+`) ORDER BY t.id`, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	out := make([]StoredRow, 0, len(ids))
	for rows.Next() {
		var r StoredRow
		if err := rows.Scan(&r.ID, &r.RunID, &r.Hash, &r.Source, &r.Raw, &r.Norm); err != nil {
			return nil, mapErr(err)
		}
		out = append(out, r)
	}
	return out, mapErr(rows.Err())
}

// AppendLabels stores many label events in one transaction (labels
// import) and reports how many were new; events already present (same
// external key) are skipped, so importing twice changes nothing.
func (s *DB) AppendLabels(ctx context.Context, events []triage.LabelEvent) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, mapErr(err)
	}
	defer tx.Rollback()
	n := 0
	for i := range events {
		e := &events[i]
		if e.CreatedAt.IsZero() {
			e.CreatedAt = s.Now()
		}
		added, err := s.appendLabel(ctx, tx, e)
		if err != nil {
			return 0, err
		}
		if added {
			n++
		}
	}
	return n, mapErr(tx.Commit())
}

// ExportedEvent is a human-side label event with its trace's identity,
// for moving labels between stores.
type ExportedEvent struct {
	Event       triage.LabelEvent
	RunID       string
	TaskID      string
	Seed        int
	ContentHash string
}

// HumanEvents lists every non-rule event (human, skip, undo,
// adjudication) in time order; reviewer and slice filter when set.
func (s *DB) HumanEvents(ctx context.Context, reviewer, slice string) ([]ExportedEvent, error) {
	q := `SELECT e.id, e.trace_id, e.actor, e.kind, e.primary_label, e.secondary, e.note, e.taxonomy_version, e.rules_version, e.decision, e.reason, e.outcome, e.slice, e.created_at,
		t.run_id, t.task_id, t.seed, t.content_hash
		FROM label_events e JOIN traces t ON t.id = e.trace_id WHERE e.kind != 'rule'`
	var args []any
	if reviewer != "" {
		q += ` AND e.actor = ?`
		args = append(args, reviewer)
	}
	if slice != "" {
		q += ` AND e.trace_id IN (SELECT trace_id FROM slice_items WHERE slice = ?)`
		args = append(args, slice)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY e.id`, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []ExportedEvent
	for rows.Next() {
		var x ExportedEvent
		var kind, sec, rulesV, decision, reason, outcome, created string
		e := &x.Event
		if err := rows.Scan(&e.ID, &e.TraceID, &e.Actor, &kind, &e.Primary, &sec, &e.Note, &e.TaxonomyVersion, &rulesV, &decision, &reason, &outcome, &e.Slice, &created,
			&x.RunID, &x.TaskID, &x.Seed, &x.ContentHash); err != nil {
			return nil, mapErr(err)
		}
		e.Kind = triage.LabelKind(kind)
		_ = json.Unmarshal([]byte(sec), &e.Secondary)
		e.CreatedAt = parseStamp(created)
		out = append(out, x)
	}
	return out, mapErr(rows.Err())
}
