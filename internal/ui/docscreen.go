package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// drill is what a figure counts: the traces behind it, by key
// (RUN/TASK#SEED), to open in the review screen.
type drill struct {
	// title says what was opened, e.g. "grid T01 seed 3".
	title string
	keys  []string
	// why, when set, says why the figure opens nothing (e.g. the units
	// of a ratings file are not traces of a store).
	why string
	// row and col place a matrix cell while the page is being built.
	row, col int
}

// target is one figure of a document that the cursor can rest on: the
// cells it covers and the traces it opens.
type target struct {
	line, col, width int
	drill            drill
}

// page is a rendered document: lines of at most the width, and the
// targets in reading order (by line, then column).
type page struct {
	lines   []string
	targets []target
	// frozen, by line, is how many leading columns stay put when the
	// screen scrolls sideways (a grid row's task label); nil or 0: none.
	frozen []int
	// step is the columns the screen scrolls sideways by (a grid cell),
	// so a shifted row starts on a cell's edge; 0 is 1.
	step int
}

// frozenAt is how many columns of line stay put sideways.
func (p *page) frozenAt(line int) int {
	if line < len(p.frozen) {
		return p.frozen[line]
	}
	return 0
}

// actionKind is what a screen's key handler asks the root to do.
type actionKind int

const (
	actNone       actionKind = iota
	actBack                  // leave the screen
	actDrill                 // open the drill's traces in the review screen
	actSearch                // open the search line for this screen
	actOpen                  // open trace id on the trace screen
	actFilter                // open the queue's filter line
	actCloseDrill            // leave a drill-down for the figure it came from
	actStep                  // open the next (n 1) or previous (n -1) trace
	actFiles                 // open the diff's file list
	actCluster               // open the clusters screen's cursor's group in the queue
)

// Action is what a screen's key handler decided; the root performs it.
type Action struct {
	kind   actionKind
	drill  drill
	status string
	id     int64
	n      int
}

// docScreen is a read-only document (the report, the agreement) with a
// cursor over its figures: j/k move between rows of figures, ←/→ (h/l)
// along a row, tab in reading order; enter opens the figure's traces and
// / searches the text. It re-renders only when the width changes.
type docScreen struct {
	st     *Styles
	keys   *KeyMap
	render func(width int) page
	pg     page
	width  int
	height int
	offset int
	xoff   int // the first column shown, for lines wider than the screen
	cursor int // index into doc.targets
	query  string
	match  int // index into matches
	hits   []int
	// back is what esc does when no search is open, for help: "back",
	// or "quit" on the screen the app started on.
	back string
	// title is the screen's title line's parts.
	title func(s *session) []string
}

func newDocScreen(st *Styles, keys *KeyMap, render func(width int) page) docScreen {
	return docScreen{st: st, keys: keys, render: render, back: "back"}
}

// SetSize sizes the body (the lines between the title and the status
// line) and re-renders the document when the width changed.
func (d *docScreen) SetSize(w, h int) {
	if w != d.width || d.pg.lines == nil {
		d.width = w
		d.refresh()
	}
	d.height = max(0, h)
	d.show()
}

// SetRender replaces the document (a report computed, an error) and
// renders it at the current width, keeping the cursor where it can.
func (d *docScreen) SetRender(render func(width int) page) {
	d.render = render
	d.pg = page{}
	d.refresh()
	d.show()
}

func (d *docScreen) refresh() {
	if d.render == nil || d.width <= 0 {
		d.pg = page{}
		return
	}
	fresh := d.pg.lines == nil
	d.pg = d.render(d.width)
	d.cursor = max(0, min(d.cursor, len(d.pg.targets)-1))
	if fresh {
		// Start on the first figure that opens something.
		for i, t := range d.pg.targets {
			if len(t.drill.keys) > 0 {
				d.cursor = i
				break
			}
		}
	}
	if d.query != "" {
		d.search(d.query)
	}
}

// current is the target under the cursor, or nil.
func (d *docScreen) current() *target {
	if d.cursor < 0 || d.cursor >= len(d.pg.targets) {
		return nil
	}
	return &d.pg.targets[d.cursor]
}

