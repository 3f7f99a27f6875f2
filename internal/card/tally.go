package card

import (
	"cmp"
	"maps"
	"slices"

	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// Tally folds trace rows, one at a time, into everything a card or a
// report is computed from. It keeps counts, per-task grids and the keys of
// the traces a reader must see (leftovers, leaks), never the rows, so that
// summarising a run costs memory in proportion to its tasks and groups: a
// report on a million traces once held every row four times over (1 GB).
// The zero value is not ready; use NewTally.
type Tally struct {
	n int
	// all and secAll count the primary and secondary labels of every
	// row, by its current label, certain or not: the report and the card
	// count the same thing, and say how many of them are leftovers.
	all    map[string]int
	secAll map[string]int
	// unlabelled counts rows with no label at all (in no class).
	unlabelled int
	// firstWith is a row's key for each primary seen, so a card can name
	// a trace whose label is outside the taxonomy.
	firstWith map[string]string
	outcomes  map[triage.Outcome]int
	sources   LabelSources
	leftovers []string
	leaked    []string
	models    map[string]struct{}
	agents    map[string]struct{}
	prompts   map[string]struct{}
	runs      map[string]struct{}
	cost      costAcc
	grid      gridAcc
	byModel   map[string]*groupAcc
	byAgent   map[string]*groupAcc
	byPrompt  map[string]*groupAcc
	byRun     map[string]*groupAcc
	dash      dashAcc
	// intern shares the strings that repeat across rows (run ids,
	// outcomes, classes) among the grid's cells.
	intern map[string]string
	// units numbers the (task, model, agent) units every grid counts;
	// unit is the number of the row being added.
	units *unitIndex
	unit  uint32
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	units := &unitIndex{ids: map[unitKey]uint32{}}
	return &Tally{units: units,
		all: map[string]int{}, secAll: map[string]int{},
		firstWith: map[string]string{}, outcomes: map[triage.Outcome]int{},
		models: map[string]struct{}{}, agents: map[string]struct{}{}, prompts: map[string]struct{}{}, runs: map[string]struct{}{},
		grid:    newGridAcc(units, true),
		byModel: map[string]*groupAcc{}, byAgent: map[string]*groupAcc{}, byPrompt: map[string]*groupAcc{},
		byRun: map[string]*groupAcc{}, intern: map[string]string{},
		dash: newDashAcc(),
	}
}

// WithoutCells makes the tally keep per-task counts but not the grid's
// cells, which only a report draws: a card carries the counts, and a cell
// is 72 bytes (70 MB for a million traces). Call it before the first Add.
func (t *Tally) WithoutCells() *Tally {
	t.grid.keepCells, t.grid.cellsOf, t.grid.cells = false, nil, nil
	return t
}

// TallyRows folds rows into a new tally.
func TallyRows(rows []TraceRow) *Tally {
	t := NewTally()
	for i := range rows {
		t.Add(&rows[i])
	}
	return t
}

// Len is the number of rows added.
func (t *Tally) Len() int { return t.n }

// Add folds one row in. The tally keeps none of r's memory.
//
// This is the one place a row's label is counted: the report, the card,
// the comparison and the TUI all read these counts. A leaked trace is
// never a pass (seed 004: a guarded task has to pass both bars), so a
// PASS_* label on it counts as SCORER_RED, and LEAKED is counted among
// its secondary tags even when its label forgot it.
func (t *Tally) Add(r *TraceRow) {
	t.unit = t.units.of(t, r)
	t.split(r)
	t.n++
	solved := r.Solved()
	primary := t.str(r.CountedPrimary())
	t.all[primary]++
	if _, ok := t.firstWith[primary]; !ok {
		t.firstWith[primary] = r.Key()
	}
	for _, s := range r.Secondary {
		t.secAll[t.str(s)]++
	}
	if r.Leaked {
		if !slices.Contains(r.Secondary, triage.TagLeaked) {
			t.secAll[triage.TagLeaked]++
		}
		t.leaked = append(t.leaked, r.Key())
	}
	if r.Leftover {
		t.leftovers = append(t.leftovers, r.Key())
		if primary == "" {
			t.unlabelled++
		}
	} else {
		switch r.Source {
		case triage.SourceAdjudicated:
			t.sources.Adjudicated++
		case triage.SourceHuman:
			t.sources.Human++
		default:
			t.sources.Rules++
		}
	}
	t.outcomes[triage.Outcome(t.str(string(r.Outcome)))]++
	t.models[t.str(r.Model)] = struct{}{}
	t.agents[t.str(r.Agent)] = struct{}{}
	t.prompts[t.str(r.PromptID)] = struct{}{}
	t.runs[t.str(r.RunID)] = struct{}{}
	t.cost.add(r, solved)
	t.grid.add(t, r, primary, solved)
	t.exclusive(t.byModel, r.Model).add(t, r, primary, solved)
	t.exclusive(t.byAgent, r.Agent).add(t, r, primary, solved)
	t.exclusive(t.byPrompt, r.PromptID).add(t, r, primary, solved)
	t.exclusive(t.byRun, r.RunID).add(t, r, primary, solved)
	t.dash.add(t, r, primary, solved)
}

// maxIntern bounds the strings a tally shares. What repeats across rows
// (runs, models, outcomes, classes, the tasks of a store with many seeds)
// is shared by the first few thousand; past that, strings are mostly a
// row's own (a task a row), which sharing cannot save and a map entry
// each would cost (9 MB on 100,000 tasks).
const maxIntern = 1 << 14

func (t *Tally) str(s string) string {
	if v, ok := t.intern[s]; ok {
		return v
	}
	if len(t.intern) < maxIntern {
		t.intern[s] = s
	}
	return s
}

// split runs before the tally's own grid and cost take r: a breakdown
// whose one group has had every row so far, and to which r brings a
// second key, gives that group its own copy of them (see groupAcc.sole).
func (t *Tally) split(r *TraceRow) {
	kind := t.dash.kindOf(t, r.TaskID)
	for _, b := range [...]struct {
		m   map[string]*groupAcc
		key string
	}{{t.byModel, r.Model}, {t.byAgent, r.Agent}, {t.byPrompt, r.PromptID}, {t.byRun, r.RunID}, {t.dash.byRepo, kind[0]}, {t.dash.byTaskType, kind[1]}} {
		if len(b.m) != 1 {
			continue
		}
		key := b.key
		if key == "" {
			key = "(none)"
		}
		if _, ok := b.m[key]; ok {
			continue
		}
		for _, g := range b.m {
			g.own()
		}
	}
}

// exclusive is group for a breakdown that files every row under exactly
// one key: its first group shares the tally's grid and cost until a
// second key appears.
func (t *Tally) exclusive(m map[string]*groupAcc, key string) *groupAcc {
	first := len(m) == 0
	g := t.group(m, key)
	if first {
		g.sole = t
	}
	return g
}

func (t *Tally) group(m map[string]*groupAcc, key string) *groupAcc {
	if key == "" {
		key = "(none)"
	}
	g := m[key]
	if g == nil {
		g = &groupAcc{grid: newGridAcc(t.units, false)}
		m[t.str(key)] = g
	}
	return g
}

// distinctOf lists a set's non-empty values, sorted.
func distinctOf(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		if v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// costAcc accumulates a CostSummary.
type costAcc struct {
	c       CostSummary
	dollars float64
	walls   []float64
	solved  int
	// sum is summary's answer until the next add: the breakdowns that
	// share the tally's cost each read it, a sort of every wall time.
	sum *CostSummary
}

func (a *costAcc) add(r *TraceRow, solved bool) {
	a.sum = nil
	if r.Tokens != nil {
		a.c.InputTokens += r.Tokens.Input
		a.c.OutputTokens += r.Tokens.Output
		a.c.TokensKnown++
	}
	if r.CostUSD != nil {
		a.dollars += *r.CostUSD
		a.c.CostKnown++
	}
	if r.WallS != nil {
		a.walls = append(a.walls, *r.WallS)
	}
	if solved {
		a.solved++
	}
}

func (a *costAcc) summary() CostSummary {
	if a.sum == nil {
		c := a.computeSummary()
		a.sum = &c
	}
	return *a.sum
}

// computeSummary is summary, computed.
func (a *costAcc) computeSummary() CostSummary {
	c := a.c
	c.WallKnown = len(a.walls)
	if c.CostKnown > 0 {
		c.Dollars = ptr(a.dollars)
		if a.solved > 0 {
			c.DollarsPerSolved = ptr(a.dollars / float64(a.solved))
		}
	}
	if m, ok := median(a.walls); ok {
		c.MedianWallS = &m
	}
	return c
}

// taskAcc is one unit's line of a grid being built, held by value: a
// tally keeps one per unit in each of about ten breakdowns, a million of
// them on a store of 100,000 tasks, where a pointer and a slice each made
// the report's live heap 200 MB.
type taskAcc struct {
	runs, solved, unknown int32
}

// gridAcc accumulates a Grid; cells are kept only when the grid is shown
// cell by cell (the report's), not for breakdowns and cards.
type gridAcc struct {
	// tasks are the counts of each unit, by its number in units: a
	// unit's key is three strings (48 bytes), and each breakdown that
	// sees more than one key keeps a count of every unit of its own.
	tasks map[uint32]taskAcc
	units *unitIndex
	// cellsOf holds each unit's cells when keepCells, packed: their
	// strings are indexes into cells (see cellIndex).
	cellsOf map[uint32][]reportview.PackedCell
	cells   *cellIndex
	// fig is figures' answer until the next add: every breakdown whose
	// one group shares this grid (see groupAcc.sole) reads the same
	// figures, each a sort of every unit.
	fig       *gridFigures
	seeds     map[int]struct{}
	keepCells bool
}

// newGridAcc returns an empty grid of the units numbered in units,
// keeping cells when cells is set.
func newGridAcc(units *unitIndex, cells bool) gridAcc {
	g := gridAcc{tasks: map[uint32]taskAcc{}, units: units, seeds: map[int]struct{}{}, keepCells: cells}
	if cells {
		g.cellsOf = map[uint32][]reportview.PackedCell{}
		g.cells = &cellIndex{table: &reportview.CellTable{}, runs: map[string]uint32{}, primaries: map[string]uint32{}, outcomes: map[triage.Outcome]uint32{}}
	}
	return g
}

// unitKey is what pass^k counts attempts of: one task run by one model
// and agent. Two models that ran a task of one name are two rows of the
// grid, not one task's attempts (pass^k mixed them: a task "cleared" on
// k seeds that were different models' runs).
type unitKey struct{ task, model, agent string }

// unitIndex numbers the units a tally has seen, so that every grid
// keys its counts by a 4-byte number instead of the unit's key.
type unitIndex struct {
	ids  map[unitKey]uint32
	keys []unitKey
}

// of is r's unit's number, given one when r is its first row.
func (x *unitIndex) of(t *Tally, r *TraceRow) uint32 {
	k := unitKey{r.TaskID, r.Model, r.Agent}
	id, ok := x.ids[k]
	if !ok {
		k = unitKey{t.str(r.TaskID), t.str(r.Model), t.str(r.Agent)}
		id = uint32(len(x.keys))
		x.keys = append(x.keys, k)
		x.ids[k] = id
	}
	return id
}

// idUnit is a unit and its grid id, for sorting: the task id, and when
// more than one model or agent ran the task, which one in brackets.
type idUnit struct {
	unit uint32
	id   string
}

// sortedUnits lists the units sorted by grid id, the order build lists
// the grid's rows and sums pass@1 in.
func sortedUnits(units map[uint32]taskAcc, idx *unitIndex) []idUnit {
	configs := map[string]int{}
	for u := range units {
		configs[idx.keys[u].task]++
	}
	out := make([]idUnit, 0, len(units))
	for u := range units {
		k := idx.keys[u]
		id := k.task
		if configs[k.task] > 1 {
			id = k.task + " [" + configLabel(k.model, k.agent) + "]"
		}
		out = append(out, idUnit{u, id})
	}
	slices.SortFunc(out, func(a, b idUnit) int { return cmp.Compare(a.id, b.id) })
	return out
}

// configLabel names a model and agent, "(none)" for what a trace did not
// record.
func configLabel(model, agent string) string {
	return cmp.Or(model, "(none)") + " · " + cmp.Or(agent, "(none)")
}

func (g *gridAcc) add(t *Tally, r *TraceRow, primary string, solved bool) {
	g.fig = nil
	key := t.unit
	ta := g.tasks[key]
	ta.runs++
	unknown := r.Unknown()
	switch {
	case unknown:
		ta.unknown++
	case solved:
		ta.solved++
	}
	g.tasks[key] = ta
	g.seeds[r.Seed] = struct{}{}
	if g.keepCells {
		g.cellsOf[key] = append(g.cellsOf[key], g.cells.pack(t, r, primary, solved, unknown))
	}
}

// cellIndex packs a grid's cells: each string a cell names (run id,
// primary, outcome) is stored once in table and the cell keeps its
// index, so a cell is 24 bytes instead of 72.
type cellIndex struct {
	table     *reportview.CellTable
	runs      map[string]uint32
	primaries map[string]uint32
	outcomes  map[triage.Outcome]uint32
}

// pack is r's cell.
func (c *cellIndex) pack(t *Tally, r *TraceRow, primary string, solved, unknown bool) reportview.PackedCell {
	p := reportview.PackedCell{Seed: int64(r.Seed)}
	run, ok := c.runs[r.RunID]
	if !ok {
		run = uint32(len(c.table.Runs))
		c.table.Runs = append(c.table.Runs, t.str(r.RunID))
		c.runs[c.table.Runs[run]] = run
	}
	prim, ok := c.primaries[primary]
	if !ok {
		prim = uint32(len(c.table.Primaries))
		c.table.Primaries = append(c.table.Primaries, primary)
		c.primaries[primary] = prim
	}
	out, ok := c.outcomes[r.Outcome]
	if !ok {
		out = uint32(len(c.table.Outcomes))
		c.table.Outcomes = append(c.table.Outcomes, triage.Outcome(t.str(string(r.Outcome))))
		c.outcomes[c.table.Outcomes[out]] = out
	}
	p.Run, p.Primary, p.Outcome = run, prim, out
	if solved {
		p.Flags |= reportview.PackedSolved
	}
	if unknown {
		p.Flags |= reportview.PackedUnknown
	}
	if r.Leaked {
		p.Flags |= reportview.PackedLeaked
	}
	return p
}

// shortOfK returns k, the most attempts a task ran, and how many tasks
// with a known outcome ran fewer (k is 0 when none did).
func (g *gridAcc) shortOfK() (k, short int) {
	for _, ta := range g.tasks {
		k = max(k, int(ta.runs))
	}
	for _, ta := range g.tasks {
		if int(ta.runs) < k && ta.runs > ta.unknown {
			short++
		}
	}
	if short == 0 {
		return 0, 0
	}
	return k, short
}

// build computes the grid: tasks sorted by ID, cells by seed then run
// (ties in the order added), pass@1, pass^k and the resolution.
func (g *gridAcc) build() Grid {
	var out Grid
	out.Seeds = slices.Sorted(maps.Keys(g.seeds))
	for _, ta := range g.tasks {
		out.K = max(out.K, int(ta.runs))
	}
	var sum1 float64
	clear, scored := 0, 0
	// Tasks and unknown tasks are counted by task id (a task run by two
	// models is one task, known when either run has an outcome); the
	// rates by row.
	taskKnown := map[string]bool{}
	for u, ta := range g.tasks {
		task := g.units.keys[u].task
		taskKnown[task] = taskKnown[task] || ta.runs > ta.unknown
	}
	out.NTasks = len(taskKnown)
	for _, k := range taskKnown {
		if !k {
			out.UnknownTasks++
		}
	}
	// The units sorted by grid id in one slice, and the rows allocated
	// once: an id map and a key slice beside it, and a row slice grown by
	// doubling, were three more copies of a store's units (100,000 tasks).
	units := sortedUnits(g.tasks, g.units)
	out.Tasks = make([]TaskRow, 0, len(units))
	if g.keepCells {
		out.Table = g.cells.table
	}
	for _, u := range units {
		key, id := u.unit, u.id
		ta := g.tasks[key]
		runs, unknown, solved := int(ta.runs), int(ta.unknown), int(ta.solved)
		row := TaskRow{TaskID: id, Runs: runs, Unknown: unknown, Solved: solved}
		if g.keepCells {
			cells := g.cellsOf[key]
			runIDs := g.cells.table.Runs
			slices.SortStableFunc(cells, func(a, b reportview.PackedCell) int {
				return cmp.Or(cmp.Compare(a.Seed, b.Seed), cmp.Compare(runIDs[a.Run], runIDs[b.Run]))
			})
			row.SetPacked(slices.Clip(cells), g.cells.table)
		}
		if runs != out.K {
			out.Uneven = true
		}
		out.Solved += solved
		out.Unknown += unknown
		out.Tasks = append(out.Tasks, row)
		known := runs - unknown
		if known == 0 {
			// Nothing known about this row: in no rate's denominator.
			continue
		}
		row = out.Tasks[len(out.Tasks)-1]
		row.PassAt1 = float64(solved) / float64(known)
		row.PassHatK = solved == runs && runs == out.K
		out.Tasks[len(out.Tasks)-1] = row
		if row.PassHatK {
			clear++
		}
		sum1 += row.PassAt1
		scored++
	}
	if scored > 0 {
		out.PassAt1 = sum1 / float64(scored)
		out.PassHatK = float64(clear) / float64(scored)
		out.Resolution = 1 / float64(scored)
	}
	return out
}

// gridFigures are the figures a breakdown's group reads from its grid.
type gridFigures struct {
	NTasks, UnknownTasks, Solved, Unknown int
	PassAt1, PassHatK                     float64
}

// figures computes what build does for a breakdown's group, without a
// TaskRow, a cell list or an id map per unit: each of about ten
// breakdowns built a whole Grid of a store's units only to read six
// numbers (on 100,000 tasks, half the report's allocations). pass@1 is
// summed in build's order (units sorted by grid id) so the float sum,
// and so the report, stays byte-identical.
func (g *gridAcc) figures() gridFigures {
	if g.fig == nil {
		f := g.computeFigures()
		g.fig = &f
	}
	return *g.fig
}

// computeFigures is figures, computed.
func (g *gridAcc) computeFigures() gridFigures {
	var out gridFigures
	k := 0
	taskKnown := map[string]bool{}
	for u, ta := range g.tasks {
		k = max(k, int(ta.runs))
		task := g.units.keys[u].task
		taskKnown[task] = taskKnown[task] || ta.runs > ta.unknown
	}
	out.NTasks = len(taskKnown)
	for _, known := range taskKnown {
		if !known {
			out.UnknownTasks++
		}
	}
	var sum1 float64
	clear, scored := 0, 0
	for _, u := range sortedUnits(g.tasks, g.units) {
		ta := g.tasks[u.unit]
		runs, unknown, solved := int(ta.runs), int(ta.unknown), int(ta.solved)
		out.Solved += solved
		out.Unknown += unknown
		known := runs - unknown
		if known == 0 {
			continue
		}
		if solved == runs && runs == k {
			clear++
		}
		sum1 += float64(solved) / float64(known)
		scored++
	}
	if scored > 0 {
		out.PassAt1 = sum1 / float64(scored)
		out.PassHatK = float64(clear) / float64(scored)
	}
	return out
}

// groupAcc accumulates one Group of a breakdown.
type groupAcc struct {
	n, contract, weak int
	grid              gridAcc
	cost              costAcc
	// sole is the tally while the group is the only one of a breakdown
	// that files every row under one key (model, agent, prompt, run,
	// repository, task type): it has had every row, so its grid and cost
	// are the tally's own, read from there instead of kept twice. On a
	// store of one run, agent and prompt, five breakdowns held a copy of
	// every unit's counts and every wall time each. own ends it.
	sole *Tally
}

func (g *groupAcc) add(t *Tally, r *TraceRow, primary string, solved bool) {
	g.n++
	switch primary {
	case triage.PassContract:
		g.contract++
	case triage.PassWeak:
		g.weak++
	}
	if g.sole != nil {
		return
	}
	g.grid.add(t, r, primary, solved)
	g.cost.add(r, solved)
}

// own gives a sole group its own copy of the tally's grid counts and
// cost, before the row that brings its breakdown a second key.
func (g *groupAcc) own() {
	t := g.sole
	if t == nil {
		return
	}
	g.grid = gridAcc{tasks: maps.Clone(t.grid.tasks), units: t.grid.units, seeds: maps.Clone(t.grid.seeds)}
	g.cost = t.cost
	g.cost.walls, g.cost.sum = slices.Clone(t.cost.walls), nil
	g.sole = nil
}

// gridOf is the group's grid: the tally's while the group is sole.
func (g *groupAcc) gridOf() *gridAcc {
	if g.sole != nil {
		return &g.sole.grid
	}
	return &g.grid
}

// costOf is the group's cost: the tally's while the group is sole.
func (g *groupAcc) costOf() *costAcc {
	if g.sole != nil {
		return &g.sole.cost
	}
	return &g.cost
}

// groups lists a breakdown sorted by key.
func groupsOf(m map[string]*groupAcc) []Group {
	out := make([]Group, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		g := m[k]
		gr := g.gridOf().figures()
		c := g.costOf().summary()
		out = append(out, Group{
			Key: k, Traces: g.n, Tasks: gr.NTasks, Solved: gr.Solved,
			PassAt1: gr.PassAt1, PassHatK: gr.PassHatK,
			HeadlinePassRate: ratio(g.contract+g.weak, g.n), ContractPassRate: ratio(g.contract, g.n),
			InputTokens: c.InputTokens, OutputTokens: c.OutputTokens,
			Dollars: c.Dollars, DollarsPerSolved: c.DollarsPerSolved, MedianWallS: c.MedianWallS,
			Unknown: gr.Unknown, UnknownTasks: gr.UnknownTasks,
		})
	}
	return out
}

// outcomeCounts lists typed outcomes in report order, with "unknown" last
// when any trace had none.
func (t *Tally) outcomeCounts() Counts {
	out := make(Counts, 0, len(triage.Outcomes)+1)
	known := 0
	for _, o := range triage.Outcomes {
		out = append(out, Count{Key: string(o), N: t.outcomes[o]})
		known += t.outcomes[o]
	}
	if unknown := t.n - known; unknown > 0 {
		out = append(out, Count{Key: "unknown", N: unknown})
	}
	return out
}

// secondaryCounts lists secondary tags: the taxonomy's tags first in their
// order (zeros included), then any other tag seen, sorted.
func secondaryCounts(tax *triage.Taxonomy, seen map[string]int) Counts {
	var out Counts
	in := map[string]bool{}
	if tax != nil {
		for _, tag := range tax.SecondaryTags {
			if !in[tag] {
				in[tag] = true
				out = append(out, Count{Key: tag, N: seen[tag]})
			}
		}
	}
	for _, tag := range slices.Sorted(maps.Keys(seen)) {
		if !in[tag] {
			out = append(out, Count{Key: tag, N: seen[tag]})
		}
	}
	return out
}

// derived computes the seed's derived figures from the counts of every
// trace by its current label, over every trace: the one computation the
// report's rates and the card's derived fields share.
func (t *Tally) derived() Derived {
	get := func(k string) int { return t.all[k] }
	return Derived{
		HeadlinePassRate: ratio(get(triage.PassContract)+get(triage.PassWeak), t.n),
		ContractPassRate: ratio(get(triage.PassContract), t.n),
		AssumptionShare:  ratio(get(triage.AssumeAPI), t.n),
		LoopShare:        ratio(get(triage.ToolLoop), t.n),
	}
}

// Caveats say, beside every figure, what it left out or rests on: how
// many of the traces counted are leftovers nobody settled (their label is
// provisional), how many have no typed outcome (pass@1 cannot count them
// as solved), and whether two people were shown to agree on the taxonomy.
type Caveats struct {
	Traces         int `json:"traces"`
	Leftovers      int `json:"leftovers"`
	Unlabelled     int `json:"unlabelled"`
	UnknownOutcome int `json:"unknown_outcome"`
	// Trust is the taxonomy's trust verdict, or "unmeasured".
	Trust string `json:"trust"`
	// ShortOfK counts the tasks with a known outcome that ran fewer
	// attempts than K, the most any task ran: pass^k counts each as not
	// clearing, which on uneven logs (one task run twice, the rest once)
	// says nothing about reliability.
	ShortOfK int `json:"short_of_k,omitempty"`
	K        int `json:"k,omitempty"`
}

// caveats returns the tally's caveats under a trust verdict.
func (t *Tally) caveats(trust string) Caveats {
	known := 0
	for _, o := range triage.Outcomes {
		known += t.outcomes[o]
	}
	k, short := t.grid.shortOfK()
	return Caveats{Traces: t.n, Leftovers: len(t.leftovers), Unlabelled: t.unlabelled,
		UnknownOutcome: t.n - known, Trust: trustWord(trust), ShortOfK: short, K: k}
}

// Runs lists the distinct runs added, sorted.
func (t *Tally) Runs() []string { return distinctOf(t.runs) }

// RunNote is a rule that could not apply to some of a run's traces for a
// reason that holds for the run or task (no pack, no spec, no allowlist),
// said once for the run.
type RunNote struct {
	RunID  string `json:"run_id"`
	Note   string `json:"note"`
	Traces int    `json:"traces"`
}

// RunTraces is how many traces of run were added.
func (t *Tally) RunTraces(run string) int {
	if g := t.byRun[run]; g != nil {
		return g.n
	}
	return 0
}
