package ui

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// sidewaysStep is how many columns ← and → scroll a pane.
const sidewaysStep = 8

// pos is a place in a pane: a row, and the line within it when wrapping.
type pos struct{ row, sub int }

func (p pos) before(q pos) bool { return p.row < q.row || p.row == q.row && p.sub < q.sub }

// sticky reports whether tab t keeps its current file's header on the
// top line (the diff, on a screen tall enough to spare the line).
func (v *traceView) sticky(t tabID) bool {
	d := &v.docs[t]
	return d.diff != nil && len(d.files) > 0 && v.height >= 3
}

// bodyHeight is the lines the rows of tab t scroll in.
func (v *traceView) bodyHeight(t tabID) int {
	if v.sticky(t) {
		return v.height - 1
	}
	return v.height
}

// sel is the row of tab t drawn as selected: the evidence item, the
// timeline's cursor, a jump target or the diff's mark; -1 for none.
func (v *traceView) sel(t tabID) int {
	d := &v.docs[t]
	switch t {
	case tabEvidence:
		if v.evSel < len(d.evs) {
			return d.evs[v.evSel]
		}
	case tabTimeline:
		if l, ok := d.tools[v.cur]; ok && v.cur >= 0 {
			return l
		}
		return -1
	}
	return v.target[t]
}

// rowHeight is the lines row i of tab t takes: 1 unless wrapping.
func (v *traceView) rowHeight(t tabID, i int) int {
	if !v.wrap {
		return 1
	}
	d := &v.docs[t]
	if d.view != nil {
		return max(1, len(d.view.Row(i)))
	}
	if i < 0 || i >= len(d.lines) {
		return 1
	}
	sel := i == v.sel(t)
	k := heightKey{t, i, sel}
	if h, ok := v.heights[k]; ok {
		return h
	}
	h := docLineHeight(&d.lines[i], v.width, sel)
	if v.heights == nil || len(v.heights) > maxCachedHeights {
		v.heights = map[heightKey]int{}
	}
	v.heights[k] = h
	return h
}

// heightKey identifies a cached row height.
type heightKey struct {
	tab tabID
	row int
	sel bool
}

// maxCachedHeights bounds the height cache: many screens of scrolling.
const maxCachedHeights = 8192

// scrollLines moves tab t by d lines (rows when not wrapping), clamped.
func (v *traceView) scrollLines(t tabID, d int) {
	switch {
	case d <= -(1 << 29):
		v.offset[t], v.sub[t] = 0, 0
	case d >= 1<<29:
		p := v.lastPos(t)
		v.offset[t], v.sub[t] = p.row, p.sub
	case !v.wrap:
		v.offset[t] += d
	default:
		p, n := pos{v.offset[t], v.sub[t]}, v.docs[t].len()
		for ; d > 0; d-- {
			if p.sub+1 < v.rowHeight(t, p.row) {
				p.sub++
			} else if p.row+1 < n {
				p.row, p.sub = p.row+1, 0
			} else {
				break
			}
		}
		for ; d < 0; d++ {
			if p.sub > 0 {
				p.sub--
			} else if p.row > 0 {
				p.row--
				p.sub = v.rowHeight(t, p.row) - 1
			} else {
				break
			}
		}
		v.offset[t], v.sub[t] = p.row, p.sub
	}
	v.clampTab(t)
}

// lastPos is the top of the last screenful of tab t. Wrapping, it
// measures only the rows of that screen, from the end.
func (v *traceView) lastPos(t tabID) pos {
	n, h := v.docs[t].len(), v.bodyHeight(t)
	if !v.wrap {
		return pos{max(0, n-h), 0}
	}
	if h <= 0 {
		return pos{}
	}
	for i := n - 1; i >= 0; i-- {
		rh := v.rowHeight(t, i)
		if rh >= h {
			return pos{i, rh - h}
		}
		h -= rh
	}
	return pos{}
}

// clampTab keeps tab t's position inside its document.
func (v *traceView) clampTab(t tabID) {
	n := v.docs[t].len()
	v.offset[t] = max(0, min(v.offset[t], n-1))
	if !v.wrap {
		v.sub[t] = 0
		v.offset[t] = max(0, min(v.offset[t], n-v.bodyHeight(t)))
		return
	}
	v.sub[t] = max(0, min(v.sub[t], v.rowHeight(t, v.offset[t])-1))
	if last := v.lastPos(t); last.before(pos{v.offset[t], v.sub[t]}) {
		v.offset[t], v.sub[t] = last.row, last.sub
	}
}

