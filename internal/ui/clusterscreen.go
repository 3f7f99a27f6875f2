package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// clusterState is where the clusters screen's computation stands.
type clusterState int

const (
	clustersNone    clusterState = iota // not asked for yet
	clustersLoading                     // a command is computing them
	clustersLoaded
	clustersFailed
)

// clusterGroup is one row of the clusters screen: a cluster as computed,
// or members the reviewer split off one for this session.
type clusterGroup struct {
	c Cluster
	// members are the group's traces now, the representative first while
	// it is still one of them: a split takes its traces out.
	members []int64
	// label numbers the row: "#3", or "#3.1" for the first group split
	// off #3; from is the label of the group it was split off ("" for a
	// cluster), splits how many groups were split off this one.
	label, from string
	splits      int
	// noCause marks the row of the traces with no cause signature: they
	// open together but share nothing to label them by.
	noCause bool
}

// marker is what a label given to the whole group records on each
// member's event (triage.LabelEvent.Cluster): the cluster's name, or
// what the split came from.
func (g *clusterGroup) marker() string {
	name := g.c.Name
	if name == "" {
		name = fmt.Sprintf("cluster %d", g.c.ID)
	}
	if g.from != "" {
		return "split from " + name
	}
	return name
}

// clustersScreenDef is the clusters screen's entry in the registry:
// offered where the session may show clusters (clusterRefusal), and
// computed the first time it opens.
func clustersScreenDef() screenDef {
	return screenDef{
		name:    "clusters",
		of:      func(m *Model, _ screenID) screen { return &m.clusters },
		body:    func(l *layout) (int, int) { return clusterRowsTop, l.queueRows },
		offered: func(m *Model, _ screenID) bool { return m.clusterRefusal() == "" },
		open:    (*Model).openClusters,
	}
}

// clusterScreen is the list of clusters: one row each, largest first
// (novel first with a baseline), with a cursor. It holds no trace: the
// members open in the queue, as a drill-down.
type clusterScreen struct {
	state     clusterState
	err       string
	groups    []clusterGroup
	failing   int
	leftovers int
	unclust   int
	// baseline is the run the clusters were compared with ("" for none).
	baseline string
	cursor   int
	offset   int
	width    int
	height   int
	// open is the group whose members the queue shows (-1: none);
	// picking is the group the class picker labels, plus one (0: none).
	open    int
	picking int
	// seen are the traces the reviewer opened on the trace screen this
	// session: a group is labelled whole only after one of its members
	// was read.
	seen map[int64]bool
	// gen drops a computation for a run the session has left.
	gen int
	// labels are each member's label when the clusters were computed.
	labels map[int64]string
}

// clusterAct is what a key on the clusters screen asks the root to do.
type clusterAct int

const (
	clusterActNone clusterAct = iota
	clusterActOpen            // open the cursor's group in the queue
	clusterActBack            // back to the queue
)

// setList replaces the groups by a fresh computation: largest first as
// the store gives them, novel ones first when there is a baseline.
func (c *clusterScreen) setList(l *ClusterList, baseline string) {
	c.state, c.err, c.baseline = clustersLoaded, "", baseline
	c.groups, c.open, c.picking = c.groups[:0], -1, 0
	c.failing, c.leftovers, c.unclust = 0, 0, 0
	c.labels = map[int64]string{}
	keep := func(cl Cluster) {
		for i, id := range cl.Members {
			if i < len(cl.Labels) {
				c.labels[id] = cl.Labels[i]
			}
		}
	}
	if l != nil {
		c.failing, c.leftovers, c.unclust = l.Failing, l.Leftovers, l.Unclustered
		for _, cl := range l.Clusters {
			keep(cl)
			c.groups = append(c.groups, clusterGroup{c: cl, members: slices.Clone(cl.Members), label: fmt.Sprintf("#%d", cl.ID)})
		}
	}
	if baseline != "" {
		slices.SortStableFunc(c.groups, func(x, y clusterGroup) int {
			return cmp.Compare(novelRank(x.c.Novel), novelRank(y.c.Novel))
		})
	}
	// The traces with no cause come last, apart: a row to open, never to
	// label whole.
	if l != nil && len(l.NoCause.Members) > 0 {
		keep(l.NoCause)
		nc := clusterGroup{c: l.NoCause, members: slices.Clone(l.NoCause.Members), label: "—", noCause: true}
		nc.c.Name, nc.c.Novel = noCauseName, false
		c.groups = append(c.groups, nc)
	}
	c.cursor, c.offset = 0, 0
	c.clamp()
}

