package agreement

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// maxCell bounds a label's width in the text report; labels come from
// untrusted files.
const maxCell = 24

// definitions say in a line what each figure measures, so a reader does
// not need a statistics textbook to read the report.
var definitions = []struct{ key, name, def string }{
	{"percent_agreement", "percent agreement", "share of rater pairs on a unit that agree (no chance correction)"},
	{"cohen_kappa", "Cohen's kappa", "two raters; chance from each rater's own label mix"},
	{"scott_pi", "Scott's pi", "two raters; chance from the pooled label mix"},
	{"fleiss_kappa", "Fleiss' kappa", "many raters, same number per unit; chance from the pooled mix"},
	{"krippendorff_alpha", "Krippendorff's alpha", "nominal, missing ratings allowed, small-sample corrected"},
	{"gwet_ac1", "Gwet's AC1", "chance from the number of categories; stable when one class dominates"},
}

// WriteText renders r for a person at a terminal: each figure with what it
// means, undefined ones with the reason, the verdict with its reasons, the
// confusion or coincidence matrix as an aligned grid, and the most
// confused pairs. Labels are sanitised, so hostile input cannot move the
// cursor or recolour the terminal.
func WriteText(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	src := "labels seen"
	if r.CategoriesDeclared {
		src = "declared"
	}
	ew.printf("Agreement on %d units (%d with two or more ratings), %d raters, %d ratings, %d categories (%s)\n\n",
		r.NUnits, r.NPairableUnits, r.NRaters, r.NRatings, len(r.Categories), src)

	vals := map[string]*Value{
		"percent_agreement": &r.PercentAgreement, "cohen_kappa": r.CohenKappa, "scott_pi": r.ScottPi,
		"fleiss_kappa": r.FleissKappa, "krippendorff_alpha": &r.KrippendorffAlpha, "gwet_ac1": &r.GwetAC1,
	}
	var rows [][]string
	for _, d := range definitions {
		v := vals[d.key]
		switch {
		case v == nil:
			rows = append(rows, []string{d.name, "n/a", r.Undefined[d.key]})
		case !v.OK:
			rows = append(rows, []string{d.name, "undefined", v.Why})
		default:
			note := d.def
			if d.key == "krippendorff_alpha" && r.AlphaCI95 != nil && r.AlphaCI95.Lo.OK {
				ci := r.AlphaCI95
				note = fmt.Sprintf("95%% CI [%s, %s] (%d resamples, seed %d); %s", ci.Lo, ci.Hi, ci.Resamples, ci.Seed, note)
			}
			rows = append(rows, []string{d.name, v.String(), note})
		}
	}
	if ci := r.AlphaCI95; ci != nil && !ci.Lo.OK && r.KrippendorffAlpha.OK {
		rows = append(rows, []string{"alpha 95% interval", "undefined", ci.Lo.Why})
	}
	ew.grid(rows, "  ", false)

	ew.printf("\nVerdict: %s\n", strings.ToUpper(string(r.Verdict.Status)))
	for _, why := range r.Verdict.Reasons {
		ew.printf("  - %s\n", why)
	}

	if len(r.PerClass) > 0 {
		ew.printf("\nPer class (specific agreement: if one rater said it, how often another did too)\n")
		rows = [][]string{{"class", "ratings", "specific", "alpha vs rest"}}
		for _, c := range r.PerClass {
			rows = append(rows, []string{clean(c.Class), strconv.Itoa(c.Ratings), c.SpecificAgreement.String(), c.AlphaVsRest.String()})
		}
		ew.grid(rows, "  ", true)
	}
	if m := r.Confusion; m != nil {
		writeMatrix(ew, m)
	} else if why := r.Undefined["confusion"]; why != "" {
		ew.printf("\nMatrix %s\n", why)
	}
	if len(r.MostConfused) > 0 {
		ew.printf("\nMost confused pairs\n")
		rows = nil
		for _, p := range r.MostConfused {
			ex := make([]string, len(p.Examples))
			for i, e := range p.Examples {
				ex[i] = clean(e)
			}
			rows = append(rows, []string{clean(p.A) + " / " + clean(p.B), plural(p.Units, "unit"), "e.g. " + strings.Join(ex, ", ")})
		}
		ew.grid(rows, "  ", false)
	}
	if why := r.Undefined["most_confused"]; why != "" {
		ew.printf("  (%s)\n", why)
	}
	if s := r.Secondary; s != nil {
		writeSecondary(ew, s)
	}
	return ew.err
}

