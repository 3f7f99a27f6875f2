package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// QueueRows lists a run's traces (every run when runID is empty) for a
// review queue, in run, task, seed order. With leftoversOnly, traces the
// rules decided with certainty are dropped as they are read, so a queue
// over 100,000 traces holds only what it shows. The rules' verdicts come
// from their rule_verdicts rows' labels, read first (about three bytes a
// trace, no evidence).
//
// The store is read in rowid order, which is the order traces and their
// verdicts were written, and sorted here: walking the (run, task, seed)
// index instead jumps about the file, three page reads a trace on a
// million-trace store. The strings rows repeat (runs, models, verdicts,
// reasons) are shared, so a queue of 600k leftovers holds each once.
//
// limit, when above 0, returns only the first limit rows in queue order,
// walking the (run, task, seed) index and stopping there, so that they
// come at once however large the store: the review screen shows them
// while the rest loads.
func (s *DB) QueueRows(ctx context.Context, runID string, leftoversOnly bool, limit int) (out []QueueRow, err error) {
	err = s.snapshot(ctx, func(db querier) error { out, err = queueRows(ctx, db, runID, leftoversOnly, limit); return err })
	return out, err
}

func queueRows(ctx context.Context, db querier, runID string, leftoversOnly bool, limit int) ([]QueueRow, error) {
	lo, hi, err := traceRange(ctx, db, runID)
	if err != nil {
		return nil, err
	}
	rules, err := loadRuleOverlay(ctx, db, lo, hi)
	if err != nil {
		return nil, err
	}
	legacy, err := legacyRuleEvents(ctx, db)
	if err != nil {
		return nil, err
	}
	// Stores labelled before migration 0005 keep rule verdicts in
	// label_events too; every other store skips looking there.
	q := `SELECT t.id, t.run_id, t.task_id, t.seed, t.model, t.n_tool_calls, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM traces t`
	if legacy {
		q = `SELECT t.id, t.run_id, t.task_id, t.seed, t.model, t.n_tool_calls, r.primary_label, r.secondary, r.decision, r.reason, r.outcome, r.taxonomy_version, r.rules_version
		FROM traces t LEFT JOIN label_events r
		ON r.id = (SELECT max(e.id) FROM label_events e WHERE e.trace_id = t.id AND e.kind = 'rule')`
	}
	var args []any
	switch {
	case runID != "" && limit > 0:
		q += ` WHERE t.run_id = ?`
		args = append(args, runID)
	case runID != "":
		cond, condArgs := inRun("t.", lo, hi, runID)
		q += ` WHERE ` + cond
		args = append(args, condArgs...)
	}
	if limit > 0 {
		q += ` ORDER BY t.run_id, t.task_id, t.seed`
	} else {
		q += ` ORDER BY t.id`
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []QueueRow
	in := interner{}
	// Verdicts repeat: a few hundred distinct ones label a million
	// traces. Rows with equal verdict columns share one *Verdict, which
	// callers must treat as read-only.
	type verdictKey struct{ primary, sec, decision, reason, outcome, taxV, rulesV string }
	verdicts := map[verdictKey]*triage.Verdict{}
	for rows.Next() {
		var r QueueRow
		var primary, sec, decision, reason, outcome, taxV, rulesV sql.NullString
		if err := rows.Scan(&r.ID, &r.RunID, &r.TaskID, &r.Seed, &r.Model, &r.NToolCalls, &primary, &sec, &decision, &reason, &outcome, &taxV, &rulesV); err != nil {
			return nil, mapErr(err)
		}
		if e := rules.get(r.ID); e != nil {
			r.Rule = e.Verdict // shared already, one per distinct verdict
		} else if decision.Valid {
			k := verdictKey{in.get(primary.String), in.get(sec.String), in.get(decision.String), in.get(reason.String),
				in.get(outcome.String), in.get(taxV.String), in.get(rulesV.String)}
			v, ok := verdicts[k]
			if !ok {
				v = &triage.Verdict{Primary: k.primary, Decision: triage.Decision(k.decision), Reason: k.reason,
					Outcome: triage.Outcome(k.outcome), TaxonomyVersion: k.taxV, RulesVersion: k.rulesV, Secondary: []string{}}
				if k.sec != "" && k.sec != "[]" {
					_ = json.Unmarshal([]byte(k.sec), &v.Secondary)
				}
				verdicts[k] = v
			}
			r.Rule = v
		}
		if leftoversOnly && r.Rule != nil && r.Rule.Decision != triage.DecisionLeftover {
			continue
		}
		r.RunID, r.TaskID, r.Model = in.get(r.RunID), in.get(r.TaskID), in.get(r.Model)
		out = append(out, r)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	slices.SortFunc(out, func(a, b QueueRow) int {
		return cmp.Or(strings.Compare(a.RunID, b.RunID), strings.Compare(a.TaskID, b.TaskID), cmp.Compare(a.Seed, b.Seed))
	})
	return out, nil
}

// interner shares equal strings.
type interner map[string]string

func (in interner) get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}