// noCauseName names the row of the traces with no cause signature.
const noCauseName = "no cause found · nothing shared to group by: label them one by one"

func novelRank(novel bool) int {
	if novel {
		return 0
	}
	return 1
}

// novelIDs are the members of novel clusters, which the queue puts first.
func (c *clusterScreen) novelIDs() map[int64]bool {
	out := map[int64]bool{}
	for i := range c.groups {
		if g := &c.groups[i]; g.c.Novel && g.from == "" && !g.noCause {
			for _, id := range g.c.Members {
				out[id] = true
			}
		}
	}
	return out
}

// openNoCause reports whether the group open in the queue is the row of
// the traces with no cause.
func (c *clusterScreen) openNoCause() bool {
	return c.open >= 0 && c.open < len(c.groups) && c.groups[c.open].noCause
}

// groupOf is the index of the group a trace is in now, or -1.
func (c *clusterScreen) groupOf(id int64) int {
	for i := range c.groups {
		if slices.Contains(c.groups[i].members, id) {
			return i
		}
	}
	return -1
}

// sampled reports whether the reviewer has read one of the group's
// members on the trace screen.
func (c *clusterScreen) sampled(gi int) bool {
	for _, id := range c.groups[gi].members {
		if c.seen[id] {
			return true
		}
	}
	return false
}

// sawTrace records that the trace was opened on the trace screen.
func (c *clusterScreen) sawTrace(id int64) {
	if c.seen == nil {
		c.seen = map[int64]bool{}
	}
	c.seen[id] = true
}

// split moves ids out of group gi into a new group right after it (and
// after any group split off it before), and returns the new group's
// index.
func (c *clusterScreen) split(gi int, ids []int64) int {
	g := &c.groups[gi]
	g.splits++
	out := clusterGroup{c: g.c, label: fmt.Sprintf("%s.%d", g.label, g.splits), from: g.label}
	out.c.Novel = g.c.Novel
	take := map[int64]bool{}
	for _, id := range ids {
		take[id] = true
	}
	kept := g.members[:0:0]
	for _, id := range g.members {
		if take[id] {
			out.members = append(out.members, id)
		} else {
			kept = append(kept, id)
		}
	}
	g.members = kept
	at := gi + 1
	for at < len(c.groups) && strings.HasPrefix(c.groups[at].label, g.label+".") {
		at++
	}
	c.groups = slices.Insert(c.groups, at, out)
	if c.open >= at {
		c.open++
	}
	return at
}

func (c *clusterScreen) setHeight(h int) { c.height = h; c.clamp() }

func (c *clusterScreen) move(d int) { c.cursor += d; c.clamp() }

func (c *clusterScreen) clamp() {
	c.cursor = max(0, min(c.cursor, len(c.groups)-1))
	if c.cursor < c.offset {
		c.offset = c.cursor
	}
	if c.height > 0 && c.cursor >= c.offset+c.height {
		c.offset = c.cursor - c.height + 1
	}
	c.offset = max(0, min(c.offset, len(c.groups)-max(1, c.height)))
}

// SetSize implements screen: h is the rows under the title and header.
func (c *clusterScreen) SetSize(w, h int) {
	c.width = w
	c.setHeight(h)
}

