package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

// fakeClusters is a fakeStore that computes clusters: over six traces,
// #1 holds 2, 4 and 5 (4 represents it), #2 holds 1 and 3, which no
// baseline trace shares (novel); 6 has no cause signature. Four of them
// failed; two are leftovers that did not.
type fakeClusters struct {
	*fakeStore
	list *ClusterList
	err  error
	// queries are the cluster queries answered.
	queries []ClusterQuery
}

func (f *fakeClusters) Clusters(_ context.Context, q ClusterQuery) (*ClusterList, error) {
	f.record("Clusters")
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.mu.Unlock()
	return f.list, f.err
}

func newFakeClusters() *fakeClusters {
	return &fakeClusters{fakeStore: newFake(6), list: &ClusterList{Failing: 4, Leftovers: 2, Unclustered: 1, NoCause: Cluster{Members: []int64{6}, Labels: []string{""}}, Clusters: []Cluster{
		{ID: 1, Name: "SCORER_RED · KeyError: <q> · tests/test_totals.py::test_total", Representative: 4, RepresentativeKey: "r1/T04#0",
			Members: []int64{4, 2, 5}, Labels: []string{"", triage.ScorerRed, ""}, BaselineSize: 3},
		{ID: 2, Name: "SCORER_RED · TypeError: unsupported operand type(s) for +: <q> and <q>", Representative: 3, RepresentativeKey: "r1/T03#0",
			Members: []int64{3, 1}, Labels: []string{"", ""}, Novel: true},
	}}}
}

// startedOn is started over any Store.
func startedOn(t testing.TB, st Store, cfg Config, w, h int) Model {
	t.Helper()
	m := New(st, cfg)
	m = settle(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m = settle(t, m, m.Init()())
	require.True(t, m.queue.loaded)
	return m
}

// viewIDs are the trace ids the queue shows, in order.
func viewIDs(m Model) []int64 {
	var out []int64
	for _, i := range m.queue.view {
		out = append(out, m.queue.all[i].TraceID)
	}
	return out
}

// TestClusterScreenHandleKeyActions is the clusters list's key table.
func TestClusterScreenHandleKeyActions(t *testing.T) {
	t.Parallel()
	m := New(newFake(3), testConfig())
	sess := m.session()
	for _, tt := range []struct {
		key    string
		want   Action
		cursor int
	}{
		{key: "j", cursor: 1},
		{key: "down", cursor: 1},
		{key: "G", cursor: 2},
		{key: "k"},
		{key: "g"},
		{key: "ctrl+d", cursor: 2},
		{key: "enter", want: Action{kind: actCluster}},
		{key: "esc", want: Action{kind: actBack}},
		{key: "x"},
	} {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			var c clusterScreen
			c.SetSize(100, 10)
			c.setList(newFakeClusters().list, "")
			var scr screen = &c
			require.Equal(t, tt.want, scr.HandleKey(keyMsg(tt.key), sess))
			require.Equal(t, tt.cursor, c.cursor)
		})
	}
	var c clusterScreen
	c.state = clustersLoading
	require.Equal(t, Action{}, c.HandleKey(keyMsg("enter"), sess), "nothing to open while the clusters are computed")
}