// HandleKey implements screen: it applies one key and returns what the
// root must do.
func (d *docScreen) HandleKey(msg tea.KeyMsg, _ *session) Action { return d.handleKey(msg) }

// HandleMouse implements screen: the wheel scrolls; a first click puts
// the cursor on a figure, a second opens its traces, as enter does.
func (d *docScreen) HandleMouse(msg tea.MouseMsg, _ *session) Action {
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		d.scroll(-wheelLines)
	case tea.MouseButtonWheelDown:
		d.scroll(wheelLines)
	case tea.MouseButtonLeft:
		// The body starts below the title line.
		x, line := msg.X, d.offset+msg.Y-1
		if d.xoff > 0 && x >= d.pg.frozenAt(line) {
			x += d.xoff // past a frozen label, the line is shifted
		}
		if i, ok := d.targetAt(x, line); ok {
			if i == d.cursor {
				return d.handleKey(tea.KeyMsg{Type: tea.KeyEnter})
			}
			d.setCursor(i)
		}
	}
	return Action{}
}

// View implements screen: a title naming the screen (and what the
// cursor's figure opens), then the visible window of the document.
func (d *docScreen) View(s *session) string {
	var parts []string
	if d.title != nil {
		parts = d.title(s)
	}
	title := s.st.App.Title.Render(sanitizeLine(strings.Join(parts, " · ")))
	if t := d.current(); t != nil && t.drill.why == "" {
		title += s.st.App.Muted.Render(sanitizeLine(fmt.Sprintf(" · enter opens %s (%d)", t.drill.title, len(t.drill.keys))))
	}
	return ansi.Truncate(title, d.width, "…") + "\n" + d.body()
}

func (d *docScreen) handleKey(msg tea.KeyMsg) Action {
	km := d.keys
	half := max(1, d.height/2)
	switch {
	case key.Matches(msg, km.Back):
		if d.query != "" {
			d.search("")
			return Action{status: "search cleared"}
		}
		return Action{kind: actBack}
	case key.Matches(msg, km.Open):
		t := d.current()
		switch {
		case t == nil:
			return Action{status: "nothing here opens traces"}
		case t.drill.why != "":
			return Action{status: t.drill.why}
		case len(t.drill.keys) == 0:
			return Action{status: t.drill.title + ": no traces"}
		}
		return Action{kind: actDrill, drill: t.drill}
	case key.Matches(msg, km.Search):
		return Action{kind: actSearch}
	case key.Matches(msg, km.NextMatch):
		return Action{status: d.nextMatch(1)}
	case key.Matches(msg, km.PrevMatch):
		return Action{status: d.nextMatch(-1)}
	case key.Matches(msg, km.Down):
		d.moveLine(1)
	case key.Matches(msg, km.Up):
		d.moveLine(-1)
	case key.Matches(msg, km.Right), key.Matches(msg, km.NextTrace):
		d.moveCol(1)
	case key.Matches(msg, km.Left), key.Matches(msg, km.PrevTrace):
		d.moveCol(-1)
	case key.Matches(msg, km.NextTab):
		d.setCursor(d.cursor + 1)
	case key.Matches(msg, km.PrevTab):
		d.setCursor(d.cursor - 1)
	case key.Matches(msg, km.HalfDown):
		d.scroll(half)
	case key.Matches(msg, km.HalfUp):
		d.scroll(-half)
	case key.Matches(msg, km.Top):
		d.offset = 0
		d.setCursor(0)
	case key.Matches(msg, km.Bottom):
		d.offset = len(d.pg.lines)
		d.setCursor(len(d.pg.targets) - 1)
		d.offset = max(0, len(d.pg.lines)-d.height)
	}
	return Action{}
}

// setCursor puts the cursor on target i (clamped) and scrolls it into
// view.
func (d *docScreen) setCursor(i int) {
	if len(d.pg.targets) == 0 {
		return
	}
	d.cursor = max(0, min(i, len(d.pg.targets)-1))
	d.show()
}

