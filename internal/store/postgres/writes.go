package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

const runCols = `id, dataset_id, dataset_sha256, pack_dir, scorer, wall_s, max_output_tokens, max_tool_calls, image_digest, network, prompt_id, controls_set, created_at`

func scanRun(r pgx.Row, extra ...any) (triage.Controls, bool, error) {
	var c triage.Controls
	var set bool
	var created string
	dest := []any{&c.RunID, &c.DatasetID, &c.DatasetSHA256, &c.PackDir, &c.Scorer, &c.WallS, &c.MaxOutputTokens, &c.MaxToolCalls, &c.ImageDigest, &c.Network, &c.PromptID, &set, &created}
	if err := r.Scan(append(dest, extra...)...); err != nil {
		return c, false, err
	}
	c.CreatedAt = store.ParseStamp(created)
	return c, set, nil
}

// SetControls implements store.Runs.
func (s *DB) SetControls(ctx context.Context, c triage.Controls) error {
	return s.write(ctx, "set run controls", func(tx pgx.Tx) error {
		cur, set, err := scanRun(tx.QueryRow(ctx, `SELECT `+runCols+` FROM runs WHERE id = $1 FOR UPDATE`, c.RunID))
		switch {
		case err == pgx.ErrNoRows:
		case err != nil:
			return err
		default:
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM traces WHERE run_id = $1`, c.RunID).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				if set && store.SameControls(cur, c) {
					return nil
				}
				return store.Frozen(fmt.Sprintf("run %q already has %d traces, so its controls cannot change: start a new run (card init --run NEW) for new controls", c.RunID, n))
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO runs (id, dataset_id, dataset_sha256, pack_dir, scorer, wall_s, max_output_tokens, max_tool_calls, image_digest, network, prompt_id, controls_set, created_at)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,true,$12)
			ON CONFLICT (id) DO UPDATE SET dataset_id=excluded.dataset_id, dataset_sha256=excluded.dataset_sha256, pack_dir=excluded.pack_dir,
				scorer=excluded.scorer, wall_s=excluded.wall_s, max_output_tokens=excluded.max_output_tokens, max_tool_calls=excluded.max_tool_calls,
				image_digest=excluded.image_digest, network=excluded.network, prompt_id=excluded.prompt_id, controls_set=true`,
			c.RunID, c.DatasetID, c.DatasetSHA256, c.PackDir, c.Scorer, c.WallS, c.MaxOutputTokens, c.MaxToolCalls, c.ImageDigest, c.Network, c.PromptID, s.stamp())
		return err
	})
}

// Controls implements store.Runs.
func (s *DB) Controls(ctx context.Context, runID string) (triage.Controls, bool, error) {
	c, set, err := scanRun(s.pool.QueryRow(ctx, `SELECT `+runCols+` FROM runs WHERE id = $1`, runID))
	return c, set, s.fail("read run "+runID, mapErr(err))
}

// Runs implements store.Runs.
func (s *DB) Runs(ctx context.Context) ([]store.RunInfo, error) { return s.listRuns(ctx, true) }

// RunControls implements store.Runs.
func (s *DB) RunControls(ctx context.Context) ([]triage.Controls, error) {
	runs, err := s.listRuns(ctx, false)
	out := make([]triage.Controls, len(runs))
	for i, r := range runs {
		out[i] = r.Controls
	}
	return out, err
}

func (s *DB) listRuns(ctx context.Context, count bool) ([]store.RunInfo, error) {
	q := `SELECT ` + runCols
	if count {
		q += `, (SELECT count(*) FROM traces t WHERE t.run_id = runs.id)`
	}
	rows, err := s.pool.Query(ctx, q+` FROM runs ORDER BY created_at COLLATE "C", id COLLATE "C"`)
	if err != nil {
		return nil, s.fail("list runs", err)
	}
	defer rows.Close()
	var out []store.RunInfo
	for rows.Next() {
		var ri store.RunInfo
		var extra []any
		if count {
			extra = append(extra, &ri.Traces)
		}
		var err error
		if ri.Controls, ri.ControlsSet, err = scanRun(rows, extra...); err != nil {
			return nil, s.fail("list runs", err)
		}
		out = append(out, ri)
	}
	return out, s.fail("list runs", rows.Err())
}