// TestReviewByCluster is the flow: open the clusters screen,
// open a cluster (its representative first), read a member, label the
// whole cluster in one action (each member its own event, marked as
// given by the cluster), and undo it as one change.
func TestReviewByCluster(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	m := startedOn(t, f, testConfig(), 120, 24)
	require.Zero(t, f.called("Clusters"), "no baseline: nothing is clustered before the screen opens")

	m = press(t, m, "C")
	require.Equal(t, screenClusters, m.screen)
	require.Equal(t, 1, f.called("Clusters"))
	require.Equal(t, []ClusterQuery{{RunID: "r1", Leftovers: true}}, f.queries)
	v := m.View()
	require.Contains(t, v, "triage clusters · ana · run r1 · 4 failing traces and 2 leftovers in 2 clusters · 1 no cause found")
	require.Contains(t, v, "#1     3     0/3")
	require.Contains(t, v, "unlabelled 2, SCORER_RED 1", "the mix counts the members' labels")

	m = press(t, m, "4")
	require.Empty(t, f.eventsCopy(), "no sample read yet: no label")
	require.Contains(t, m.status, "read a member of cluster #1 first")

	m = press(t, m, "enter")
	require.Equal(t, screenQueue, m.screen)
	require.True(t, m.drilled)
	require.Equal(t, []int64{4, 2, 5}, viewIDs(m), "the representative first, then queue order")
	require.Contains(t, m.View(), "cluster #1: 3 shown (esc: back to the clusters)")
	require.Contains(t, m.status, "the representative r1/T04#0 first")

	m = press(t, m, "enter", "esc", "esc")
	require.Equal(t, screenClusters, m.screen, "esc leaves the cluster for the clusters screen")
	m = press(t, m, "4")
	ev := f.eventsCopy()
	require.Len(t, ev, 3)
	for i, id := range []int64{4, 2, 5} {
		require.Equal(t, id, ev[i].TraceID)
		require.Equal(t, triage.KindHuman, ev[i].Kind)
		require.Equal(t, triage.ToolLoop, ev[i].Primary)
		require.Equal(t, "SCORER_RED · KeyError: <q> · tests/test_totals.py::test_total", ev[i].Cluster)
		require.Equal(t, "ana", ev[i].Actor)
	}
	require.Contains(t, m.status, "cluster #1: 3 traces → TOOL_LOOP, each marked as given by cluster")
	require.Contains(t, m.View(), "#1     3     3/3")
	require.Equal(t, screenClusters, m.screen)

	m = press(t, m, "u")
	ev = f.eventsCopy()
	require.Len(t, ev, 6, "one undo takes the whole cluster back")
	for _, e := range ev[3:] {
		require.Equal(t, triage.KindUndo, e.Kind)
	}
	d, _ := m.queue.progress()
	require.Zero(t, d)
	m = press(t, m, "U")
	ev = f.eventsCopy()
	require.Len(t, ev, 9)
	require.Equal(t, ev[0].Cluster, ev[8].Cluster, "a redo keeps the marker")
}

// TestLabelClusterFromTheTrace: K on the trace screen labels the open
// trace's cluster through the class picker; the trace read is the sample.
func TestLabelClusterFromTheTrace(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	m := startedOn(t, f, testConfig(), 120, 30)
	m = press(t, m, "K")
	require.Contains(t, m.status, "no clusters yet: C computes them")
	m = press(t, m, "C", "j", "enter", "enter")
	require.Equal(t, screenTrace, m.screen)
	require.Equal(t, int64(3), m.trace.id, "enter on the cluster's first row reads its representative")
	m = press(t, m, "K")
	require.Equal(t, modalPicker, m.modal)
	require.Contains(t, m.View(), "Label every member of cluster #2 (2 traces)")
	m = press(t, m, "j", "esc")
	require.Equal(t, modalNone, m.modal)
	require.Empty(t, f.eventsCopy(), "esc labels nothing")
	m = press(t, m, "K", "8")
	ev := f.eventsCopy()
	require.Len(t, ev, 2)
	require.Equal(t, []int64{3, 1}, []int64{ev[0].TraceID, ev[1].TraceID})
	require.Equal(t, triage.ScorerRed, ev[0].Primary)
	require.NotEmpty(t, ev[0].Cluster)
	m = press(t, m, "K", "enter")
	require.Len(t, f.eventsCopy(), 4, "enter chooses the class under the cursor")
	require.Equal(t, triage.PassContract, f.eventsCopy()[3].Primary)
	require.Equal(t, 0, m.clusters.picking)
	require.Equal(t, screenTrace, m.screen)
}

// TestSplitOffACluster: members marked in an open cluster split off into
// a group of their own, which a label of the cluster no longer reaches.
func TestSplitOffACluster(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	m := startedOn(t, f, testConfig(), 120, 24)
	m = press(t, m, "X")
	require.Contains(t, m.status, "X splits marked members off a cluster: open one on the clusters screen (C)")
	m = press(t, m, "C", "enter", "enter", "esc", "X")
	require.Contains(t, m.status, "mark the members that do not fit")
	m = press(t, m, "ctrl+a", "X")
	require.Contains(t, m.status, "every member is marked")
	m = press(t, m, "esc", "j", "space", "X")
	require.Contains(t, m.status, "split 1 traces off cluster #1: they are #1.1 on the clusters screen; 2 members stay")
	require.Equal(t, []int64{4, 5}, viewIDs(m), "the open cluster keeps the rest")
	require.Empty(t, m.queue.markedIDs())
	m = press(t, m, "K", "2")
	ev := f.eventsCopy()
	require.Len(t, ev, 2)
	require.Equal(t, []int64{4, 5}, []int64{ev[0].TraceID, ev[1].TraceID}, "the split-off trace is not labelled with its old cluster")

	m = press(t, m, "esc")
	require.Equal(t, screenClusters, m.screen)
	v := m.View()
	require.Contains(t, v, "#1.1   1     0/1")
	require.Contains(t, v, "split from #1: SCORER_RED · KeyError")
	require.Contains(t, v, "4 failing traces and 2 leftovers in 2 clusters", "a split is no new cluster")
	m = press(t, m, "j", "5")
	require.Contains(t, m.status, "read a member of cluster #1.1 first", "its own sample: the representative stayed behind")
	m = press(t, m, "enter", "enter", "esc", "esc", "5")
	ev = f.eventsCopy()
	require.Len(t, ev, 3)
	require.Equal(t, int64(2), ev[2].TraceID)
	require.Equal(t, "split from SCORER_RED · KeyError: <q> · tests/test_totals.py::test_total", ev[2].Cluster)
}

