package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/pgtest"
	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui"
)

// pgCLI is a CLI on a fresh PostgreSQL database of the test cluster (the
// test skips where there is none, and fails under
// TRIAGE_REQUIRE_POSTGRES=1).
func pgCLI(t *testing.T) *cli {
	t.Helper()
	c := newCLI(t)
	c.db = pgtest.NewDB(t)
	return c
}

// contractExtra is a file with duplicates, a conflict and a reject.
const contractExtra = `{"task_id":"X1","exit_code":0,"run_id":"extra"}
{"task_id":"X2","exit_code":1,"run_id":"extra","tool_calls":[{"name":"bash","args":{"cmd":"ls"}}]}
{"task_id":"X1","exit_code":0,"run_id":"extra"}
{"task_id":"X2","exit_code":0,"run_id":"extra"}
{"task_id":
`

// contractScenario runs the same work on c's store: the demo (import,
// rules run), an import with duplicates, a conflict and a reject, twice,
// a slice, people's labels in it and outside, and an adjudication.
func contractScenario(t *testing.T, c *cli, extra string) {
	t.Helper()
	code, _, errOut := c.run("", "demo")
	require.Equal(t, exitOK, code, errOut)
	for range 2 {
		code, _, errOut = c.run("", "import", extra)
		require.Equal(t, exitRejected, code, errOut)
	}
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "slice", "create", "s1", "--size", "6", "--run", "demo", "--seed", "3")
	require.Equal(t, exitOK, code, errOut)
	_, show, _ := c.run("", "slice", "show", "s1")
	var keys []string
	for _, line := range strings.Split(show, "\n") {
		if strings.HasPrefix(line, "demo/") {
			keys = append(keys, strings.Fields(line)[0])
		}
	}
	require.Len(t, keys, 6)
	var b strings.Builder
	for i, k := range keys {
		run, rest, _ := strings.Cut(k, "/")
		task, seed, _ := strings.Cut(rest, "#")
		for j, who := range []string{"ann", "bob"} {
			primary := []string{"SCORER_RED", "PASS_CONTRACT"}[(i*j)%2]
			// Ann labels the first three by cluster: the marker must
			// round-trip through both backends and the export.
			cluster := ""
			if j == 0 && i < 3 {
				cluster = `,"cluster":"AssertionError: expected <n>"`
			}
			fmt.Fprintf(&b, `{"run_id":%q,"task_id":%q,"seed":%s,"reviewer":%q,"kind":"human","primary":%q,"secondary":["LEAKED"],"note":"n%d","slice":"s1"%s,"created_at":"2026-11-01T09:%02d:%02d.123456789Z"}`+"\n",
				run, task, seed, who, primary, i, cluster, i, j)
		}
		if i == 0 {
			fmt.Fprintf(&b, `{"run_id":%q,"task_id":%q,"seed":%s,"reviewer":"lead","kind":"adjudication","primary":"SCORER_RED","secondary":[],"note":"","created_at":"2026-11-02T10:00:00Z"}`+"\n", run, task, seed)
		}
	}
	code, _, errOut = c.run("", "labels", "import", c.file("labels.jsonl", b.String()))
	require.Equal(t, exitOK, code, errOut)
}

// contractOutputs are the outputs both backends must give alike.
func contractOutputs(t *testing.T, c *cli) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, args := range [][]string{
		{"traces", "--json"},
		{"labels", "export", "--json"},
		{"report", "--json"},
		{"report", "--run", "demo", "--json"},
		{"agree", "s1", "--json"},
		{"slice", "list"},
		{"rules", "explain", "demo/T01#0", "--json"},
	} {
		code, stdout, errOut := c.run("", args...)
		require.Contains(t, []int{exitOK, exitError}, code, errOut)
		out[strings.Join(args, " ")] = fmt.Sprintf("exit %d\n%s", code, stdout)
	}
	return out
}

// TestBackendsGiveTheSameResults is the contract both stores are held to:
// the same commands on SQLite and on PostgreSQL give the same output.
func TestBackendsGiveTheSameResults(t *testing.T) {
	t.Parallel()
	sq, pg := newCLI(t), pgCLI(t)
	extra := sq.file("extra.jsonl", contractExtra)
	contractScenario(t, sq, extra)
	contractScenario(t, pg, extra)
	want, got := contractOutputs(t, sq), contractOutputs(t, pg)
	for k := range want {
		require.Equal(t, want[k], got[k], "%s differs between SQLite and PostgreSQL", k)
	}
	require.Contains(t, want["labels export --json"], `"reviewer":"ann"`)
	require.Equal(t, 3, strings.Count(want["labels export --json"], `"cluster":"AssertionError: expected \u003cn\u003e"`), want["labels export --json"])
}

