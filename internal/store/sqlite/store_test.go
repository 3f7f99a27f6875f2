package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// testDecode is a minimal row decoder so store tests need no ingest.
func testDecode(row []byte, run string) (*triage.Trace, error) {
	var t triage.Trace
	if err := json.Unmarshal(row, &t); err != nil {
		return nil, err
	}
	t.RunID = run
	return &t, nil
}

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "t.db"), testDecode)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func trace(run, task string, seed int, hash string) *triage.Trace {
	raw := fmt.Sprintf(`{"task_id":%q,"seed":%d,"h":%q}`, task, seed, hash)
	return &triage.Trace{RunID: run, TaskID: task, Seed: seed, Source: "jsonl", Raw: []byte(raw), ContentHash: hash}
}

func importAll(t *testing.T, db *DB, ts ...*triage.Trace) []AddResult {
	t.Helper()
	ctx := context.Background()
	var out []AddResult
	im, err := db.beginImport(ctx, func(a Added) error { out = append(out, a.Result); return nil })
	require.NoError(t, err)
	for i, tr := range ts {
		require.NoError(t, im.Add(ctx, tr, nil, "f.jsonl", i+1))
	}
	require.NoError(t, im.Commit(ctx))
	return out
}

func TestMigrationsRunOnceAndReopen(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.db")
	ctx := context.Background()
	db, err := Open(ctx, path, testDecode)
	require.NoError(t, err)
	var n int
	require.NoError(t, db.db.QueryRowContext(ctx, `SELECT count(*) FROM migrations`).Scan(&n))
	require.Equal(t, 7, n)
	var mode string
	require.NoError(t, db.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode))
	require.Equal(t, "wal", mode)
	var fk int
	require.NoError(t, db.db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk))
	require.Equal(t, 1, fk)
	require.NoError(t, db.Close())
	db, err = Open(ctx, path, testDecode)
	require.NoError(t, err)
	require.NoError(t, db.db.QueryRowContext(ctx, `SELECT count(*) FROM migrations`).Scan(&n))
	require.Equal(t, 7, n, "reopening applies nothing twice")
	db.Close()
}

