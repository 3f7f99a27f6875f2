package card

import "github.com/triage-dev/triage/internal/reportview"

// View is the report as package reportview's sections: what the text,
// Markdown and HTML writers and the report screen draw, so that each
// section is built once. It copies no trace: the grid is the report's.
func View(r *ReportData) *reportview.Report {
	v := &reportview.Report{
		Traces:       r.NTraces,
		Rates:        r.Rates,
		Leftovers:    r.Leftovers.Count,
		Caveats:      CaveatText(r.Caveats),
		CaveatsWarn:  r.Caveats.Leftovers > 0 || r.Caveats.UnknownOutcome > 0 || r.Caveats.Trust != TrustTrusted,
		Dominant:     r.Dominant,
		Grid:         r.Grid,
		NobodyClears: r.NobodyClears,
		Saturated:    r.Saturated,
		TasksInPack:  r.TasksInPack,
		Sections:     Sections(r),
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

// Sections are the report's sections after the per-task grid and the
// cost, in order: the breakdowns by run (when it counts several), model,
// agent and prompt, then DashboardSections.
func Sections(r *ReportData) []Section {
	var out []Section
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
	return append(out, DashboardSections(r)...)
}