// TestStoreCopyIsLossless: SQLite → PostgreSQL → SQLite, and each copy's
// traces, labels export and report equal the source's; copying again
// adds nothing.
func TestStoreCopyIsLossless(t *testing.T) {
	t.Parallel()
	sq := newCLI(t)
	contractScenario(t, sq, sq.file("extra.jsonl", contractExtra))
	// A trust verdict in the source: what reports say of the taxonomy.
	code, _, errOut := sq.run("", "agree", "s1")
	require.Contains(t, []int{exitOK, exitError}, code, errOut)
	pg, back := pgCLI(t), newCLI(t)
	for range 2 {
		code, _, errOut = sq.run("", "store", "copy", "--from", sq.db, "--to", pg.db)
		require.Equal(t, exitOK, code, errOut)
		code, _, errOut = sq.run("", "store", "copy", "--from", pg.db, "--to", back.db)
		require.Equal(t, exitOK, code, errOut)
	}
	want := contractOutputs(t, sq)
	for name, c := range map[string]*cli{"PostgreSQL copy": pg, "SQLite copy of it": back} {
		got := contractOutputs(t, c)
		for _, k := range []string{"traces --json", "labels export --json", "report --json", "report --run demo --json", "rules explain demo/T01#0 --json"} {
			require.Equal(t, want[k], got[k], "%s: %s differs from the source's", name, k)
		}
	}
}

// TestReviewersSeeEachOthersLabelsOnPostgreSQL: two reviewers' review
// screens on one PostgreSQL database, each through its own connection:
// what one labels, the other's screen reads on its next read of the trace
// (the screen reloads a trace's history whenever it opens it).
func TestReviewersSeeEachOthersLabelsOnPostgreSQL(t *testing.T) {
	t.Parallel()
	c := pgCLI(t)
	code, _, errOut := c.run(`{"task_id":"T1","exit_code":1}`+"\n", "import", "--rules", "--format", "jsonl", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	ctx := t.Context()
	open := func() *uiStore {
		db, err := openDB(ctx, c.db, decodeRow)
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return &uiStore{db: db, tax: &triage.Taxonomy{}}
	}
	ann, bob := open(), open()
	items, err := bob.Queue(ctx, ui.QueueQuery{Reviewer: "bob", RunID: "r", All: true})
	require.NoError(t, err)
	require.Len(t, items, 1)
	id := items[0].TraceID
	before, err := bob.History(ctx, id, "")
	require.NoError(t, err)
	_, err = ann.AppendLabel(ctx, triage.LabelEvent{TraceID: id, Actor: "ann", Kind: triage.KindHuman, Primary: triage.ScorerRed, Note: "read it"})
	require.NoError(t, err)
	after, err := bob.History(ctx, id, "")
	require.NoError(t, err)
	require.Len(t, after, len(before)+1, "bob's next read holds ann's label")
	last := after[len(after)-1]
	require.Equal(t, "ann", last.Actor)
	require.Equal(t, triage.ScorerRed, last.Primary)

	// Bob's next read of the queue carries ann's label, so his
	// label:SCORER_RED finds the trace (issue 29: it showed 0).
	items, err = bob.Queue(ctx, ui.QueueQuery{Reviewer: "bob", RunID: "r", All: true})
	require.NoError(t, err)
	require.Equal(t, []ui.OtherLabel{{Reviewer: "ann", Primary: triage.ScorerRed}}, items[0].Others)
	require.Empty(t, items[0].Primary, "ann's label is not bob's")

	// Bob labels the trace otherwise: both labels are kept, and traces
	// shows the disagreement, not the last word.
	_, err = bob.AppendLabel(ctx, triage.LabelEvent{TraceID: id, Actor: "bob", Kind: triage.KindHuman, Primary: triage.Timeout})
	require.NoError(t, err)
	items, err = ann.Queue(ctx, ui.QueueQuery{Reviewer: "ann", RunID: "r", All: true})
	require.NoError(t, err)
	require.Equal(t, triage.ScorerRed, items[0].Primary)
	require.True(t, items[0].Disagrees(), "ann's screen shows bob's other class")
	code, out, errOut := c.run("", "traces", "--json")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, `"disagreement":"ann SCORER_RED · bob TIMEOUT"`)
	code, out, errOut = c.run("", "traces")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "≠ ann SCORER_RED · bob TIMEOUT")
}

