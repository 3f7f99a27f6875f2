package reportview

import (
	"encoding/json"

	"github.com/triage-dev/triage/internal/triage"
)

// Cell is one attempt of a task in the per-task × seed grid.
type Cell struct {
	RunID  string `json:"run_id"`
	Seed   int    `json:"seed"`
	Solved bool   `json:"solved"`
	// Unknown: nobody recorded how the attempt ended.
	Unknown bool           `json:"unknown,omitempty"`
	Outcome triage.Outcome `json:"outcome"`
	Primary string         `json:"primary"`
	Leaked  bool           `json:"leaked"`
}

// TaskRow is one task's line of the grid: its attempts, how many were
// solved, its pass@1 and whether it cleared all k seeds.
type TaskRow struct {
	TaskID string `json:"task_id"`
	Runs   int    `json:"runs"`
	// Unknown counts the attempts with no recorded outcome: they are in
	// Runs but not in PassAt1's denominator, and a task with one cannot
	// clear pass^k.
	Unknown  int     `json:"unknown"`
	Solved   int     `json:"solved"`
	PassAt1  float64 `json:"pass_at_1"`
	PassHatK bool    `json:"pass_hat_k"`
	// Cells are sorted by seed, then run. A grid a tally built keeps
	// them packed instead (see AllCells): read them through AllCells.
	Cells []Cell `json:"cells,omitempty"`
	// packed are the row's cells in 24 bytes each, their strings in
	// table: a Cell is 72, and a report on a million traces held 146 MB
	// of them.
	packed []PackedCell
	table  *CellTable
}

// PackedCell is a Cell whose strings are indexes into a CellTable.
type PackedCell struct {
	Seed                  int64
	Run, Primary, Outcome uint32
	Flags                 uint8
}

// The flags of a PackedCell.
const (
	PackedSolved uint8 = 1 << iota
	PackedUnknown
	PackedLeaked
)

// CellTable holds the strings packed cells index. A grid names its
// table (Grid.Table) so that whoever masks the grid's strings in place
// (triage.Redactor.Value) masks the cells' strings too.
type CellTable struct {
	Runs      []string
	Primaries []string
	Outcomes  []triage.Outcome
}

// Cell unpacks c.
func (tb *CellTable) Cell(c PackedCell) Cell {
	return Cell{RunID: tb.Runs[c.Run], Seed: int(c.Seed), Solved: c.Flags&PackedSolved != 0, Unknown: c.Flags&PackedUnknown != 0,
		Outcome: tb.Outcomes[c.Outcome], Primary: tb.Primaries[c.Primary], Leaked: c.Flags&PackedLeaked != 0}
}

// SetPacked makes cells, read through table, the row's cells.
func (t *TaskRow) SetPacked(cells []PackedCell, table *CellTable) {
	t.Cells, t.packed, t.table = nil, cells, table
}

// AllCells is the row's cells, sorted by seed then run; a packed row's
// are unpacked into a new slice, so a renderer holds one row's at a time.
func (t *TaskRow) AllCells() []Cell {
	if t.packed == nil {
		return t.Cells
	}
	out := make([]Cell, len(t.packed))
	for i, c := range t.packed {
		out[i] = t.table.Cell(c)
	}
	return out
}

// MarshalJSON writes a packed row as the Cells it stands for.
func (t TaskRow) MarshalJSON() ([]byte, error) {
	type plain TaskRow // the fields without this method
	p := plain(t)
	if t.packed != nil {
		p.Cells = t.AllCells()
	}
	return json.Marshal(p)
}

