package card

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// trendRun makes a run of tasks × seeds where class(task, seed) labels
// each trace; a PASS_CONTRACT trace is green and solved.
func trendRun(id string, tasks, seeds int, class func(t, s int) string) *TrendRun {
	r := NewTrendRun(id)
	for t := range tasks {
		for s := range seeds {
			c := class(t, s)
			exit := 1
			out := triage.OutcomeFailed
			if c == triage.PassContract {
				exit, out = 0, triage.OutcomeSuccess
			}
			r.Add(&TraceRow{RunID: id, TaskID: fmt.Sprintf("T%02d", t), Seed: s, Primary: c, ExitCode: &exit, Outcome: out})
		}
	}
	return r
}

func line(lines []TrendLine, fig string) TrendLine {
	for _, l := range lines {
		if l.Figure == fig {
			return l
		}
	}
	panic(fig)
}

func TestTrendIntervalsAreClusteredByTask(t *testing.T) {
	t.Parallel()
	// Two tasks of two seeds; task 0 loops on both seeds, task 1 never:
	// share 0.5, and the clustered standard error is that of two draws
	// (0.5), not of four independent ones (0.25).
	r := trendRun("a", 2, 2, func(t, _ int) string {
		if t == 0 {
			return triage.ToolLoop
		}
		return triage.PassContract
	})
	e := r.share(triage.ToolLoop, false)
	require.InDelta(t, 0.5, e.Value, 1e-12)
	require.InDelta(t, 0.5, e.SE, 1e-12)
	require.InDelta(t, 0, e.Lo, 1e-12)
	require.InDelta(t, 1, e.Hi, 1e-12)
	p := r.passAt1()
	require.InDelta(t, 0.5, p.Value, 1e-12)
	require.InDelta(t, 0.5, p.SE, 1e-12, "sd of task means (0.707) over √2")
	k := r.passHatK()
	require.InDelta(t, 0.5, k.Value, 1e-12)
	require.InDelta(t, math.Sqrt(0.25/2), k.SE, 1e-12)
}

func TestTrendsCallAChangeATrendOnlyAboveTheNoise(t *testing.T) {
	t.Parallel()
	tax := seedTaxonomy()
	before := trendRun("v1", 30, 5, func(t, s int) string {
		if t%10 == 0 && s == 0 {
			return triage.ToolLoop
		}
		return triage.PassContract
	})
	after := trendRun("v2", 30, 5, func(t, s int) string {
		if t%2 == 0 {
			return triage.ToolLoop
		}
		return triage.PassContract
	})
	same := trendRun("v2-again", 30, 5, func(t, s int) string {
		if t%2 == 0 && s < 4 || t%3 == 0 {
			return triage.ToolLoop
		}
		return triage.PassContract
	})
	lines := Trends(tax, []*TrendRun{before, after}, nil)
	loop := line(lines, triage.ToolLoop)
	require.Nil(t, loop.NoiseFloor)
	require.Len(t, loop.Points, 2)
	require.Empty(t, loop.Points[0].Trend)
	require.Equal(t, "up", loop.Points[1].Trend, "2% → 50% of 30 tasks")
	require.Equal(t, "down", line(lines, TrendPassAt1).Points[1].Trend)
	require.Equal(t, "noise", line(lines, triage.ScopeSlip).Points[1].Trend, "0 → 0")

	// The same change against a noise floor larger than it is noise.
	lines = Trends(tax, []*TrendRun{before, after}, &[2]*TrendRun{after, same})
	floor := line(lines, triage.ToolLoop).NoiseFloor
	require.NotNil(t, floor)
	require.Greater(t, *floor, 0.0)
	huge := trendRun("wild", 30, 5, func(t, s int) string { return triage.ToolLoop })
	lines = Trends(tax, []*TrendRun{before, after}, &[2]*TrendRun{before, huge})
	require.Equal(t, "noise", line(lines, triage.ToolLoop).Points[1].Trend, "inside a floor of 98 points")
	// Figures follow the taxonomy: pass@1, pass^k, then its classes.
	require.Equal(t, TrendPassAt1, lines[0].Figure)
	require.Equal(t, TrendPassHatK, lines[1].Figure)
	require.Equal(t, tax.Codes()[0], lines[2].Figure)
}

