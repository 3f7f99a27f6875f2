package card

import (
	"cmp"
	"maps"
	"slices"

	"github.com/triage-dev/triage/internal/triage"
)

// The dimensions a report's trends can follow: runs in the order they
// were imported, or the values of a version field.
const (
	TrendByRun    = "run"
	TrendByModel  = "model"
	TrendByPrompt = "prompt_id"
	TrendByAgent  = "agent"
)

// TrendDimensions lists the values TrendBy accepts.
var TrendDimensions = []string{TrendByRun, TrendByModel, TrendByPrompt, TrendByAgent}

// MaxMarkTraces bounds the traces a dumbbell or heatmap mark names; the
// mark says how many more there are.
const MaxMarkTraces = 5

// dashAcc accumulates the report's further dashboards: breakdowns by
// repository, task type and tool, the model × task heatmap, and the
// trend points.
type dashAcc struct {
	byRepo, byTaskType    map[string]*groupAcc
	byTool, byFailingTool map[string]*groupAcc
	bodies                int
	trendBy               string
	trend                 map[string]*TrendRun
	// first is each trend point's earliest import (0 unknown), which
	// orders the points.
	first map[string]int64
	// kinds remembers each task's repository and task type, which a
	// regular expression reads from its id.
	kinds map[string][2]string
}

func newDashAcc() dashAcc {
	return dashAcc{
		byRepo: map[string]*groupAcc{}, byTaskType: map[string]*groupAcc{},
		byTool: map[string]*groupAcc{}, byFailingTool: map[string]*groupAcc{},
		trendBy: TrendByRun,
		trend:   map[string]*TrendRun{}, first: map[string]int64{}, kinds: map[string][2]string{},
	}
}

// TrendBy sets what the report's trend points are: each run (the
// default, ordered by first import) or each value of a version field
// (model, prompt_id, agent), ordered by the first import it appears in.
// An unknown dimension leaves the run. Call it before the first Add.
func (t *Tally) TrendBy(dim string) *Tally {
	if slices.Contains(TrendDimensions, dim) {
		t.dash.trendBy = dim
	}
	return t
}

// WithoutTrend makes the tally keep no trend points: a report of one run
// by run has one point, which it never shows (a trend needs two), and
// each point keeps a count per task (11 MB on 100,000 tasks). Call it
// before the first Add; TrendRun then returns nil.
func (t *Tally) WithoutTrend() *Tally {
	t.dash.trend, t.dash.first = nil, nil
	return t
}

// maxKinds bounds the tasks whose kind is remembered: the memo spares a
// regular expression for each of a task's rows, and a store of a million
// tasks with a row each would only fill it (9 MB a 100,000 tasks).
const maxKinds = 1 << 14

// kindOf is a task's repository and task type, read from its id once
// (while the memo has room).
func (d *dashAcc) kindOf(t *Tally, task string) [2]string {
	kind, ok := d.kinds[task]
	if !ok {
		kind[0], kind[1] = triage.TaskKind(task)
		if len(d.kinds) < maxKinds {
			d.kinds[t.str(task)] = kind
		}
	}
	return kind
}

func (d *dashAcc) add(t *Tally, r *TraceRow, primary string, solved bool) {
	kind := d.kindOf(t, r.TaskID)
	t.exclusive(d.byRepo, kind[0]).add(t, r, primary, solved)
	t.exclusive(d.byTaskType, kind[1]).add(t, r, primary, solved)
	if r.BodyRead {
		d.bodies++
		for _, tool := range r.Tools {
			t.group(d.byTool, tool).add(t, r, primary, solved)
		}
		t.group(d.byFailingTool, r.FailingTool).add(t, r, primary, solved)
	}
	if d.trend == nil {
		return
	}
	key := r.RunID
	switch d.trendBy {
	case TrendByModel:
		key = r.Model
	case TrendByPrompt:
		key = r.PromptID
	case TrendByAgent:
		key = r.Agent
	}
	if key == "" {
		key = "(none)"
	}
	tr := d.trend[key]
	if tr == nil {
		tr = NewTrendRun(t.str(key))
		d.trend[tr.RunID] = tr
		d.first[tr.RunID] = r.Import
	}
	tr.Add(r)
	if f := d.first[key]; r.Import != 0 && (f == 0 || r.Import < f) {
		d.first[key] = r.Import
	}
}

