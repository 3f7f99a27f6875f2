package card

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// viewInputs are reports that between them reach every section and every
// branch of the writers: the seed's mix, hostile text, two runs with
// trends and a long model name, the heatmap, a grid of many seeds with
// runs sharing a column, unknown outcomes, unlabelled traces and a pass
// label on an unsolved attempt, and no traces at all.
func viewInputs() map[string]Input {
	trends := seedMix()
	trends.Traces = trendRows()
	for i := range trends.Traces {
		if trends.Traces[i].RunID == "new" {
			trends.Traces[i].Model = "a-model-name-of-28-cells-xyz"
		}
	}
	trends.Controls.RunID = ""
	heat := seedMix()
	heat.Traces = heatRows()
	wide := seedMix()
	wide.Traces = nil
	for s := range 60 {
		for _, run := range []string{"ra", "rb"} {
			r := row("django__django-11276", s, triage.ToolLoop, false)
			r.RunID = run
			switch {
			case s%7 == 0:
				r.Outcome, r.ExitCode = "", nil
			case s%5 == 0 && run == "rb":
				r = row(r.TaskID, s, triage.PassContract, true)
				r.RunID = run
			case s%11 == 0:
				r.Primary = ""
			case s%13 == 0:
				r.Primary = triage.PassWeak
			}
			r.Leaked = s == 17
			r.Leftover = s == 3
			wide.Traces = append(wide.Traces, r)
		}
		if s < 4 {
			wide.Traces = append(wide.Traces, row("T-short", s, triage.PassContract, true))
		}
	}
	wide.Controls.RunID = ""
	wide.TaxonomyTrusted = TrustTentative
	wide.RootCauses = []RootCauseGroup{{Cause: "called the same tool 5 times at step 12", Count: 100, Traces: []string{"ra/django__django-11276#1", "rb/django__django-11276#1"}}}
	wide.NotChecked = []RunNote{{RunID: "ra", Note: "allowlist: no pack", Traces: 60}}
	return map[string]Input{"seed": seedMix(), "hostile": hostileInput(), "trends": trends, "heat": heat, "wide": wide, "empty": {}}
}

// TestReportViewsGolden pins every writer's output on viewInputs, so a
// change to how the report is built or drawn shows as a diff.
func TestReportViewsGolden(t *testing.T) {
	t.Parallel()
	for name, in := range viewInputs() {
		r := Report(in)
		for _, width := range []int{60, 90, 110, 140} {
			var b bytes.Buffer
			require.NoError(t, WriteText(&b, r, width, false))
			checkGolden(t, fmt.Sprintf("views/%s_%d.txt", name, width), b.Bytes())
		}
		var b bytes.Buffer
		require.NoError(t, WriteText(&b, r, 100, true))
		checkGolden(t, fmt.Sprintf("views/%s_colour_100.txt", name), b.Bytes())
		b.Reset()
		require.NoError(t, WriteMarkdown(&b, r))
		checkGolden(t, fmt.Sprintf("views/%s.md", name), b.Bytes())
		b.Reset()
		require.NoError(t, WriteHTML(&b, r))
		checkGolden(t, fmt.Sprintf("views/%s.html", name), b.Bytes())
	}
}