// A run of one attempt per task clears pass^k whenever it solves: its
// pass^k next to a run of five attempts is another figure, so the change
// is not called a trend, and the section says why.
func TestTrendsDoNotComparePassHatKAcrossDifferentK(t *testing.T) {
	t.Parallel()
	tax := seedTaxonomy()
	five := trendRun("five", 30, 5, func(t, s int) string {
		if s == 4 && t%2 == 0 {
			return triage.ToolLoop
		}
		return triage.PassContract
	})
	one := trendRun("one", 30, 1, func(t, s int) string { return triage.PassContract })
	lines := Trends(tax, []*TrendRun{five, one}, nil)
	hat := line(lines, TrendPassHatK)
	require.InDelta(t, 0.5, hat.Points[0].Estimate.Value, 1e-12)
	require.InDelta(t, 1, hat.Points[1].Estimate.Value, 1e-12)
	require.Equal(t, TrendKDiffers, hat.Points[1].Trend, "0.5 at k = 5 and 1.0 at k = 1 are not a rise")
	require.Equal(t, []int{5, 1}, []int{hat.Points[0].K, hat.Points[1].K})
	require.Equal(t, "up", line(lines, TrendPassAt1).Points[1].Trend, "pass@1 is comparable whatever k")

	// A run where some tasks ran fewer attempts says how many.
	short := trendRun("short", 4, 3, func(t, s int) string { return triage.PassContract })
	green := 0
	short.Add(&TraceRow{RunID: "short", TaskID: "T09", Seed: 0, Primary: triage.PassContract, ExitCode: &green, Outcome: triage.OutcomeSuccess})
	lines = Trends(tax, []*TrendRun{five, short}, nil)
	require.Equal(t, 1, line(lines, TrendPassAt1).Points[1].ShortOfK)
	require.Equal(t, TrendKDiffers, line(lines, TrendPassHatK).Points[1].Trend)

	sec := TrendSection(&TrendReport{By: TrendByRun, Order: "as given", Points: []string{"five", "short"}, Lines: lines})
	note := strings.Join(sec.Notes, "\n")
	require.Contains(t, note, "pass^k's k: five 5, short 3; pass^k is not compared between points of different k")
	require.Contains(t, note, "cannot clear pass^k: short 1 of 5")
	var calls []string
	for _, r := range sec.Rows {
		calls = append(calls, r[5])
	}
	require.Contains(t, calls, "k differs")
}

// The noise floor of pass^k needs its two runs at one k; a task with no
// known attempt is not counted as short of k (pass^k leaves it out).
func TestTrendNoiseFloorAndShortOfKLeaveOutWhatPassHatKDoes(t *testing.T) {
	t.Parallel()
	tax := seedTaxonomy()
	half := func(t, s int) string {
		if s == 4 && t%2 == 0 {
			return triage.ToolLoop
		}
		return triage.PassContract
	}
	a, b := trendRun("a", 30, 5, half), trendRun("b", 30, 5, func(t, s int) string {
		if s == 4 && t%10 == 0 {
			return triage.ToolLoop
		}
		return triage.PassContract
	})
	lines := Trends(tax, []*TrendRun{a, b}, &[2]*TrendRun{trendRun("n5", 30, 5, half), trendRun("n1", 30, 1, half)})
	hat := line(lines, TrendPassHatK)
	require.Nil(t, hat.NoiseFloor, "k 5 against k 1 is no floor")
	require.Equal(t, "up", hat.Points[1].Trend, "50% → 90% at one k")
	require.NotNil(t, line(lines, TrendPassAt1).NoiseFloor)
	sec := TrendSection(&TrendReport{By: TrendByRun, Points: []string{"a", "b"}, NoiseRuns: []string{"n5", "n1"}, Lines: lines})
	require.Contains(t, strings.Join(sec.Notes, "\n"), "pass^k has no noise floor")

	r := trendRun("r", 3, 2, func(int, int) string { return triage.PassContract })
	r.Add(&TraceRow{RunID: "r", TaskID: "T09", Seed: 0}) // one attempt, outcome unknown
	require.Zero(t, r.shortOfK())
}

// A run none of whose outcomes is known has no pass@1 or pass^k (it
// showed "0.0 % … ↓ trend" in Trends by run): its points say so, the
// section prints "—", and no change to or from it is called.
func TestTrendUnknownOnlyRunHasNoRate(t *testing.T) {
	t.Parallel()
	scored := trendRun("a", 3, 1, func(int, int) string { return triage.PassContract })
	nobody := NewTrendRun("b")
	for i := range 3 {
		nobody.Add(&TraceRow{RunID: "b", TaskID: fmt.Sprintf("T%02d", i), Primary: triage.Timeout})
	}
	again := trendRun("c", 3, 1, func(int, int) string { return triage.PassContract })
	lines := Trends(nil, []*TrendRun{scored, nobody, again}, nil)
	for _, fig := range []string{TrendPassAt1, TrendPassHatK} {
		pts := line(lines, fig).Points
		require.False(t, pts[0].NoOutcome)
		require.True(t, pts[1].NoOutcome, fig)
		require.Nil(t, pts[1].Change, fig)
		require.Empty(t, pts[1].Trend, fig)
		require.Nil(t, pts[2].Change, "%s: no change from a point with no figure", fig)
		require.False(t, pts[2].NoOutcome)
	}
	// A log-only class's share of the unscored run is still a figure.
	to := line(lines, triage.Timeout).Points[1]
	require.False(t, to.NoOutcome)
	require.InDelta(t, 1, to.Estimate.Value, 1e-12)

	s := TrendSection(&TrendReport{By: TrendByRun, Points: []string{"a", "b", "c"}, Lines: lines})
	var rows []string
	for _, r := range s.Rows {
		if r[1] == "b" && (r[0] == TrendPassAt1 || r[0] == "") {
			rows = append(rows, strings.Join(r, "|"))
		}
	}
	require.Contains(t, rows, "|b|—|—|||—")
	for _, l := range lines {
		if outcomeFigure(l.Figure) {
			for _, p := range l.Points {
				require.NotContains(t, []string{"up", "down"}, p.Trend, "%s at %s", l.Figure, p.RunID)
			}
		}
	}
}
