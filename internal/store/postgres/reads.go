package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

const summaryCols = `t.id, t.run_id, t.task_id, t.seed, t.model, t.agent, t.prompt_id, t.exit_code, t.outcome, t.n_tool_calls, t.wall_s, t.tokens_in, t.tokens_out, t.cost_usd, t.source, t.content_hash, t.import_id`

// summaryRow is summaryCols as scanned.
type summaryRow struct {
	t         store.TraceSummary
	outcome   string
	exit      *int32
	tin, tout *int64
	imp       *int64
}

func (r *summaryRow) dest() []any {
	t := &r.t
	return []any{&t.ID, &t.RunID, &t.TaskID, &t.Seed, &t.Model, &t.Agent, &t.PromptID, &r.exit, &r.outcome, &t.NToolCalls, &t.WallS, &r.tin, &r.tout, &t.CostUSD, &t.Source, &t.ContentHash, &r.imp}
}

func (r *summaryRow) summary() store.TraceSummary {
	t := r.t
	t.Outcome = triage.Outcome(r.outcome)
	if r.exit != nil {
		n := int(*r.exit)
		t.ExitCode = &n
	}
	if r.imp != nil {
		t.ImportID = *r.imp
	}
	if r.tin != nil || r.tout != nil {
		t.Tokens = &triage.Tokens{}
		if r.tin != nil {
			t.Tokens.Input = *r.tin
		}
		if r.tout != nil {
			t.Tokens.Output = *r.tout
		}
	}
	return t
}

// Summaries implements store.Traces.
func (s *DB) Summaries(ctx context.Context, runID string) ([]store.TraceSummary, error) {
	q := `SELECT ` + summaryCols + ` FROM traces t`
	var args []any
	if runID != "" {
		q += ` WHERE t.run_id = $1`
		args = append(args, runID)
	}
	rows, err := s.pool.Query(ctx, q+` ORDER BY t.run_id, t.task_id, t.seed`, args...)
	if err != nil {
		return nil, s.fail("list traces", err)
	}
	defer rows.Close()
	var out []store.TraceSummary
	for rows.Next() {
		var sr summaryRow
		if err := rows.Scan(sr.dest()...); err != nil {
			return nil, s.fail("list traces", err)
		}
		out = append(out, sr.summary())
	}
	return out, s.fail("list traces", rows.Err())
}

// Summary implements store.Traces.
func (s *DB) Summary(ctx context.Context, id int64) (store.TraceSummary, error) {
	var sr summaryRow
	err := s.pool.QueryRow(ctx, `SELECT `+summaryCols+` FROM traces t WHERE t.id = $1`, id).Scan(sr.dest()...)
	if err != nil {
		return store.TraceSummary{}, s.fail(fmt.Sprintf("trace %d", id), mapErr(err))
	}
	return sr.summary(), nil
}