// A store made before migration 0002 gets its index of people's events on
// the next open, and reads a reviewer's events through it.
func TestOldStoreGetsTheHumanEventsIndex(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.db")
	ctx := context.Background()
	db, err := Open(ctx, path, testDecode)
	require.NoError(t, err)
	importAll(t, db, trace("r", "T", 1, "h1"))
	_, err = db.AppendLabel(ctx, triage.LabelEvent{TraceID: 1, Actor: "ana", Kind: triage.KindHuman, Primary: triage.ToolLoop})
	require.NoError(t, err)
	_, err = db.db.ExecContext(ctx, `DROP INDEX label_events_human; DELETE FROM migrations WHERE name LIKE '%0002%'`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	db, err = Open(ctx, path, testDecode)
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'label_events_human'`).Scan(&n))
	require.Equal(t, 1, n)
	evs, err := db.HumanEvents(ctx, "ana", "")
	require.NoError(t, err)
	require.Len(t, evs, 1)
	require.Equal(t, triage.ToolLoop, evs[0].Event.Primary)
}

func TestImportDuplicatesAndConflicts(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	got := importAll(t, db, trace("r", "T1", 0, "a"), trace("r", "T1", 1, "b"))
	require.Equal(t, []AddResult{Imported, Imported}, got)
	got = importAll(t, db, trace("r", "T1", 0, "a"), trace("r", "T1", 1, "changed"))
	require.Equal(t, []AddResult{Duplicate, Conflict}, got)
	sums, err := db.Summaries(ctx, "r")
	require.NoError(t, err)
	require.Len(t, sums, 2)
	require.Equal(t, "b", sums[1].ContentHash, "a conflict never overwrites")
	tr, err := db.Trace(ctx, sums[0].ID)
	require.NoError(t, err)
	require.Equal(t, "T1", tr.TaskID)
	require.Equal(t, `{"task_id":"T1","seed":0,"h":"a"}`, string(tr.Raw))

	// Within one batch, a repeated key meets its first occurrence.
	got = importAll(t, db, trace("r", "T9", 0, "x"), trace("r", "T9", 0, "x"), trace("r", "T9", 0, "y"))
	require.Equal(t, []AddResult{Imported, Duplicate, Conflict}, got)
	// More than one batch of new traces, then all of them again.
	var many []*triage.Trace
	for i := range 150 {
		many = append(many, trace("r", "M", i, fmt.Sprint(i)))
	}
	for pass, want := range []AddResult{Imported, Duplicate} {
		got = importAll(t, db, many...)
		require.Len(t, got, 150)
		for i, r := range got {
			require.Equal(t, want, r, "pass %d trace %d", pass, i)
		}
	}
	sums, err = db.Summaries(ctx, "r")
	require.NoError(t, err)
	require.Len(t, sums, 153)
}

func TestRejectsKeptOnceWithRawBytes(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	for range 2 {
		im, err := db.beginImport(ctx, func(Added) error { return nil })
		require.NoError(t, err)
		require.NoError(t, im.Reject(ctx, Reject{File: "f.jsonl", Line: 7, Reason: "exit_code: want an integer", Raw: []byte("{\"x\":\x01}")}))
		require.NoError(t, im.Commit(ctx))
	}
	rs, err := db.Rejects(ctx, "")
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Equal(t, []byte("{\"x\":\x01}"), rs[0].Raw)
	require.Equal(t, 7, rs[0].Line)
}

func TestStrictRollbackWritesNothing(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	im, err := db.beginImport(ctx, func(Added) error { return nil })
	require.NoError(t, err)
	require.NoError(t, im.Add(ctx, trace("r", "T1", 0, "a"), nil, "f", 1))
	require.NoError(t, im.Rollback())
	sums, err := db.Summaries(ctx, "")
	require.NoError(t, err)
	require.Empty(t, sums)
}

func TestControlsFrozenOnceTracesExist(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	wall := 180.0
	c := triage.Controls{RunID: "r", DatasetID: "d", Scorer: "pytest", WallS: &wall}
	require.NoError(t, db.SetControls(ctx, c))
	c.Scorer = "pytest -q"
	require.NoError(t, db.SetControls(ctx, c), "no traces yet: controls may change")
	importAll(t, db, trace("r", "T1", 0, "a"))
	require.NoError(t, db.SetControls(ctx, c), "the same controls again are a no-op")
	c.Scorer = "other"
	err := db.SetControls(ctx, c)
	require.ErrorIs(t, err, ErrFrozen)
	require.Contains(t, err.Error(), "start a new run")
	got, set, err := db.Controls(ctx, "r")
	require.NoError(t, err)
	require.True(t, set)
	require.Equal(t, "pytest -q", got.Scorer)
	require.Equal(t, 180.0, *got.WallS)

	// Runs and RunControls list the same controls; only Runs counts.
	importAll(t, db, trace("s", "T1", 0, "b"), trace("s", "T2", 0, "c"))
	runs, err := db.Runs(ctx)
	require.NoError(t, err)
	controls, err := db.RunControls(ctx)
	require.NoError(t, err)
	require.Len(t, runs, 2)
	require.Equal(t, []int{1, 2}, []int{runs[0].Traces, runs[1].Traces})
	require.Equal(t, []triage.Controls{runs[0].Controls, runs[1].Controls}, controls)
	require.Equal(t, "pytest -q", controls[0].Scorer)
}

func TestLabelHistoryUndoAndStates(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	importAll(t, db, trace("r", "T1", 0, "a"))
	sums, _ := db.Summaries(ctx, "r")
	id := sums[0].ID
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	add := func(actor string, kind triage.LabelKind, primary string) {
		_, err := db.AppendLabel(ctx, triage.LabelEvent{TraceID: id, Actor: actor, Kind: kind, Primary: primary, CreatedAt: at})
		at = at.Add(time.Second)
		require.NoError(t, err)
	}
	add("ann", triage.KindHuman, triage.ToolLoop)
	add("ann", triage.KindHuman, triage.AssumeAPI)
	add("ann", triage.KindUndo, "")
	add("bob", triage.KindHuman, triage.ToolLoop)
	states, err := db.LabelStates(ctx, "r")
	require.NoError(t, err)
	st := states[id]
	require.Equal(t, triage.ToolLoop, st.Humans["ann"].Primary, "undo retracts ann's latest label")
	require.Equal(t, triage.ToolLoop, st.Humans["bob"].Primary)
	f := triage.Resolve(st)
	require.Equal(t, triage.SourceHuman, f.Source)
	require.False(t, f.Unresolved, "two agreeing reviewers resolve a trace")
	h, err := db.History(ctx, id, "ann")
	require.NoError(t, err)
	require.Len(t, h, 3, "history keeps every event, undo included")

	// The same event imported again is stored once (labels import).
	e := triage.LabelEvent{TraceID: id, Actor: "cy", Kind: triage.KindHuman, Primary: triage.Timeout, CreatedAt: at}
	_, err = db.AppendLabel(ctx, e)
	require.NoError(t, err)
	_, err = db.AppendLabel(ctx, e)
	require.NoError(t, err)
	h, _ = db.History(ctx, id, "cy")
	require.Len(t, h, 1)
}

func TestLabelPendingAndVerdict(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	importAll(t, db, trace("r", "T1", 0, "a"), trace("r", "T2", 0, "b"))
	version := "tv1"
	label := func(rows []StoredRow) ([]triage.LabelEvent, error) {
		var out []triage.LabelEvent
		for _, r := range rows {
			v := &triage.Verdict{Primary: triage.ScorerRed, Decision: triage.DecisionLeftover, Reason: "no rule explained it",
				Outcome: triage.OutcomeFailed, TaxonomyVersion: version, RulesVersion: "1", Secondary: []string{triage.TagLeaked},
				Fired: []string{triage.ScorerRed}, Evidence: []triage.Evidence{{Rule: triage.ScorerRed, Message: "red", ToolCall: 2, File: "a.py", Line: 3}},
				Unevaluated: []triage.Evidence{{Rule: triage.AssumeAPI, Message: "no spec", ToolCall: -1}}}
			out = append(out, triage.LabelEvent{TraceID: r.ID, Actor: triage.ActorRules, Kind: triage.KindRule, Verdict: v})
		}
		return out, nil
	}
	n, err := db.LabelPending(ctx, "", "tv1", "1", label)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	n, err = db.LabelPending(ctx, "", "tv1", "1", label)
	require.NoError(t, err)
	require.Equal(t, 0, n, "labelled traces are not labelled again")
	_, err = db.LabelPending(ctx, "", "tv2", "1", label)
	require.ErrorContains(t, err, `versions "tv1"/"1", labelling as "rules" under "tv2"/"1"`,
		"a verdict under another version than the run's would leave its trace pending forever")
	version = "tv2"
	n, err = db.LabelPending(ctx, "", "tv2", "1", label)
	require.NoError(t, err)
	require.Equal(t, 2, n, "a new taxonomy version re-labels, keeping the old verdicts")
	sums, _ := db.Summaries(ctx, "r")
	v, err := db.Verdict(ctx, sums[0].ID)
	require.NoError(t, err)
	// The newest verdict, the second taxonomy's, is the one read.
	require.Equal(t, &triage.Verdict{Primary: triage.ScorerRed, Decision: triage.DecisionLeftover, Reason: "no rule explained it",
		Outcome: triage.OutcomeFailed, TaxonomyVersion: "tv2", RulesVersion: "1", Secondary: []string{triage.TagLeaked},
		Fired: []string{triage.ScorerRed}, Evidence: []triage.Evidence{{Rule: triage.ScorerRed, Message: "red", ToolCall: 2, File: "a.py", Line: 3}},
		Unevaluated: []triage.Evidence{{Rule: triage.AssumeAPI, Message: "no spec", ToolCall: -1}}}, v, "a verdict reads back whole")
	vs, err := db.Verdicts(ctx, []int64{sums[0].ID, sums[1].ID, 999})
	require.NoError(t, err)
	require.Len(t, vs, 2, "a trace without a verdict is absent")
	require.Equal(t, v, vs[sums[0].ID])
	_, err = db.Verdict(ctx, 999)
	require.ErrorIs(t, err, ErrNotFound)
	states, _ := db.LabelStates(ctx, "r")
	require.Equal(t, triage.OutcomeFailed, states[sums[0].ID].Rule.Verdict.Outcome)
	f := triage.Resolve(states[sums[0].ID])
	require.True(t, f.Unresolved)
	h, _ := db.History(ctx, sums[0].ID, "")
	require.Len(t, h, 2)
}

func TestSliceFrozenOnFirstLabel(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	importAll(t, db, trace("r", "T1", 0, "a"), trace("r", "T2", 0, "b"))
	sums, _ := db.Summaries(ctx, "r")
	require.NoError(t, db.CreateSlice(ctx, Slice{Name: "s", Size: 1, Items: []int64{sums[0].ID}}))
	first, err := db.Slice(ctx, "s")
	require.NoError(t, err)
	require.ErrorIs(t, db.CreateSlice(ctx, Slice{Name: "s", Size: 2, Items: []int64{sums[0].ID, sums[1].ID}}), ErrConflict,
		"a re-draw that did not see the slice it replaces")
	require.NoError(t, db.CreateSlice(ctx, Slice{Name: "s", Size: 1, Items: []int64{sums[0].ID}}), "the same draw again changes nothing")
	require.NoError(t, db.CreateSlice(ctx, Slice{Name: "s", Size: 2, Items: []int64{sums[0].ID, sums[1].ID}, Replaces: first.CreatedAt}), "unlabelled slices may be re-drawn")
	_, err = db.AppendLabel(ctx, triage.LabelEvent{TraceID: sums[0].ID, Actor: "ann", Kind: triage.KindHuman, Primary: triage.ToolLoop, Slice: "s"})
	require.NoError(t, err)
	err = db.CreateSlice(ctx, Slice{Name: "s", Size: 1, Items: []int64{sums[1].ID}})
	require.ErrorIs(t, err, ErrFrozen)
	_, err = db.AppendLabel(ctx, triage.LabelEvent{TraceID: sums[1].ID, Actor: "bo", Kind: triage.KindSkip, Slice: "s"})
	require.NoError(t, err)
	_, err = db.AppendLabel(ctx, triage.LabelEvent{TraceID: sums[1].ID, Actor: "bo", Kind: triage.KindHuman, Primary: triage.ToolLoop, Slice: "other"})
	require.NoError(t, err)
	_, err = db.LabelPending(ctx, "", "tv", "1", func(rows []StoredRow) ([]triage.LabelEvent, error) {
		var out []triage.LabelEvent
		for _, r := range rows {
			out = append(out, triage.LabelEvent{TraceID: r.ID, Actor: triage.ActorRules, Kind: triage.KindRule,
				Verdict: &triage.Verdict{Primary: triage.ScorerRed, Decision: triage.DecisionLeftover, TaxonomyVersion: "tv", RulesVersion: "1"}})
		}
		return out, nil
	})
	require.NoError(t, err)
	sl, err := db.Slice(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, []int64{sums[0].ID, sums[1].ID}, sl.Items)
	require.Equal(t, 2, sl.Labelled, "the slice's own human and skip events count; rule verdicts and other slices' events do not")
	sls, err := db.Slices(ctx)
	require.NoError(t, err)
	require.Len(t, sls, 1)
	require.Equal(t, 2, sls[0].Labelled)
	require.Empty(t, sls[0].Items, "a listing carries no items")
	held, err := db.HeldOut(ctx)
	require.NoError(t, err)
	require.Len(t, held, 2)
	_, err = db.Slice(ctx, "nope")
	require.True(t, errors.Is(err, ErrNotFound))
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.db")
	ctx := context.Background()
	db0, err := Open(ctx, path, testDecode)
	require.NoError(t, err)
	importAll(t, db0, trace("r", "T1", 0, "a"))
	sums, _ := db0.Summaries(ctx, "r")
	db0.Close()
	// Two separate connections stand in for two reviewers' processes.
	const each = 50
	var wg sync.WaitGroup
	for _, who := range []string{"ann", "bob"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := Open(ctx, path, testDecode)
			require.NoError(t, err)
			defer db.Close()
			for i := range each {
				_, err := db.AppendLabel(ctx, triage.LabelEvent{TraceID: sums[0].ID, Actor: who, Kind: triage.KindHuman, Primary: fmt.Sprint(i)})
				require.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	db, err := Open(ctx, path, testDecode)
	require.NoError(t, err)
	defer db.Close()
	h, err := db.History(ctx, sums[0].ID, "")
	require.NoError(t, err)
	require.Len(t, h, 2*each)
}

func TestAdjudicationUndo(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	importAll(t, db, trace("r", "T1", 0, "a"))
	sums, _ := db.Summaries(ctx, "r")
	id := sums[0].ID
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	add := func(actor string, kind triage.LabelKind, primary string) {
		_, err := db.AppendLabel(ctx, triage.LabelEvent{TraceID: id, Actor: actor, Kind: kind, Primary: primary, CreatedAt: at})
		at = at.Add(time.Second)
		require.NoError(t, err)
	}
	add("ann", triage.KindHuman, triage.ToolLoop)
	add("cy", triage.KindHuman, triage.ScorerRed)
	add("cy", triage.KindAdjudication, triage.ToolLoop)
	check := func(wantAdj string, wantCy string) {
		t.Helper()
		for name, get := range map[string]func() *triage.LabelState{
			"LabelStates": func() *triage.LabelState { st, err := db.LabelStates(ctx, "r"); require.NoError(t, err); return st[id] },
			"Each": func() *triage.LabelState {
				var got *triage.LabelState
				require.NoError(t, db.Each(ctx, "r", func(_ TraceSummary, st *triage.LabelState) error { got = st; return nil }))
				return got
			},
		} {
			st := get()
			if wantAdj == "" {
				require.Nil(t, st.Adjudication, name)
			} else {
				require.Equal(t, wantAdj, st.Adjudication.Primary, name)
			}
			require.Equal(t, wantCy, st.Humans["cy"].Primary, name+": an adjudicator's own review stays")
		}
	}
	check(triage.ToolLoop, triage.ScorerRed)
	add("cy", triage.KindUndo, "")
	check("", triage.ScorerRed)
}

func TestQueueRowsLeavesDecidedTracesOut(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	importAll(t, db, trace("r", "T2", 0, "a"), trace("r", "T1", 1, "b"), trace("r", "T1", 0, "c"))
	_, err := db.LabelPending(ctx, "", "tv", "1", func(rows []StoredRow) ([]triage.LabelEvent, error) {
		var out []triage.LabelEvent
		for _, r := range rows {
			var row struct{ H string }
			require.NoError(t, json.Unmarshal(r.Raw, &row))
			d := triage.DecisionLeftover
			if row.H == "a" {
				d = triage.DecisionCertain
			}
			v := &triage.Verdict{Primary: triage.ScorerRed, Decision: d, Reason: "why " + row.H, Secondary: []string{}, TaxonomyVersion: "tv", RulesVersion: "1"}
			out = append(out, triage.LabelEvent{TraceID: r.ID, Actor: triage.ActorRules, Kind: triage.KindRule, Verdict: v})
		}
		return out, nil
	})
	require.NoError(t, err)
	all, err := db.QueueRows(ctx, "r", false, 0)
	require.NoError(t, err)
	require.Len(t, all, 3)
	require.Equal(t, []string{"T1", "T1", "T2"}, []string{all[0].TaskID, all[1].TaskID, all[2].TaskID}, "run, task, seed order")
	require.Equal(t, 0, all[0].Seed)
	left, err := db.QueueRows(ctx, "r", true, 0)
	require.NoError(t, err)
	require.Len(t, left, 2, "the certain verdict is left out")
	require.Equal(t, "why c", left[0].Rule.Reason)
	// The first page is the head of the whole queue, in the same order.
	for n := 1; n <= 3; n++ {
		page, err := db.QueueRows(ctx, "r", false, n)
		require.NoError(t, err)
		require.Equal(t, all[:n], page, "first %d", n)
	}
	page, err := db.QueueRows(ctx, "r", true, 1)
	require.NoError(t, err)
	require.Equal(t, left[:1], page)
}

// fillBodies reads the bodies of any ascending ids, a chunk once, and
// names an id that has none.
func TestFillBodies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	var ts []*triage.Trace
	for i := range 20 {
		ts = append(ts, trace("r", "T", i, fmt.Sprintf("h%d", i)))
	}
	importAll(t, db, ts...)
	for _, ids := range [][]int64{{1, 2, 3, 4, 5}, {2, 3, 5, 6, 8, 9}, {1, 10, 20}, {7}} {
		rows := make([]StoredRow, len(ids))
		for i, id := range ids {
			rows[i].ID = id
		}
		n, err := fillBodies(ctx, db.db, rows, 0)
		require.NoError(t, err)
		require.Equal(t, len(rows), n)
		for _, r := range rows {
			require.Equal(t, string(ts[r.ID-1].Raw), string(r.Raw), "trace %d", r.ID)
		}
	}
	_, err := fillBodies(ctx, db.db, []StoredRow{{ID: 19}, {ID: 20}, {ID: 21}}, 0)
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorContains(t, err, "trace 21")
}

// rule_verdicts has no foreign key, so LabelPending refuses a verdict on
// a trace its batch does not hold (one that may not exist, or a second
// verdict on one trace), and writes nothing.
func TestLabelPendingRefusesVerdictsOnOtherTraces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	importAll(t, db, trace("r", "T", 1, "h1"), trace("r", "T", 2, "h2"))
	for name, ids := range map[string][]int64{"missing trace": {1, 999}, "twice": {1, 1}, "out of order": {2, 1}} {
		_, err := db.LabelPending(ctx, "", "tax", "1", func(rows []StoredRow) ([]triage.LabelEvent, error) {
			var out []triage.LabelEvent
			for _, id := range ids {
				out = append(out, triage.LabelEvent{TraceID: id, Actor: triage.ActorRules, Kind: triage.KindRule,
					Verdict: &triage.Verdict{Primary: triage.ScorerRed, Decision: triage.DecisionLeftover, TaxonomyVersion: "tax", RulesVersion: "1"}})
			}
			return out, nil
		})
		require.ErrorContains(t, err, "not one of the batch's pending traces", name)
		var n int
		require.NoError(t, db.db.QueryRowContext(ctx, `SELECT count(*) FROM rule_verdicts`).Scan(&n))
		require.Zero(t, n, name)
	}
	_, err := db.AppendLabel(ctx, triage.LabelEvent{TraceID: 999, Actor: triage.ActorRules, Kind: triage.KindRule,
		Verdict: &triage.Verdict{Primary: triage.ScorerRed, TaxonomyVersion: "tax", RulesVersion: "1"}})
	require.ErrorIs(t, err, ErrNotFound, "a rule event on a trace that does not exist")
}

func TestLabelStatesOfMatchesLabelStates(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	importAll(t, db, trace("r", "T1", 0, "a"), trace("r", "T2", 0, "b"), trace("r", "T3", 0, "c"), trace("q", "T1", 0, "d"))
	sums, err := db.Summaries(ctx, "")
	require.NoError(t, err)
	ids := map[string]int64{}
	for _, s := range sums {
		ids[s.Key()] = s.ID
	}
	for _, e := range []triage.LabelEvent{
		{TraceID: ids["r/T1#0"], Actor: "ann", Kind: triage.KindHuman, Primary: triage.ToolLoop},
		{TraceID: ids["r/T1#0"], Actor: "ann", Kind: triage.KindHuman, Primary: triage.Timeout},
		{TraceID: ids["r/T1#0"], Actor: "ann", Kind: triage.KindUndo},
		{TraceID: ids["r/T2#0"], Actor: "bob", Kind: triage.KindHuman, Primary: triage.AssumeAPI},
		{TraceID: ids["r/T2#0"], Actor: "cy", Kind: triage.KindAdjudication, Primary: triage.ToolLoop},
		{TraceID: ids["q/T1#0"], Actor: "ann", Kind: triage.KindHuman, Primary: triage.Timeout},
	} {
		_, err := db.AppendLabel(ctx, e)
		require.NoError(t, err)
	}
	all, err := db.LabelStates(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, 3, "a trace nothing was said about has no state")
	for _, tc := range []struct {
		name string
		ids  []int64
	}{
		{"none", nil},
		{"one", []int64{ids["r/T2#0"]}},
		{"across runs, with an unlabelled trace", []int64{ids["r/T3#0"], ids["q/T1#0"], ids["r/T1#0"]}},
		{"unknown id", []int64{999}},
		{"more ids than one query takes", chunkIDs(1200)},
	} {
		got, err := db.LabelStatesOf(ctx, tc.ids)
		require.NoError(t, err, tc.name)
		want := map[int64]*triage.LabelState{}
		for _, id := range tc.ids {
			if st := all[id]; st != nil {
				want[id] = st
			}
		}
		require.Equal(t, want, got, tc.name)
	}
	got, err := db.LabelStatesOf(ctx, []int64{ids["r/T1#0"]})
	require.NoError(t, err)
	require.Equal(t, triage.ToolLoop, got[ids["r/T1#0"]].Humans["ann"].Primary, "undo applied")
}

// chunkIDs is 1..n, labelled traces among many unknown ids.
func chunkIDs(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}

// The store lives at exactly the path given, whatever a file: URI would
// read in it ('?' a query, '#' a fragment, '%' an escape).
func TestOpenUsesThePathAsGiven(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, name := range []string{"runs#2.db", "a?b.db", "100%25.db", "plain.db"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		db, err := Open(ctx, path, testDecode)
		require.NoError(t, err, name)
		importAll(t, db, trace("r", "T", 1, "h1"))
		require.NoError(t, db.Close())
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, entries, 1, "%s: one file, no WAL left after close", name)
		require.Equal(t, name, entries[0].Name())

		db, err = Open(ctx, path, testDecode)
		require.NoError(t, err, name)
		sums, err := db.Summaries(ctx, "r")
		require.NoError(t, err)
		require.Len(t, sums, 1, "%s: reopened with its trace", name)
		require.NoError(t, db.Close())
	}
	// An absolute path with a doubled leading slash is the same file, not
	// a URI naming a host.
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := Open(ctx, "/"+path, testDecode)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = os.Stat(path)
	require.NoError(t, err)
}

// An import runs with foreign key checks off on its own connection; after
// a commit and after a rollback the store enforces them again, and what
// the import wrote keeps every key (store.Check).
func TestImportRestoresForeignKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	var batch []*triage.Trace
	for i := range 3*importBatch + 5 {
		batch = append(batch, trace("r", "T", i, fmt.Sprint("h", i)))
	}
	batch = append(batch, trace("r", "T", 0, "h0"), trace("r", "T", 1, "other"))
	res := importAll(t, db, batch...)
	require.Equal(t, Duplicate, res[len(res)-2])
	require.Equal(t, Conflict, res[len(res)-1])
	im, err := db.beginImport(ctx, func(Added) error { return nil })
	require.NoError(t, err)
	require.NoError(t, im.Add(ctx, trace("q", "T", 1, "x"), nil, "f.jsonl", 1))
	require.NoError(t, im.Rollback())
	var on int
	require.NoError(t, db.db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on))
	require.Equal(t, 1, on)
	_, err = db.db.ExecContext(ctx, `INSERT INTO trace_rows (trace_id, raw) VALUES (99999, x'00')`)
	require.Error(t, err, "a body for a trace that does not exist must be refused")
	_, err = db.db.ExecContext(ctx, `INSERT INTO slice_items (slice, trace_id, pos) VALUES ('nope', 1, 0)`)
	require.Error(t, err, "an item of a slice that does not exist must be refused")
	problems, err := db.Check(ctx)
	require.NoError(t, err)
	require.Empty(t, problems)
	var n int
	require.NoError(t, db.db.QueryRowContext(ctx, `SELECT count(*) FROM trace_chunks`).Scan(&n))
	require.Equal(t, 4, n, "one chunk a batch")
	for _, tr := range batch[:3*importBatch+5] {
		id, err := db.FindTrace(ctx, tr.RunID, tr.TaskID, tr.Seed)
		require.NoError(t, err)
		got, err := db.Trace(ctx, id)
		require.NoError(t, err)
		require.Equal(t, string(tr.Raw), string(got.Raw))
	}
}

// labelAll gives every trace a rule verdict with evidence under version tv.
func labelAll(t *testing.T, db *DB, tv string) {
	t.Helper()
	_, err := db.LabelPending(context.Background(), "", tv, "1", func(rows []StoredRow) ([]triage.LabelEvent, error) {
		var out []triage.LabelEvent
		for _, r := range rows {
			out = append(out, triage.LabelEvent{TraceID: r.ID, Actor: triage.ActorRules, Kind: triage.KindRule,
				Verdict: &triage.Verdict{Primary: triage.ToolLoop, Decision: triage.DecisionCertain, TaxonomyVersion: tv, RulesVersion: "1",
					Fired: []string{triage.ToolLoop}, Evidence: []triage.Evidence{{Rule: triage.ToolLoop, Message: fmt.Sprint("calls of trace ", r.ID), ToolCall: 1}}}})
		}
		return out, nil
	})
	require.NoError(t, err)
}

// TestInsertSharesOnlyWhatABatchShares imports full batches whose
// shareable columns hold one value, change in a single row, or change in
// every row, and a short batch, and reads every column back: a value bound
// once for the batch must not land in a row that had another.
func TestInsertSharesOnlyWhatABatchShares(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	exit := func(v int) *int { return &v }
	wall := func(v float64) *float64 { return &v }
	type want struct {
		tr   *triage.Trace
		file string
		line int
	}
	var ws []want
	n := 3*importBatch + 37
	for i := range n {
		tr := trace("r1", fmt.Sprintf("T%03d", i%97), i, fmt.Sprintf("h%d", i))
		tr.Model, tr.Agent, tr.Outcome, tr.ExitCode, tr.WallS = "m1", "a1", triage.OutcomeSuccess, exit(0), wall(1.5)
		file := "f.jsonl"
		switch b := i / importBatch; {
		case b == 1 && i%importBatch == 200: // one row differs in each
			tr.RunID, tr.Model, tr.Agent, tr.PromptID, tr.Outcome, tr.Source, file = "r2", "m2", "", "p9", "", "other", "g.jsonl"
		case b == 2: // every row differs
			tr.RunID = fmt.Sprintf("r%d", i%3)
			tr.Model, tr.Agent, tr.PromptID = fmt.Sprintf("m%d", i%5), fmt.Sprintf("a%d", i%2), fmt.Sprintf("p%d", i%4)
			tr.Source, file = fmt.Sprintf("s%d", i%2), fmt.Sprintf("f%d.jsonl", i%6)
			if i%2 == 0 {
				tr.Outcome, tr.ExitCode, tr.WallS = "", nil, nil
			}
		}
		ws = append(ws, want{tr, file, i + 1})
	}
	im, err := db.beginImport(ctx, func(a Added) error {
		if a.Result != Imported {
			return fmt.Errorf("%s: %v", a.Trace.Key(), a.Result)
		}
		return nil
	})
	require.NoError(t, err)
	for _, w := range ws {
		require.NoError(t, im.Add(ctx, w.tr, nil, w.file, w.line))
	}
	require.NoError(t, im.Commit(ctx))

	rows, err := db.db.QueryContext(ctx, `SELECT t.run_id, t.task_id, t.seed, t.model, t.agent, t.prompt_id, t.outcome, t.exit_code, t.wall_s, t.source, t.content_hash, i.file, t.line FROM traces t JOIN imports i ON i.id = t.import_id ORDER BY t.id`)
	require.NoError(t, err)
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var run, task, model, agent, prompt, outcome, source, hash, file string
		var seed, line int
		var exitCode sql.NullInt64
		var wallS sql.NullFloat64
		require.NoError(t, rows.Scan(&run, &task, &seed, &model, &agent, &prompt, &outcome, &exitCode, &wallS, &source, &hash, &file, &line))
		w := ws[i]
		require.Equal(t, []any{w.tr.RunID, w.tr.TaskID, w.tr.Seed, w.tr.Model, w.tr.Agent, w.tr.PromptID, string(w.tr.Outcome), w.tr.Source, w.tr.ContentHash, w.file, w.line},
			[]any{run, task, seed, model, agent, prompt, outcome, source, hash, file, line}, "row %d", i)
		require.Equal(t, w.tr.ExitCode != nil, exitCode.Valid, "row %d exit code", i)
		require.Equal(t, w.tr.WallS != nil, wallS.Valid, "row %d wall", i)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, n, i)
}

// TestNewTracesAfterABatchOfDuplicates covers the batch looked up before
// it is written (the one after a batch of nothing but duplicates): its new
// traces land with their bodies, its old ones are duplicates or conflicts,
// and a key repeated inside it meets its first occurrence.
func TestNewTracesAfterABatchOfDuplicates(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	var old []*triage.Trace
	for i := range importBatch {
		old = append(old, trace("r", "A", i, fmt.Sprint(i)))
	}
	importAll(t, db, old...)

	ts := append([]*triage.Trace{}, old...) // batch 1: all duplicates
	var want []AddResult
	for range old {
		want = append(want, Duplicate)
	}
	for i := range importBatch { // batch 2: looked up first
		switch {
		case i%4 == 0:
			ts = append(ts, trace("r", "A", i, fmt.Sprint(i)))
			want = append(want, Duplicate)
		case i%4 == 1:
			ts = append(ts, trace("r", "A", i, "changed"))
			want = append(want, Conflict)
		case i%4 == 2:
			ts = append(ts, trace("r", "B", i, "new"))
			want = append(want, Imported)
		default: // a repeat of the new trace just before
			ts = append(ts, trace("r", "B", i-1, "new"))
			want = append(want, Duplicate)
		}
	}
	require.Equal(t, want, importAll(t, db, ts...))

	sums, err := db.Summaries(ctx, "r")
	require.NoError(t, err)
	require.Len(t, sums, importBatch+importBatch/4)
	for _, s := range sums {
		tr, err := db.Trace(ctx, s.ID)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf(`{"task_id":%q,"seed":%d,"h":%q}`, s.TaskID, s.Seed, s.ContentHash), string(tr.Raw), s.Key())
		if s.TaskID == "A" {
			require.Equal(t, fmt.Sprint(s.Seed), s.ContentHash, "a conflict never overwrites")
		}
	}
}

// A store made before migration 0006 keeps each trace's file and import
// time: they move to one imports row for each import, and import goes on
// from there.
func TestOldStoreGetsItsImports(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.db")
	ctx := context.Background()
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	require.NoError(t, err)
	_, err = old.ExecContext(ctx, `CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL) STRICT`)
	require.NoError(t, err)
	names, err := fs.Glob(migrations, "migrations/*.sql")
	require.NoError(t, err)
	sort.Strings(names)
	for _, name := range names[:5] {
		body, err := fs.ReadFile(migrations, name)
		require.NoError(t, err)
		_, err = old.ExecContext(ctx, string(body))
		require.NoError(t, err, name)
		_, err = old.ExecContext(ctx, `INSERT INTO migrations VALUES (?, 'then')`, name)
		require.NoError(t, err)
	}
	_, err = old.ExecContext(ctx, `INSERT INTO runs (id, created_at) VALUES ('r', 'then');
		INSERT INTO traces (run_id, task_id, seed, source, content_hash, file, line, imported_at) VALUES
			('r', 'T1', 0, 'jsonl', 'h1', 'a.jsonl', 1, '2026-01-01T00:00:00Z'),
			('r', 'T2', 0, 'jsonl', 'h2', 'b.jsonl', 1, '2026-01-01T00:00:00Z'),
			('r', 'T3', 0, 'jsonl', 'h3', 'a.jsonl', 2, '2026-01-01T00:00:00Z'),
			('r', 'T1', 1, 'jsonl', 'h4', 'a.jsonl', 1, '2026-02-01T00:00:00Z')`)
	require.NoError(t, err)
	require.NoError(t, old.Close())

	db, err := Open(ctx, path, testDecode)
	require.NoError(t, err)
	defer db.Close()
	read := func() []string {
		rows, err := db.db.QueryContext(ctx, `SELECT t.task_id, t.seed, i.id, i.file, t.line, i.imported_at FROM traces t JOIN imports i ON i.id = t.import_id ORDER BY t.id`)
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var task, file, at string
			var seed, imp, line int
			require.NoError(t, rows.Scan(&task, &seed, &imp, &file, &line, &at))
			out = append(out, fmt.Sprintf("%s#%d import %d %s:%d at %s", task, seed, imp, file, line, at))
		}
		require.NoError(t, rows.Err())
		return out
	}
	require.Equal(t, []string{
		"T1#0 import 1 a.jsonl:1 at 2026-01-01T00:00:00Z",
		"T2#0 import 2 b.jsonl:1 at 2026-01-01T00:00:00Z",
		"T3#0 import 1 a.jsonl:2 at 2026-01-01T00:00:00Z",
		"T1#1 import 3 a.jsonl:1 at 2026-02-01T00:00:00Z",
	}, read())
	problems, err := db.Check(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"4 traces have no stored row"}, problems, "the hand-made traces have no bodies, and nothing else is wrong")

	db.Now = func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }
	require.Equal(t, []AddResult{Imported, Duplicate}, importAll(t, db, trace("r", "T4", 0, "h5"), trace("r", "T1", 0, "h1")))
	require.Equal(t, "T4#0 import 4 f.jsonl:1 at 2026-03-01T00:00:00Z", read()[4])
}

// TestClusterMarkerRoundTrips: a label given to a whole cluster names the
// cluster, and every read of label events gives the name back (history,
// the export, the folded state reports read); a label of one trace has
// none.
func TestClusterMarkerRoundTrips(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	importAll(t, db, trace("r", "T1", 0, "a"), trace("r", "T2", 0, "b"))
	sums, _ := db.Summaries(ctx, "r")
	const name = "AssertionError: expected <n> got <n>"
	e, err := db.AppendLabel(ctx, triage.LabelEvent{TraceID: sums[0].ID, Actor: "ann", Kind: triage.KindHuman, Primary: triage.ToolLoop, Cluster: name})
	require.NoError(t, err)
	require.Equal(t, name, e.Cluster)
	_, err = db.AppendLabel(ctx, triage.LabelEvent{TraceID: sums[1].ID, Actor: "ann", Kind: triage.KindHuman, Primary: triage.ToolLoop})
	require.NoError(t, err)
	h, err := db.History(ctx, sums[0].ID, "ann")
	require.NoError(t, err)
	require.Len(t, h, 1)
	require.Equal(t, name, h[0].Cluster)
	h, err = db.History(ctx, sums[1].ID, "")
	require.NoError(t, err)
	require.Empty(t, h[0].Cluster)
	ex, err := db.HumanEvents(ctx, "ann", "")
	require.NoError(t, err)
	require.Len(t, ex, 2)
	byTrace := map[int64]string{}
	for _, x := range ex {
		byTrace[x.Event.TraceID] = x.Event.Cluster
	}
	require.Equal(t, map[int64]string{sums[0].ID: name, sums[1].ID: ""}, byTrace)
	states := map[int64]string{}
	require.NoError(t, db.Each(ctx, "r", func(s TraceSummary, st *triage.LabelState) error {
		require.NotNil(t, st)
		require.NotNil(t, st.Humans["ann"])
		states[s.ID] = st.Humans["ann"].Cluster
		return nil
	}))
	require.Equal(t, map[int64]string{sums[0].ID: name, sums[1].ID: ""}, states)
}