// AppendLabel implements store.Labels.
func (s *DB) AppendLabel(ctx context.Context, e triage.LabelEvent) (triage.LabelEvent, error) {
	if e.CreatedAt.IsZero() {
		e.CreatedAt = s.Now()
	}
	err := s.write(ctx, "store a label", func(tx pgx.Tx) error {
		_, err := appendEvent(ctx, tx, &e)
		return err
	})
	return e, err
}

// AppendLabels implements store.Labels.
func (s *DB) AppendLabels(ctx context.Context, events []triage.LabelEvent) (int, error) {
	for i := range events {
		if events[i].CreatedAt.IsZero() {
			events[i].CreatedAt = s.Now()
		}
	}
	var n int
	err := s.write(ctx, "store labels", func(tx pgx.Tx) error {
		n = 0
		for i := 0; i < len(events); {
			if events[i].Kind == triage.KindRule {
				// A run of rule events (a store copy's verdicts) goes
				// in one COPY, not an INSERT (a round trip) each.
				k, err := copyRuleEvents(ctx, tx, events[i:])
				if err != nil {
					return err
				}
				n += k
				i += k
				continue
			}
			// A run of people's events (labels import, a store copy's
			// labels) is one query for their traces' hashes and one
			// INSERT, not two round trips each.
			k, added, err := appendPeopleEvents(ctx, tx, events[i:])
			if err != nil {
				return err
			}
			n += added
			i += k
		}
		return nil
	})
	return n, err
}

// appendPeopleEvents stores the non-rule events that start events, up
// to copyRuleBatch, in order (their ids ascend as they come, which
// folding relies on: an undo retracts the latest), skipping those whose
// external key is stored already; it sets each new event's ID and
// returns how many it took (at least one) and how many were new.
func appendPeopleEvents(ctx context.Context, tx pgx.Tx, events []triage.LabelEvent) (int, int, error) {
	k := 0
	for k < len(events) && k < copyRuleBatch && events[k].Kind != triage.KindRule {
		k++
	}
	group := events[:k]
	ids := make([]int64, k)
	for i := range group {
		ids[i] = group[i].TraceID
	}
	hashes := make(map[int64]string, k)
	rows, err := tx.Query(ctx, `SELECT id, content_hash FROM traces WHERE id = ANY($1)`, ids)
	if err != nil {
		return 0, 0, mapErr(err)
	}
	var id int64
	var hash string
	if _, err := pgx.ForEachRow(rows, []any{&id, &hash}, func() error { hashes[id] = hash; return nil }); err != nil {
		return 0, 0, mapErr(err)
	}
	// The columns after trace_id, one array each: actor, kind,
	// primary_label, secondary, note, taxonomy_version, slice, cluster,
	// created_at, ext_key.
	var cols [10][]string
	for c := range cols {
		cols[c] = make([]string, k)
	}
	first := make(map[string]int, k) // an ext_key's first event in group
	for i := range group {
		e := &group[i]
		h, ok := hashes[e.TraceID]
		if !ok {
			return 0, 0, fmt.Errorf("label trace %d: %w", e.TraceID, store.ErrNotFound)
		}
		sec, _ := json.Marshal(nonNil(e.Secondary))
		ext := store.ExtKey(h, e)
		for c, v := range [10]string{e.Actor, string(e.Kind), e.Primary, string(sec), e.Note, e.TaxonomyVersion, e.Slice, e.Cluster, store.Stamp(e.CreatedAt), ext} {
			cols[c][i] = v
		}
		if _, seen := first[ext]; !seen {
			first[ext] = i
		}
	}
	res, err := tx.Query(ctx, `INSERT INTO label_events (trace_id, actor, kind, primary_label, secondary, note, taxonomy_version, slice, cluster, created_at, ext_key)
		SELECT trace_id, actor, kind, primary_label, secondary, note, taxonomy_version, slice, cluster, created_at, ext_key
		FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
			WITH ORDINALITY AS u(trace_id, actor, kind, primary_label, secondary, note, taxonomy_version, slice, cluster, created_at, ext_key, ord)
		ORDER BY ord
		ON CONFLICT (ext_key) DO NOTHING RETURNING id, ext_key`, ids, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], cols[8], cols[9])
	if err != nil {
		return 0, 0, fmt.Errorf("label events: %w", mapErr(err))
	}
	added := 0
	var key string
	if _, err := pgx.ForEachRow(res, []any{&id, &key}, func() error {
		group[first[key]].ID = id
		added++
		return nil
	}); err != nil {
		return 0, 0, fmt.Errorf("label events: %w", mapErr(err))
	}
	return k, added, nil
}