// HandleKey implements screen: it moves the cursor, and asks the root to
// open the cursor's group or go back. The root takes the label keys
// (a digit, K, undo) before it.
func (c *clusterScreen) HandleKey(msg tea.KeyMsg, s *session) Action {
	switch c.handleKey(msg, s.keys) {
	case clusterActOpen:
		return Action{kind: actCluster}
	case clusterActBack:
		return Action{kind: actBack}
	}
	return Action{}
}

// HandleMouse implements screen: the wheel moves the cursor.
func (c *clusterScreen) HandleMouse(msg tea.MouseMsg, _ *session) Action {
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		c.move(-wheelLines)
	case tea.MouseButtonWheelDown:
		c.move(wheelLines)
	}
	return Action{}
}

// handleKey applies one key to the list (movement) and says what the
// root must do: open the cursor's group, or go back.
func (c *clusterScreen) handleKey(msg tea.KeyMsg, km *KeyMap) clusterAct {
	half := max(1, c.height/2)
	switch {
	case key.Matches(msg, km.Down):
		c.move(1)
	case key.Matches(msg, km.Up):
		c.move(-1)
	case key.Matches(msg, km.Top):
		c.cursor = 0
		c.clamp()
	case key.Matches(msg, km.Bottom):
		c.cursor = len(c.groups) - 1
		c.clamp()
	case key.Matches(msg, km.HalfDown):
		c.move(half)
	case key.Matches(msg, km.HalfUp):
		c.move(-half)
	case key.Matches(msg, km.Open):
		if c.state == clustersLoaded && len(c.groups) > 0 {
			return clusterActOpen
		}
	case key.Matches(msg, km.Back):
		return clusterActBack
	}
	return clusterActNone
}

// clusterCols are the clusters screen's column widths; zero hides one.
type clusterCols struct {
	mark, id, size, yours, novel, classes, name int
}

// clusterLayout fits the columns to the width: the signature's name
// takes what the figures leave.
func clusterLayout(w int, baseline bool) clusterCols {
	c := clusterCols{mark: 2, id: 7, size: 6, yours: 9}
	if baseline {
		c.novel = 7
	}
	rest := max(0, w-c.mark-c.id-c.size-c.yours-c.novel)
	c.classes = min(rest*3/10, 32)
	c.name = max(0, rest-c.classes)
	return c
}

// clusterRowsTop is the screen line of the clusters screen's first row,
// under the title and the column header.
const clusterRowsTop = 2

// View implements screen: a title, the column header and the visible
// rows.
func (c *clusterScreen) View(s *session) string {
	st := s.st
	cols := clusterLayout(c.width, c.baseline != "")
	var b strings.Builder
	b.WriteString(c.title(s))
	b.WriteByte('\n')
	novel := ""
	if cols.novel > 0 {
		novel = "novel"
	}
	b.WriteString(st.Queue.Header.Render(clusterRow(cols, "", "#", "size", "yours", novel, "classes", "signature")))
	rows := 0
	note := ""
	switch {
	case c.state == clustersLoading || c.state == clustersNone:
		note = "Clustering the failing traces and the leftovers by signature…"
	case c.state == clustersFailed:
		note = "No clusters: " + c.err
	case len(c.groups) == 0:
		note = "No failing trace or leftover to cluster."
	}
	if note != "" {
		b.WriteString("\n" + st.App.Muted.Render(ansi.Truncate(sanitizeLine(note), c.width, "…")))
		rows = 1
	}
	for i := c.offset; note == "" && i < min(len(c.groups), c.offset+c.height); i++ {
		g := &c.groups[i]
		mark := "  "
		if i == c.cursor {
			mark = "▸ "
		}
		inQueue, done := clusterProgress(s.queue, g)
		yours := fmt.Sprintf("%d/%d", done, inQueue)
		nov := ""
		if cols.novel > 0 && g.c.Novel {
			nov = "NOVEL"
		}
		name := s.shown(g.c.Name)
		if g.noCause {
			name = g.c.Name
		}
		if g.from != "" {
			name = "split from " + g.from + ": " + name
		}
		line := clusterRow(cols, mark, g.label, fmt.Sprint(len(g.members)), yours, nov, c.classMix(g), name)
		switch {
		case i == c.cursor:
			line = st.Queue.Cursor.Render(line)
		case inQueue > 0 && done == inQueue:
			line = st.Queue.Labelled.Render(line)
		}
		b.WriteString("\n" + line)
		rows++
	}
	b.WriteString(strings.Repeat("\n", max(0, c.height-rows)))
	return b.String()
}

