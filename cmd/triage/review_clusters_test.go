package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui"
)

// settleUI applies msg to the review app, then runs every command it
// returns and feeds the messages back, as the runtime would.
func settleUI(t testing.TB, m tea.Model, msg tea.Msg) tea.Model {
	t.Helper()
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		if b, ok := next.(tea.BatchMsg); ok {
			for _, c := range b {
				if c != nil {
					queue = append(queue, c())
				}
			}
			continue
		}
		var cmd tea.Cmd
		m, cmd = m.Update(next)
		if cmd != nil {
			queue = append(queue, cmd())
		}
	}
	return m
}

func pressUI(t testing.TB, m tea.Model, keys ...string) tea.Model {
	t.Helper()
	for _, k := range keys {
		msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		if k == "enter" {
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		}
		m = settleUI(t, m, msg)
	}
	return m
}

// TestReviewByClusterOnTheStore is review by cluster through the real
// adapter: the clusters the screen shows are `triage clusters`'s, with
// the same numbers, names, representatives, members and novel flags; a
// cluster labelled whole stores one event a member marked with the
// cluster; and when two reviewers close a cluster so, rules check
// proposes it as a rule and says it was labelled by cluster.
func TestReviewByClusterOnTheStore(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	old, _ := plantedRows("run-a", 60, false)
	newer, _ := plantedRows("run-b", 60, true)
	for _, f := range []string{c.file("a.jsonl", old), c.file("b.jsonl", newer)} {
		code, _, errOut := c.run("", "import", f)
		require.Equal(t, exitOK, code, errOut)
	}
	code, _, errOut := c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)

	code, _, errOut = c.run("", "review", "--reviewer", "ann", "--run", "run-b", "--baseline", "run-z")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "--baseline")
	code, _, errOut = c.run("", "review", "--reviewer", "ann", "--run", "run-b", "--baseline", "run-b")
	require.Equal(t, exitUsage, code, errOut)

	code, out, errOut := c.run("", "clusters", "--run", "run-b", "--baseline", "run-a", "--json")
	require.Equal(t, exitOK, code, errOut)
	rows := clusterLines(t, out)

	ctx := t.Context()
	db, err := openDB(ctx, c.db, decodeRow)
	require.NoError(t, err)
	defer db.Close()
	tax := &triage.Taxonomy{}
	us := &uiStore{db: db, tax: tax, app: &app{}}
	got, err := us.Clusters(ctx, ui.ClusterQuery{RunID: "run-b", Baseline: "run-a"})
	require.NoError(t, err)
	require.Len(t, got.Clusters, len(rows))
	keyOf := map[int64]string{}
	items, err := us.Queue(ctx, ui.QueueQuery{Reviewer: "ann", RunID: "run-b", All: true})
	require.NoError(t, err)
	for _, it := range items {
		keyOf[it.TraceID] = it.Key()
	}
	novel := -1
	for i, row := range rows {
		g := got.Clusters[i]
		require.Equal(t, row.ID, g.ID)
		require.Equal(t, row.Name, g.Name)
		require.Equal(t, *row.Novel, g.Novel)
		require.Equal(t, row.Representative, g.RepresentativeKey)
		require.Equal(t, g.Representative, g.Members[0], "the representative first")
		var keys []string
		for _, id := range g.Members {
			keys = append(keys, keyOf[id])
		}
		slices.Sort(keys)
		require.Equal(t, row.Members, keys)
		if g.Novel && novel < 0 {
			novel = i
		}
	}
	require.GreaterOrEqual(t, novel, 0, "the cause only run-b has is a novel cluster")
	_, err = us.Clusters(ctx, ui.ClusterQuery{RunID: "run-a", Baseline: "run-a"})
	require.ErrorContains(t, err, "the run is the baseline")

	// Ann and bob each review run-b against run-a: the novel cluster is
	// first on the screen; enter opens it, enter reads its
	// representative, K 7 labels it whole TIMEOUT.
	want := got.Clusters[novel]
	for _, who := range []string{"ann", "bob"} {
		now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		if who == "bob" {
			now = now.Add(time.Hour)
		}
		cfg := ui.Config{Reviewer: who, RunID: "run-b", All: true, Baseline: "run-a", Taxonomy: seedTaxonomyForTest(), Now: func() time.Time { return now }}
		var m tea.Model = ui.New(us, cfg).WithContext(ctx)
		m = settleUI(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
		m = settleUI(t, m, m.Init()())
		m = pressUI(t, m, "C")
		require.Contains(t, m.View(), "NOVEL")
		m = pressUI(t, m, "enter", "enter", "K", "7")
		require.Contains(t, m.View(), "each marked as given by cluster")
	}
	for _, id := range want.Members {
		var h []triage.LabelEvent
		for _, who := range []string{"ann", "bob"} {
			mine, err := db.History(ctx, id, who)
			require.NoError(t, err)
			h = append(h, mine...)
		}
		require.Len(t, h, 2, keyOf[id])
		for _, e := range h {
			require.Equal(t, triage.KindHuman, e.Kind)
			require.Equal(t, triage.Timeout, e.Primary)
			require.Equal(t, want.Name, e.Cluster)
		}
	}

	code, out, errOut = c.run("", "rules", "check", "--run", "run-b", "--json")
	require.Equal(t, exitOK, code, errOut)
	var rep ruleCheckReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Candidates, 1, "%+v", rep.Candidates)
	cand := rep.Candidates[0]
	require.Equal(t, triage.Timeout, cand.Class)
	require.Equal(t, want.Name, cand.Name)
	require.Equal(t, len(want.Members), cand.Settled)
	require.Equal(t, len(want.Members), cand.ByCluster, "every settled member was labelled by cluster")
	require.Equal(t, 0, cand.OneByOne)
	require.False(t, cand.MayLabelUnattended, "labels given to the whole cluster agree with it by construction: no bar is met on them")
	code, out, errOut = c.run("", "rules", "check", "--run", "run-b")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "labelled by cluster, which agree with it by construction)")
	require.Contains(t, out, "keep people in the loop (0 settled traces labelled one by one")
	code, out, _ = c.run("", "labels", "export", "--json")
	require.Equal(t, exitOK, code)
	require.Equal(t, 2*len(want.Members), strings.Count(out, `"cluster":`))
}