// show scrolls so the cursor's figure is on screen, down and sideways.
func (d *docScreen) show() {
	if t := d.current(); t != nil && d.height > 0 {
		if t.line < d.offset {
			d.offset = t.line
		}
		if t.line >= d.offset+d.height {
			d.offset = t.line - d.height + 1
		}
		// One cell of margin is kept for the … that says more is there;
		// a frozen label on the left shows before the cells.
		f := d.pg.frozenAt(t.line)
		switch {
		case t.col+t.width <= d.width-1:
			d.xoff = 0
		case t.col-d.xoff < f+1:
			d.xoff = max(0, t.col-f-1)
			d.xoff -= d.xoff % max(1, d.pg.step)
		case t.col+t.width > d.xoff+d.width-1:
			d.xoff = t.col + t.width - d.width + 1
			if s := max(1, d.pg.step); d.xoff%s != 0 {
				d.xoff += s - d.xoff%s
			}
		}
	}
	d.offset = max(0, min(d.offset, len(d.pg.lines)-d.height))
}

// targetAt is the figure drawn at column x of document line line.
func (d *docScreen) targetAt(x, line int) (int, bool) {
	if line < d.offset || line >= d.offset+d.height {
		return 0, false
	}
	for i, t := range d.pg.targets {
		if t.line == line && x >= t.col && x < t.col+t.width {
			return i, true
		}
	}
	return 0, false
}

// moveLine moves to the nearest figure (by column) on the next (dir 1)
// or previous line that has figures; without figures it scrolls.
func (d *docScreen) moveLine(dir int) {
	t := d.current()
	if t == nil {
		d.scroll(dir)
		return
	}
	line, col := t.line, t.col
	best, bestLine := -1, -1
	for i, o := range d.pg.targets {
		if (dir > 0 && o.line <= line) || (dir < 0 && o.line >= line) {
			continue
		}
		switch {
		case bestLine == -1, dir > 0 && o.line < bestLine, dir < 0 && o.line > bestLine:
			best, bestLine = i, o.line
		case o.line == bestLine && abs(o.col-col) < abs(d.pg.targets[best].col-col):
			best = i
		}
	}
	if best < 0 {
		// The last row of figures: scroll the text past it instead.
		d.scroll(dir)
		return
	}
	d.setCursor(best)
}

// moveCol moves to the next or previous figure on the cursor's line.
func (d *docScreen) moveCol(dir int) {
	t := d.current()
	if t == nil {
		return
	}
	if j := d.cursor + dir; j >= 0 && j < len(d.pg.targets) && d.pg.targets[j].line == t.line {
		d.setCursor(j)
	}
}

// scroll moves the window by n lines, and the cursor with it when it
// would leave the window.
func (d *docScreen) scroll(n int) {
	d.offset = max(0, min(d.offset+n, len(d.pg.lines)-d.height))
	t := d.current()
	if t == nil || (t.line >= d.offset && t.line < d.offset+d.height) {
		return
	}
	for i, o := range d.pg.targets {
		if o.line >= d.offset && o.line < d.offset+d.height {
			d.cursor = i
			if n > 0 {
				return
			}
		}
	}
}

// search finds q (case-insensitive) in the document's text and moves to
// the first line holding it at or after the window's top.
func (d *docScreen) search(q string) {
	d.query, d.hits, d.match = q, nil, 0
	if q == "" {
		return
	}
	lq := strings.ToLower(q)
	for i, l := range d.pg.lines {
		if strings.Contains(strings.ToLower(ansi.Strip(l)), lq) {
			d.hits = append(d.hits, i)
		}
	}
	for i, l := range d.hits {
		if l >= d.offset {
			d.match = i
			break
		}
	}
	d.goToHit()
}

// nextMatch moves to the next (dir 1) or previous line holding the query
// and says where it is.
func (d *docScreen) nextMatch(dir int) string {
	if len(d.hits) == 0 {
		if d.query == "" {
			return "no search: / searches"
		}
		return "no match for " + d.query
	}
	d.match = (d.match + dir + len(d.hits)) % len(d.hits)
	d.goToHit()
	return fmt.Sprintf("match %d of %d", d.match+1, len(d.hits))
}

