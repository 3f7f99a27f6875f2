package ui

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// This file is what the root does for review by cluster: open the
// clusters screen, open a cluster's members in the queue, label a whole
// cluster, split members off one, and put novel clusters' traces first.

// clusterRefusal says why the clusters screen is not there in this
// session, or "".
func (m *Model) clusterRefusal() string {
	switch {
	case m.pol.blind:
		return "clusters are off in blind review: a signature quotes the rules' evidence and a cluster's mix others' labels"
	case m.pol.agreement:
		return "clusters are off in adjudication: each settlement is made on its own, with its reason"
	case m.clusterStore == nil:
		return "no clusters here: this session's store cannot compute them"
	}
	return ""
}

// startClusters asks for the clusters unless they are there or coming.
func (m *Model) startClusters() tea.Cmd {
	c := &m.clusters
	if m.clusterRefusal() != "" || c.state == clustersLoading || c.state == clustersLoaded {
		return nil
	}
	c.state = clustersLoading
	return m.loadClustersCmd(c.gen)
}

// resetClusters forgets the clusters of a queue the session left (a new
// run or slice) and, with a baseline, computes the new queue's at once
// for its order.
func (m *Model) resetClusters() tea.Cmd {
	m.clusters = clusterScreen{gen: m.clusters.gen + 1, seen: m.clusters.seen, height: m.clusters.height, open: -1}
	if m.cfg.Baseline == "" {
		return nil
	}
	return m.startClusters()
}

// openClusters shows the clusters screen, computing the clusters the
// first time.
func (m *Model) openClusters() tea.Cmd {
	if why := m.clusterRefusal(); why != "" {
		m.status = why
		return nil
	}
	if m.screen == screenTrace {
		m.traceGen++ // Any load in flight is now stale.
	}
	if m.drilled {
		m.closeDrill()
	}
	m.screen = screenClusters
	cmd := m.startClusters()
	m.status = m.clustersStatus()
	if cmd != nil || m.clusters.state == clustersLoading {
		m.status = "clustering the failing traces and the leftovers…"
	}
	return cmd
}

// applyClusters takes a computation in: the screen's rows and, with a
// baseline, the queue's order (novel clusters' traces first).
func (m *Model) applyClusters(msg clustersLoadedMsg) {
	if msg.gen != m.clusters.gen {
		return
	}
	if msg.err != nil {
		m.clusters.state, m.clusters.err = clustersFailed, msg.err.Error()
		m.errText = msg.err.Error()
		return
	}
	m.clusters.setList(msg.list, m.cfg.Baseline)
	if m.cfg.Baseline != "" {
		m.queue.setNovel(m.clusters.novelIDs(), m.pol.blind)
	}
	if m.screen == screenClusters {
		m.status = m.clustersStatus()
	}
}

// clustersStatus says what the screen's keys do now.
func (m *Model) clustersStatus() string {
	if len(m.clusters.groups) == 0 {
		return ""
	}
	return "enter opens a cluster, its representative first; once you have read a member, a digit or K labels it whole"
}

// handleClusterKey runs the keys of review by cluster: every key on the
// clusters screen; C (open the screen), K (label the target's cluster)
// and X (split the marked off the open cluster) elsewhere. It reports
// whether the key was one of them.
func (m *Model) handleClusterKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	km := m.keys
	if m.screen == screenClusters {
		return m.handleClustersScreenKey(msg), true
	}
	switch {
	case key.Matches(msg, km.Clusters):
		return m.openClusters(), true
	case key.Matches(msg, km.LabelCluster):
		if why := m.clusterRefusal(); why != "" {
			m.status = why
			return nil, true
		}
		it := m.target()
		if it == nil {
			return nil, true
		}
		return m.pickClusterLabel(m.clusters.groupOf(it.TraceID)), true
	case key.Matches(msg, km.Split) && m.screen == screenQueue:
		return m.splitMarked(), true
	}
	return nil, false
}