// copyRuleBatch bounds the events one statement of AppendLabels writes:
// rule events in a COPY, people's in an INSERT.
const copyRuleBatch = 4096

// copyRuleEvents stores the rule events that start events, up to
// copyRuleBatch, with one query checking their traces exist and one COPY;
// it returns how many it stored (at least one).
func copyRuleEvents(ctx context.Context, tx pgx.Tx, events []triage.LabelEvent) (int, error) {
	n := 0
	for n < len(events) && n < copyRuleBatch && events[n].Kind == triage.KindRule {
		n++
	}
	group := events[:n]
	rows := make([][]any, 0, n)
	ids := make([]int64, 0, n)
	for i := range group {
		e := &group[i]
		v := e.Verdict
		if v == nil {
			return 0, fmt.Errorf("rule event for trace %d has no verdict", e.TraceID)
		}
		if e.TaxonomyVersion != "" && e.TaxonomyVersion != v.TaxonomyVersion {
			return 0, fmt.Errorf("rule event for trace %d: taxonomy version %q, its verdict's %q", e.TraceID, e.TaxonomyVersion, v.TaxonomyVersion)
		}
		rows = append(rows, verdictRow(e.TraceID, e.Actor, store.Stamp(e.CreatedAt), v))
		ids = append(ids, e.TraceID)
	}
	// rule_verdicts has no foreign key (see migration 0001), so the
	// traces are checked here, as the SQLite store checks them.
	var missing *int64
	if err := tx.QueryRow(ctx, `SELECT min(x) FROM unnest($1::bigint[]) AS x WHERE NOT EXISTS (SELECT 1 FROM traces WHERE id = x)`, ids).Scan(&missing); err != nil {
		return 0, mapErr(err)
	}
	if missing != nil {
		return 0, fmt.Errorf("rule event for trace %d: %w", *missing, store.ErrNotFound)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"rule_verdicts"}, verdictColumns, pgx.CopyFromRows(rows)); err != nil {
		return 0, fmt.Errorf("rule events: %w", mapErr(err))
	}
	return n, nil
}

// appendEvent inserts e; it reports false when an event with the same
// external key exists. A rule event becomes a rule_verdicts row.
func appendEvent(ctx context.Context, tx pgx.Tx, e *triage.LabelEvent) (bool, error) {
	if e.Kind == triage.KindRule {
		v := e.Verdict
		if v == nil {
			return false, fmt.Errorf("rule event for trace %d has no verdict", e.TraceID)
		}
		if e.TaxonomyVersion != "" && e.TaxonomyVersion != v.TaxonomyVersion {
			return false, fmt.Errorf("rule event for trace %d: taxonomy version %q, its verdict's %q", e.TraceID, e.TaxonomyVersion, v.TaxonomyVersion)
		}
		_, err := tx.Exec(ctx, `INSERT INTO rule_verdicts (trace_id, actor, taxonomy_version, rules_version, created_at, primary_label, secondary, decision, reason, outcome, rest)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`, verdictRow(e.TraceID, e.Actor, store.Stamp(e.CreatedAt), v)...)
		if err != nil {
			return false, fmt.Errorf("rule event for trace %d: %w", e.TraceID, mapErr(err))
		}
		return true, nil
	}
	var hash string
	if err := tx.QueryRow(ctx, `SELECT content_hash FROM traces WHERE id = $1`, e.TraceID).Scan(&hash); err != nil {
		return false, fmt.Errorf("label trace %d: %w", e.TraceID, mapErr(err))
	}
	sec, _ := json.Marshal(nonNil(e.Secondary))
	err := tx.QueryRow(ctx, `INSERT INTO label_events (trace_id, actor, kind, primary_label, secondary, note, taxonomy_version, slice, cluster, created_at, ext_key)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) ON CONFLICT (ext_key) DO NOTHING RETURNING id`,
		e.TraceID, e.Actor, string(e.Kind), e.Primary, string(sec), e.Note, e.TaxonomyVersion, e.Slice, e.Cluster, store.Stamp(e.CreatedAt), store.ExtKey(hash, e)).Scan(&e.ID)
	if err == pgx.ErrNoRows {
		return false, nil
	}
	return err == nil, mapErr(err)
}