// FindTrace implements store.Traces.
func (s *DB) FindTrace(ctx context.Context, run, task string, seed int) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT id FROM traces WHERE run_id = $1 AND task_id = $2 AND seed = $3`, run, task, seed).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("trace %s: %w", triage.TraceKey(run, task, seed), s.fail("find trace", mapErr(err)))
	}
	return id, nil
}

type finder struct{ s *DB }

// TraceFinder implements store.Traces.
func (s *DB) TraceFinder(context.Context) (store.TraceFinder, error) { return &finder{s}, nil }

// Find implements store.TraceFinder.
func (f *finder) Find(ctx context.Context, run, task string, seed int) (int64, string, error) {
	var id int64
	var hash string
	err := f.s.pool.QueryRow(ctx, `SELECT id, content_hash FROM traces WHERE run_id = $1 AND task_id = $2 AND seed = $3`, run, task, seed).Scan(&id, &hash)
	if err != nil {
		return 0, "", fmt.Errorf("trace %s: %w", triage.TraceKey(run, task, seed), f.s.fail("find trace", mapErr(err)))
	}
	return id, hash, nil
}

// Close implements store.TraceFinder.
func (f *finder) Close() error { return nil }

func (s *DB) body(ctx context.Context, q querier, id int64) (raw, norm []byte, err error) {
	if err := q.QueryRow(ctx, `SELECT raw, norm FROM traces WHERE id = $1`, id).Scan(&raw, &norm); err != nil {
		return nil, nil, mapErr(err)
	}
	if raw, err = store.UnpackRow(raw); err != nil {
		return nil, nil, err
	}
	norm, err = store.UnpackRow(norm)
	return raw, norm, err
}

// Row implements store.Traces.
func (s *DB) Row(ctx context.Context, id int64) (row []byte, raw []byte, err error) {
	raw, norm, err := s.body(ctx, s.pool, id)
	if err != nil {
		return nil, nil, fmt.Errorf("trace %d: %w", id, s.fail("read trace", err))
	}
	if norm != nil {
		return norm, raw, nil
	}
	return raw, raw, nil
}

// Trace implements store.Traces.
func (s *DB) Trace(ctx context.Context, id int64) (*triage.Trace, error) {
	r := store.StoredRow{ID: id}
	err := s.pool.QueryRow(ctx, `SELECT run_id, content_hash, source FROM traces WHERE id = $1`, id).Scan(&r.RunID, &r.Hash, &r.Source)
	if err != nil {
		return nil, fmt.Errorf("trace %d: %w", id, s.fail("read trace", mapErr(err)))
	}
	if r.Raw, r.Norm, err = s.body(ctx, s.pool, id); err != nil {
		return nil, fmt.Errorf("trace %d: %w", id, s.fail("read trace", err))
	}
	return s.Decode(r)
}

// ImportFiles implements store.Traces.
func (s *DB) ImportFiles(ctx context.Context) (map[int64]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, file FROM imports`)
	if err != nil {
		return nil, s.fail("list imports", err)
	}
	out := map[int64]string{}
	var id int64
	var f string
	_, err = pgx.ForEachRow(rows, []any{&id, &f}, func() error { out[id] = f; return nil })
	return out, s.fail("list imports", err)
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

const eventCols = `e.id, e.trace_id, e.actor, e.kind, e.primary_label, e.secondary, e.note, e.taxonomy_version, e.slice, e.cluster, e.created_at`

type eventRow struct {
	id, traceID                                                 int64
	actor, kind, primary, sec, note, taxV, slice, cluster, stmp string
}

func (r *eventRow) dest() []any {
	return []any{&r.id, &r.traceID, &r.actor, &r.kind, &r.primary, &r.sec, &r.note, &r.taxV, &r.slice, &r.cluster, &r.stmp}
}

func (r *eventRow) event() triage.LabelEvent {
	e := triage.LabelEvent{ID: r.id, TraceID: r.traceID, Actor: r.actor, Kind: triage.LabelKind(r.kind), Primary: r.primary,
		Note: r.note, TaxonomyVersion: r.taxV, Slice: r.slice, Cluster: r.cluster, CreatedAt: store.ParseStamp(r.stmp)}
	if r.sec != "" && r.sec != "[]" {
		_ = json.Unmarshal([]byte(r.sec), &e.Secondary)
	}
	return e
}

// ruleCols are a rule verdict's summary columns; ruleRow reads them.
const ruleCols = `v.trace_id, v.actor, v.taxonomy_version, v.rules_version, v.created_at, v.primary_label, v.secondary, v.decision, v.reason, v.outcome`

type ruleRow struct {
	trace                                                           int64
	actor, taxV, rulesV, stmp, primary, sec, decision, reason, outc string
}

func (r *ruleRow) dest() []any {
	return []any{&r.trace, &r.actor, &r.taxV, &r.rulesV, &r.stmp, &r.primary, &r.sec, &r.decision, &r.reason, &r.outc}
}

// ruleEvents shares one event for each distinct verdict summary, as the
// SQLite store does: a few hundred label a million traces.
type ruleEvents map[ruleRow]*triage.LabelEvent