// TestNovelClustersFirst: with a baseline the clusters are computed at
// the start, novel ones sort first on the screen, and their traces come
// first in the queue's own order, where the reviewer starts.
func TestNovelClustersFirst(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	cfg := testConfig()
	cfg.Baseline = "r0"
	m := startedOn(t, f, cfg, 120, 24)
	require.Equal(t, 1, f.called("Clusters"))
	require.Equal(t, []ClusterQuery{{RunID: "r1", Baseline: "r0", Leftovers: true}}, f.queries)
	require.Equal(t, []int64{1, 3, 2, 4, 5, 6}, viewIDs(m))
	require.Equal(t, int64(1), m.queue.current().TraceID)
	require.Contains(t, m.View(), "novel clusters first")
	m = press(t, m, "o")
	require.NotContains(t, m.View(), "novel clusters first", "another order says so instead")
	m = press(t, m, "o", "o", "o", "o")
	require.Equal(t, []int64{1, 3, 2, 4, 5, 6}, viewIDs(m), "back in the queue's order, novel first again")

	m = press(t, m, "C")
	require.Equal(t, 1, f.called("Clusters"), "computed once")
	v := m.View()
	require.Contains(t, v, "baseline r0: 1 novel, first")
	require.Less(t, strings.Index(v, "#2 "), strings.Index(v, "#1 "), "the novel cluster first")
	require.Contains(t, v, "NOVEL")
}

// TestNovelOrderKeepsAMovedCursor: clusters that arrive after the
// reviewer moved leave the cursor on its trace.
func TestNovelOrderKeepsAMovedCursor(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	cfg := testConfig()
	cfg.Baseline = "r0"
	m := New(f, cfg)
	m = settle(t, m, tea.WindowSizeMsg{Width: 120, Height: 24})
	m = settle(t, m, m.queueCmd(m.queueGen, 0)())
	m = press(t, m, "j", "j")
	require.Equal(t, int64(3), m.queue.current().TraceID)
	m = settle(t, m, m.loadClustersCmd(m.clusters.gen)())
	require.Equal(t, []int64{1, 3, 2, 4, 5, 6}, viewIDs(m))
	require.Equal(t, int64(3), m.queue.current().TraceID)
}

func TestStaleClustersAreDropped(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	m := startedOn(t, f, testConfig(), 120, 24)
	m = press(t, m, "C")
	old := m.clusters.gen
	m.clusters = clusterScreen{gen: old + 1, open: -1}
	m = settle(t, m, clustersLoadedMsg{gen: old, list: f.list})
	require.Empty(t, m.clusters.groups)
	require.Equal(t, clustersNone, m.clusters.state)
}

func TestClustersFailing(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	f.err = errors.New("disk on fire")
	m := startedOn(t, f, testConfig(), 120, 24)
	m = press(t, m, "C")
	require.Equal(t, clustersFailed, m.clusters.state)
	require.Contains(t, m.View(), "No clusters: compute clusters: disk on fire")
	m = press(t, m, "1", "K", "enter")
	require.Empty(t, f.eventsCopy())
	require.Equal(t, screenClusters, m.screen)
	m = press(t, m, "esc")
	require.Equal(t, screenQueue, m.screen)
}