// verdictRow is a rule_verdicts row's values after its id, in column
// order.
func verdictRow(trace int64, actor, stamp string, v *triage.Verdict) []any {
	return []any{trace, actor, v.TaxonomyVersion, v.RulesVersion, stamp, v.Primary, string(store.AppendStrings(nil, nonNil(v.Secondary))),
		string(v.Decision), v.Reason, string(v.Outcome), store.PackRow(store.AppendVerdictRest(nil, v))}
}

var verdictColumns = []string{"trace_id", "actor", "taxonomy_version", "rules_version", "created_at", "primary_label", "secondary", "decision", "reason", "outcome", "rest"}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// CreateSlice implements store.Slices.
func (s *DB) CreateSlice(ctx context.Context, sl store.Slice) error {
	return s.write(ctx, "create slice "+sl.Name, func(tx pgx.Tx) error {
		// Creators of one name take turns, so the second reads what the
		// first wrote (read committed) and does not replace it unseen.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, sliceLock, sl.Name); err != nil {
			return err
		}
		var labelled int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM label_events WHERE slice = $1`, sl.Name).Scan(&labelled); err != nil {
			return err
		}
		if labelled > 0 {
			return store.Frozen(fmt.Sprintf("slice %q already has %d label events, so its items cannot change: create a new slice with another name", sl.Name, labelled))
		}
		have, err := scanSlice(tx.QueryRow(ctx, `SELECT `+sliceCols+` FROM slices WHERE name = $1`, sl.Name))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		default:
			if have.Items, err = sliceItems(ctx, tx, sl.Name); err != nil {
				return err
			}
			if have.SameDraw(&sl) {
				return nil // drawn already, as it is
			}
			if have.CreatedAt != sl.Replaces {
				return store.SliceRaced(sl.Name, have.CreatedAt)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM slice_items WHERE slice = $1`, sl.Name); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM slices WHERE name = $1`, sl.Name); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO slices (name, run_id, size, seed, stratify, source, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
			sl.Name, sl.RunID, sl.Size, int64(sl.Seed), sl.Stratify, sl.Source, s.stamp()); err != nil {
			return err
		}
		pos := make([]int32, len(sl.Items))
		for i := range pos {
			pos[i] = int32(i)
		}
		_, err = tx.Exec(ctx, `INSERT INTO slice_items (slice, trace_id, pos) SELECT $1, u.id, u.pos FROM unnest($2::bigint[], $3::int[]) AS u(id, pos)`, sl.Name, sl.Items, pos)
		return mapErr(err)
	})
}

// sliceLock is the first key of the advisory lock slice creators of
// one name take (the second is the name's hash).
const sliceLock = 2020_0030

const sliceCols = `name, run_id, size, seed, stratify, source, created_at, (SELECT count(*) FROM label_events e WHERE e.slice = slices.name)`

func scanSlice(r pgx.Row) (store.Slice, error) {
	var sl store.Slice
	var seed int64
	err := r.Scan(&sl.Name, &sl.RunID, &sl.Size, &seed, &sl.Stratify, &sl.Source, &sl.CreatedAt, &sl.Labelled)
	sl.Seed = uint64(seed)
	return sl, err
}

// Slice implements store.Slices.
func (s *DB) Slice(ctx context.Context, name string) (store.Slice, error) {
	sl, err := scanSlice(s.pool.QueryRow(ctx, `SELECT `+sliceCols+` FROM slices WHERE name = $1`, name))
	if err != nil {
		return sl, fmt.Errorf("slice %q: %w", name, s.fail("read slice", mapErr(err)))
	}
	rows, err := s.pool.Query(ctx, `SELECT trace_id FROM slice_items WHERE slice = $1 ORDER BY pos`, name)
	if err != nil {
		return sl, s.fail("read slice", err)
	}
	sl.Items, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	return sl, s.fail("read slice", err)
}

// sliceItems reads a slice's trace ids in sample order.
func sliceItems(ctx context.Context, q querier, name string) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT trace_id FROM slice_items WHERE slice = $1 ORDER BY pos`, name)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// Slices implements store.Slices.
func (s *DB) Slices(ctx context.Context) ([]store.Slice, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sliceCols+` FROM slices ORDER BY created_at COLLATE "C", name COLLATE "C"`)
	if err != nil {
		return nil, s.fail("list slices", err)
	}
	defer rows.Close()
	var out []store.Slice
	for rows.Next() {
		sl, err := scanSlice(rows)
		if err != nil {
			return nil, s.fail("list slices", err)
		}
		out = append(out, sl)
	}
	return out, s.fail("list slices", rows.Err())
}

