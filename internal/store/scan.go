package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/triage-dev/triage/internal/triage"
)

// Each streams every trace of a run (all runs when runID is empty) in id
// order with its folded label state (nil when nothing was said about it).
// One cursor reads traces and their events together, so memory does not
// grow with the store: lists, reports and the review queue read 100,000
// traces without holding them twice.
func (s *DB) Each(ctx context.Context, runID string, fn func(TraceSummary, *triage.LabelState) error) error {
	q := `SELECT t.id, t.run_id, t.task_id, t.seed, t.model, t.agent, t.prompt_id, t.exit_code, t.outcome, t.n_tool_calls, t.wall_s, t.tokens_in, t.tokens_out, t.cost_usd, t.source, t.content_hash,
		e.id, e.actor, e.kind, e.primary_label, e.secondary, e.note, e.taxonomy_version, e.rules_version, e.decision, e.reason, e.outcome, e.slice, e.created_at
		FROM traces t LEFT JOIN label_events e ON e.trace_id = t.id`
	var args []any
	if runID != "" {
		q += ` WHERE t.run_id = ?`
		args = append(args, runID)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY t.id, e.id`, args...)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	var (
		cur    TraceSummary
		have   bool
		folder stateFolder
	)
	emit := func() error {
		if !have {
			return nil
		}
		return fn(cur, folder.done())
	}
	for rows.Next() {
		var t TraceSummary
		var exit, tin, tout sql.NullInt64
		var wall, cost sql.NullFloat64
		var outcome string
		var eid sql.NullInt64
		var actor, kind, primary, sec, note, taxV, rulesV, decision, reason, eoutcome, slice, created sql.NullString
		if err := rows.Scan(&t.ID, &t.RunID, &t.TaskID, &t.Seed, &t.Model, &t.Agent, &t.PromptID, &exit, &outcome, &t.NToolCalls, &wall, &tin, &tout, &cost, &t.Source, &t.ContentHash,
			&eid, &actor, &kind, &primary, &sec, &note, &taxV, &rulesV, &decision, &reason, &eoutcome, &slice, &created); err != nil {
			return mapErr(err)
		}
		if !have || t.ID != cur.ID {
			if err := emit(); err != nil {
				return err
			}
			t.ExitCode, t.WallS, t.CostUSD, t.Outcome = intPtr(exit), floatPtr(wall), floatPtr(cost), triage.Outcome(outcome)
			if tin.Valid || tout.Valid {
				t.Tokens = &triage.Tokens{Input: tin.Int64, Output: tout.Int64}
			}
			cur, have = t, true
			folder.reset(t.ID)
		}
		if !eid.Valid {
			continue
		}
		e := triage.LabelEvent{ID: eid.Int64, TraceID: t.ID, Actor: actor.String, Kind: triage.LabelKind(kind.String), Primary: primary.String,
			Note: note.String, TaxonomyVersion: taxV.String, Slice: slice.String, CreatedAt: parseStamp(created.String)}
		if sec.String != "" && sec.String != "[]" {
			_ = json.Unmarshal([]byte(sec.String), &e.Secondary)
		}
		if e.Kind == triage.KindRule {
			e.Verdict = &triage.Verdict{Primary: e.Primary, Secondary: e.Secondary, Decision: triage.Decision(decision.String), Reason: reason.String,
				Outcome: triage.Outcome(eoutcome.String), TaxonomyVersion: e.TaxonomyVersion, RulesVersion: rulesV.String}
		}
		folder.add(e)
	}
	if err := rows.Err(); err != nil {
		return mapErr(err)
	}
	return emit()
}

// stateFolder folds one trace's events, in id order, into its state.
type stateFolder struct {
	st       *triage.LabelState
	perActor map[string][]triage.LabelEvent
}

func (f *stateFolder) reset(traceID int64) {
	f.st = &triage.LabelState{TraceID: traceID}
	if f.perActor == nil {
		f.perActor = map[string][]triage.LabelEvent{}
	}
	clear(f.perActor)
}

func (f *stateFolder) add(e triage.LabelEvent) {
	if e.Kind == triage.KindRule {
		f.st.Rule = &e
		return
	}
	// Adjudications share the actor's history so that undo can take one
	// back, as it takes back a human label.
	f.perActor[e.Actor] = append(f.perActor[e.Actor], e)
}

// done returns the folded state, or nil when the trace has no events.
func (f *stateFolder) done() *triage.LabelState {
	st := f.st
	for actor, evs := range f.perActor {
		human, adj := triage.LiveEvents(evs)
		if human != nil {
			if st.Humans == nil {
				st.Humans = map[string]*triage.LabelEvent{}
			}
			st.Humans[actor] = human
		}
		// The latest live adjudication, by anyone, settles the trace.
		if adj != nil && (st.Adjudication == nil || adj.ID > st.Adjudication.ID) {
			st.Adjudication = adj
		}
	}
	if st.Rule == nil && len(f.perActor) == 0 {
		return nil
	}
	return st
}
