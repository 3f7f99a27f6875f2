package card

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Number formats shared by the text, Markdown and HTML writers.

func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

func frac(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func dollars(p *float64) string {
	if p == nil {
		return "—"
	}
	v := *p
	switch {
	case v == 0:
		return "$0"
	case v < 0.01:
		return "$" + strconv.FormatFloat(v, 'f', 4, 64)
	default:
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	}
}

func seconds(p *float64) string {
	if p == nil {
		return "—"
	}
	return strconv.FormatFloat(*p, 'f', 1, 64) + " s"
}

// thousands formats n with thin grouping commas: 55000 → "55,000".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// short trims a hash for display.
func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	if h == "" {
		return "—"
	}
	return h
}

func orNone(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// fit cleans untrusted text and truncates it to n cells.
func fit(s string, n int) string {
	return ansi.Truncate(clean(s), max(1, n), "…")
}

func countsLine(c Counts) string {
	parts := make([]string, 0, len(c))
	for _, e := range c {
		parts = append(parts, fmt.Sprintf("%s %d", clean(e.Key), e.N))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, " · ")
}

// groupTable is the breakdown table shared by the text and Markdown
// writers: a header and one row of strings per group.
func groupTable(what string, gs []Group, width int) ([]string, [][]string) {
	head := []string{what, "traces", "tasks", "solved", "pass@1", "pass^k", "headline", "contract", "in tok", "out tok", "$", "$/solved", "median wall"}
	rows := make([][]string, 0, len(gs))
	for _, g := range gs {
		// As in the grid: "?N" attempts with no recorded outcome, and no
		// rate for a group none of whose outcomes is known.
		solved, p1, pk := strconv.Itoa(g.Solved), frac(g.PassAt1), frac(g.PassHatK)
		if g.Unknown > 0 {
			solved += " ?" + strconv.Itoa(g.Unknown)
		}
		headline, contract := pct(g.HeadlinePassRate), pct(g.ContractPassRate)
		if !g.Scored() {
			// Nobody scored the group: no rate that rests on a verdict,
			// the label-based pass rates included (a pass needs one).
			p1, pk, headline, contract = "—", "—", "—", "—"
		}
		rows = append(rows, []string{
			fit(g.Key, width), strconv.Itoa(g.Traces), strconv.Itoa(g.Tasks), solved,
			p1, pk, headline, contract,
			thousands(g.InputTokens), thousands(g.OutputTokens), dollars(g.Dollars), dollars(g.DollarsPerSolved), seconds(g.MedianWallS),
		})
	}
	return head, rows
}

// UnknownOutcomeEffect says what an attempt with no recorded outcome
// does to the outcome rates, in every report, card and comparison: one
// wording, as the grid computes it (gridAcc.build).
const UnknownOutcomeEffect = "left out of pass@1; its task cannot clear pass^k"

// CaveatText says in words what a set of figures left out or rests on:
// the leftovers whose label is provisional, the traces with no typed
// outcome, and the taxonomy's trust state. Every report, card, comparison
// and screen prints it beside its figures.
func CaveatText(c Caveats) string {
	parts := []string{fmt.Sprintf("%d of %d traces are unlabelled leftovers (counted by a provisional label)", c.Leftovers, c.Traces)}
	if c.Unlabelled > 0 {
		parts[0] += fmt.Sprintf(", %d with no label at all", c.Unlabelled)
	}
	if c.UnknownOutcome >= 0 {
		verb := "have"
		if c.UnknownOutcome == 1 {
			verb = "has"
		}
		parts = append(parts, fmt.Sprintf("%d %s an unknown outcome (%s)", c.UnknownOutcome, verb, UnknownOutcomeEffect))
	} else {
		parts = append(parts, "unknown outcomes not recorded")
	}
	if c.ShortOfK > 0 {
		parts = append(parts, fmt.Sprintf("%s ran fewer than k = %d attempts and cannot clear pass^k", plural(c.ShortOfK, "task"), c.K))
	}
	return strings.Join(append(parts, TrustPhrase(c.Trust)), " · ")
}

// TrustPhrase says the taxonomy's trust verdict (status, "" when nobody
// measured it) as the report's caveats do: the word, and why a taxonomy
// that is not trusted is not.
func TrustPhrase(status string) string {
	trust := "taxonomy trust: " + clean(trustWord(status))
	switch status {
	case TrustTrusted:
	case "", "unmeasured":
		trust += " (nobody has measured agreement on a blind slice)"
	default:
		trust += " (the agreement measured on a blind slice is not enough to trust it)"
	}
	return trust
}

// runsTitle names what a report counts, one run or several together, as
// raw text: each writer escapes it its own way.
func runsTitle(r *ReportData) string {
	if len(r.Runs) > 1 && r.RunID == "" {
		return fmt.Sprintf("%d runs counted together (%s); see By run", len(r.Runs), listSome(r.Runs, 5))
	}
	run := r.RunID
	if run == "" && len(r.Runs) == 1 {
		run = r.Runs[0]
	}
	return "run " + orNone(run)
}

// solvedOf is a task's solved attempts of those with a known outcome, and
// how many more had none ("3/4 ?1").
func solvedOf(t TaskRow) string {
	s := fmt.Sprintf("%d/%d", t.Solved, t.Runs-t.Unknown)
	if t.Unknown > 0 {
		s += fmt.Sprintf(" ?%d", t.Unknown)
	}
	return s
}

// taskPassAt1 is a task's pass@1, or "—" when no attempt's outcome is known.
func taskPassAt1(t TaskRow) string {
	if t.Runs == t.Unknown {
		return "—"
	}
	return frac(t.PassAt1)
}

// notCheckedTexts are the run notes as lines, one per note: a note that
// holds for many runs (no pack, on a directory of harness logs) is said
// once with its runs, largest first, not once a run.
func notCheckedTexts(notes []RunNote) []string {
	const named = 6 // runs named on a note's line
	var order []string
	byNote := map[string][]RunNote{}
	for _, n := range notes {
		if _, ok := byNote[n.Note]; !ok {
			order = append(order, n.Note)
		}
		byNote[n.Note] = append(byNote[n.Note], n)
	}
	out := make([]string, 0, len(order))
	for _, note := range order {
		runs := byNote[note]
		if len(runs) == 1 {
			out = append(out, fmt.Sprintf("%s · %s (%s)", clean(runs[0].RunID), clean(note), plural(runs[0].Traces, "trace")))
			continue
		}
		slices.SortStableFunc(runs, func(a, b RunNote) int { return cmp.Compare(b.Traces, a.Traces) })
		total := 0
		names := make([]string, 0, named+1)
		for i, r := range runs {
			total += r.Traces
			if i < named {
				names = append(names, fmt.Sprintf("%s (%d)", clean(r.RunID), r.Traces))
			}
		}
		if len(runs) > named {
			names = append(names, fmt.Sprintf("and %d more", len(runs)-named))
		}
		out = append(out, fmt.Sprintf("%s · %d runs, %s: %s", clean(note), len(runs), plural(total, "trace"), strings.Join(names, ", ")))
	}
	return out
}

// plural is "1 trace" or "n traces".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