// trendPoints lists the trend points in order: by first import, points
// with none last, ties by name.
func (d *dashAcc) trendPoints() []*TrendRun {
	keys := slices.Collect(maps.Keys(d.trend))
	slices.SortFunc(keys, func(a, b string) int {
		fa, fb := d.first[a], d.first[b]
		if (fa == 0) != (fb == 0) {
			if fa == 0 {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(fa, fb), cmp.Compare(a, b))
	})
	out := make([]*TrendRun, len(keys))
	for i, k := range keys {
		out[i] = d.trend[k]
	}
	return out
}

// TrendRun returns the trend point named key (a run id with the default
// dimension), nil when no row had it.
func (t *Tally) TrendRun(key string) *TrendRun { return t.dash.trend[key] }

// TrendReport is the report's trends: each point a run (or a value of a
// version field), oldest first, every figure with its 95 % interval
// clustered by task and each change called up, down or noise.
type TrendReport struct {
	// By is the dimension the points are (run, model, prompt_id, agent).
	By     string   `json:"by"`
	Points []string `json:"points"`
	// Order says how the points are ordered ("first import": oldest
	// first; "A → B": a comparison's two sides).
	Order string `json:"order"`
	// NoiseRuns are the two runs of one configuration whose differences
	// are the noise floor; empty when none were given, and then only the
	// interval of the difference guards against calling noise a trend.
	NoiseRuns []string    `json:"noise_runs"`
	Lines     []TrendLine `json:"lines"`
	// ClustersLeftOut counts the clusters beyond the MaxTrendClusters
	// largest that the lines follow; Clustered says whether clusters were
	// computed at all.
	Clustered       bool `json:"clustered"`
	ClustersLeftOut int  `json:"clusters_left_out"`
	// Notes say what a reader must know before reading a change as one
	// (points that ran different datasets, say); empty when none.
	Notes []string `json:"notes"`
}

// Dumbbell is one model's capability and reliability (seed 004): pass@1
// the filled dot, pass^k the hollow one, Gap the line between them, set
// against what the model cost in dollars, tokens and wall-clock.
type Dumbbell struct {
	Model  string `json:"model"`
	Traces int    `json:"traces"`
	Tasks  int    `json:"tasks"`
	// UnknownTasks are the tasks with no known attempt: when all are,
	// the model has no mark (Scored).
	UnknownTasks int     `json:"unknown_tasks"`
	PassAt1      float64 `json:"pass_at_1"`
	PassHatK     float64 `json:"pass_hat_k"`
	Gap          float64 `json:"gap"`
	Resolution   float64 `json:"resolution"`
	// Dollars, Tokens (input + output) and MedianWallS are summed or
	// taken over the traces that recorded them (the *Known counts).
	Dollars     *float64 `json:"dollars"`
	Tokens      *int64   `json:"tokens"`
	MedianWallS *float64 `json:"median_wall_s"`
	CostKnown   int      `json:"traces_with_cost"`
	TokensKnown int      `json:"traces_with_tokens"`
	WallKnown   int      `json:"traces_with_wall"`
	// Examples are some of the traces behind the mark.
	Examples []string `json:"examples"`
}

// Scored reports whether the model has a task with a known attempt: a
// model without one is not drawn, rather than drawn at 0.
func (d Dumbbell) Scored() bool { return d.Tasks > d.UnknownTasks }

// Heatmap is the model × task grid of seed 004: in each cell how many of
// a model's seeds of a task were solved, out of how many.
type Heatmap struct {
	Models []string      `json:"models"`
	Tasks  []HeatTask    `json:"tasks"`
	Cells  [][]*HeatCell `json:"cells"`
}

// HeatTask is a column of the heatmap. A task is saturated when every
// model that ran it solved all its seeds, cold when none did.
type HeatTask struct {
	TaskID    string `json:"task_id"`
	Saturated bool   `json:"saturated"`
	Cold      bool   `json:"cold"`
}

// HeatCell is one model's attempts at one task; nil where the model did
// not run the task.
type HeatCell struct {
	Solved int `json:"solved"`
	Runs   int `json:"runs"`
	// Unknown attempts have no recorded outcome: not solved, and the
	// cell cannot count as cleared.
	Unknown int `json:"unknown"`
	// Traces are up to MaxMarkTraces of the attempts; More how many are
	// not named.
	Traces []string `json:"traces"`
	More   int      `json:"more"`
}

// Clears reports whether the model solved every seed it ran of the task.
func (c *HeatCell) Clears() bool { return c != nil && c.Runs > 0 && c.Solved == c.Runs }

// heatModel is a unit's model as the heatmap names it.
func heatModel(model string) string { return cmp.Or(model, "(none)") }

// heatmap is the model × task grid, read from the tally's grid units (a
// model's attempts at a task are its units', one an agent), with no map
// of its own kept while rows are added: that was 13 MB on 100,000 tasks.
// The traces a cell names are the first of its cells as they were
// added, agents in order; call it before the grid's build sorts them.
func (t *Tally) heatmap() Heatmap {
	g := &t.grid
	keys := g.units.keys
	units := slices.SortedFunc(maps.Keys(g.tasks), func(x, y uint32) int {
		a, b := keys[x], keys[y]
		return cmp.Or(cmp.Compare(a.task, b.task), cmp.Compare(heatModel(a.model), heatModel(b.model)), cmp.Compare(a.agent, b.agent))
	})
	var h Heatmap
	models := map[string]int{}
	nTasks := 0
	for i, u := range units {
		models[heatModel(keys[u].model)] = 0
		if i == 0 || keys[u].task != keys[units[i-1]].task {
			nTasks++
		}
	}
	h.Models = slices.Sorted(maps.Keys(models))
	for i, m := range h.Models {
		models[m] = i
	}
	h.Cells = make([][]*HeatCell, len(h.Models))
	for i := range h.Cells {
		h.Cells[i] = make([]*HeatCell, nTasks)
	}
	h.Tasks = make([]HeatTask, 0, nTasks)
	for n, u := range units {
		k := keys[u]
		if n == 0 || k.task != keys[units[n-1]].task {
			h.Tasks = append(h.Tasks, HeatTask{TaskID: k.task})
		}
		j := len(h.Tasks) - 1
		c := &h.Cells[models[heatModel(k.model)]][j]
		if *c == nil {
			*c = &HeatCell{}
		}
		ta := g.tasks[u]
		(*c).Runs += int(ta.runs)
		(*c).Solved += int(ta.solved)
		(*c).Unknown += int(ta.unknown)
		for _, cell := range g.cellsOf[u] {
			if len((*c).Traces) == MaxMarkTraces {
				break
			}
			(*c).Traces = append((*c).Traces, triage.TraceKey(g.cells.table.Runs[cell.Run], k.task, int(cell.Seed)))
		}
	}
	for j := range h.Tasks {
		ran, clear, known := 0, 0, 0
		for i := range h.Models {
			if c := h.Cells[i][j]; c != nil {
				c.More = c.Runs - len(c.Traces)
				ran++
				known += c.Runs - c.Unknown
				if c.Clears() {
					clear++
				}
			}
		}
		// Cold needs an attempt whose outcome is known: one nobody
		// recorded is not a failure.
		h.Tasks[j].Saturated = ran > 0 && clear == ran
		h.Tasks[j].Cold = clear == 0 && known > 0
	}
	return h
}

// dumbbells are the models' groups (groupsOf(byModel), computed once for
// the breakdown) with what their costs rest on and some of their traces.
func (t *Tally) dumbbells(models []Group, h *Heatmap) []Dumbbell {
	out := make([]Dumbbell, 0, len(models))
	for _, g := range models {
		acc := t.byModel[g.Key]
		db := Dumbbell{Model: g.Key, Traces: g.Traces, Tasks: g.Tasks, UnknownTasks: g.UnknownTasks, PassAt1: g.PassAt1, PassHatK: g.PassHatK,
			Gap: g.PassAt1 - g.PassHatK, Dollars: g.Dollars, MedianWallS: g.MedianWallS,
			CostKnown: acc.costOf().c.CostKnown, TokensKnown: acc.costOf().c.TokensKnown, WallKnown: len(acc.costOf().walls), Examples: []string{}}
		if scored := g.Tasks - acc.gridOf().unknownTasks(); scored > 0 {
			db.Resolution = 1 / float64(scored)
		}
		if db.TokensKnown > 0 {
			db.Tokens = ptr(g.InputTokens + g.OutputTokens)
		}
		if mi, ok := slices.BinarySearch(h.Models, g.Key); ok {
			for _, c := range h.Cells[mi] {
				if c == nil {
					continue
				}
				for _, k := range c.Traces {
					if len(db.Examples) < MaxMarkTraces {
						db.Examples = append(db.Examples, k)
					}
				}
				if len(db.Examples) == MaxMarkTraces {
					break
				}
			}
		}
		out = append(out, db)
	}
	return out
}

// unknownTasks counts the tasks with no known attempt, which are in no
// rate's denominator.
func (g *gridAcc) unknownTasks() int {
	n := 0
	for _, ta := range g.tasks {
		if ta.runs == ta.unknown {
			n++
		}
	}
	return n
}
