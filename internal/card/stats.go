package card

import (
	"cmp"
	"slices"

	"github.com/triage-dev/triage/internal/triage"
)

// Cell is one attempt of a task in the per-task × seed grid.
type Cell struct {
	RunID   string         `json:"run_id"`
	Seed    int            `json:"seed"`
	Solved  bool           `json:"solved"`
	Outcome triage.Outcome `json:"outcome"`
	Primary string         `json:"primary"`
	Leaked  bool           `json:"leaked"`
}

// TaskRow is one task's line of the grid: its attempts, how many were
// solved, its pass@1 and whether it cleared all k seeds.
type TaskRow struct {
	TaskID   string  `json:"task_id"`
	Runs     int     `json:"runs"`
	Solved   int     `json:"solved"`
	PassAt1  float64 `json:"pass_at_1"`
	PassHatK bool    `json:"pass_hat_k"`
	Cells    []Cell  `json:"cells,omitempty"`
}

// Grid is the per-task × seed view of a set of traces (seed 004).
type Grid struct {
	// K is the largest number of attempts of any task; a task with fewer
	// attempts cannot clear pass^k.
	K int `json:"k"`
	// Uneven is true when tasks ran different numbers of seeds.
	Uneven bool `json:"uneven"`
	// Seeds are the seed values seen, ascending (the grid's columns).
	Seeds  []int     `json:"seeds"`
	Tasks  []TaskRow `json:"tasks"`
	Solved int       `json:"solved"`
	// PassAt1 is the mean over tasks of solved / runs.
	PassAt1 float64 `json:"pass_at_1"`
	// PassHatK is the share of tasks solved on all k seeds.
	PassHatK float64 `json:"pass_hat_k"`
	// Resolution is 1 / number of tasks: the step pass^k moves in.
	Resolution float64 `json:"resolution"`
}

// NobodyClears lists tasks no attempt solved.
func (g *Grid) NobodyClears() []string {
	var out []string
	for _, t := range g.Tasks {
		if t.Solved == 0 {
			out = append(out, t.TaskID)
		}
	}
	return out
}

// Saturated lists tasks solved on every one of the k seeds.
func (g *Grid) Saturated() []string {
	var out []string
	for _, t := range g.Tasks {
		if t.PassHatK {
			out = append(out, t.TaskID)
		}
	}
	return out
}

// buildGrid groups rows by task (sorted by task ID) with cells ordered by
// seed then run, and computes pass@1, pass^k and the resolution.
func buildGrid(rows []TraceRow) Grid {
	ids, byTask := partition(rows, func(r *TraceRow) string { return r.TaskID })
	seedSet := map[int]bool{}
	for i := range rows {
		seedSet[rows[i].Seed] = true
	}
	var g Grid
	for s := range seedSet {
		g.Seeds = append(g.Seeds, s)
	}
	slices.Sort(g.Seeds)
	for _, rs := range byTask {
		g.K = max(g.K, len(rs))
	}
	var sum1 float64
	clear := 0
	for _, id := range ids {
		rs := byTask[id]
		slices.SortStableFunc(rs, func(a, b TraceRow) int {
			return cmp.Or(cmp.Compare(a.Seed, b.Seed), cmp.Compare(a.RunID, b.RunID))
		})
		t := TaskRow{TaskID: id, Runs: len(rs), Cells: make([]Cell, 0, len(rs))}
		if len(rs) != g.K {
			g.Uneven = true
		}
		for _, r := range rs {
			ok := r.Solved()
			if ok {
				t.Solved++
			}
			t.Cells = append(t.Cells, Cell{RunID: r.RunID, Seed: r.Seed, Solved: ok, Outcome: r.Outcome, Primary: r.Primary, Leaked: r.Leaked})
		}
		t.PassAt1 = float64(t.Solved) / float64(t.Runs)
		t.PassHatK = t.Solved == t.Runs && t.Runs == g.K
		if t.PassHatK {
			clear++
		}
		sum1 += t.PassAt1
		g.Solved += t.Solved
		g.Tasks = append(g.Tasks, t)
	}
	if n := len(g.Tasks); n > 0 {
		g.PassAt1 = sum1 / float64(n)
		g.PassHatK = float64(clear) / float64(n)
		g.Resolution = 1 / float64(n)
	}
	return g
}