// handleClustersScreenKey runs a key on the clusters screen: a digit or
// K labels the cursor's cluster, the rest move or open.
func (m *Model) handleClustersScreenKey(msg tea.KeyMsg) tea.Cmd {
	km, c := m.keys, &m.clusters
	for i := range km.Label {
		if key.Matches(msg, km.Label[i]) {
			if i >= len(m.tax.Classes) || c.state != clustersLoaded || len(c.groups) == 0 {
				return nil
			}
			return m.labelCluster(c.cursor, m.tax.Classes[i].Code)
		}
	}
	if key.Matches(msg, km.LabelCluster) || key.Matches(msg, km.Picker) {
		if c.state != clustersLoaded || len(c.groups) == 0 {
			return nil
		}
		return m.pickClusterLabel(c.cursor)
	}
	switch {
	case key.Matches(msg, km.Undo) && len(m.undoStack) == 0:
		m.status = "nothing of yours to undo"
		return nil
	case key.Matches(msg, km.Undo):
		return m.undo(nil) // The latest change: no target needed.
	case key.Matches(msg, km.Redo):
		return m.redo()
	}
	return m.perform(c.HandleKey(msg, m.session()))
}

// openCluster shows a group's members in the queue, a drill-down that
// esc leaves for the clusters screen, with the representative first.
func (m *Model) openCluster(gi int) tea.Cmd {
	c := &m.clusters
	g := &c.groups[gi]
	var keys []string
	for _, id := range g.members {
		if it := m.queue.item(id); it != nil {
			keys = append(keys, it.Key())
		}
	}
	if keys == nil {
		keys = []string{} // An empty drill-down, not the whole queue.
	}
	c.open = gi
	m.queue.ahead.pin = g.c.Representative
	title := "cluster " + g.label
	if g.noCause {
		title = "no cause found"
	}
	cmd := m.openDrill(drill{title: title, keys: keys})
	m.queue.moveTo(0)
	rep := m.cfg.Redactor.String(g.c.RepresentativeKey)
	if it := m.queue.item(g.c.Representative); it != nil {
		rep = it.Key()
	}
	m.status = fmt.Sprintf("%s: %d of %d members in this queue; the representative %s first · K labels them all once you have read one, space and X split members off",
		title, len(keys), len(g.members), rep)
	if g.noCause {
		m.status = fmt.Sprintf("%s: %d of %d traces in this queue, which share no cause: label them one by one", title, len(keys), len(g.members))
	} else if !slices.Contains(g.members, g.c.Representative) {
		m.status = fmt.Sprintf("%s: %d of %d members in this queue · K labels them all once you have read one", title, len(keys), len(g.members))
	}
	return cmd
}

// pickClusterLabel opens the class picker for a whole group.
func (m *Model) pickClusterLabel(gi int) tea.Cmd {
	if why := m.clusterLabelRefusal(gi); why != "" {
		m.status = why
		return nil
	}
	g := &m.clusters.groups[gi]
	codes, names := m.classChoices()
	m.picker = newPicker(fmt.Sprintf("Label every member of cluster %s (%d traces)", g.label, len(g.members)), codes, names, false, nil, 0)
	m.modal = modalPicker
	m.clusters.picking = gi + 1
	return nil
}

// clusterLabelRefusal says why group gi cannot be labelled whole now, or
// "".
func (m *Model) clusterLabelRefusal(gi int) string {
	c := &m.clusters
	switch {
	case m.pol.noBulk != "":
		return m.pol.noBulk
	case m.cfg.Reviewer == "":
		return "read only: no reviewer (set --reviewer, $TRIAGE_REVIEWER or reviewer in the config file) to label"
	case c.state == clustersLoading:
		return "the clusters are still being computed"
	case c.state != clustersLoaded:
		return "no clusters yet: " + m.keys.Clusters.Help().Key + " computes them"
	case gi < 0 || gi >= len(c.groups):
		return "this trace is in no cluster"
	case c.groups[gi].noCause:
		return "no cause found: these traces share no signature, so they are labelled one by one, not whole"
	case !c.sampled(gi):
		return fmt.Sprintf("read a member of cluster %s first (enter opens it, enter again a trace): a cluster is labelled whole only after a sample", c.groups[gi].label)
	}
	return ""
}