// title is the screen's line: the scope, the counts, the baseline's
// novel clusters.
func (c *clusterScreen) title(s *session) string {
	parts := []string{"triage clusters", s.shown(s.cfg.Reviewer)}
	if s.cfg.RunID != "" {
		parts = append(parts, "run "+s.shown(s.cfg.RunID))
	}
	if c.state == clustersLoaded {
		parts = append(parts, c.coverage())
		if c.baseline != "" {
			n := 0
			for i := range c.groups {
				if c.groups[i].c.Novel && c.groups[i].from == "" {
					n++
				}
			}
			parts = append(parts, fmt.Sprintf("baseline %s: %d novel, first", s.shown(c.baseline), n))
		}
		if c.unclust > 0 {
			parts = append(parts, fmt.Sprintf("%d no cause found", c.unclust))
		}
	}
	return s.st.App.Title.Render(ansi.Truncate(sanitizeLine(strings.Join(parts, " · ")), c.width, "…"))
}

// coverage says what the clusters cover: "24 failing traces and 1136
// leftovers in 40 clusters".
func (c *clusterScreen) coverage() string {
	n := countClusters(c.groups)
	if c.leftovers == 0 {
		return fmt.Sprintf("%d failing traces in %d clusters", c.failing, n)
	}
	return fmt.Sprintf("%d failing traces and %d leftovers in %d clusters", c.failing, c.leftovers, n)
}

// countClusters counts the computed clusters, not the splits nor the
// traces with no cause.
func countClusters(gs []clusterGroup) int {
	n := 0
	for i := range gs {
		if gs[i].from == "" && !gs[i].noCause {
			n++
		}
	}
	return n
}

// clusterProgress counts the group's members the queue holds and those
// this reviewer has labelled.
func clusterProgress(q *queueModel, g *clusterGroup) (inQueue, done int) {
	for _, id := range g.members {
		if it := q.item(id); it != nil {
			inQueue++
			if it.Primary != "" {
				done++
			}
		}
	}
	return inQueue, done
}

// classMix is a group's members' labels when the clusters were computed,
// largest first: "TOOL_LOOP 3, unlabelled 2".
func (c *clusterScreen) classMix(g *clusterGroup) string {
	n := map[string]int{}
	for _, id := range g.members {
		l := c.labels[id]
		if l == "" {
			l = "unlabelled"
		}
		n[l]++
	}
	classes := make([]string, 0, len(n))
	for k := range n {
		classes = append(classes, k)
	}
	slices.SortFunc(classes, func(x, y string) int { return cmp.Or(cmp.Compare(n[y], n[x]), strings.Compare(x, y)) })
	for i, k := range classes {
		classes[i] = fmt.Sprintf("%s %d", k, n[k])
	}
	return strings.Join(classes, ", ")
}

// clusterRow lays out one row; cells are untrusted text, sanitized, cut
// and padded.
func clusterRow(c clusterCols, mark, id, size, yours, novel, classes, name string) string {
	cell := func(s string, w int) string {
		if w <= 0 {
			return ""
		}
		s = ansi.Truncate(sanitizeLine(s), w-1, "…")
		return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
	}
	out := mark + strings.Repeat(" ", max(0, c.mark-ansi.StringWidth(mark)))
	out += cell(id, c.id) + cell(size, c.size) + cell(yours, c.yours) + cell(novel, c.novel) + cell(classes, c.classes)
	return out + cell(name, c.name)
}