func writeMatrix(ew *errWriter, m *Matrix) {
	if m.Kind == "confusion" {
		ew.printf("\nConfusion matrix (rows: %s, columns: %s; units)\n", clean(m.RowRater), clean(m.ColRater))
	} else {
		ew.printf("\nCoincidence matrix (pairable values; diagonal = agreement)\n")
	}
	head := append([]string{""}, cleanAll(m.Labels)...)
	rows := [][]string{head}
	for i, row := range m.Cells {
		line := []string{clean(m.Labels[i])}
		for _, v := range row {
			line = append(line, number(v))
		}
		rows = append(rows, line)
	}
	ew.gridRight(rows)
}

func writeSecondary(ew *errWriter, s *Secondary) {
	ew.printf("\nSecondary tags: %d units (%d with two or more raters), %d raters\n", s.NUnits, s.NPairableUnits, s.NRaters)
	rows := [][]string{}
	for _, a := range s.SetAlpha {
		name := map[string]string{"masi": "alpha (MASI distance)", "jaccard": "alpha (Jaccard distance)"}[a.Distance]
		if name == "" {
			name = "alpha (" + a.Distance + ")"
		}
		rows = append(rows, []string{name, a.Alpha.String(), a.Alpha.Why})
	}
	ew.grid(rows, "  ", false)
	if len(s.Tags) == 0 {
		return
	}
	head := []string{"tag", "given", "alpha"}
	two := s.Tags[0].CohenKappa != nil
	if two {
		head = append(head, "kappa")
	}
	rows = [][]string{head}
	for _, t := range s.Tags {
		row := []string{clean(t.Tag), strconv.Itoa(t.Given), t.Alpha.String()}
		if two {
			row = append(row, t.CohenKappa.String())
		}
		rows = append(rows, row)
	}
	ew.grid(rows, "  ", true)
}

// errWriter keeps the first write error so rendering code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}

// grid writes rows with left-aligned columns; the last column is not
// padded.
func (e *errWriter) grid(rows [][]string, indent string, header bool) {
	widths := colWidths(rows)
	for i, row := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for j, cell := range row {
			b.WriteString(cell)
			if j < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[j]-ansi.StringWidth(cell)+2))
			}
		}
		e.printf("%s\n", strings.TrimRight(b.String(), " "))
		if header && i == 0 {
			e.printf("%s%s\n", indent, strings.Repeat("-", sum(widths)+2*(len(widths)-1)))
		}
	}
}

// gridRight writes a matrix: row labels left-aligned, numbers
// right-aligned.
func (e *errWriter) gridRight(rows [][]string) {
	widths := colWidths(rows)
	for _, row := range rows {
		var b strings.Builder
		b.WriteString("  ")
		for j, cell := range row {
			pad := strings.Repeat(" ", widths[j]-ansi.StringWidth(cell))
			if j == 0 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		e.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
}

func colWidths(rows [][]string) []int {
	var widths []int
	for _, row := range rows {
		for j, cell := range row {
			if j >= len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], ansi.StringWidth(cell))
		}
	}
	return widths
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// clean makes an untrusted label safe and short for a terminal: escape
// sequences are removed, other control and format characters become '?',
// and long labels are cut with an ellipsis.
func clean(s string) string {
	s = ansi.Strip(s)
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar {
			return '?'
		}
		return r
	}, s)
	if ansi.StringWidth(s) > maxCell {
		s = ansi.Truncate(s, maxCell, "…")
	}
	if s == "" {
		return `""`
	}
	return s
}

func cleanAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clean(s)
	}
	return out
}

// number prints counts as integers and coincidences with two decimals.
func number(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