// seedTaxonomyForTest is the seed's eight classes, in the seed's order,
// so that 7 is TIMEOUT.
func seedTaxonomyForTest() *triage.Taxonomy {
	t := &triage.Taxonomy{Name: "seed"}
	for _, c := range []string{triage.PassContract, triage.PassWeak, triage.AssumeAPI, triage.ToolLoop,
		triage.MissingAsk, triage.ScopeSlip, triage.Timeout, triage.ScorerRed} {
		t.Classes = append(t.Classes, triage.Class{Code: c})
	}
	return t
}

// TestReviewClustersCoverTheLeftovers: a review session's clusters group
// the leftovers (here three runs with no scorer result that crashed
// alike, and one that did nothing) with the failing traces, and list the
// one with no cause apart; `triage clusters` still prints the failing
// traces only.
func TestReviewClustersCoverTheLeftovers(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var rows []string
	keyError := "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\nKeyError: 'total%d'\n"
	for i := range 3 {
		rows = append(rows, fmt.Sprintf(`{"task_id":"T%02d","run_id":"r","exit_code":1,"answer":"done","tool_calls":[{"name":"bash","args":{"command":"python app.py"},"output":%q}]}`, i, fmt.Sprintf(keyError, i)))
	}
	for i := 3; i < 6; i++ {
		out := fmt.Sprintf("TypeError: Cannot read properties of undefined (reading 'x%d')\n    at main (srv.js:3:5)\n", i)
		rows = append(rows, fmt.Sprintf(`{"task_id":"T%02d","run_id":"r","answer":"done","tool_calls":[{"name":"bash","args":{"command":"node srv.js"},"output":%q}]}`, i, out))
	}
	rows = append(rows, `{"task_id":"T06","run_id":"r","answer":"done"}`,
		`{"task_id":"T07","run_id":"r","exit_code":0,"answer":"done","tool_calls":[{"name":"bash","args":{"command":"pytest"},"output":"1 passed"}]}`)
	code, _, errOut := c.run("", "import", "--rules", c.file("r.jsonl", strings.Join(rows, "\n")+"\n"))
	require.Equal(t, exitOK, code, errOut)

	code, out, errOut := c.run("", "clusters", "--json")
	require.Equal(t, exitOK, code, errOut)
	printed := clusterLines(t, out)
	require.Len(t, printed, 2, out)
	require.Equal(t, []string{"r/T00#0", "r/T01#0", "r/T02#0"}, printed[0].Members, "the command clusters the failing traces only")
	require.True(t, printed[1].NotCounted)

	ctx := t.Context()
	db, err := openDB(ctx, c.db, decodeRow)
	require.NoError(t, err)
	defer db.Close()
	us := &uiStore{db: db, tax: &triage.Taxonomy{}, app: &app{}}
	keyOf := map[int64]string{}
	items, err := us.Queue(ctx, ui.QueueQuery{Reviewer: "ann", All: true})
	require.NoError(t, err)
	for _, it := range items {
		keyOf[it.TraceID] = it.Key()
	}
	keys := func(ids []int64) []string {
		var out []string
		for _, id := range ids {
			out = append(out, keyOf[id])
		}
		slices.Sort(out)
		return out
	}

	old, err := us.Clusters(ctx, ui.ClusterQuery{})
	require.NoError(t, err)
	require.Len(t, old.Clusters, 1, "without Leftovers, the failing traces as before")
	require.Equal(t, 3, old.Failing)
	require.Zero(t, old.Leftovers)
	require.Empty(t, old.NoCause.Members)

	got, err := us.Clusters(ctx, ui.ClusterQuery{Leftovers: true})
	require.NoError(t, err)
	require.Equal(t, 3, got.Failing)
	require.Equal(t, 4, got.Leftovers, "the four leftovers, none of which failed")
	require.Equal(t, 1, got.Unclustered)
	require.Len(t, got.Clusters, 2)
	var sets [][]string
	for _, g := range got.Clusters {
		sets = append(sets, keys(g.Members))
	}
	require.ElementsMatch(t, [][]string{{"r/T00#0", "r/T01#0", "r/T02#0"}, {"r/T03#0", "r/T04#0", "r/T05#0"}}, sets,
		"the leftovers that crashed alike are one cluster")
	require.Equal(t, []string{"r/T06#0"}, keys(got.NoCause.Members), "the one that did nothing has no cause")
	require.NotContains(t, slices.Concat(sets...), "r/T07#0", "a certain pass is neither failing nor a leftover")

	// The screen: the leftovers' cluster is labelled whole after a read.
	cfg := ui.Config{Reviewer: "ann", Taxonomy: seedTaxonomyForTest(), Now: func() time.Time { return time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC) }}
	var m tea.Model = ui.New(us, cfg).WithContext(ctx)
	m = settleUI(t, m, tea.WindowSizeMsg{Width: 140, Height: 30})
	m = settleUI(t, m, m.Init()())
	m = pressUI(t, m, "C")
	v := m.View()
	require.Contains(t, v, "3 failing traces and 4 leftovers in 2 clusters · 1 no cause found")
	require.Contains(t, v, "TypeError: Cannot read properties of undefined")
	require.Contains(t, v, "no cause found · nothing shared to group by")
	at := 0
	for i, g := range got.Clusters {
		if slices.Contains(keys(g.Members), "r/T03#0") {
			at = i
		}
	}
	for range at {
		m = pressUI(t, m, "j")
	}
	m = pressUI(t, m, "enter", "enter", "K", "7")
	require.Contains(t, m.View(), "3 traces → TIMEOUT")
	for _, id := range got.Clusters[at].Members {
		h, err := db.History(ctx, id, "ann")
		require.NoError(t, err)
		require.Len(t, h, 1, keyOf[id])
		require.Equal(t, got.Clusters[at].Name, h[0].Cluster)
	}
}
