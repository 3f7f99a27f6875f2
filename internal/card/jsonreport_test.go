package card

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// The streamed report is byte for byte what one json.Encoder writes, for
// an empty report, the seed's mix, and a run with leftovers, leaks,
// several models and uneven seeds.
func TestWriteJSONStreamsEncoderBytes(t *testing.T) {
	t.Parallel()
	mix := seedMix()
	big := seedMix()
	big.Traces = nil
	classes := []string{triage.PassContract, triage.PassWeak, triage.AssumeAPI, "", "CUSTOM"}
	for i := range 300 {
		r := row(fmt.Sprintf("T%02d", i%17), i/17, classes[i%len(classes)], i%3 == 0)
		r.Model = fmt.Sprintf("m%d", i%3)
		r.Leftover = i%11 == 0
		r.Leaked = i%29 == 0
		r.Secondary = []string{"LEAKED"}[:i%2]
		r.Outcome = triage.Outcome([]string{"success", "failed", "", "weird"}[i%4])
		big.Traces = append(big.Traces, r)
	}
	// Issue 27's shapes: a task a trace, and many runs, so that every
	// section (the grid, the heatmap, the breakdowns) is written in pieces.
	wide := seedMix()
	wide.Traces = nil
	for i := range 200 {
		r := row(fmt.Sprintf("W%03d", i), 0, classes[i%len(classes)], i%2 == 0)
		r.Model = fmt.Sprintf("m%d", i%3)
		r.RunID = fmt.Sprintf("run%02d", i%40)
		r.Leftover = i%7 == 0
		wide.Traces = append(wide.Traces, r)
	}
	hostile := seedMix()
	hostile.Controls.Scorer = "<b>&\u009b\u202e"
	for name, in := range map[string]Input{"empty": {}, "mix": mix, "big": big, "wide": wide, "hostile": hostile} {
		r := Report(in)
		var want bytes.Buffer
		enc := json.NewEncoder(triage.InertJSON(&want))
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(r), name)
		var got bytes.Buffer
		require.NoError(t, WriteJSON(&got, r), name)
		require.Equal(t, want.String(), got.String(), name)
	}
}
