package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/triage-dev/triage/internal/triage"
)

// QueueRow is one trace as a review queue lists it: identity and the
// rules' latest verdict (nil when the rules have not run on it).
type QueueRow struct {
	ID     int64
	RunID  string
	TaskID string
	Seed   int
	Model  string
	Rule   *triage.Verdict
}

// QueueRows lists a run's traces (every run when runID is empty) for a
// review queue, in run, task, seed order. With leftoversOnly, traces the
// rules decided with certainty are left out by the query itself, so a
// queue over 100,000 traces reads only what it shows.
func (s *DB) QueueRows(ctx context.Context, runID string, leftoversOnly bool) ([]QueueRow, error) {
	q := `SELECT t.id, t.run_id, t.task_id, t.seed, t.model, r.primary_label, r.secondary, r.decision, r.reason, r.outcome, r.taxonomy_version, r.rules_version
		FROM traces t LEFT JOIN label_events r
		ON r.id = (SELECT max(e.id) FROM label_events e WHERE e.trace_id = t.id AND e.kind = 'rule')`
	var where []string
	var args []any
	if runID != "" {
		where = append(where, `t.run_id = ?`)
		args = append(args, runID)
	}
	if leftoversOnly {
		where = append(where, `(r.id IS NULL OR r.decision = 'leftover')`)
	}
	for i, w := range where {
		if i == 0 {
			q += ` WHERE ` + w
		} else {
			q += ` AND ` + w
		}
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY t.run_id, t.task_id, t.seed`, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []QueueRow
	for rows.Next() {
		var r QueueRow
		var primary, sec, decision, reason, outcome, taxV, rulesV sql.NullString
		if err := rows.Scan(&r.ID, &r.RunID, &r.TaskID, &r.Seed, &r.Model, &primary, &sec, &decision, &reason, &outcome, &taxV, &rulesV); err != nil {
			return nil, mapErr(err)
		}
		if decision.Valid {
			v := &triage.Verdict{Primary: primary.String, Decision: triage.Decision(decision.String), Reason: reason.String,
				Outcome: triage.Outcome(outcome.String), TaxonomyVersion: taxV.String, RulesVersion: rulesV.String, Secondary: []string{}}
			if sec.String != "" && sec.String != "[]" {
				_ = json.Unmarshal([]byte(sec.String), &v.Secondary)
			}
			r.Rule = v
		}
		out = append(out, r)
	}
	return out, mapErr(rows.Err())
}
