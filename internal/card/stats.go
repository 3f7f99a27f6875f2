package card

import (
	"slices"

	"github.com/triage-dev/triage/internal/reportview"
)

// The grid's types are the report view-model's (package reportview),
// which the writers and the report screen draw.
type (
	// Cell is one attempt of a task in the per-task × seed grid.
	Cell = reportview.Cell
	// TaskRow is one task's line of the grid.
	TaskRow = reportview.TaskRow
	// Grid is the per-task × seed view of a set of traces (seed 004).
	Grid = reportview.Grid
)

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