// TestClustersAreNeverBlind: a blind review has no clusters screen (a
// signature quotes the rules' evidence), and an adjudication none either.
func TestClustersAreNeverBlind(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	cfg := testConfig()
	cfg.Blind, cfg.Slice, cfg.Baseline = true, "s1", "r0"
	m := startedOn(t, f, cfg, 120, 24)
	for _, k := range []string{"C", "K", "X"} {
		m = press(t, m, k)
		require.Equal(t, screenQueue, m.screen, k)
		require.Contains(t, m.status, "clusters are off in blind review", k)
	}
	m = press(t, m, ":")
	require.NotContains(t, labels(m.switching), "screen clusters")
	require.Zero(t, f.called("Clusters"), "a blind session never computes clusters, even with a baseline")
	require.Empty(t, f.eventsCopy())

	a := newFakeAdj(t, 3)
	am := startedAdj(t, a, 120, 20)
	am = press(t, am, "C")
	require.Contains(t, am.status, "clusters are off in adjudication")
	require.Equal(t, screenQueue, am.screen)
}

func TestClustersNeedAClusterStore(t *testing.T) {
	t.Parallel()
	m := started(t, newFake(3), testConfig(), 120, 24)
	m = press(t, m, "C")
	require.Equal(t, screenQueue, m.screen)
	require.Contains(t, m.status, "cannot compute them")
	m = press(t, m, ":")
	require.NotContains(t, labels(m.switching), "screen clusters")
	m = press(t, m, "esc", "?")
	require.NotContains(t, m.View(), "label the whole cluster")
}

// TestClustersInTheSwitcher: : offers the clusters screen, which opens
// computing them; a new run forgets them.
func TestClustersInTheSwitcher(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	cfg := testConfig()
	cfg.Runs = []string{"r1", "r2"}
	m := startedOn(t, f, cfg, 120, 24)
	m = press(t, m, ":")
	require.Equal(t, []string{"screen review", "screen clusters", "run * (every run)", "run r1", "run r2"}, labels(m.switching))
	m = press(t, m, "clus", "enter")
	require.Equal(t, screenClusters, m.screen)
	require.Equal(t, clustersLoaded, m.clusters.state)
	m = press(t, m, ":", "run r2", "enter")
	require.Equal(t, screenQueue, m.screen)
	require.Equal(t, clustersNone, m.clusters.state, "another run's clusters are computed afresh")
	m = press(t, m, "C")
	require.Equal(t, ClusterQuery{RunID: "r2", Leftovers: true}, f.queries[len(f.queries)-1])
}

// TestClusterHelp: the help names the cluster keys where they work.
func TestClusterHelp(t *testing.T) {
	t.Parallel()
	m := startedOn(t, newFakeClusters(), testConfig(), 140, 45)
	m = press(t, m, "?")
	require.Contains(t, m.View(), "C      clusters")
	m = press(t, m, "esc", "C")
	require.Contains(t, m.View(), "enter open cluster • 1-8 label it whole • K label the whole cluster")
	m = press(t, m, "?")
	require.Contains(t, m.View(), "open cluster, representative first")
	m = press(t, m, "esc", "enter")
	require.Contains(t, m.View(), "K label the whole cluster")
	m = press(t, m, "space")
	require.Contains(t, m.View(), "X split the marked off the cluster")
}

// TestClustersGolden pins the clusters screen (novel first, a split) and
// an open cluster at 80×24 and 140×45, without colour and in the dark
// and light palettes.
func TestClustersGolden(t *testing.T) {
	inEveryLook(t, func(th look, sz [2]int) {
		cfg := testConfig()
		cfg.Baseline = "r0"
		m := startedOn(t, newFakeClusters(), cfg, sz[0], sz[1])
		m = press(t, m, "C", "j", "enter", "enter", "esc", "j", "space")
		open := m.View()
		m = press(t, m, "X", "esc", "4")
		shots := map[string]string{"open": open, "list": m.View()}
		for name, v := range shots {
			t.Run(fmt.Sprintf("%s_%s_%03d", name, th.name, sz[0]), func(t *testing.T) {
				require.Len(t, strings.Split(v, "\n"), sz[1])
				golden.RequireEqual(t, []byte(v))
			})
		}
	})
}

// TestFlowLabelACluster drives the program: the clusters screen, a
// cluster's representative read, the whole cluster labelled.
func TestFlowLabelACluster(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	tm := teatest.NewTestModel(t, New(f, testConfig()), teatest.WithInitialTermSize(100, 30))
	waitFor(t, tm, "0 of 6 labelled")
	tm.Send(keyMsg("C"))
	waitFor(t, tm, "2 clusters")
	tm.Send(keyMsg("enter"))
	waitFor(t, tm, "cluster #1: 3 shown")
	tm.Send(keyMsg("enter"))
	waitFor(t, tm, "Timeline")
	tm.Send(keyMsg("K"))
	waitFor(t, tm, "Label every member")
	tm.Send(keyMsg("8"))
	waitFor(t, tm, "each marked as given by cluster")
	require.Eventually(t, func() bool { return len(f.eventsCopy()) == 3 }, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, tm.Quit())
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	require.Equal(t, screenTrace, final.screen)
	for _, e := range f.eventsCopy() {
		require.Equal(t, triage.ScorerRed, e.Primary)
		require.Equal(t, "SCORER_RED · KeyError: <q> · tests/test_totals.py::test_total", e.Cluster)
	}
}

