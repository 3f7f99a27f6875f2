package card

import (
	"fmt"
	"strconv"
	"strings"
)

// Layout of the dumbbell panels and the heatmap.
const (
	dbPanelW  = 280
	dbPanelH  = 220
	dbPad     = 36
	dbGap     = 24
	dbDot     = 5
	heatCellW = 46
	heatCellH = 22
	heatLabel = 160
	heatHead  = 40
)

// markTraces names the traces behind a mark for its title and its
// data-traces attribute: up to MaxMarkTraces, then how many more.
func markTraces(traces []string, more int) string {
	s := strings.Join(traces, ", ")
	if more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// costAxis is one of the dumbbell's cost axes.
type costAxis struct {
	name string
	of   func(Dumbbell) (float64, bool)
	text func(float64) string
}

var costAxes = []costAxis{
	{"dollars", func(d Dumbbell) (float64, bool) { return deref(d.Dollars) }, func(v float64) string { return dollars(&v) }},
	{"tokens", func(d Dumbbell) (float64, bool) {
		if d.Tokens == nil {
			return 0, false
		}
		return float64(*d.Tokens), true
	}, func(v float64) string { return thousands(int64(v)) }},
	{"median wall-clock", func(d Dumbbell) (float64, bool) { return deref(d.MedianWallS) }, func(v float64) string { return seconds(&v) }},
}

// writeDumbbellSVG draws seed 004's capability × reliability picture: one
// panel per cost axis (dollars, tokens, wall-clock), each model a
// vertical dumbbell at its cost, pass@1 filled, pass^k hollow. Each mark
// names the traces behind it.
func writeDumbbellSVG(b *strings.Builder, r *ReportData) {
	w := len(costAxes)*(dbPanelW+dbGap) + dbPad
	h := dbPanelH + 2*dbPad
	fmt.Fprintf(b, `<svg role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>capability × reliability against dollars, tokens and wall-clock</title>`+"\n", w, h, w, h)
	for p, ax := range costAxes {
		x0 := dbPad + p*(dbPanelW+dbGap)
		y0 := dbPad
		fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`, x0, y0-12, esc(ax.name))
		fmt.Fprintf(b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"></line>`, x0, y0, x0, y0+dbPanelH)
		fmt.Fprintf(b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"></line>`+"\n", x0, y0+dbPanelH, x0+dbPanelW, y0+dbPanelH)
		fmt.Fprintf(b, `<text x="%d" y="%d">1</text><text x="%d" y="%d">0</text>`, x0-14, y0+4, x0-14, y0+dbPanelH+4)
		lo, hi, any := 0.0, 0.0, false
		var missing, unscored []string
		for _, d := range r.Dumbbells {
			v, ok := ax.of(d)
			switch {
			case !d.Scored():
				unscored = append(unscored, d.Model)
				continue
			case !ok:
				missing = append(missing, d.Model)
				continue
			}
			if !any || v < lo {
				lo = v
			}
			if !any || v > hi {
				hi = v
			}
			any = true
		}
		if any {
			fmt.Fprintf(b, `<text x="%d" y="%d">%s</text><text x="%d" y="%d" text-anchor="end">%s</text>`+"\n",
				x0, y0+dbPanelH+16, esc(ax.text(lo)), x0+dbPanelW, y0+dbPanelH+16, esc(ax.text(hi)))
		}
		if len(missing) > 0 {
			fmt.Fprintf(b, `<text x="%d" y="%d">not drawn (no %s recorded): %s</text>`+"\n", x0, y0+dbPanelH+30, esc(ax.name), esc(clip(strings.Join(missing, ", "), 40)))
		}
		if len(unscored) > 0 {
			fmt.Fprintf(b, `<text x="%d" y="%d">not drawn (no known outcome): %s</text>`+"\n", x0, y0+dbPanelH+44, esc(clip(strings.Join(unscored, ", "), 40)))
		}
		yOf := func(v float64) int { return y0 + int(float64(dbPanelH)*(1-v)+0.5) }
		for _, d := range r.Dumbbells {
			v, ok := ax.of(d)
			if !ok || !d.Scored() {
				continue
			}
			x := x0 + dbPanelW/2
			if hi > lo {
				x = x0 + 10 + int((v-lo)/(hi-lo)*float64(dbPanelW-20)+0.5)
			}
			title := fmt.Sprintf("%s: pass@1 %s, pass^k %s, gap %s, %s %s; %d traces, %d tasks: %s",
				d.Model, frac(d.PassAt1), frac(d.PassHatK), frac(d.Gap), ax.name, ax.text(v), d.Traces, d.Tasks,
				markTraces(d.Examples, d.Traces-len(d.Examples)))
			fmt.Fprintf(b, `<g class="dumbbell" data-model="%s" data-traces="%s"><title>%s</title>`, esc(d.Model), esc(strings.Join(d.Examples, " ")), esc(title))
			fmt.Fprintf(b, `<line class="gap" x1="%d" y1="%d" x2="%d" y2="%d"></line>`, x, yOf(d.PassAt1), x, yOf(d.PassHatK))
			fmt.Fprintf(b, `<circle class="pass1" cx="%d" cy="%d" r="%d"></circle>`, x, yOf(d.PassAt1), dbDot)
			fmt.Fprintf(b, `<circle class="passk" cx="%d" cy="%d" r="%d"></circle>`, x, yOf(d.PassHatK), dbDot)
			fmt.Fprintf(b, `<text x="%d" y="%d">%s</text></g>`+"\n", x+dbDot+3, yOf(d.PassAt1)+4, esc(clip(d.Model, 16)))
		}
	}
	b.WriteString("</svg>\n")
}

// writeHeatmapSVG draws the model × task heatmap: each cell's shade is the
// share of seeds solved, its text solved/k; saturated and cold tasks are
// marked above their column. Each cell names the traces behind it.
func writeHeatmapSVG(b *strings.Builder, r *ReportData) {
	hm := r.Heatmap
	w := heatLabel + len(hm.Tasks)*heatCellW + dbPad
	h := heatHead + len(hm.Models)*heatCellH + dbPad
	fmt.Fprintf(b, `<svg role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>model × task heatmap of solved seeds</title>`+"\n", w, h, w, h)
	for j, t := range hm.Tasks {
		x := heatLabel + j*heatCellW
		mark := map[string]string{"saturated": "S", "cold": "C"}[HeatMark(t)]
		fmt.Fprintf(b, `<text x="%d" y="14"><title>%s%s</title>%s</text>`, x+4, esc(t.TaskID), esc(markSuffix(t)), esc(clip(t.TaskID, 5)))
		if mark != "" {
			fmt.Fprintf(b, `<text class="mark" x="%d" y="30" data-mark="%s">%s</text>`, x+4, esc(HeatMark(t)), mark)
		}
	}
	b.WriteString("\n")
	for i, m := range hm.Models {
		y := heatHead + i*heatCellH
		fmt.Fprintf(b, `<text x="0" y="%d">%s</text>`, y+15, esc(clip(m, 20)))
		for j, t := range hm.Tasks {
			c := hm.Cells[i][j]
			x := heatLabel + j*heatCellW
			if c == nil {
				fmt.Fprintf(b, `<rect class="none" x="%d" y="%d" width="%d" height="%d"><title>%s × %s: not run</title></rect>`,
					x, y, heatCellW-2, heatCellH-2, esc(m), esc(t.TaskID))
				continue
			}
			share := 0.0
			if c.Runs > 0 {
				share = float64(c.Solved) / float64(c.Runs)
			}
			title := fmt.Sprintf("%s × %s: %s seeds solved%s: %s", m, t.TaskID, heatCellText(c), markSuffix(t), markTraces(c.Traces, c.More))
			fmt.Fprintf(b, `<g data-model="%s" data-task="%s" data-traces="%s"><title>%s</title><rect class="heat" x="%d" y="%d" width="%d" height="%d" fill-opacity="%s"></rect>`,
				esc(m), esc(t.TaskID), esc(strings.Join(c.Traces, " ")), esc(title), x, y, heatCellW-2, heatCellH-2, strconv.FormatFloat(0.1+0.9*share, 'f', 2, 64))
			fmt.Fprintf(b, `<text x="%d" y="%d">%s</text></g>`, x+6, y+15, esc(heatCellText(c)))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, `<text x="0" y="%d">S saturated · C cold · shade: share of seeds solved · hover a cell for its traces</text>`+"\n", h-10)
	b.WriteString("</svg>\n")
}

func markSuffix(t HeatTask) string {
	if m := HeatMark(t); m != "" {
		return " (" + m + ")"
	}
	return ""
}