func (re ruleEvents) get(r ruleRow) *triage.LabelEvent {
	k := r
	k.trace = 0
	if e, ok := re[k]; ok {
		return e
	}
	sec := []string{}
	if r.sec != "" && r.sec != "[]" {
		_ = json.Unmarshal([]byte(r.sec), &sec)
		sec = slices.Clip(sec)
	}
	e := &triage.LabelEvent{Actor: r.actor, Kind: triage.KindRule, Primary: r.primary, Secondary: sec, TaxonomyVersion: r.taxV,
		CreatedAt: store.ParseStamp(r.stmp),
		Verdict: &triage.Verdict{Primary: r.primary, Secondary: sec, Decision: triage.Decision(r.decision), Reason: r.reason,
			Outcome: triage.Outcome(r.outc), TaxonomyVersion: r.taxV, RulesVersion: r.rulesV}}
	re[k] = e
	return e
}

// eventOf returns trace's own copy of a shared rule event.
func eventOf(trace int64, shared *triage.LabelEvent) *triage.LabelEvent {
	e := *shared
	e.TraceID = trace
	v := *e.Verdict
	e.Verdict = &v
	return &e
}

// latestRules reads the current rule verdict (summary only) of every
// trace that where selects (an SQL condition on t, the trace).
func latestRules(ctx context.Context, q querier, where string, args ...any) (map[int64]*triage.LabelEvent, error) {
	query := `SELECT DISTINCT ON (v.trace_id) ` + ruleCols + ` FROM rule_verdicts v`
	if where != "" {
		query += ` JOIN traces t ON t.id = v.trace_id WHERE ` + where
	}
	rows, err := q.Query(ctx, query+` ORDER BY v.trace_id, v.id DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]*triage.LabelEvent{}
	re := ruleEvents{}
	var r ruleRow
	for rows.Next() {
		if err := rows.Scan(r.dest()...); err != nil {
			return nil, err
		}
		out[r.trace] = re.get(r)
	}
	return out, rows.Err()
}

// foldEvents folds the people's events query returns, in trace and id
// order, into out.
func foldEvents(ctx context.Context, q querier, out map[int64]*triage.LabelState, query string, args ...any) error {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var f store.StateFolder
	cur := int64(-1)
	var er eventRow
	for rows.Next() {
		if err := rows.Scan(er.dest()...); err != nil {
			return err
		}
		if er.traceID != cur {
			if cur >= 0 {
				if st := f.Done(); st != nil {
					out[cur] = st
				}
			}
			cur = er.traceID
			f.Reset(cur)
		}
		f.Add(er.event())
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if cur >= 0 {
		if st := f.Done(); st != nil {
			out[cur] = st
		}
	}
	return nil
}

// withRules puts each trace's current rule verdict into its state.
func withRules(out map[int64]*triage.LabelState, rules map[int64]*triage.LabelEvent) {
	for trace, rule := range rules {
		st := out[trace]
		if st == nil {
			st = &triage.LabelState{TraceID: trace}
			out[trace] = st
		}
		st.Rule = eventOf(trace, rule)
	}
}

func runCond(runID string) (string, []any) {
	if runID == "" {
		return "", nil
	}
	return `t.run_id = $1`, []any{runID}
}

// LabelStates implements store.Labels.
func (s *DB) LabelStates(ctx context.Context, runID string) (map[int64]*triage.LabelState, error) {
	out := map[int64]*triage.LabelState{}
	err := s.read(ctx, "read labels", func(tx pgx.Tx) error { return labelStates(ctx, tx, runID, out) })
	return out, err
}

func labelStates(ctx context.Context, q querier, runID string, out map[int64]*triage.LabelState) error {
	cond, args := runCond(runID)
	query := `SELECT ` + eventCols + ` FROM label_events e`
	if cond != "" {
		query += ` JOIN traces t ON t.id = e.trace_id WHERE ` + cond
	}
	if err := foldEvents(ctx, q, out, query+` ORDER BY e.trace_id, e.id`, args...); err != nil {
		return err
	}
	rules, err := latestRules(ctx, q, cond, args...)
	if err != nil {
		return err
	}
	withRules(out, rules)
	return nil
}

// LabelStatesOf implements store.Labels.
func (s *DB) LabelStatesOf(ctx context.Context, traceIDs []int64) (map[int64]*triage.LabelState, error) {
	out := map[int64]*triage.LabelState{}
	err := s.read(ctx, "read labels", func(tx pgx.Tx) error {
		if err := foldEvents(ctx, tx, out, `SELECT `+eventCols+` FROM label_events e WHERE e.trace_id = ANY($1) ORDER BY e.trace_id, e.id`, traceIDs); err != nil {
			return err
		}
		rules, err := latestRules(ctx, tx, `t.id = ANY($1)`, traceIDs)
		if err != nil {
			return err
		}
		withRules(out, rules)
		return nil
	})
	return out, err
}

// SliceStates implements store.Labels.
func (s *DB) SliceStates(ctx context.Context, slice string) (map[int64]*triage.LabelState, error) {
	out := map[int64]*triage.LabelState{}
	err := s.read(ctx, "read a slice's labels", func(tx pgx.Tx) error {
		return foldEvents(ctx, tx, out, `SELECT `+eventCols+` FROM label_events e
			WHERE e.slice = $1 AND e.trace_id IN (SELECT trace_id FROM slice_items WHERE slice = $1)
			ORDER BY e.trace_id, e.id`, slice)
	})
	return out, err
}

// Each implements store.Traces: the traces in id order, each with its
// folded state, from one snapshot.
func (s *DB) Each(ctx context.Context, runID string, fn func(store.TraceSummary, *triage.LabelState) error) error {
	var fnErr error
	err := s.read(ctx, "read traces", func(tx pgx.Tx) error {
		states := map[int64]*triage.LabelState{}
		if err := labelStates(ctx, tx, runID, states); err != nil {
			return err
		}
		cond, args := runCond(runID)
		q := `SELECT ` + summaryCols + ` FROM traces t`
		if cond != "" {
			q += ` WHERE ` + cond
		}
		rows, err := tx.Query(ctx, q+` ORDER BY t.id`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var sr summaryRow
		for rows.Next() {
			sr = summaryRow{}
			if err := rows.Scan(sr.dest()...); err != nil {
				return err
			}
			t := sr.summary()
			if fnErr = fn(t, states[t.ID]); fnErr != nil {
				return fnErr
			}
		}
		return rows.Err()
	})
	if fnErr != nil {
		return fnErr
	}
	return err
}

// QueueRows implements store.Traces.
func (s *DB) QueueRows(ctx context.Context, runID string, leftoversOnly bool, limit int) ([]store.QueueRow, error) {
	var out []store.QueueRow
	err := s.read(ctx, "read the review queue", func(tx pgx.Tx) error {
		out = nil
		cond, args := runCond(runID)
		q := `SELECT t.id, t.run_id, t.task_id, t.seed, t.model, t.n_tool_calls, ` + ruleCols + `
			FROM traces t LEFT JOIN LATERAL (SELECT * FROM rule_verdicts r WHERE r.trace_id = t.id ORDER BY r.id DESC LIMIT 1) v ON true`
		var where []string
		if cond != "" {
			where = append(where, cond)
		}
		if leftoversOnly {
			// The filter and the limit are the server's: a limited
			// read then walks the key's index and stops.
			where = append(where, `(v.decision IS NULL OR v.decision = '`+string(triage.DecisionLeftover)+`')`)
		}
		if len(where) > 0 {
			q += ` WHERE ` + strings.Join(where, " AND ")
		}
		q += ` ORDER BY t.run_id, t.task_id, t.seed`
		if limit > 0 {
			q += fmt.Sprintf(` LIMIT %d`, limit)
		}
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		re := ruleEvents{}
		for rows.Next() {
			var r store.QueueRow
			var trace *int64
			var actor, taxV, rulesV, stmp, primary, sec, decision, reason, outc *string
			if err := rows.Scan(&r.ID, &r.RunID, &r.TaskID, &r.Seed, &r.Model, &r.NToolCalls, &trace, &actor, &taxV, &rulesV, &stmp, &primary, &sec, &decision, &reason, &outc); err != nil {
				return err
			}
			if trace != nil {
				r.Rule = re.get(ruleRow{0, *actor, *taxV, *rulesV, *stmp, *primary, *sec, *decision, *reason, *outc}).Verdict
			}
			if leftoversOnly && r.Rule != nil && r.Rule.Decision != triage.DecisionLeftover {
				continue
			}
			out = append(out, r)
			if limit > 0 && len(out) == limit {
				break
			}
		}
		return rows.Err()
	})
	slices.SortFunc(out, func(a, b store.QueueRow) int {
		return cmp.Or(strings.Compare(a.RunID, b.RunID), strings.Compare(a.TaskID, b.TaskID), cmp.Compare(a.Seed, b.Seed))
	})
	return out, err
}

// History implements store.Labels: people's events and rule verdicts
// in time order, people's first at the same instant.
func (s *DB) History(ctx context.Context, traceID int64, actor string) ([]triage.LabelEvent, error) {
	var out []triage.LabelEvent
	err := s.read(ctx, "read a trace's history", func(tx pgx.Tx) error {
		out = nil
		q := `SELECT ` + eventCols + ` FROM label_events e WHERE e.trace_id = $1`
		args := []any{traceID}
		if actor != "" {
			q += ` AND e.actor = $2`
			args = append(args, actor)
		}
		rows, err := tx.Query(ctx, q+` ORDER BY e.id`, args...)
		if err != nil {
			return err
		}
		var er eventRow
		for rows.Next() {
			if err := rows.Scan(er.dest()...); err != nil {
				rows.Close()
				return err
			}
			out = append(out, er.event())
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		q = `SELECT ` + ruleCols + ` FROM rule_verdicts v WHERE v.trace_id = $1`
		if actor != "" {
			q += ` AND v.actor = $2`
		}
		rows, err = tx.Query(ctx, q+` ORDER BY v.id`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		re := ruleEvents{}
		var rr ruleRow
		n := 0
		for rows.Next() {
			if err := rows.Scan(rr.dest()...); err != nil {
				return err
			}
			out = append(out, *eventOf(traceID, re.get(rr)))
			n++
		}
		if n > 0 {
			slices.SortStableFunc(out, func(a, b triage.LabelEvent) int { return a.CreatedAt.Compare(b.CreatedAt) })
		}
		return rows.Err()
	})
	return out, err
}

// Verdict implements store.Verdicts.
func (s *DB) Verdict(ctx context.Context, traceID int64) (*triage.Verdict, error) {
	vs, err := s.Verdicts(ctx, []int64{traceID})
	if err != nil {
		return nil, err
	}
	v, ok := vs[traceID]
	if !ok {
		return nil, store.ErrNotFound
	}
	return v, nil
}

// Verdicts implements store.Verdicts.
func (s *DB) Verdicts(ctx context.Context, traceIDs []int64) (map[int64]*triage.Verdict, error) {
	out := map[int64]*triage.Verdict{}
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT ON (v.trace_id) `+ruleCols+`, v.rest FROM rule_verdicts v
		WHERE v.trace_id = ANY($1) ORDER BY v.trace_id, v.id DESC`, traceIDs)
	if err != nil {
		return nil, s.fail("read verdicts", err)
	}
	defer rows.Close()
	re := ruleEvents{}
	for rows.Next() {
		var rr ruleRow
		var rest []byte
		if err := rows.Scan(append(rr.dest(), &rest)...); err != nil {
			return nil, s.fail("read verdicts", err)
		}
		v := *re.get(rr).Verdict
		body, err := store.UnpackRow(rest)
		if err != nil {
			return nil, fmt.Errorf("verdict of trace %d: %w", rr.trace, err)
		}
		r, err := store.DecodeVerdictRest(body)
		if err != nil {
			return nil, fmt.Errorf("verdict of trace %d: %w", rr.trace, err)
		}
		v.Fired, v.Evidence, v.Unevaluated = r.Fired, r.Evidence, r.Unevaluated
		out[rr.trace] = &v
	}
	return out, s.fail("read verdicts", rows.Err())
}

