package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/triage"
)

// AppendLabel stores one label event at once (a crash loses at most the
// event in flight) and returns it with its id and time.
func (s *DB) AppendLabel(ctx context.Context, e triage.LabelEvent) (triage.LabelEvent, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return e, mapErr(err)
	}
	defer tx.Rollback()
	if e.CreatedAt.IsZero() {
		e.CreatedAt = s.Now()
	}
	w, err := prepareLabelWriter(ctx, tx)
	if err != nil {
		return e, err
	}
	defer w.close()
	if _, err := w.append(ctx, &e); err != nil {
		return e, err
	}
	return e, s.committed(tx.Commit())
}

// labelWriter inserts label events through statements prepared once per
// transaction: labels import writes thousands of events, and preparing
// each statement again was most of its time.
type labelWriter struct {
	tx           *sql.Tx
	hash, insert *sql.Stmt
}

func prepareLabelWriter(ctx context.Context, tx *sql.Tx) (*labelWriter, error) {
	hash, err := tx.PrepareContext(ctx, `SELECT content_hash FROM traces WHERE id = ?`)
	if err != nil {
		return nil, mapErr(err)
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO label_events (trace_id, actor, kind, primary_label, secondary, note, taxonomy_version, rules_version, decision, reason, outcome, verdict, slice, cluster, created_at, ext_key)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (ext_key) WHERE ext_key IS NOT NULL DO NOTHING`)
	if err != nil {
		hash.Close()
		return nil, mapErr(err)
	}
	return &labelWriter{tx: tx, hash: hash, insert: insert}, nil
}

func (w *labelWriter) close() {
	w.hash.Close()
	w.insert.Close()
}

// append inserts e; it reports false when an event with the same
// external key exists (idempotent label import). A rule event becomes a
// rule_verdicts row of its own, as every rule verdict is since migration
// 0005.
func (w *labelWriter) append(ctx context.Context, e *triage.LabelEvent) (bool, error) {
	if e.Kind == triage.KindRule {
		return true, appendRuleEvent(ctx, w.tx, e)
	}
	sec, _ := json.Marshal(nonNil(e.Secondary))
	var hash string
	if err := w.hash.QueryRowContext(ctx, e.TraceID).Scan(&hash); err != nil {
		return false, fmt.Errorf("label trace %d: %w", e.TraceID, mapErr(err))
	}
	res, err := w.insert.ExecContext(ctx,
		e.TraceID, e.Actor, string(e.Kind), e.Primary, string(sec), e.Note, e.TaxonomyVersion, "", "", "", "", nil, e.Slice, e.Cluster,
		e.CreatedAt.UTC().Format(time.RFC3339Nano), ExtKey(hash, e))
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

const eventCols = `id, trace_id, actor, kind, primary_label, secondary, note, taxonomy_version, rules_version, decision, reason, outcome, slice, cluster, created_at`

// eventRow is eventCols as scanned; event turns it into the domain value.
// Every query that reads label events scans through it.
type eventRow struct {
	id, traceID                                  int64
	actor, kind, primary, sec, note, taxV, rules string
	decision, reason, outcome, slice, cluster    string
	created                                      string
}

func (r *eventRow) dest() []any {
	return []any{&r.id, &r.traceID, &r.actor, &r.kind, &r.primary, &r.sec, &r.note, &r.taxV, &r.rules, &r.decision, &r.reason, &r.outcome, &r.slice, &r.cluster, &r.created}
}

func (r *eventRow) event() triage.LabelEvent {
	e := triage.LabelEvent{ID: r.id, TraceID: r.traceID, Actor: r.actor, Kind: triage.LabelKind(r.kind), Primary: r.primary,
		Note: r.note, TaxonomyVersion: r.taxV, Slice: r.slice, Cluster: r.cluster, CreatedAt: parseStamp(r.created)}
	if r.sec != "" && r.sec != "[]" {
		_ = json.Unmarshal([]byte(r.sec), &e.Secondary)
	}
	if e.Kind == triage.KindRule {
		sec := e.Secondary
		if sec == nil {
			sec = []string{}
		}
		e.Verdict = &triage.Verdict{Primary: e.Primary, Secondary: sec, Decision: triage.Decision(r.decision), Reason: r.reason,
			Outcome: triage.Outcome(r.outcome), TaxonomyVersion: e.TaxonomyVersion, RulesVersion: r.rules}
	}
	return e
}

// prefixed qualifies a column list with a table alias ("e.").
func prefixed(alias, cols string) string {
	parts := strings.Split(cols, ", ")
	for i, c := range parts {
		parts[i] = alias + c
	}
	return strings.Join(parts, ", ")
}

// optionalEventCols reads eventCols through a LEFT JOIN: a trace with no
// events yields id 0 and empty strings instead of NULLs.
func optionalEventCols(alias string) string {
	parts := strings.Split(eventCols, ", ")
	for i, c := range parts {
		zero := "''"
		if c == "id" || c == "trace_id" {
			zero = "0"
		}
		parts[i] = "coalesce(" + alias + c + ", " + zero + ")"
	}
	return strings.Join(parts, ", ")
}

func scanEvent(r scanner) (triage.LabelEvent, error) {
	var er eventRow
	if err := r.Scan(er.dest()...); err != nil {
		return triage.LabelEvent{}, err
	}
	return er.event(), nil
}

// History returns a trace's events in time order; actor filters when
// set.
func (s *DB) History(ctx context.Context, traceID int64, actor string) (out []triage.LabelEvent, err error) {
	err = s.snapshot(ctx, func(db querier) error { out, err = history(ctx, db, traceID, actor); return err })
	return out, err
}

func history(ctx context.Context, db querier, traceID int64, actor string) ([]triage.LabelEvent, error) {
	q := `SELECT ` + eventCols + ` FROM label_events WHERE trace_id = ?`
	args := []any{traceID}
	if actor != "" {
		q += ` AND actor = ?`
		args = append(args, actor)
	}
	rows, err := db.QueryContext(ctx, q+` ORDER BY id`, args...)
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
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	rules, err := ruleHistory(ctx, db, traceID, actor)
	if err != nil || len(rules) == 0 {
		return out, err
	}
	// Chunked verdicts have no event id; each is placed by its time,
	// after the events of label_events at the same instant.
	out = append(out, rules...)
	slices.SortStableFunc(out, func(a, b triage.LabelEvent) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// Verdict returns the rules' latest full verdict on a trace, or
// ErrNotFound when the rules have not run on it.
func (s *DB) Verdict(ctx context.Context, traceID int64) (*triage.Verdict, error) {
	vs, err := s.Verdicts(ctx, []int64{traceID})
	if err != nil {
		return nil, err
	}
	v, ok := vs[traceID]
	if !ok {
		return nil, ErrNotFound
	}
	return v, nil
}

// Verdicts returns the rules' latest full verdict on each of the traces
// that have one, reading them in batches rather than one query a trace.
func (s *DB) Verdicts(ctx context.Context, traceIDs []int64) (out map[int64]*triage.Verdict, err error) {
	err = s.snapshot(ctx, func(db querier) error { out, err = verdicts(ctx, db, traceIDs); return err })
	return out, err
}

func verdicts(ctx context.Context, db querier, traceIDs []int64) (map[int64]*triage.Verdict, error) {
	out, err := chunkedVerdicts(ctx, db, traceIDs)
	if err != nil {
		return nil, err
	}
	// Verdicts in rule_verdicts are newer than any in label_events: only
	// traces without one are looked for there, an index probe each, which
	// finds nothing in a store labelled after migration 0005.
	var rest []int64
	for _, id := range traceIDs {
		if out[id] == nil {
			rest = append(rest, id)
		}
	}
	old, err := legacyVerdicts(ctx, db, rest)
	if err != nil {
		return nil, err
	}
	maps.Copy(out, old)
	return out, nil
}

// legacyVerdicts reads verdicts from label_events, where stores labelled
// before migration 0005 keep them.
func legacyVerdicts(ctx context.Context, db querier, traceIDs []int64) (map[int64]*triage.Verdict, error) {
	type latest struct {
		event int64
		v     *triage.Verdict
		body  []byte
	}
	found := make(map[int64]latest, len(traceIDs))
	const batch = 500
	for lo := 0; lo < len(traceIDs); lo += batch {
		ids := traceIDs[lo:min(lo+batch, len(traceIDs))]
		args := idArgs(ids)
		rows, err := db.QueryContext(ctx, `SELECT `+eventCols+`, verdict FROM label_events
			WHERE kind = 'rule' AND trace_id IN (`+placeholders(len(ids))+`) ORDER BY trace_id, id`, args...)
		if err != nil {
			return nil, mapErr(err)
		}
		for rows.Next() {
			var er eventRow
			var body []byte
			if err := rows.Scan(append(er.dest(), &body)...); err != nil {
				rows.Close()
				return nil, mapErr(err)
			}
			found[er.traceID] = latest{er.id, er.event().Verdict, body} // the latest event wins
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, mapErr(err)
		}
	}
	// Evidence in verdict chunks is read in event order, a chunk once.
	chunked := make([]latest, 0, len(found))
	out := make(map[int64]*triage.Verdict, len(found))
	for trace, f := range found {
		if f.body != nil {
			v, err := fullVerdict(f.v, f.body)
			if err != nil {
				return nil, fmt.Errorf("verdict of trace %d: %w", trace, err)
			}
			out[trace] = v
			continue
		}
		chunked = append(chunked, f)
		out[trace] = f.v
	}
	slices.SortFunc(chunked, func(a, b latest) int { return cmp.Compare(a.event, b.event) })
	var c *chunk
	for _, f := range chunked {
		if c == nil || f.event > c.last {
			var err error
			if c, err = chunkOf(ctx, db, verdictChunks, f.event); err != nil {
				return nil, err
			}
		}
		if c == nil {
			continue // an event written without evidence; Check reports it
		}
		if body, _, ok := c.find(f.event); ok {
			if _, err := fullVerdict(f.v, body); err != nil {
				return nil, fmt.Errorf("verdict of event %d: %w", f.event, err)
			}
		}
	}
	return out, nil
}

// fullVerdict completes a verdict built from label_events columns with
// its packed body, as stores labelled before migration 0005 hold it.
func fullVerdict(v *triage.Verdict, body []byte) (*triage.Verdict, error) {
	if len(body) == 0 {
		return v, nil
	}
	body, err := unpackRow(body)
	if err != nil {
		return nil, err
	}
	rest, err := decodeVerdictRest(body)
	if err != nil {
		return nil, err
	}
	v.Fired, v.Evidence, v.Unevaluated = rest.Fired, rest.Evidence, rest.Unevaluated
	return v, nil
}

// AppendLabels stores many label events in one transaction (labels
// import) and reports how many were new; events already present (same
// external key) are skipped, so importing twice changes nothing.
func (s *DB) AppendLabels(ctx context.Context, events []triage.LabelEvent) (int, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return 0, mapErr(err)
	}
	defer tx.Rollback()
	w, err := prepareLabelWriter(ctx, tx)
	if err != nil {
		return 0, err
	}
	defer w.close()
	n := 0
	for i := 0; i < len(events); {
		e := &events[i]
		if e.CreatedAt.IsZero() {
			e.CreatedAt = s.Now()
		}
		if e.Kind == triage.KindRule {
			// A run of rule events (a store copy's verdicts) is written
			// as rule_verdicts rows of up to ruleEventBatch, as rules run
			// writes them, not a row each.
			k, err := appendRuleEvents(ctx, tx, events[i:], s.Now)
			if err != nil {
				return 0, err
			}
			n += k
			i += k
			continue
		}
		added, err := w.append(ctx, e)
		if err != nil {
			return 0, err
		}
		if added {
			n++
		}
		i++
	}
	return n, s.committed(tx.Commit())
}

// HumanEvents lists every non-rule event (human, skip, undo,
// adjudication) in time order; reviewer and slice filter when set (slice:
// the events given in that slice's session, see SliceStates).
func (s *DB) HumanEvents(ctx context.Context, reviewer, slice string) ([]ExportedEvent, error) {
	var out []ExportedEvent
	err := s.EachHumanEvent(ctx, reviewer, slice, func(x ExportedEvent) error { out = append(out, x); return nil })
	return out, err
}

// EachHumanEvent is HumanEvents one event at a time.
func (s *DB) EachHumanEvent(ctx context.Context, reviewer, slice string, fn func(ExportedEvent) error) error {
	// The partial index of people's events (migration 0002) holds no rule
	// verdict, so this reads a reviewer's few events instead of scanning a
	// verdict a trace. It is in actor order, though: every reviewer's
	// events through it were sorted in a temporary b-tree (100,000 took
	// some 50 MB of SQLite's memory in store copy), so they are read from
	// the table in id order instead, which in a store labelled before
	// migration 0005 passes its rule verdicts too.
	index := `INDEXED BY label_events_human`
	if reviewer == "" {
		index = `NOT INDEXED`
	}
	q := `SELECT ` + prefixed("e.", eventCols) + `, t.run_id, t.task_id, t.seed, t.content_hash
		FROM label_events e ` + index + ` JOIN traces t ON t.id = e.trace_id WHERE e.kind != 'rule'`
	var args []any
	if reviewer != "" {
		q += ` AND e.actor = ?`
		args = append(args, reviewer)
	}
	if slice != "" {
		// Only the events given in the slice's blind session: a label
		// given on the same trace in plain review is not blind.
		q += ` AND e.slice = ?`
		args = append(args, slice)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY e.id`, args...)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var x ExportedEvent
		var er eventRow
		if err := rows.Scan(append(er.dest(), &x.RunID, &x.TaskID, &x.Seed, &x.ContentHash)...); err != nil {
			return mapErr(err)
		}
		x.Event = er.event()
		if err := fn(x); err != nil {
			return err
		}
	}
	return mapErr(rows.Err())
}