// partition groups rows by key: the keys sorted, and each key's rows in
// input order. The rows are copied once into one array, each key's share
// contiguous and sized by a first counting pass, so a large input is not
// copied again and again by growing slices.
func partition(rows []TraceRow, key func(*TraceRow) string) ([]string, map[string][]TraceRow) {
	count := map[string]int{}
	for i := range rows {
		count[key(&rows[i])]++
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	all := make([]TraceRow, len(rows))
	parts := make(map[string][]TraceRow, len(keys))
	off := 0
	for _, k := range keys {
		n := count[k]
		parts[k] = all[off : off : off+n]
		off += n
	}
	for i := range rows {
		k := key(&rows[i])
		parts[k] = append(parts[k], rows[i])
	}
	return keys, parts
}

// CostSummary is what a set of runs cost. Figures are summed over the
// traces that recorded them; the *_known counts say how many did, so a
// partial figure is never mistaken for a total.
type CostSummary struct {
	InputTokens  int64    `json:"input_tokens"`
	OutputTokens int64    `json:"output_tokens"`
	Dollars      *float64 `json:"dollars"`
	MedianWallS  *float64 `json:"median_wall_s"`
	// DollarsPerSolved is dollars / solved traces (seed 004: amortised over
	// successes, not attempts); nil when nothing was solved or no cost known.
	DollarsPerSolved *float64 `json:"dollars_per_solved"`
	TokensKnown      int      `json:"traces_with_tokens"`
	CostKnown        int      `json:"traces_with_cost"`
	WallKnown        int      `json:"traces_with_wall"`
}

func costOf(rows []TraceRow) CostSummary {
	var c CostSummary
	var dollars float64
	var walls []float64
	solved := 0
	for _, r := range rows {
		if r.Tokens != nil {
			c.InputTokens += r.Tokens.Input
			c.OutputTokens += r.Tokens.Output
			c.TokensKnown++
		}
		if r.CostUSD != nil {
			dollars += *r.CostUSD
			c.CostKnown++
		}
		if r.WallS != nil {
			walls = append(walls, *r.WallS)
		}
		if r.Solved() {
			solved++
		}
	}
	c.WallKnown = len(walls)
	if c.CostKnown > 0 {
		c.Dollars = &dollars
		if solved > 0 {
			c.DollarsPerSolved = ptr(dollars / float64(solved))
		}
	}
	if m, ok := median(walls); ok {
		c.MedianWallS = &m
	}
	return c
}

func median(xs []float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], true
	}
	return (s[n/2-1] + s[n/2]) / 2, true
}

func ptr[T any](v T) *T { return &v }

// ratio is a/b, or 0 when b is 0 (callers refuse empty inputs first).
func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// outcomeCounts counts typed outcomes in report order, with "unknown" last
// when any trace had none.
func outcomeCounts(rows []TraceRow) Counts {
	out := make(Counts, 0, len(triage.Outcomes)+1)
	for _, o := range triage.Outcomes {
		out = append(out, Count{Key: string(o)})
	}
	unknown := 0
	for _, r := range rows {
		i := slices.Index(triage.Outcomes, r.Outcome)
		if i < 0 {
			unknown++
			continue
		}
		out[i].N++
	}
	if unknown > 0 {
		out = append(out, Count{Key: "unknown", N: unknown})
	}
	return out
}

// secondaryCounts counts secondary tags: taxonomy tags first in their
// order (zeros included), then any other tag seen, sorted.
func secondaryCounts(tax *triage.Taxonomy, rows []TraceRow) Counts {
	var out Counts
	idx := map[string]int{}
	if tax != nil {
		for _, t := range tax.SecondaryTags {
			if _, dup := idx[t]; !dup {
				idx[t] = len(out)
				out = append(out, Count{Key: t})
			}
		}
	}
	var extra []string
	seen := map[string]int{}
	for _, r := range rows {
		for _, t := range r.Secondary {
			if i, ok := idx[t]; ok {
				out[i].N++
				continue
			}
			if seen[t] == 0 {
				extra = append(extra, t)
			}
			seen[t]++
		}
	}
	slices.Sort(extra)
	for _, t := range extra {
		out = append(out, Count{Key: t, N: seen[t]})
	}
	return out
}

// distinct returns the sorted distinct non-empty values of f over rows.
func distinct(rows []TraceRow, f func(*TraceRow) string) []string {
	set := map[string]bool{}
	for i := range rows {
		if v := f(&rows[i]); v != "" {
			set[v] = true
		}
	}
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}