// HumanEvents implements store.Labels.
func (s *DB) HumanEvents(ctx context.Context, reviewer, slice string) ([]store.ExportedEvent, error) {
	var out []store.ExportedEvent
	err := s.EachHumanEvent(ctx, reviewer, slice, func(x store.ExportedEvent) error { out = append(out, x); return nil })
	return out, err
}

// EachHumanEvent implements store.Labels.
func (s *DB) EachHumanEvent(ctx context.Context, reviewer, slice string, fn func(store.ExportedEvent) error) error {
	q := `SELECT ` + eventCols + `, t.run_id, t.task_id, t.seed, t.content_hash FROM label_events e JOIN traces t ON t.id = e.trace_id WHERE true`
	var args []any
	if reviewer != "" {
		args = append(args, reviewer)
		q += fmt.Sprintf(` AND e.actor = $%d`, len(args))
	}
	if slice != "" {
		args = append(args, slice)
		q += fmt.Sprintf(` AND e.slice = $%d`, len(args))
	}
	rows, err := s.pool.Query(ctx, q+` ORDER BY e.id`, args...)
	if err != nil {
		return s.fail("read labels", err)
	}
	defer rows.Close()
	for rows.Next() {
		var x store.ExportedEvent
		var er eventRow
		if err := rows.Scan(append(er.dest(), &x.RunID, &x.TaskID, &x.Seed, &x.ContentHash)...); err != nil {
			return s.fail("read labels", err)
		}
		x.Event = er.event()
		if err := fn(x); err != nil {
			return err
		}
	}
	return s.fail("read labels", rows.Err())
}

