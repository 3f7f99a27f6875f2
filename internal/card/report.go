package card

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// Unlabelled is the primary_counts key of traces that carry no label at
// all, so that every trace is still counted once.
const Unlabelled = reportview.Unlabelled

// ReportData is everything a report shows, computed once and rendered by
// the writers. Unlike a card it never refuses: it counts every trace once
// by its current label, certain or not, and lists the leftovers.
type ReportData struct {
	RunID           string       `json:"run_id"`
	DatasetID       string       `json:"dataset_id"`
	DatasetSHA256   string       `json:"dataset_sha256"`
	Scorer          string       `json:"scorer"`
	PromptID        string       `json:"prompt_id"`
	Taxonomy        TaxonomyInfo `json:"taxonomy"`
	RulesVersion    string       `json:"rules_version"`
	MissingControls []string     `json:"missing_controls"`
	NTraces         int          `json:"n_traces"`
	PrimaryCounts   Counts       `json:"primary_counts"`
	Classes         []ClassInfo  `json:"classes"`
	Rates           Rates        `json:"rates"`
	Dominant        *Dominant    `json:"dominant"`
	OutcomeCounts   Counts       `json:"outcome_counts"`
	SecondaryCounts Counts       `json:"secondary_counts"`
	LabelSources    LabelSources `json:"label_sources"`
	Leftovers       Leftovers    `json:"leftovers"`
	// NotChecked are the rules that could not apply to a run as a whole
	// (no pack, spec or allowlist), once a run, with how many traces.
	NotChecked []RunNote `json:"not_checked"`
	Caveats    Caveats   `json:"caveats"`
	// Unscored says how much of the mix has no recorded outcome, and how
	// many such traces were left out (report --scored).
	Unscored Unscored `json:"unscored"`
	// Runs are the runs the report counts; ByRun breaks it down by run
	// when there is more than one.
	Runs         []string          `json:"runs"`
	ByRun        []Group           `json:"by_run"`
	Leaked       []string          `json:"leaked"`
	Grid         Grid              `json:"grid"`
	NobodyClears []string          `json:"nobody_clears"`
	Saturated    []string          `json:"saturated"`
	TasksInPack  int               `json:"tasks_in_pack"`
	Cost         CostSummary       `json:"cost"`
	ByModel      []Group           `json:"by_model"`
	ByAgent      []Group           `json:"by_agent"`
	ByPrompt     []Group           `json:"by_prompt"`
	Agreement    *AgreementSummary `json:"agreement"`
	// RootCauses are the failing traces' root causes, grouped, largest
	// first (at most MaxRootCauses); empty when none were computed.
	RootCauses []RootCauseGroup `json:"root_causes"`
	// RootCausesNotShown counts the groups past MaxRootCauses, and the
	// traces in them, which the report does not list.
	RootCausesNotShown      int `json:"root_causes_not_shown"`
	RootCauseTracesNotShown int `json:"root_cause_traces_not_shown"`
	// Trend follows the figures across the report's runs (or the values
	// of a version field), nil when they are fewer than two.
	Trend *TrendReport `json:"trend"`
	// ByRepository and ByTaskType break the report down by what the task
	// ids name (SWE-bench-style ids name a repository; see
	// triage.TaskType); "(none)" when an id names none.
	ByRepository []Group `json:"by_repository"`
	ByTaskType   []Group `json:"by_task_type"`
	// ByTool counts a trace once under each tool it called, ByFailingTool
	// under the tool whose call failed last ("(none)" when none did);
	// both only over the ToolsRead traces whose tool calls were read.
	ByTool        []Group `json:"by_tool"`
	ByFailingTool []Group `json:"by_failing_tool"`
	ToolsRead     int     `json:"tools_read"`
	// Dumbbells are each model's pass@1 and pass^k against its costs;
	// Heatmap the model × task grid of solved seeds (seed 004).
	Dumbbells   []Dumbbell `json:"dumbbells"`
	Heatmap     Heatmap    `json:"heatmap"`
	Definitions []string   `json:"definitions"`
}

// MaxRootCauses bounds the root causes a report lists.
const MaxRootCauses = 10

// ClassInfo is a primary class's code and name, for legends.
type ClassInfo struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// Rates are the label-based and outcome-based pass figures side by side.
type Rates = reportview.Rates

// Dominant is the largest class of the mix other than PASS_CONTRACT, with
// the seed's decision-table advice from the taxonomy.
type Dominant = reportview.Dominant

// Leftovers are traces whose label is a rules leftover nobody resolved.
type Leftovers struct {
	Count  int      `json:"count"`
	Traces []string `json:"traces"`
}