// handleClusterPickerKey is the class picker of a whole-group label:
// a digit or enter labels the group, esc cancels.
func (m Model) handleClusterPickerKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	gi := m.clusters.picking - 1
	for i := range m.keys.Label {
		if key.Matches(msg, m.keys.Label[i]) && i < len(m.picker.items) {
			m.modal, m.clusters.picking = modalNone, 0
			return m, m.labelCluster(gi, m.picker.items[i])
		}
	}
	switch m.picker.handle(msg, m.keys) {
	case pickCancel:
		m.modal, m.clusters.picking = modalNone, 0
	case pickChoose:
		m.modal, m.clusters.picking = modalNone, 0
		return m, m.labelCluster(gi, m.picker.items[m.picker.cursor])
	}
	return m, nil
}

// labelCluster gives class code to every member of group gi the queue
// holds, each with its own event marked as given by the cluster, as one
// change for undo.
func (m *Model) labelCluster(gi int, code string) tea.Cmd {
	if why := m.clusterLabelRefusal(gi); why != "" {
		m.status = why
		return nil
	}
	g := &m.clusters.groups[gi]
	m.batches++
	var cmds []tea.Cmd
	for _, id := range g.members {
		it := m.queue.item(id)
		if it == nil {
			continue
		}
		note := m.noteFor(it)
		cmds = append(cmds, m.writeLabel(it, code, note, m.batches, g.marker()))
	}
	m.queue.clearMarks()
	m.status = fmt.Sprintf("cluster %s: %d traces → %s, each marked as given by cluster (u undoes them together)", g.label, len(cmds), code)
	if out := len(g.members) - len(cmds); out > 0 {
		m.status += fmt.Sprintf(" · %d members are not in this queue and were left as they are", out)
	}
	return tea.Batch(cmds...)
}

// splitMarked takes the marked members out of the open cluster into a
// group of their own, for this session: a label for the whole cluster
// no longer reaches them.
func (m *Model) splitMarked() tea.Cmd {
	c, q := &m.clusters, &m.queue
	if why := m.clusterRefusal(); why != "" {
		m.status = why
		return nil
	}
	if !m.drilled || m.drillFrom != screenClusters || c.open < 0 || c.open >= len(c.groups) {
		m.status = m.keys.Split.Help().Key + " splits marked members off a cluster: open one on the clusters screen (" + m.keys.Clusters.Help().Key + ")"
		return nil
	}
	ids := q.markedIDs()
	g := &c.groups[c.open]
	if g.noCause {
		m.status = "no cause found is not a cluster: there is nothing to split off"
		return nil
	}
	if len(ids) == 0 {
		m.status = "mark the members that do not fit (space, v), then " + m.keys.Split.Help().Key + " splits them off"
		return nil
	}
	if len(ids) == len(g.members) {
		m.status = "every member is marked: a split needs some to stay"
		return nil
	}
	at := c.split(c.open, ids)
	g = &c.groups[c.open]
	var keys []string
	for _, id := range g.members {
		if it := q.item(id); it != nil {
			keys = append(keys, it.Key())
		}
	}
	q.setOnly("cluster "+g.label, keys, m.pol.blind)
	m.status = fmt.Sprintf("split %d traces off cluster %s: they are %s on the clusters screen; %d members stay", len(ids), g.label, c.groups[at].label, len(g.members))
	return nil
}

// queueAhead is what the queue's own order puts first: the traces of
// novel clusters, and in a cluster's drill-down its representative.
type queueAhead struct {
	novel map[int64]bool
	pin   int64
}