// goToHit scrolls to the current match and puts the cursor on the first
// figure of its line, if it has one.
func (d *docScreen) goToHit() {
	if len(d.hits) == 0 {
		return
	}
	line := d.hits[d.match]
	for i, t := range d.pg.targets {
		if t.line == line {
			d.cursor = i
			break
		}
	}
	if line < d.offset || line >= d.offset+d.height {
		d.offset = max(0, min(line-d.height/3, len(d.pg.lines)-d.height))
	}
}

// body draws the visible window with the cursor's figure reversed and
// search hits marked in the gutter. It is height lines exactly.
func (d *docScreen) body() string {
	out := make([]string, 0, d.height)
	cur := d.current()
	hit := map[int]bool{}
	for _, l := range d.hits {
		hit[l] = true
	}
	for i := d.offset; i < len(d.pg.lines) && len(out) < d.height; i++ {
		l := d.pg.lines[i]
		if cur != nil && cur.line == i {
			l = overlay(l, cur.col, cur.width, d.st.Doc.Cursor)
		}
		if d.xoff > 0 {
			lw := ansi.StringWidth(l)
			if f := d.pg.frozenAt(i); f > 0 {
				l = ansi.Cut(l, 0, f) + ansi.Cut(l, f+d.xoff, lw)
			} else {
				l = ansi.Cut(l, d.xoff, lw)
			}
		}
		// The margin's first cell carries the cues in a form that
		// survives NO_COLOR: ▸ the cursor's row, » a search hit.
		switch {
		case cur != nil && cur.line == i:
			l = mark(l, d.st.Doc.Cursor.Render("▸"))
		case hit[i]:
			l = mark(l, d.st.Doc.Match.Render("»"))
		}
		out = append(out, ansi.Truncate(l, d.width, "…"))
	}
	for len(out) < d.height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

// overlay redraws cells [col, col+w) of a styled line in style: the text
// is kept, its own styles are dropped so the cue is one style.
func overlay(line string, col, w int, style interface{ Render(...string) string }) string {
	if w <= 0 {
		return line
	}
	lw := ansi.StringWidth(line)
	if col >= lw {
		return line
	}
	mid := ansi.Strip(ansi.Cut(line, col, col+w))
	return ansi.Cut(line, 0, col) + style.Render(mid) + ansi.Cut(line, col+w, lw)
}

// mark puts a cue in a line's first cell when that cell is margin.
func mark(line, cue string) string {
	if !strings.HasPrefix(ansi.Strip(line), " ") {
		return line
	}
	return cue + ansi.Cut(line, 1, ansi.StringWidth(line))
}

// ShortHelp implements screen: the footer's keys for a document screen.
func (d *docScreen) ShortHelp(s *session) []key.Binding {
	km := d.keys
	var b []key.Binding
	if len(d.pg.targets) > 0 {
		// Not while the document is being computed: nothing to move to.
		b = append(b, withHelp(km.Right, "next figure"))
	}
	if t := d.current(); t != nil && t.drill.why == "" {
		b = append(b, withHelp(km.Open, "open its traces"))
	}
	b = append(b, km.Search)
	if d.query != "" {
		b = append(b, km.NextMatch, withHelp(km.Back, "clear search"))
	} else {
		b = append(b, withHelp(km.Back, d.back))
	}
	return append(b, km.Help, km.Quit)
}

// FullHelp implements screen: every key of a document screen, in
// columns.
func (d *docScreen) FullHelp(s *session) [][]key.Binding {
	km := d.keys
	move := []key.Binding{withHelp(km.Down, "row down"), withHelp(km.Up, "row up"),
		withHelp(km.Right, "next figure"), withHelp(km.Left, "prev figure"),
		withHelp(km.NextTab, "next figure"), withHelp(km.PrevTab, "prev figure"),
		km.HalfDown, km.HalfUp, km.Top, km.Bottom}
	act := []key.Binding{withHelp(km.Open, "open traces"), km.Search, km.NextMatch, km.PrevMatch, withHelp(km.Back, d.back)}
	cols := [][]key.Binding{move, act}
	if s.pol.agreement {
		cols = append(cols, []key.Binding{withHelp(km.Agreement, "close agreement")})
	}
	return append(cols, s.globalKeys())
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