// Grid is the per-task × seed view of a set of traces (seed 004).
type Grid struct {
	// K is the largest number of attempts of any task; a task with fewer
	// attempts cannot clear pass^k.
	K int `json:"k"`
	// Uneven is true when tasks ran different numbers of seeds.
	Uneven bool `json:"uneven"`
	// Seeds are the seed values seen, ascending (the grid's columns).
	Seeds []int `json:"seeds"`
	// Tasks are the grid's rows: one a task, or one a task and model and
	// agent when more than one ran it ("task [model · agent]": pass^k
	// counts one configuration's attempts); NTasks counts the task ids.
	Tasks  []TaskRow `json:"tasks"`
	NTasks int       `json:"n_tasks"`
	// Table holds the strings of the rows' packed cells, nil when none
	// are packed.
	Table  *CellTable `json:"-"`
	Solved int        `json:"solved"`
	// Unknown counts attempts with no recorded outcome, left out of
	// pass@1 (their task cannot clear pass^k); UnknownTasks the tasks with no known attempt at
	// all, which are in neither rate's denominator.
	Unknown      int `json:"unknown"`
	UnknownTasks int `json:"unknown_tasks"`
	// PassAt1 is the mean over tasks with a known attempt of solved /
	// known attempts.
	PassAt1 float64 `json:"pass_at_1"`
	// PassHatK is the share of those tasks solved on all k seeds.
	PassHatK float64 `json:"pass_hat_k"`
	// Resolution is 1 / number of tasks: the step pass^k moves in.
	Resolution float64 `json:"resolution"`
}

// NobodyClears lists tasks no attempt solved, among those with an
// attempt whose outcome is known: a task nobody recorded an outcome for
// is not known to be hard.
func (g *Grid) NobodyClears() []string {
	var out []string
	for _, t := range g.Tasks {
		if t.Solved == 0 && t.Runs > t.Unknown {
			out = append(out, t.TaskID)
		}
	}
	return out
}

// Saturated lists tasks solved on every one of the k seeds.
func (g *Grid) Saturated() []string {
	var out []string
	for _, t := range g.Tasks {
		if t.PassHatK {
			out = append(out, t.TaskID)
		}
	}
	return out
}

// Column is a task's attempts at one seed of the grid: none, one, or one
// per run when runs are counted together.
type Column struct {
	// Attempts are the task's cells at the seed (a part of its Cells).
	Attempts        []Cell
	Solved, Unknown int
	Leaked          bool
}

// Columns gives a task's column at each of seeds (ascending) in one pass
// over its cells, which the grid keeps sorted by seed. Looking each seed
// up on its own was quadratic: a million traces over 5,000 seeds would
// have taken billions of steps.
func Columns(cells []Cell, seeds []int) []Column {
	out := make([]Column, len(seeds))
	i := 0
	for j, s := range seeds {
		for i < len(cells) && cells[i].Seed < s {
			i++
		}
		from := i
		c := &out[j]
		for ; i < len(cells) && cells[i].Seed == s; i++ {
			switch {
			case cells[i].Unknown:
				c.Unknown++
			case cells[i].Solved:
				c.Solved++
			}
			c.Leaked = c.Leaked || cells[i].Leaked
		}
		c.Attempts = cells[from:i:i]
	}
	return out
}

// CellState is what a column of the grid shows.
type CellState int

// The states of a grid column.
const (
	CellMissing CellState = iota
	CellSolved
	CellFailed
	CellMixed
	CellLeaked
	CellUnknown
)

// State is the column's state: not run, leaked, every outcome unknown,
// every attempt solved, none solved, or some.
func (c Column) State() CellState {
	n := len(c.Attempts)
	switch {
	case n == 0:
		return CellMissing
	case c.Leaked:
		return CellLeaked
	case c.Unknown == n:
		return CellUnknown
	case c.Solved == n:
		return CellSolved
	case c.Solved == 0:
		return CellFailed
	default:
		return CellMixed
	}
}

// Symbol is the column's symbol in the text, Markdown and HTML grids
// (GridLegend explains them).
func (c Column) Symbol() string {
	return [...]string{CellMissing: "·", CellSolved: "●", CellFailed: "○", CellMixed: "◐", CellLeaked: "!", CellUnknown: "?"}[c.State()]
}

// GridLegend explains the grid's symbols in the text, Markdown and HTML
// reports.
const GridLegend = "● solved  ○ not solved  ◐ some  ? outcome unknown  ! leaked  · not run"