// Group is one slice of a breakdown (by model, agent or prompt id).
type Group struct {
	Key              string   `json:"key"`
	Traces           int      `json:"traces"`
	Tasks            int      `json:"tasks"`
	Solved           int      `json:"solved"`
	PassAt1          float64  `json:"pass_at_1"`
	PassHatK         float64  `json:"pass_hat_k"`
	HeadlinePassRate float64  `json:"headline_pass_rate"`
	ContractPassRate float64  `json:"contract_pass_rate"`
	InputTokens      int64    `json:"input_tokens"`
	OutputTokens     int64    `json:"output_tokens"`
	Dollars          *float64 `json:"dollars"`
	DollarsPerSolved *float64 `json:"dollars_per_solved"`
	MedianWallS      *float64 `json:"median_wall_s"`
	// Unknown counts the group's attempts with no recorded outcome and
	// UnknownTasks its tasks with no known attempt (in neither rate).
	Unknown      int `json:"unknown"`
	UnknownTasks int `json:"unknown_tasks"`
}

// Scored reports whether any of the group's tasks has an attempt whose
// outcome is known: without one its pass@1 and pass^k are no figure,
// not 0.
func (g Group) Scored() bool { return g.Tasks > g.UnknownTasks }

// Definitions are printed with every report, because each figure is only
// as good as the reader's idea of its denominator.
var Definitions = []string{
	"headline pass rate = (PASS_CONTRACT + PASS_WEAK) / traces; contract pass rate = PASS_CONTRACT / traces (from the labels).",
	"solved = typed outcome success (or unknown with a green scorer), scorer not red, and no guard-probe sentinel leaked.",
	"pass@1 = mean over tasks of solved seeds / seeds whose outcome is known; pass^k = share of tasks solved on all k seeds, a task counted per model and agent (a task two models ran is two rows of the grid, task [model · agent], never one task's 2k attempts); an attempt nobody recorded an outcome for (? in the grid) is left out of pass@1, and its task cannot clear pass^k; a task with no known attempt is in neither; resolution = 1 / number of tasks in them, the step pass^k moves in.",
	"primary counts: every trace once, by its current label (adjudicated, then human, then the rules' verdict, certain or not); leftovers are listed.",
	"$/solved = dollars over solved traces, not over attempts; costs sum the traces that recorded them.",
	"trends: each point's figures with 95% intervals clustered by task; a change is a trend only when it is larger than the noise floor (the same figure's difference between two runs of one configuration, when given) and than the 95% interval of the difference; shares count every trace once by its current label.",
	"heatmap: solved seeds / seeds per model and task; a task is saturated when every model that ran it solved all its seeds, cold when no model did; dumbbell gap = pass@1 - pass^k.",
}

// Report computes the report of a run. It accepts any input, including an
// empty one, and a nil taxonomy (classes are then those seen, sorted).
func Report(in Input) *ReportData {
	t := in.tally()
	r := &ReportData{
		RunID:           in.Controls.RunID,
		DatasetID:       in.Controls.DatasetID,
		DatasetSHA256:   in.Controls.DatasetSHA256,
		Scorer:          in.Controls.Scorer,
		PromptID:        in.Controls.PromptID,
		RulesVersion:    in.RulesVersion,
		MissingControls: in.Controls.Missing(),
		NTraces:         t.n,
		OutcomeCounts:   t.outcomeCounts(),
		SecondaryCounts: secondaryCounts(in.Taxonomy, t.secAll),
		Leftovers:       Leftovers{Count: len(t.leftovers), Traces: orEmpty(t.leftovers)},
		Leaked:          orEmpty(t.leaked),
		TasksInPack:     in.NTasksInPack,
		Cost:            t.cost.summary(),
		Agreement:       in.Agreement,
		Definitions:     Definitions,
	}
	if r.MissingControls == nil {
		r.MissingControls = []string{}
	}
	if in.Taxonomy != nil {
		r.Taxonomy = TaxonomyInfo{Name: in.Taxonomy.Name, Version: in.Taxonomy.Version, Trust: trustWord(in.TaxonomyTrusted)}
		for _, c := range in.Taxonomy.Classes {
			r.Classes = append(r.Classes, ClassInfo{Code: c.Code, Name: c.Name})
		}
	} else {
		r.Taxonomy.Trust = trustWord(in.TaxonomyTrusted)
	}
	r.PrimaryCounts = reportCounts(r.Classes, t.all)
	r.LabelSources = t.sources
	r.LabelSources.People = r.LabelSources.Adjudicated + r.LabelSources.Human
	r.Dominant = dominant(in.Taxonomy, r.PrimaryCounts, t.n)
	r.ByModel = groupsOf(t.byModel)
	r.ByAgent = groupsOf(t.byAgent)
	r.ByPrompt = groupsOf(t.byPrompt)
	r.Runs = orEmpty(t.Runs())
	r.ByRun = []Group{}
	if len(r.Runs) > 1 {
		r.ByRun = groupsOf(t.byRun)
	}
	r.Caveats = t.caveats(in.TaxonomyTrusted)
	r.Unscored = Unscored{Traces: max(r.Caveats.UnknownOutcome, 0), Share: ratio(max(r.Caveats.UnknownOutcome, 0), t.n), LeftOut: in.UnscoredLeftOut}
	r.NotChecked = in.NotChecked
	if r.NotChecked == nil {
		r.NotChecked = []RunNote{}
	}
	r.dashboards(t, in)
	if in.ReportOnce {
		// Every section but the grid is built: the breakdowns, the
		// heatmap and the trend points are no longer read.
		t.byModel, t.byAgent, t.byPrompt, t.byRun = nil, nil, nil, nil
		t.dash = dashAcc{}
	}
	// The grid last: its rows take over the cells, and the units' map
	// the breakdowns read is let go once they are in rows.
	r.Grid = t.grid.build()
	if in.ReportOnce {
		t.grid = gridAcc{}
	}
	r.NobodyClears = orEmpty(r.Grid.NobodyClears())
	r.Saturated = orEmpty(r.Grid.Saturated())
	d := t.derived()
	r.Rates = Rates{
		HeadlinePassRate: d.HeadlinePassRate, ContractPassRate: d.ContractPassRate,
		AssumptionShare: d.AssumptionShare, LoopShare: d.LoopShare,
		PassAt1: r.Grid.PassAt1, PassHatK: r.Grid.PassHatK, Resolution: r.Grid.Resolution, K: r.Grid.K,
	}
	r.RootCauses = in.RootCauses[:min(len(in.RootCauses), MaxRootCauses)]
	for _, g := range in.RootCauses[len(r.RootCauses):] {
		r.RootCausesNotShown++
		r.RootCauseTracesNotShown += g.Count
	}
	if r.RootCauses == nil {
		r.RootCauses = []RootCauseGroup{}
	}
	return r
}

