package card

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// A tally fed row by row, as the command layer streams the store, gives
// the same card and report as the rows handed over at once, and owns
// none of the rows' memory: rows overwritten after Add change nothing.
func TestTallyStreamsLikeRows(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces[4].Leftover = true
	in.Traces[5].Leaked = true
	in.Traces[6].Model = "m2"
	in.Traces[7].Agent = ""
	wantReport := Report(in)
	wantCard, err := Build(in, Options{AllowUnresolved: true})
	require.NoError(t, err)

	streamed := in
	streamed.Tally = NewTally()
	buf := TraceRow{}
	for _, r := range in.Traces {
		buf = r
		streamed.Tally.Add(&buf)
		buf = TraceRow{TaskID: "CLOBBERED", Primary: "CLOBBERED", Secondary: []string{"CLOBBERED"}}
	}
	streamed.Traces = nil
	require.Equal(t, 10, streamed.Tally.Len())
	require.Equal(t, wantReport, Report(streamed))
	gotCard, err := Build(streamed, Options{AllowUnresolved: true})
	require.NoError(t, err)
	require.Equal(t, wantCard, gotCard)

	// A tally without cells makes the same card and keeps no cell.
	lean := in
	lean.Traces = nil
	lean.Tally = NewTally().WithoutCells()
	for i := range in.Traces {
		lean.Tally.Add(&in.Traces[i])
	}
	leanCard, err := Build(lean, Options{AllowUnresolved: true})
	require.NoError(t, err)
	require.Equal(t, wantCard, leanCard)
	require.NotEmpty(t, lean.Tally.grid.tasks)
	require.Empty(t, lean.Tally.grid.cellsOf)
}

// The card refuses controls it lacks with the same words whether the
// caller checks first (before reading any trace) or Build does.
func TestCheckControlsMatchesBuild(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Controls.Scorer = ""
	pre := CheckControls(in.Controls, Options{})
	require.ErrorIs(t, pre, ErrMissingControls)
	_, err := Build(in, Options{})
	require.EqualError(t, err, pre.Error())
	require.NoError(t, CheckControls(in.Controls, Options{AllowMissingControls: true}))
}

// A label outside the taxonomy is refused, naming a trace that carries it.
func TestBuildNamesTraceWithForeignLabel(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces[3].Primary = "MADE_UP"
	_, err := Build(in, Options{})
	require.ErrorIs(t, err, ErrBadInput)
	require.Contains(t, err.Error(), `trace r1/T02#1 has primary label "MADE_UP"`)
}

// BenchmarkTallyAdd folds 100k rows over 200 tasks, as `report` does for
// a 100k store: memory grows with the grid's cells, not whole rows.
func BenchmarkTallyAdd(b *testing.B) {
	rows := make([]TraceRow, 100_000)
	classes := []string{triage.PassContract, triage.PassWeak, triage.AssumeAPI, triage.ToolLoop, triage.ScorerRed}
	for i := range rows {
		rows[i] = row(fmt.Sprintf("T%03d", i%200), i/200, classes[i%len(classes)], i%3 == 0)
		rows[i].WallS = ptr(float64(i % 600))
		rows[i].Leftover = i%7 == 0
	}
	b.ReportAllocs()
	for b.Loop() {
		t := NewTally()
		for i := range rows {
			t.Add(&rows[i])
		}
		_ = Report(Input{Tally: t, Taxonomy: seedTaxonomy()})
	}
}

// TestUnknownOutcomesAreCountedApart: an attempt nobody recorded an
// outcome for is neither solved nor not solved. pass@1 and pass^k leave it
// out (and a task with no known attempt), the grid draws it as ?, and the
// caveats say how many.
func TestUnknownOutcomesAreCountedApart(t *testing.T) {
	t.Parallel()
	green, red := ptr(0), ptr(1)
	rows := []TraceRow{
		{RunID: "r", TaskID: "A", Seed: 0, ExitCode: green, Outcome: triage.OutcomeSuccess, Primary: triage.PassContract},
		{RunID: "r", TaskID: "A", Seed: 1}, // no exit code, no outcome
		{RunID: "r", TaskID: "B", Seed: 0, ExitCode: red, Outcome: triage.OutcomeFailed, Primary: triage.ScorerRed},
		{RunID: "r", TaskID: "B", Seed: 1, ExitCode: green, Outcome: triage.OutcomeSuccess, Primary: triage.PassContract},
		{RunID: "r", TaskID: "C", Seed: 0}, // nothing known about C
		{RunID: "r", TaskID: "C", Seed: 1},
	}
	tl := NewTally()
	for i := range rows {
		tl.Add(&rows[i])
	}
	g := tl.grid.build()
	require.Equal(t, 3, g.Unknown)
	require.Equal(t, 1, g.UnknownTasks)
	// A: 1 of 1 known; B: 1 of 2; C is left out. Counting the unknown as
	// not solved would give (0.5 + 0.5 + 0) / 3.
	require.InDelta(t, (1.0+0.5)/2, g.PassAt1, 1e-12)
	require.Equal(t, 0.0, g.PassHatK, "a task with an unknown attempt cannot clear every seed")
	require.InDelta(t, 0.5, g.Resolution, 1e-12)
	cells := reportview.Columns(g.Tasks[0].AllCells(), g.Seeds)
	require.Equal(t, "●", cells[0].Symbol())
	require.Equal(t, "?", cells[1].Symbol())
	require.Equal(t, "1/1 ?1", solvedOf(g.Tasks[0]))
	require.Equal(t, "—", taskPassAt1(g.Tasks[2]))
	require.Equal(t, 3, tl.caveats("").UnknownOutcome)
}
