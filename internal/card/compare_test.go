package card

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

func mustCard(t *testing.T, in Input) *Card {
	t.Helper()
	c, err := Build(in, Options{})
	require.NoError(t, err)
	return c
}

// rerun is seedMix with T01 losing a seed and T02 clearing both: two
// pass^k cells flip, nothing else changes.
func rerun() Input {
	in := seedMix()
	in.Controls.RunID = "r2"
	for i := range in.Traces {
		in.Traces[i].RunID = "r2"
	}
	in.Traces[1] = row("T01", 1, triage.ScorerRed, false)
	in.Traces[3] = row("T02", 1, triage.PassContract, true)
	for i := range in.Traces {
		in.Traces[i].RunID = "r2"
	}
	return in
}

func TestCompareNoiseFloor(t *testing.T) {
	t.Parallel()
	c, err := Compare(mustCard(t, seedMix()), mustCard(t, rerun()), CompareOptions{})
	require.NoError(t, err)
	require.True(t, c.SameConfiguration)
	require.Empty(t, c.Changes)
	require.Equal(t, 5, c.CellsCompared)
	require.Equal(t, 2, c.CellsFlipped)
	require.Equal(t, []Flip{
		{TaskID: "T01", A: true, B: false, SolvedA: 2, RunsA: 2, SolvedB: 1, RunsB: 2},
		{TaskID: "T02", A: false, B: true, SolvedA: 1, RunsA: 2, SolvedB: 2, RunsB: 2},
	}, c.Flips)
	require.NotNil(t, c.NoiseFloor)
	require.Equal(t, 2, c.NoiseFloor.Flipped)
	require.InDelta(t, 0.4, c.NoiseFloor.Share, 1e-12)
	require.Contains(t, c.NoiseFloor.Text, "2 of 5 pass^k cells flipped")

	byCode := map[string]ClassDelta{}
	for _, d := range c.ClassDeltas {
		byCode[d.Code] = d
	}
	aa := byCode[triage.AssumeAPI]
	require.Equal(t, [3]int{3, 2, -1}, [3]int{aa.A, aa.B, aa.Delta})
	require.InDelta(t, -0.1, aa.ShareDelta, 1e-12)
	require.Equal(t, 1, byCode[triage.ScorerRed].Delta)
	require.Len(t, c.ClassDeltas, 8)

	var b bytes.Buffer
	require.NoError(t, WriteCompareText(&b, c))
	checkGolden(t, "compare_noise.golden.txt", b.Bytes())
	b.Reset()
	require.NoError(t, WriteCompareJSON(&b, c))
	var m map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &m))
	require.Equal(t, float64(2), m["cells_flipped"])
}

func TestCompareControlsChanged(t *testing.T) {
	t.Parallel()
	b := rerun()
	b.Controls.WallS = ptr(300.0)
	b.Controls.PromptID = "p2"
	for i := range b.Traces {
		b.Traces[i].Model = "m2"
	}
	b.RulesVersion = "rules-2"
	c, err := Compare(mustCard(t, seedMix()), mustCard(t, b), CompareOptions{})
	require.NoError(t, err)
	require.False(t, c.SameConfiguration)
	require.Nil(t, c.NoiseFloor, "flips between different configurations are not a noise floor")
	require.Equal(t, []Change{
		{Kind: KindControl, Field: "budgets.wall_s", A: "180", B: "300"},
		{Kind: KindControl, Field: "prompt_id", A: "p1", B: "p2"},
		{Kind: KindSubject, Field: "models", A: "m1", B: "m2"},
		{Kind: KindInstrument, Field: "rules_version", A: "rules-1", B: "rules-2"},
	}, c.Changes)
	require.Contains(t, strings.Join(c.Notes, " "), "noise floor")
	var out bytes.Buffer
	require.NoError(t, WriteCompareText(&out, c))
	require.Contains(t, out.String(), "budgets.wall_s")
	require.Contains(t, out.String(), "180 → 300")
}

func TestCompareNewBenchmark(t *testing.T) {
	t.Parallel()
	b := rerun()
	b.Controls.DatasetSHA256 = "def456"
	ca, cb := mustCard(t, seedMix()), mustCard(t, b)
	c, err := Compare(ca, cb, CompareOptions{})
	require.ErrorIs(t, err, ErrNewBenchmark)
	require.Contains(t, err.Error(), "new benchmark")
	require.Contains(t, err.Error(), "--force")
	require.NotNil(t, c)
	require.True(t, c.NewBenchmark)
	require.Empty(t, c.ClassDeltas, "no like-for-like figures without --force")
	var out bytes.Buffer
	require.NoError(t, WriteCompareText(&out, c))
	require.Contains(t, out.String(), "NEW BENCHMARK")
	require.NotContains(t, out.String(), "Primary classes")

	c, err = Compare(ca, cb, CompareOptions{Force: true})
	require.NoError(t, err)
	require.True(t, c.Forced)
	require.Nil(t, c.NoiseFloor)
	require.Len(t, c.ClassDeltas, 8)
	require.Contains(t, strings.Join(c.Notes, " "), "Forced")
}

func TestCompareCardFilesAndInputs(t *testing.T) {
	t.Parallel()
	// Two card files round-trip through JSON and still compare cell by cell.
	a, err := mustCard(t, seedMix()).MarshalIndent()
	require.NoError(t, err)
	b, err := mustCard(t, rerun()).MarshalIndent()
	require.NoError(t, err)
	ca, err := Parse(a)
	require.NoError(t, err)
	cb, err := Parse(b)
	require.NoError(t, err)
	c, err := Compare(ca, cb, CompareOptions{})
	require.NoError(t, err)
	require.Equal(t, 2, c.CellsFlipped)

	// Two runs compare directly, even with leftovers and no controls.
	ia, ib := seedMix(), rerun()
	ib.Traces = ib.Traces[:8] // T05 missing from B
	ib.Traces[0].Leftover = true
	ia.Controls, ib.Controls = triage.Controls{RunID: "r1"}, triage.Controls{RunID: "r2"}
	c, err = CompareInputs(ia, ib, CompareOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"T05"}, c.OnlyInA)
	require.Equal(t, 4, c.CellsCompared)

	_, err = CompareInputs(Input{}, ib, CompareOptions{})
	require.ErrorIs(t, err, ErrNoTraces)
	_, err = Compare(nil, cb, CompareOptions{})
	require.ErrorIs(t, err, ErrBadInput)
}