// eachTraceBatch is how many traces EachTrace reads at once, fewer when
// their bodies pass the batch budget (store.BatchBytes).
const eachTraceBatch = 1024

// EachTrace implements store.Traces: the traces in id order, with their
// full verdicts, a batch at a time: one query for the batch's bodies and
// one for its verdicts. It used to read each trace through Trace, two
// queries a trace (200,002 round trips for 100,000 traces).
func (s *DB) EachTrace(ctx context.Context, refs []store.TraceRef, fn func(*triage.Trace, *triage.Verdict) error) error {
	var vs map[int64]*triage.Verdict
	return s.eachBatch(ctx, refs, func(ids []int64) (err error) {
		vs, err = s.Verdicts(ctx, ids)
		return err
	}, func(r store.TraceRef, row store.StoredRow) error {
		tr, err := s.Decode(row)
		if err != nil {
			return err
		}
		return fn(tr, vs[r.ID])
	})
}

// EachRow implements store.Traces: a query a batch of traces.
func (s *DB) EachRow(ctx context.Context, refs []store.TraceRef, fn func(store.StoredRow) error) error {
	return s.eachBatch(ctx, refs, nil, func(r store.TraceRef, row store.StoredRow) error {
		row.RunID, row.Hash, row.Source = r.RunID, "", ""
		return fn(row)
	})
}