// TestClusterBindingsInTheKeyConfig: the cluster keys have config names,
// clash checks and drive the app when rebound.
func TestClusterBindingsInTheKeyConfig(t *testing.T) {
	t.Parallel()
	_, err := KeyMapFrom(map[string][]string{"label_cluster": {"a"}})
	require.ErrorContains(t, err, `[keys] label_cluster: "a" is also bound to accept`)
	km, err := KeyMapFrom(map[string][]string{"clusters": {"Y"}, "label_cluster": {"ctrl+k"}, "split": {"S"}})
	require.NoError(t, err)
	require.Equal(t, "ctrl+k", km.LabelCluster.Help().Key)
	cfg := testConfig()
	cfg.KeyMap = &km
	f := newFakeClusters()
	m := startedOn(t, f, cfg, 120, 24)
	m = press(t, m, "C")
	require.Equal(t, screenQueue, m.screen, "C is unbound now")
	m = press(t, m, "Y")
	require.Equal(t, screenClusters, m.screen)
	m = press(t, m, "enter", "enter", "ctrl+k")
	require.Equal(t, modalPicker, m.modal)
	m = press(t, m, "esc", "esc", "space", "S")
	require.Contains(t, m.status, "split 1 traces off cluster #1")
}

// TestClustersCoverTheLeftovers: the screen asks for the leftovers with
// the failing traces, says how many of each it covers, and lists the
// traces with no cause signature apart, last: a row that opens its
// traces in the queue but is never labelled whole nor split.
func TestClustersCoverTheLeftovers(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	m := startedOn(t, f, testConfig(), 140, 24)
	m = press(t, m, "C")
	require.True(t, f.queries[0].Leftovers, "a review session clusters its leftovers too")
	v := m.View()
	require.Contains(t, v, "4 failing traces and 2 leftovers in 2 clusters · 1 no cause found")
	require.Contains(t, v, "  —      1     0/1      unlabelled 1                    no cause found · nothing shared to group by")
	require.Equal(t, 2, countClusters(m.clusters.groups), "the traces with no cause are no cluster")

	m = press(t, m, "G")
	require.Contains(t, m.View(), "enter open them")
	require.NotContains(t, m.View(), "label it whole", "the footer offers no label for the row")
	m = press(t, m, "3")
	require.Contains(t, m.status, "no cause found: these traces share no signature")
	m = press(t, m, "K")
	require.Contains(t, m.status, "no cause found: these traces share no signature")
	require.Equal(t, modalNone, m.modal)
	m = press(t, m, "enter")
	require.Equal(t, screenQueue, m.screen)
	require.Equal(t, []int64{6}, viewIDs(m))
	require.Contains(t, m.status, "no cause found: 1 of 1 traces in this queue, which share no cause")
	require.NotContains(t, m.View(), "label the whole cluster", "the footer offers no K that cannot fire")
	m = press(t, m, "enter", "esc", "K")
	require.Contains(t, m.status, "no cause found: these traces share no signature", "read, and still not labelled whole")
	m = press(t, m, "space", "X")
	require.Contains(t, m.status, "nothing to split off")
	require.Empty(t, f.eventsCopy(), "nothing was labelled")

	m = press(t, m, "esc", "esc", "3")
	require.Empty(t, f.eventsCopy())
	m = press(t, m, "esc")
	m = press(t, m, "3")
	require.Len(t, f.eventsCopy(), 1, "one by one, on the queue, it labels as ever")
}

// TestClustersWithoutLeftovers keeps the old title when the list covers
// failing traces only.
func TestClustersWithoutLeftovers(t *testing.T) {
	t.Parallel()
	f := newFakeClusters()
	f.list.Failing, f.list.Leftovers, f.list.Unclustered, f.list.NoCause = 5, 0, 0, Cluster{}
	m := startedOn(t, f, testConfig(), 140, 24)
	m = press(t, m, "C")
	v := m.View()
	require.Contains(t, v, "5 failing traces in 2 clusters")
	require.NotContains(t, v, "no cause found")
	require.Len(t, m.clusters.groups, 2)
}