// TestQueuePutsEmptyTracesLast: a trace that recorded nothing (no
// message, tool call, answer or diff) is marked empty and comes after
// every trace with something to read, whatever its key (issue 29: 455
// empty aider sessions came first).
func TestQueuePutsEmptyTracesLast(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]*cli{"SQLite": newCLI(t), "PostgreSQL": pgCLI(t)} {
		t.Run(name, func(t *testing.T) { queuePutsEmptyTracesLast(t, c) })
	}
}

func queuePutsEmptyTracesLast(t *testing.T, c *cli) {
	rows := `{"task_id":"a-empty"}
{"task_id":"b-msg","messages":[{"role":"user","content":"fix it"}]}
{"task_id":"c-empty"}
{"task_id":"d-call","tool_calls":[{"name":"bash","args":{"command":"ls"}}]}
`
	code, _, errOut := c.run(rows, "import", "--rules", "--format", "jsonl", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	db, err := openDB(t.Context(), c.db, decodeRow)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	s := &uiStore{db: db, tax: &triage.Taxonomy{}}
	items, err := s.Queue(t.Context(), ui.QueueQuery{Reviewer: "ann", RunID: "r", All: true})
	require.NoError(t, err)
	var got []string
	for _, it := range items {
		got = append(got, fmt.Sprintf("%s:%v:%s", it.TaskID, it.Empty, it.Holds))
	}
	require.Equal(t, []string{"b-msg:false:1 message, no call", "d-call:false:1 call", "a-empty:true:nothing recorded", "c-empty:true:nothing recorded"}, got)
}

// TestStoreCopyKeepsImportOrder: traces imported out of key order (c, b,
// a) keep their order through SQLite → PostgreSQL → SQLite, so traces
// --json lists them alike and the report adds their costs in the same
// order (0.3+0.2+0.1 is 0.6, 0.1+0.2+0.3 is 0.6000000000000001): a copy
// made in key order changed both (issue 29).
func TestStoreCopyKeepsImportOrder(t *testing.T) {
	t.Parallel()
	sq := newCLI(t)
	rows := `{"task_id":"c","run_id":"r","exit_code":1,"cost_usd":0.3}
{"task_id":"b","run_id":"r","exit_code":1,"cost_usd":0.2}
{"task_id":"a","run_id":"r","exit_code":1,"cost_usd":0.1}
`
	code, _, errOut := sq.run(rows, "import", "--rules", "--format", "jsonl", "-")
	require.Equal(t, exitOK, code, errOut)
	pg, back := pgCLI(t), newCLI(t)
	code, _, errOut = sq.run("", "store", "copy", "--from", sq.db, "--to", pg.db)
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = sq.run("", "store", "copy", "--from", pg.db, "--to", back.db)
	require.Equal(t, exitOK, code, errOut)
	for _, args := range [][]string{{"traces", "--json"}, {"report", "--json"}} {
		_, want, _ := sq.run("", args...)
		require.NotEmpty(t, want)
		for name, c := range map[string]*cli{"PostgreSQL copy": pg, "SQLite copy of it": back} {
			_, got, _ := c.run("", args...)
			require.Equal(t, want, got, "%s: %s is not byte-identical to the source's", name, strings.Join(args, " "))
		}
	}
	_, list, _ := back.run("", "traces", "--json")
	require.Less(t, strings.Index(list, `"task_id":"c"`), strings.Index(list, `"task_id":"a"`), "import order, not key order")
}

// TestReadOnlyQueueShowsNoOnesLabelAsYours: a queue read with no reviewer
// (report --tui's drill-down) carries ann's label as another reviewer's,
// never as the screen's own "yours" (issue 29).
func TestReadOnlyQueueShowsNoOnesLabelAsYours(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, errOut := c.run(`{"task_id":"T1","exit_code":1}`+"\n", "import", "--rules", "--format", "jsonl", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	db, err := openDB(t.Context(), c.db, decodeRow)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	s := &uiStore{db: db, tax: &triage.Taxonomy{}}
	items, err := s.Queue(t.Context(), ui.QueueQuery{RunID: "r", All: true})
	require.NoError(t, err)
	_, err = s.AppendLabel(t.Context(), triage.LabelEvent{TraceID: items[0].TraceID, Actor: "ann", Kind: triage.KindHuman, Primary: triage.ScorerRed})
	require.NoError(t, err)
	items, err = s.Queue(t.Context(), ui.QueueQuery{RunID: "r", All: true})
	require.NoError(t, err)
	require.Empty(t, items[0].Primary)
	require.Equal(t, ui.StatusTodo, items[0].Status)
	require.Equal(t, []ui.OtherLabel{{Reviewer: "ann", Primary: triage.ScorerRed}}, items[0].Others)
}