// EachStored implements store.Traces: a page of eachTraceBatch
// summaries by id (the primary key's order, no sort), then their bodies
// through eachBatch.
func (s *DB) EachStored(ctx context.Context, fn func(store.TraceSummary, store.StoredRow) error) error {
	page := make([]store.TraceSummary, 0, eachTraceBatch)
	refs := make([]store.TraceRef, 0, eachTraceBatch)
	for after := int64(-1 << 63); ; {
		rows, err := s.pool.Query(ctx, `SELECT `+summaryCols+` FROM traces t WHERE t.id > $1 ORDER BY t.id LIMIT $2`, after, eachTraceBatch)
		if err != nil {
			return s.fail("list traces", err)
		}
		page, refs = page[:0], refs[:0]
		for rows.Next() {
			var sr summaryRow
			if err := rows.Scan(sr.dest()...); err != nil {
				rows.Close()
				return s.fail("list traces", err)
			}
			t := sr.summary()
			page, refs = append(page, t), append(refs, store.TraceRef{ID: t.ID, RunID: t.RunID})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return s.fail("list traces", err)
		}
		if len(page) == 0 {
			return nil
		}
		after = page[len(page)-1].ID
		j := 0
		if err := s.eachBatch(ctx, refs, nil, func(r store.TraceRef, row store.StoredRow) error {
			for j < len(page) && page[j].ID != r.ID {
				j++
			}
			if j == len(page) {
				return fmt.Errorf("trace %d: read out of order", r.ID)
			}
			row.Hash, row.Source = page[j].ContentHash, page[j].Source
			return fn(page[j], row)
		}); err != nil {
			return err
		}
	}
}