// HeldOut implements store.Slices.
func (s *DB) HeldOut(ctx context.Context) (map[int64]bool, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT trace_id FROM slice_items`)
	if err != nil {
		return nil, s.fail("read slices", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, s.fail("read slices", err)
	}
	m := make(map[int64]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m, nil
}

// SaveTrust implements store.Slices.
func (s *DB) SaveTrust(ctx context.Context, taxonomyVersion, slice, status string, alpha, lo, hi *float64, units int, reasons string) error {
	return s.write(ctx, "save a trust verdict", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO trust (taxonomy_version, slice, status, alpha, ci_lo, ci_hi, units, reasons, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
			taxonomyVersion, slice, status, alpha, lo, hi, units, reasons, s.stamp())
		return err
	})
}

// LatestTrust implements store.Slices.
func (s *DB) LatestTrust(ctx context.Context, taxonomyVersion string) (store.Trust, error) {
	var t store.Trust
	err := s.pool.QueryRow(ctx, `SELECT taxonomy_version, slice, status, alpha, ci_lo, ci_hi, units, reasons, created_at FROM trust WHERE taxonomy_version = $1 ORDER BY id DESC LIMIT 1`, taxonomyVersion).
		Scan(&t.TaxonomyVersion, &t.Slice, &t.Status, &t.Alpha, &t.CILo, &t.CIHi, &t.Units, &t.Reasons, &t.CreatedAt)
	return t, s.fail("read trust", mapErr(err))
}

// Trusts implements store.Slices.
func (s *DB) Trusts(ctx context.Context) ([]store.Trust, error) {
	rows, err := s.pool.Query(ctx, `SELECT taxonomy_version, slice, status, alpha, ci_lo, ci_hi, units, reasons, created_at FROM trust ORDER BY id`)
	if err != nil {
		return nil, s.fail("read trust", mapErr(err))
	}
	defer rows.Close()
	var out []store.Trust
	for rows.Next() {
		var t store.Trust
		if err := rows.Scan(&t.TaxonomyVersion, &t.Slice, &t.Status, &t.Alpha, &t.CILo, &t.CIHi, &t.Units, &t.Reasons, &t.CreatedAt); err != nil {
			return nil, s.fail("read trust", mapErr(err))
		}
		out = append(out, t)
	}
	return out, s.fail("read trust", mapErr(rows.Err()))
}

// Rejects implements store.Imports.
func (s *DB) Rejects(ctx context.Context, file string) ([]store.Reject, error) {
	var out []store.Reject
	err := s.EachReject(ctx, file, func(r store.Reject) error {
		r.Raw = append([]byte(nil), r.Raw...)
		out = append(out, r)
		return nil
	})
	return out, err
}

// EachReject implements store.Imports.
func (s *DB) EachReject(ctx context.Context, file string, fn func(r store.Reject) error) error {
	q := `SELECT id, file, line, reason, raw, created_at FROM rejects`
	var args []any
	if file != "" {
		q += ` WHERE file = $1`
		args = append(args, file)
	}
	rows, err := s.pool.Query(ctx, q+` ORDER BY id`, args...)
	if err != nil {
		return s.fail("list rejects", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r store.Reject
		if err := rows.Scan(&r.ID, &r.File, &r.Line, &r.Reason, &r.Raw, &r.CreatedAt); err != nil {
			return s.fail("list rejects", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return s.fail("list rejects", rows.Err())
}

// LabelPending implements store.Verdicts: the traces without a verdict
// under these versions, a batch at a time, labelled while the batch
// before is written through COPY, all in one transaction that holds the
// bulk lock (a second rules run waits, then finds nothing to do).
func (s *DB) LabelPending(ctx context.Context, runID, taxonomyVersion, rulesVersion string, label store.RuleBatch) (int, error) {
	n := 0
	stamp := s.stamp()
	err := s.write(ctx, "rules run", func(tx pgx.Tx) error {
		n = 0
		if err := s.lockBulk(ctx, tx); err != nil {
			return err
		}
		cond, args := runCond(runID)
		q := `SELECT t.id, t.run_id FROM traces t WHERE NOT EXISTS (SELECT 1 FROM rule_verdicts v WHERE v.trace_id = t.id AND v.taxonomy_version = $%d AND v.rules_version = $%d)`
		q = fmt.Sprintf(q, len(args)+1, len(args)+2)
		if cond != "" {
			q += ` AND ` + cond
		}
		rows, err := tx.Query(ctx, q+` ORDER BY t.id`, append(args, taxonomyVersion, rulesVersion)...)
		if err != nil {
			return err
		}
		var ids []int64
		var runs []string
		var id int64
		var run string
		if _, err := pgx.ForEachRow(rows, []any{&id, &run}, func() error { ids, runs = append(ids, id), append(runs, run); return nil }); err != nil {
			return err
		}
		const batchSize = 2048
		type result struct {
			events []triage.LabelEvent
			err    error
		}
		// start reads the batch from lo (up to batchSize traces, fewer
		// when their bodies pass the budget) and labels it; the batch
		// ends at hi.
		start := func(lo int) (ch chan result, hi int, err error) {
			n, err := s.batchEnd(ctx, tx, ids[lo:min(lo+batchSize, len(ids))])
			if err != nil {
				return nil, lo, err
			}
			hi = lo + n
			batch := make([]store.StoredRow, n)
			for i := range batch {
				batch[i].ID, batch[i].RunID = ids[lo+i], runs[lo+i]
			}
			if err := fillBodies(ctx, tx, batch); err != nil {
				return nil, lo, err
			}
			ch = make(chan result, 1)
			go func() {
				ev, err := label(batch)
				ch <- result{ev, err}
			}()
			return ch, hi, nil
		}
		if len(ids) == 0 {
			return nil
		}
		cur, hi, err := start(0)
		if err != nil {
			return err
		}
		for lo := 0; lo < len(ids); {
			var next chan result
			nextHi := hi
			if hi < len(ids) {
				if next, nextHi, err = start(hi); err != nil {
					<-cur
					return err
				}
			}
			r := <-cur
			if r.err == nil {
				r.err = s.copyVerdicts(ctx, tx, r.events, ids[lo:hi], taxonomyVersion, rulesVersion, stamp)
			}
			if r.err != nil {
				if next != nil {
					<-next
				}
				return r.err
			}
			n += len(r.events)
			lo, hi, cur = hi, nextHi, next
		}
		return nil
	})
	return n, err
}

// copyVerdicts writes rule events through COPY; each must label one of
// batch (ascending ids), at most once, under these versions.
func (s *DB) copyVerdicts(ctx context.Context, tx pgx.Tx, events []triage.LabelEvent, batch []int64, taxV, rulesV, stamp string) error {
	rows := make([][]any, 0, len(events))
	j := 0
	for _, e := range events {
		for j < len(batch) && batch[j] < e.TraceID {
			j++
		}
		if j == len(batch) || batch[j] != e.TraceID {
			return fmt.Errorf("rule event for trace %d, which is not one of the batch's pending traces (or is out of order)", e.TraceID)
		}
		j++
		v := e.Verdict
		if v == nil {
			return fmt.Errorf("rule event for trace %d has no verdict", e.TraceID)
		}
		if e.Actor != triage.ActorRules || v.TaxonomyVersion != taxV || v.RulesVersion != rulesV {
			return fmt.Errorf("rule event for trace %d: actor %q, versions %q/%q, labelling as %q under %q/%q", e.TraceID, e.Actor, v.TaxonomyVersion, v.RulesVersion, triage.ActorRules, taxV, rulesV)
		}
		rows = append(rows, verdictRow(e.TraceID, e.Actor, stamp, v))
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"rule_verdicts"}, verdictColumns, pgx.CopyFromRows(rows))
	return err
}

// fillBodies reads the bodies of rows (by ID).
func fillBodies(ctx context.Context, q querier, rows []store.StoredRow) error {
	ids := make([]int64, len(rows))
	at := make(map[int64]int, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
		at[r.ID] = i
	}
	rs, err := q.Query(ctx, `SELECT id, raw, norm FROM traces WHERE id = ANY($1)`, ids)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var id int64
		var raw, norm []byte
		if err := rs.Scan(&id, &raw, &norm); err != nil {
			return err
		}
		r := &rows[at[id]]
		if r.Raw, err = store.UnpackRow(raw); err != nil {
			return fmt.Errorf("trace %d: %w", id, err)
		}
		if r.Norm, err = store.UnpackRow(norm); err != nil {
			return fmt.Errorf("trace %d: %w", id, err)
		}
	}
	return rs.Err()
}