// sortAhead moves the traces queueAhead names to the front of the view,
// keeping the order within each part.
func (q *queueModel) sortAhead() {
	pin := q.only != nil && q.ahead.pin != 0
	if len(q.ahead.novel) == 0 && !pin {
		return
	}
	rank := func(i int) int {
		id := q.all[i].TraceID
		switch {
		case pin && id == q.ahead.pin:
			return 0
		case q.ahead.novel[id]:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(q.view, func(a, b int) int { return cmp.Compare(rank(a), rank(b)) })
}

// setNovel puts the novel clusters' traces first in the queue's order.
// A cursor still where the queue started it (the first item to do) moves
// to the new first item to do; one the reviewer moved stays on its item.
func (q *queueModel) setNovel(ids map[int64]bool, blind bool) {
	atStart := q.loaded && q.cursor == q.firstToDo()
	q.ahead.novel = ids
	_ = q.apply(q.filter, blind)
	if i := q.firstToDo(); atStart && i >= 0 {
		q.moveTo(i)
	}
}

// firstToDo is the view index of the first item still to do, or -1.
func (q *queueModel) firstToDo() int {
	for i, idx := range q.view {
		if q.all[idx].Status == StatusTodo {
			return i
		}
	}
	return -1
}

// ShortHelp implements screen: the clusters screen's footer.
func (c *clusterScreen) ShortHelp(s *session) []key.Binding {
	km := s.keys
	b := []key.Binding{}
	switch {
	case c.state != clustersLoaded || len(c.groups) == 0:
	case c.groups[c.cursor].noCause:
		// A row of traces with no cause opens, but is never labelled whole.
		b = append(b, withHelp(km.Open, "open them"))
	default:
		b = append(b, withHelp(km.Open, "open cluster"), withHelp(s.labelHelp(), "label it whole"), km.LabelCluster)
	}
	return append(b, km.Down, km.Up, withHelp(km.Back, "back to queue"), km.Help, km.Quit)
}

// FullHelp implements screen: movement, the cluster's keys, and the
// global ones.
func (c *clusterScreen) FullHelp(s *session) [][]key.Binding {
	km := s.keys
	move := []key.Binding{km.Down, km.Up, km.Top, km.Bottom, km.HalfDown, km.HalfUp}
	keys := []key.Binding{withHelp(km.Open, "open cluster, representative first"), withHelp(s.labelHelp(), "label the whole cluster"),
		km.LabelCluster, km.Undo, km.Redo, withHelp(km.Back, "back to queue")}
	return [][]key.Binding{move, keys, s.globalKeys()}
}

// clusterShortHelp is what the queue's footer adds in an open cluster:
// label it whole, and split the marked off it.
func (s *session) clusterShortHelp() []key.Binding {
	if !s.drilled || s.drillFrom != screenClusters || s.noCause {
		return nil
	}
	if len(s.queue.markedIDs()) > 0 {
		return []key.Binding{s.keys.Split}
	}
	return []key.Binding{s.writes(s.keys.LabelCluster)}
}

// splitHint is what the status of marks in an open cluster adds.
func (m *Model) splitHint() string {
	if !m.drilled || m.drillFrom != screenClusters {
		return ""
	}
	return ", " + m.keys.Split.Help().Key + " splits them off the cluster"
}

// clusterHelp is the review-by-cluster column of the queue's (onQueue)
// and the trace screen's help; empty when the session has no clusters.
func (s *session) clusterHelp(onQueue bool) []key.Binding {
	if !s.clusters {
		return nil
	}
	if s.noCause {
		return []key.Binding{s.keys.Clusters}
	}
	b := []key.Binding{s.keys.Clusters, s.writes(s.keys.LabelCluster)}
	if onQueue && s.drilled && s.drillFrom == screenClusters {
		b = append(b, s.keys.Split)
	}
	return b
}
