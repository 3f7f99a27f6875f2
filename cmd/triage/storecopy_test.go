package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// store copy streams the rows in id order while the summaries come in key
// order: traces imported out of key order, over many runs, with their
// verdicts (more than one batch of them), copy whole and read back the
// same. The first streaming build stopped at the first trace out of key
// order ("read out of order").
func TestStoreCopyOutOfKeyOrder(t *testing.T) {
	t.Parallel()
	src, dst := newCLI(t), newCLI(t)
	var rows strings.Builder
	for i := 5000; i > 0; i-- {
		fmt.Fprintf(&rows, `{"run_id":"r%d","task_id":"T%05d","exit_code":%d}`+"\n", i%7, i, i%2)
	}
	code, _, errOut := src.run(rows.String(), "import", "--rules", "--format", "jsonl", "-")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = src.run("", "store", "copy", "--from", src.db, "--to", dst.db)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "5000 traces, 0 rejects, 5000 rule verdicts")
	for _, args := range [][]string{{"traces", "--json"}, {"report", "--json"}} {
		_, want, _ := src.run("", args...)
		_, got, _ := dst.run("", args...)
		require.Equal(t, want, got, "%v", args)
	}
}

// storeDump is everything store copy carries, trace by trace in id order,
// without the ids themselves (a copy numbers its traces alike only when
// the target was empty): each trace's summary, import file, stored
// bytes, full verdict (evidence included) and every label event of its
// history (rule verdicts and people's events, undo and skip included), then
// the rejects and slices.
func storeDump(t *testing.T, db store.Store) []string {
	t.Helper()
	ctx := t.Context()
	files, err := db.ImportFiles(ctx)
	require.NoError(t, err)
	var out []string
	var ids []int64
	require.NoError(t, db.EachStored(ctx, func(s store.TraceSummary, row store.StoredRow) error {
		ids = append(ids, s.ID)
		file := files[s.ImportID]
		s.ID, s.ImportID = 0, 0
		sum, err := json.Marshal(s)
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("%s file=%s hash=%s source=%s raw=%q norm=%q", sum, file, row.Hash, row.Source, row.Raw, row.Norm))
		return nil
	}))
	vs, err := db.Verdicts(ctx, ids)
	require.NoError(t, err)
	for i, id := range ids {
		v, err := json.Marshal(vs[id])
		require.NoError(t, err)
		hist, err := db.History(ctx, id, "")
		require.NoError(t, err)
		for j := range hist {
			hist[j].ID, hist[j].TraceID = 0, 0
		}
		h, err := json.Marshal(hist)
		require.NoError(t, err)
		out[i] += fmt.Sprintf(" verdict=%s history=%s", v, h)
	}
	rejects, err := db.Rejects(ctx, "")
	require.NoError(t, err)
	for _, r := range rejects {
		out = append(out, fmt.Sprintf("reject %s:%d %s %q", r.File, r.Line, r.Reason, r.Raw))
	}
	sls, err := db.Slices(ctx)
	require.NoError(t, err)
	for _, sl := range sls {
		full, err := db.Slice(ctx, sl.Name)
		require.NoError(t, err)
		var keys []string
		for _, id := range full.Items {
			s, err := db.Summary(ctx, id)
			require.NoError(t, err)
			keys = append(keys, s.Key())
		}
		out = append(out, fmt.Sprintf("slice %s %s %d %d %v", sl.Name, sl.RunID, sl.Size, sl.Seed, keys))
	}
	return out
}

// A store of 5,000 traces over seven runs, imported out of key order and
// labelled by the rules, with 4,548 people's events (more than a batch of
// either; several of one trace in a batch, undos at the instant of what
// they undo, a skip and an adjudication), a reject and
// a slice, copied SQLite → PostgreSQL → SQLite: every trace, verdict and
// label event is the source's in both copies, and copying again adds
// nothing. This is what the streaming copy (a batch of traces at a time,
// ids mapped from the import's results, people's events in one INSERT a
// batch on PostgreSQL) must keep.
func TestStoreCopyKeepsEveryTraceVerdictAndEvent(t *testing.T) {
	t.Parallel()
	sq := newCLI(t)
	var rows strings.Builder
	for i := 5000; i > 0; i-- {
		fmt.Fprintf(&rows, `{"run_id":"r%d","task_id":"T%05d","exit_code":%d,"cost_usd":0.%d}`+"\n", i%7, i, i%2, i)
	}
	rows.WriteString("{\"task_id\":\n")
	code, _, errOut := sq.run(rows.String(), "import", "--rules", "--format", "jsonl", "-")
	require.Equal(t, exitRejected, code, errOut)
	code, _, errOut = sq.run("", "slice", "create", "s1", "--run", "r1", "--size", "20", "--seed", "7")
	require.Equal(t, exitOK, code, errOut)

	ctx := t.Context()
	src, err := openDB(ctx, sq.db, decodeRow)
	require.NoError(t, err)
	sums, err := src.Summaries(ctx, "")
	require.NoError(t, err)
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	var events []triage.LabelEvent
	for i := range 4500 {
		// A trace every thousand events, so a batch holds several of
		// one trace's; every hundredth is undone at the same instant,
		// so only the events' order (their ids) says which came first.
		s := sums[i%1000]
		e := triage.LabelEvent{TraceID: s.ID, Actor: "ann", Kind: triage.KindHuman, Primary: triage.Timeout,
			Secondary: []string{triage.ScorerRed}, Note: fmt.Sprintf("note %d", i), CreatedAt: at.Add(time.Duration(i) * time.Millisecond)}
		events = append(events, e)
		if i%100 == 0 {
			events = append(events, triage.LabelEvent{TraceID: s.ID, Actor: "ann", Kind: triage.KindUndo, CreatedAt: e.CreatedAt})
		}
	}
	later := at.Add(time.Hour)
	events = append(events,
		triage.LabelEvent{TraceID: sums[1].ID, Actor: "ann", Kind: triage.KindUndo, CreatedAt: later},
		triage.LabelEvent{TraceID: sums[2].ID, Actor: "bob", Kind: triage.KindSkip, CreatedAt: later},
		triage.LabelEvent{TraceID: sums[3].ID, Actor: "cy", Kind: triage.KindAdjudication, Primary: triage.ScorerRed, CreatedAt: later})
	n, err := src.AppendLabels(ctx, events)
	require.NoError(t, err)
	require.Equal(t, len(events), n)
	want := storeDump(t, src)
	require.NoError(t, src.Close())
	require.Len(t, want, 5000+1+1)

	pg, back := pgCLI(t), newCLI(t)
	for pass := range 2 {
		code, _, errOut = sq.run("", "store", "copy", "--from", sq.db, "--to", pg.db)
		require.Equal(t, exitOK, code, errOut)
		if pass == 0 {
			require.Contains(t, errOut, "5000 traces, 1 rejects, 5000 rule verdicts, 4548 people's label events")
		} else {
			require.Contains(t, errOut, "5000 traces, 1 rejects, 0 rule verdicts, 0 people's label events", "nothing new the second time")
		}
		code, _, errOut = sq.run("", "store", "copy", "--from", pg.db, "--to", back.db)
		require.Equal(t, exitOK, code, errOut)
	}
	for name, c := range map[string]*cli{"PostgreSQL copy": pg, "SQLite copy of it": back} {
		db, err := openDB(ctx, c.db, decodeRow)
		require.NoError(t, err)
		got := storeDump(t, db)
		require.NoError(t, db.Close())
		require.Equal(t, len(want), len(got), name)
		for i := range want {
			require.Equal(t, want[i], got[i], "%s: entry %d", name, i)
		}
	}
}