// visible reports whether row starts on screen in tab t.
func (v *traceView) visible(t tabID, row int) bool {
	off := v.offset[t]
	if row < off {
		return false
	}
	if !v.wrap {
		return row < off+v.bodyHeight(t)
	}
	lines := -v.sub[t]
	for i := off; i < row; i++ {
		lines += v.rowHeight(t, i)
		if lines >= v.bodyHeight(t) {
			return false
		}
	}
	return true
}

// visibleRows is the range of rows tab t shows, [from, to).
func (v *traceView) visibleRows(t tabID) (int, int) {
	n, off := v.docs[t].len(), v.offset[t]
	if !v.wrap {
		return off, min(n, off+v.bodyHeight(t))
	}
	to, lines := off, -v.sub[t]
	for to < n && lines < v.bodyHeight(t) {
		lines += v.rowHeight(t, to)
		to++
	}
	return off, to
}

// setWrap turns wrapping on or off in every pane, keeping each pane's
// top row.
func (v *traceView) setWrap(on bool) {
	v.wrap = on
	v.heights = nil
	for t := range v.docs {
		v.sub[t], v.xoff[t] = 0, 0
		if dv := v.docs[t].view; dv != nil {
			dv.SetWrap(on)
			dv.SetXOffset(0)
		}
		v.clampTab(tabID(t))
	}
}

// scrollX scrolls the current pane sideways by d columns when not
// wrapping, and reports whether it moved. It does not scroll right past
// the end of the widest visible line.
func (v *traceView) scrollX(d int) bool {
	t := v.tab
	if v.wrap || !v.loaded {
		return false
	}
	if d > 0 && !v.overflows(t) {
		return false
	}
	old := v.xoff[t]
	v.xoff[t] = max(0, v.xoff[t]+d)
	if dv := v.docs[t].view; dv != nil {
		dv.SetXOffset(v.xoff[t])
	}
	return v.xoff[t] != old
}

// overflows reports whether a visible row of tab t goes on past the
// right edge.
func (v *traceView) overflows(t tabID) bool {
	d := &v.docs[t]
	from, to := v.visibleRows(t)
	for i := from; i < to; i++ {
		if d.view != nil {
			if d.view.Overflows(i) {
				return true
			}
			continue
		}
		if docLineOverflows(&d.lines[i], v.width, v.xoff[t], i == v.sel(t)) {
			return true
		}
	}
	return false
}

// paneRows draws the current pane's visible lines, exactly height of
// them: the diff's sticky file header first, then the rows from the top
// position, each as the lines it takes.
func (v *traceView) paneRows(st *Styles) []string {
	t, d := v.tab, v.doc()
	sel := v.sel(t)
	out := make([]string, 0, v.height)
	start, sub := v.offset[t], v.sub[t]
	if v.sticky(t) {
		hdr := d.files[0]
		if f := d.diff.FileOf(start); f >= 0 && f < len(d.files) {
			hdr = d.files[f]
		}
		if ls := v.rowLines(st, t, hdr, sel); len(ls) > 0 {
			out = append(out, ls[0])
		}
		if start == hdr {
			start, sub = start+1, 0
		}
	}
	for i := start; i < d.len() && len(out) < v.height; i++ {
		ls := v.rowLines(st, t, i, sel)
		if i == start && sub > 0 {
			ls = ls[min(sub, len(ls)):]
		}
		for _, l := range ls {
			if len(out) == v.height {
				break
			}
			out = append(out, l)
		}
	}
	for len(out) < v.height {
		out = append(out, "")
	}
	return out
}

// rowLines draws row i of tab t as the lines it takes.
func (v *traceView) rowLines(st *Styles, t tabID, i, sel int) []string {
	d := &v.docs[t]
	if d.view != nil {
		rows := d.view.Row(i)
		if i == sel && len(rows) > 0 {
			// A jump target or mark: a marker before the row, which
			// gives up its last cells (padding, mostly) rather than the
			// start of a file name or line number.
			rows = append([]string{st.Content.Selected.Render("▶ ") + ansi.Truncate(rows[0], max(0, v.width-2), "")}, rows[1:]...)
		}
		return rows
	}
	return renderDocLine(st, &d.lines[i], v.width, v.query, v.idents, i == sel, v.xoff[t], v.wrap)
}

// paneFlags is the tab bar's note of the pane's mode: wrapping, or the
// first column shown when scrolled sideways.
func (v *traceView) paneFlags() string {
	switch {
	case v.wrap:
		return " wrap"
	case v.xoff[v.tab] > 0:
		return " col " + strconv.Itoa(v.xoff[v.tab]+1)
	}
	return ""
}