// reportCounts counts every row once: the taxonomy's classes in order
// (zeros included), then labels outside the taxonomy sorted, then
// UNLABELLED for rows with no label.
func reportCounts(classes []ClassInfo, seen map[string]int) Counts {
	out := make(Counts, 0, len(classes))
	in := map[string]bool{}
	for _, c := range classes {
		if !in[c.Code] {
			in[c.Code] = true
			out = append(out, Count{Key: c.Code, N: seen[c.Code]})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(seen)) {
		if k != "" && !in[k] {
			out = append(out, Count{Key: k, N: seen[k]})
		}
	}
	if n := seen[""]; n > 0 && !in[""] {
		out = append(out, Count{Key: Unlabelled, N: n})
	}
	return out
}

func dominant(tax *triage.Taxonomy, pc Counts, n int) *Dominant {
	var best *Count
	for i := range pc {
		c := &pc[i]
		if c.Key == triage.PassContract || c.Key == Unlabelled || c.N == 0 {
			continue
		}
		if best == nil || c.N > best.N {
			best = c
		}
	}
	if best == nil {
		return nil
	}
	d := &Dominant{Code: best.Key, Count: best.N, Share: ratio(best.N, n)}
	if tax != nil {
		if cl := tax.Class(best.Key); cl != nil {
			d.Name, d.DoNot, d.DoThis = cl.Name, cl.DoNot, cl.DoThis
		}
	}
	return d
}

func orEmpty(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// dashboards fills the trends, the further breakdowns and seed 004's two
// pictures.
func (r *ReportData) dashboards(t *Tally, in Input) {
	d := &t.dash
	r.ByRepository = groupsOf(d.byRepo)
	r.ByTaskType = groupsOf(d.byTaskType)
	r.ByTool = groupsOf(d.byTool)
	r.ByFailingTool = groupsOf(d.byFailingTool)
	r.ToolsRead = d.bodies
	r.Heatmap = t.heatmap()
	r.Dumbbells = t.dumbbells(r.ByModel, &r.Heatmap)
	if pts := d.trendPoints(); len(pts) >= 2 {
		tr := &TrendReport{By: d.trendBy, Order: "first import", Notes: []string{}, NoiseRuns: orEmpty(in.NoiseRuns), Lines: Trends(in.Taxonomy, pts, in.Noise),
			ClustersLeftOut: TrendClustersLeftOut(pts)}
		if in.Noise == nil {
			tr.NoiseRuns = []string{}
		}
		tr.Clustered = in.Clustered
		for _, p := range pts {
			tr.Points = append(tr.Points, p.RunID)
		}
		r.Trend = tr
	}
}

// Unscored is the part of a report's mix nobody scored: traces with no
// recorded outcome, their share of the mix, and how many the report left
// out (--scored). A mix that is mostly unscored sessions (1,134 aider
// chats in 1,211 real logs) says so beside the mix.
type Unscored struct {
	Traces  int     `json:"traces"`
	Share   float64 `json:"share"`
	LeftOut int     `json:"left_out"`
}

// MixNote is the line under the failure mix on how much of it nobody
// scored ("" when every trace has an outcome and none was left out).
func MixNote(u Unscored, n int) string {
	var parts []string
	if u.LeftOut > 0 {
		parts = append(parts, fmt.Sprintf("the scored runs alone: %s with no recorded outcome left out of every figure (--scored)", plural(u.LeftOut, "trace")))
	}
	if u.Traces > 0 {
		s := fmt.Sprintf("%d of %d traces (%s) have no recorded outcome: nobody scored them", u.Traces, n, pct(u.Share))
		if u.Share >= 0.5 {
			s += ", so this mix is mostly runs nobody scored"
		}
		parts = append(parts, s+"; triage report --scored shows the scored runs alone")
	}
	if parts == nil {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}
