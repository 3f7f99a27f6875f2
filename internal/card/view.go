package card

import (
	"fmt"

	"github.com/triage-dev/triage/internal/reportview"
)

// View is the report as package reportview's sections: what the text,
// Markdown and HTML writers and the report screen draw, so that each
// section is built once. It copies no trace: the grid, the leftovers and
// the root causes are the report's.
func View(r *ReportData) *reportview.Report {
	v := &reportview.Report{
		Traces:         r.NTraces,
		Rates:          r.Rates,
		Leftovers:      r.Leftovers.Count,
		Caveats:        CaveatText(r.Caveats),
		MixNote:        MixNote(r.Unscored, r.NTraces),
		CaveatsWarn:    r.Caveats.Leftovers > 0 || r.Caveats.UnknownOutcome > 0 || r.Caveats.Trust != TrustTrusted,
		Dominant:       r.Dominant,
		Outcomes:       r.OutcomeCounts,
		Labels:         r.LabelSources,
		LeftoverTraces: r.Leftovers.Traces,
		Leaked:         r.Leaked,
		RootCauses:     r.RootCauses,
		Grid:           r.Grid,
		NobodyClears:   r.NobodyClears,
		Saturated:      r.Saturated,
		TasksInPack:    r.TasksInPack,
		Sections:       Sections(r),
	}
	if r.SecondaryCounts.Sum() > 0 {
		v.Secondary = r.SecondaryCounts
	}
	if r.RootCausesNotShown > 0 {
		v.RootCausesNote = fmt.Sprintf("and %d more root causes (%s) not listed; triage traces gives every trace's", r.RootCausesNotShown, plural(r.RootCauseTracesNotShown, "trace"))
	}
	if len(r.NotChecked) > 0 {
		v.NotChecked = &Section{Title: "Not checked for the whole run", Notes: notCheckedTexts(r.NotChecked), List: true}
	}
	switch {
	case r.RunID != "" && r.DatasetID != "":
		v.Title = "run " + r.RunID + " · " + r.DatasetID
	case r.RunID != "":
		v.Title = "run " + r.RunID
	default:
		v.Title = "every run"
	}
	names := make(map[string]string, len(r.Classes))
	for _, c := range r.Classes {
		names[c.Code] = c.Name
	}
	v.Mix = make([]reportview.MixRow, len(r.PrimaryCounts))
	for i, c := range r.PrimaryCounts {
		v.Mix[i] = reportview.MixRow{Code: c.Key, Name: names[c.Key], Count: c.N}
	}
	return v
}

// Sections are the report's sections after the per-task grid, in order:
// the cost, the breakdowns by run (when it counts several), model, agent
// and prompt, DashboardSections, then the agreement (when measured) and
// the definitions.
func Sections(r *ReportData) []Section {
	out := []Section{costSection(r)}
	for _, bd := range []struct {
		what string
		gs   []Group
	}{{"run", r.ByRun}, {"model", r.ByModel}, {"agent", r.ByAgent}, {"prompt", r.ByPrompt}} {
		if bd.what == "run" && len(bd.gs) == 0 {
			continue
		}
		s := Section{Title: "By " + bd.what}
		s.Head, s.Rows = groupTable(bd.what, bd.gs, 1<<20)
		// A narrow terminal keeps pass@1, pass^k and the cost; the label
		// rates are in the pass-rate block above.
		s.Wide, s.Medium = []int{6, 7, 8, 9}, []int{8, 9}
		out = append(out, s)
	}
	out = append(out, DashboardSections(r)...)
	if a := r.Agreement; a != nil {
		out = append(out, Section{Title: "Agreement", Notes: []string{fmt.Sprintf("slice %s · %d units · alpha %s · 95%% CI %s · %s",
			a.Slice, a.Units, optFrac(a.Alpha), optCI(a.CI95), a.Verdict)}})
	}
	return append(out, Section{Title: "Definitions", Notes: r.Definitions, List: true})
}

// costSection is what the traces cost, with how many recorded it: a
// figure summed over the traces that recorded it is only as good as
// their number.
func costSection(r *ReportData) Section {
	c := r.Cost
	return Section{Title: "Cost",
		Notes: []string{fmt.Sprintf("recorded by %d (tokens), %d (dollars), %d (wall) of %d traces", c.TokensKnown, c.CostKnown, c.WallKnown, r.NTraces)},
		Head:  []string{"input tokens", "output tokens", "dollars", "median wall", "$/solved"},
		Rows:  [][]string{{thousands(c.InputTokens), thousands(c.OutputTokens), dollars(c.Dollars), seconds(c.MedianWallS), dollars(c.DollarsPerSolved)}},
	}
}