// eachBatch walks refs in id order a batch at a time (eachTraceBatch
// rows, fewer once their bodies pass the byte budget: batchEnd): one query
// for the batch's bodies, then batch (when set) with the batch's ids, then
// each ref with its row. A ref named twice is the same row.
func (s *DB) eachBatch(ctx context.Context, refs []store.TraceRef, batch func(ids []int64) error, each func(store.TraceRef, store.StoredRow) error) error {
	refs = slices.Clone(refs)
	slices.SortFunc(refs, func(a, b store.TraceRef) int { return cmp.Compare(a.ID, b.ID) })
	rows := make([]store.StoredRow, 0, eachTraceBatch)
	ids := make([]int64, 0, eachTraceBatch)
	for lo := 0; lo < len(refs); {
		part := refs[lo:min(lo+eachTraceBatch, len(refs))]
		ids = ids[:0]
		for _, r := range part {
			ids = append(ids, r.ID)
		}
		n, err := s.batchEnd(ctx, s.pool, ids)
		if err != nil {
			return err
		}
		part, ids, lo = part[:n], ids[:n], lo+n
		if rows, err = s.bodies(ctx, ids, rows[:0]); err != nil {
			return err
		}
		if batch != nil {
			if err := batch(ids); err != nil {
				return err
			}
		}
		j := 0
		for _, r := range part {
			for j < len(rows) && rows[j].ID < r.ID {
				j++
			}
			if j == len(rows) || rows[j].ID != r.ID {
				return fmt.Errorf("trace %d: %w", r.ID, s.fail("read trace", store.ErrNotFound))
			}
			if err := each(r, rows[j]); err != nil {
				return err
			}
		}
		clear(rows)
	}
	return nil
}

// batchEnd is how many of ids (ascending; one may repeat) make one batch:
// all of them, or fewer once their bodies, as read (unpacked), pass the
// batch budget, at least one. It reads only the rows' lengths and headers,
// not their bodies, so ten traces of 64 MiB are not held at once.
func (s *DB) batchEnd(ctx context.Context, q querier, ids []int64) (int, error) {
	if len(ids) <= 1 {
		return len(ids), nil
	}
	rows, err := q.Query(ctx, `SELECT id, substring(raw from 1 for 11), octet_length(raw), substring(norm from 1 for 11), coalesce(octet_length(norm), 0) FROM traces WHERE id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		return 0, s.fail("read traces", mapErr(err))
	}
	defer rows.Close()
	budget, size, j := s.batchBudget(), 0, 0
	for rows.Next() {
		var id int64
		var rawHead, normHead []byte
		var rawLen, normLen int
		if err := rows.Scan(&id, &rawHead, &rawLen, &normHead, &normLen); err != nil {
			return 0, s.fail("read traces", mapErr(err))
		}
		for j < len(ids) && ids[j] <= id {
			j++
		}
		if size += store.RowLen(rawHead, rawLen) + store.RowLen(normHead, normLen); size > budget {
			return max(j, 1), nil
		}
	}
	if err := rows.Err(); err != nil {
		return 0, s.fail("read traces", mapErr(err))
	}
	return len(ids), nil
}

// bodies appends the stored rows of ids, in id order, to out: one query.
func (s *DB) bodies(ctx context.Context, ids []int64, out []store.StoredRow) ([]store.StoredRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, run_id, content_hash, source, raw, norm FROM traces WHERE id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		return out, s.fail("read traces", mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		var r store.StoredRow
		var raw, norm []byte
		if err := rows.Scan(&r.ID, &r.RunID, &r.Hash, &r.Source, &raw, &norm); err != nil {
			return out, s.fail("read traces", err)
		}
		if r.Raw, err = store.UnpackRow(raw); err != nil {
			return out, fmt.Errorf("trace %d: %w", r.ID, err)
		}
		if r.Norm, err = store.UnpackRow(norm); err != nil {
			return out, fmt.Errorf("trace %d: %w", r.ID, err)
		}
		out = append(out, r)
	}
	return out, s.fail("read traces", rows.Err())
}
