package card

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// TrendRun folds one run's trace rows, task by task, for Trends: the
// counts a share, pass@1 and pass^k need with intervals clustered by task
// (seed 004: "clustered CIs when a claim needs them"). A row counts under
// its CountedPrimary and Solved, the rules every report and card count by.
// The zero value is not ready; use NewTrendRun.
type TrendRun struct {
	RunID string
	tasks map[string]*trendTask
	n     int
	k     int
	// leftovers and unknown count the rows whose label is provisional
	// and whose outcome nobody recorded, for the caveats.
	leftovers, unknown int
	// order is the tasks sorted by id, nil until needed and after a new
	// task: sums run in one order, so a figure is the same bits whatever
	// the map's order (and the store behind it).
	order []*trendTask
}

// byTask lists the run's tasks in id order.
func (r *TrendRun) byTask() []*trendTask {
	if r.order == nil {
		r.order = make([]*trendTask, 0, len(r.tasks))
		for _, id := range slices.Sorted(maps.Keys(r.tasks)) {
			r.order = append(r.order, r.tasks[id])
		}
	}
	return r.order
}

type trendTask struct {
	// unknown counts attempts with no recorded outcome (TraceRow
	// Unknown): out of pass@1, and their task cannot clear pass^k, as in
	// the report's grid.
	n, solved, unknown int
	// classes counts the task's traces by class: a few classes a task,
	// so a list, not a map (a map a task was 30 MB on 100,000 tasks).
	classes classCounts
	// clusters counts the task's traces by failure cluster (TraceRow
	// Cluster), nil until one is seen.
	clusters map[string]int
}

// classCounts counts traces by class, in the order the classes came.
type classCounts []classCount

type classCount struct {
	class string
	n     int
}

func (cs *classCounts) add(c string) {
	for i := range *cs {
		if (*cs)[i].class == c {
			(*cs)[i].n++
			return
		}
	}
	*cs = append(*cs, classCount{c, 1})
}

func (cs classCounts) of(c string) int {
	for _, x := range cs {
		if x.class == c {
			return x.n
		}
	}
	return 0
}

// NewTrendRun returns an empty run named id.
func NewTrendRun(id string) *TrendRun {
	return &TrendRun{RunID: id, tasks: map[string]*trendTask{}}
}

// Add folds one row in. A task is counted per model and agent (as the
// report's grid counts it, unitKey): two models' runs of a task of one
// name are not attempts of one task, for pass^k or the intervals.
func (r *TrendRun) Add(row *TraceRow) {
	key := row.TaskID
	if row.Model != "" || row.Agent != "" {
		key += "\x00" + row.Model + "\x00" + row.Agent
	}
	t := r.tasks[key]
	if t == nil {
		t = &trendTask{}
		r.tasks[key] = t
		r.order = nil
	}
	t.n++
	r.n++
	r.k = max(r.k, t.n)
	switch {
	case row.Unknown():
		t.unknown++
		r.unknown++
	case row.Solved():
		t.solved++
	}
	if row.Leftover {
		r.leftovers++
	}
	c := row.CountedPrimary()
	if c == "" {
		c = reportview.Unlabelled // named, as the mix names it, not a blank figure
	}
	t.classes.add(c)
	if row.Cluster != "" {
		if t.clusters == nil {
			t.clusters = map[string]int{}
		}
		t.clusters[row.Cluster]++
	}
}

// shortOfK counts the run's tasks that ran fewer than its k attempts.
func (r *TrendRun) shortOfK() int {
	n := 0
	for _, t := range r.tasks {
		// A task with no known attempt is in neither rate (passHatK
		// leaves it out), so it is not one that "cannot clear" pass^k.
		if t.n < r.k && t.n > t.unknown {
			n++
		}
	}
	return n
}

// Len is the number of rows added.
func (r *TrendRun) Len() int { return r.n }

// scored says some of the run's outcomes are known: only then are its
// pass@1 and pass^k figures (a run nobody scored has none, not 0 %).
func (r *TrendRun) scored() bool { return r.n > r.unknown }

// Estimate is a figure with its 95 % interval, clustered by task.
type Estimate struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	// SE is the standard error the interval comes from.
	SE float64 `json:"se"`
}

// z95 is the normal quantile of a two-sided 95 % interval.
const z95 = 1.959964

func estimate(v, se float64) Estimate {
	return Estimate{Value: v, SE: se, Lo: math.Max(0, v-z95*se), Hi: math.Min(1, v+z95*se)}
}

// share is the share of the run's traces with class c: the ratio of two
// sums over tasks, its variance the cluster-robust (linearised) one, so
// seeds of one task, which succeed and fail together, are not counted as
// independent draws.
func (r *TrendRun) share(c string, cluster bool) Estimate {
	if r.n == 0 {
		return Estimate{}
	}
	count := func(t *trendTask) int { return t.classes.of(c) }
	if cluster {
		count = func(t *trendTask) int { return t.clusters[c] }
	}
	var y float64
	for _, t := range r.byTask() {
		y += float64(count(t))
	}
	p := y / float64(r.n)
	return estimate(p, r.clusteredSE(p, count))
}

func (r *TrendRun) clusteredSE(p float64, count func(*trendTask) int) float64 {
	m := float64(len(r.tasks))
	if m < 2 {
		return 0
	}
	var ss float64
	for _, t := range r.byTask() {
		d := float64(count(t)) - p*float64(t.n)
		ss += d * d
	}
	return math.Sqrt(m/(m-1)*ss) / float64(r.n)
}

// passAt1 is the mean over tasks of solved seeds over seeds run, with the
// standard error of a mean of task means. As in the report's grid,
// attempts with no recorded outcome are left out, and so are tasks with
// no known attempt.
func (r *TrendRun) passAt1() Estimate {
	var rates []float64
	for _, t := range r.byTask() {
		if known := t.n - t.unknown; known > 0 {
			rates = append(rates, float64(t.solved)/float64(known))
		}
	}
	m := float64(len(rates))
	if m == 0 {
		return Estimate{}
	}
	var sum float64
	for _, x := range rates {
		sum += x
	}
	mean := sum / m
	if m < 2 {
		return estimate(mean, 0)
	}
	var ss float64
	for _, x := range rates {
		d := x - mean
		ss += d * d
	}
	return estimate(mean, math.Sqrt(ss/(m-1)/m))
}

// passHatK is the share of tasks solved on all k seeds; each task is one
// draw, so its error is binomial over tasks.
func (r *TrendRun) passHatK() Estimate {
	clear, scored := 0, 0
	for _, t := range r.byTask() {
		if t.n == t.unknown {
			continue // nothing known: in neither rate's denominator
		}
		scored++
		if t.solved == t.n && t.n == r.k {
			clear++
		}
	}
	m := float64(scored)
	if m == 0 {
		return Estimate{}
	}
	p := float64(clear) / m
	return estimate(p, math.Sqrt(p*(1-p)/m))
}

// figure returns one of the trend's figures for this run.
func (r *TrendRun) figure(f trendFigure) Estimate {
	switch {
	case f.cluster:
		return r.share(f.name, true)
	case f.name == TrendPassAt1:
		return r.passAt1()
	case f.name == TrendPassHatK:
		return r.passHatK()
	}
	return r.share(f.name, false)
}

// outcomeFigure says a figure rests on the scorer's verdicts: pass@1,
// pass^k, and the shares of the classes only a verdict can give (PASS_*,
// SCORER_RED), which a run nobody scored has 0 % of by construction.
func outcomeFigure(name string) bool {
	switch name {
	case TrendPassAt1, TrendPassHatK, triage.PassContract, triage.PassWeak, triage.ScorerRed:
		return true
	}
	return false
}

// trendFigure names a figure: pass@1, pass^k, a class, or a cluster.
type trendFigure struct {
	name    string
	cluster bool
}

// The trend figures besides the class shares.
const (
	TrendPassAt1  = "pass@1"
	TrendPassHatK = "pass^k"
)

// TrendKDiffers is a pass^k point's call when the point before it ran a
// different k: solving all of 5 attempts and all of 1 are not one figure.
const TrendKDiffers = "k differs"

// TrendPoint is one run's value of one figure.
type TrendPoint struct {
	RunID  string `json:"run_id"`
	Traces int    `json:"traces"`
	Tasks  int    `json:"tasks"`
	// Leftovers count the point's traces whose label is provisional (a
	// rules leftover nobody settled); UnknownOutcome those with no
	// recorded outcome (UnknownOutcomeEffect).
	Leftovers      int `json:"leftovers"`
	UnknownOutcome int `json:"unknown_outcome"`
	// K is the most attempts any of the point's tasks ran, the k of its
	// pass^k; ShortOfK counts its tasks that ran fewer and so cannot
	// clear pass^k. A pass^k change between points of different k is
	// not a trend (Trend "k differs").
	K        int `json:"k"`
	ShortOfK int `json:"short_of_k"`
	// NoOutcome says the point is a figure that rests on verdicts
	// (outcomeFigure: pass@1, pass^k, PASS_*, SCORER_RED) of a run none
	// of whose outcomes is known: no figure at all, not 0 (its Estimate
	// is zero and means nothing), and no change to or from it is called.
	NoOutcome bool     `json:"no_outcome,omitempty"`
	Estimate  Estimate `json:"estimate"`
	// Change is the difference from the previous run, nil for the first.
	Change *float64 `json:"change,omitempty"`
	// Trend says whether the change is more than noise: "up", "down", or
	// "noise" when it is inside the noise floor or the 95 % interval of
	// the difference; "k differs" for pass^k between points of different
	// k, which measure different things; "" for the first run.
	Trend string `json:"trend,omitempty"`
}

// TrendLine is one figure across the runs.
type TrendLine struct {
	Figure string `json:"figure"`
	// Cluster is true when Figure is a failure cluster's name (its share
	// of all the run's traces), not a class or a rate.
	Cluster bool `json:"cluster,omitempty"`
	// NoiseFloor is the difference between the two runs of one
	// configuration (seed 004), nil when none was given.
	NoiseFloor *float64     `json:"noise_floor"`
	Points     []TrendPoint `json:"points"`
}

// MaxTrendClusters bounds the clusters Trends follows: the largest over
// all the runs; TrendClustersLeftOut says how many more there were.
const MaxTrendClusters = 10

// Trends computes, for pass@1, pass^k, every class of the taxonomy seen in
// the runs and the largest failure clusters (MaxTrendClusters of them,
// when rows carry one), each run's value with its 95 % interval clustered
// by task, in the runs' order, and whether each change from the run
// before is a trend: larger than the noise floor (the same figure's
// difference between noise[0] and noise[1], two runs of one
// configuration, when given) and than the 95 % interval of the difference
// of two independent runs. A change inside either is called noise, never
// a trend.
func Trends(tax *triage.Taxonomy, runs []*TrendRun, noise *[2]*TrendRun) []TrendLine {
	figures := []trendFigure{{name: TrendPassAt1}, {name: TrendPassHatK}}
	seen := map[string]bool{}
	for _, r := range runs {
		for _, t := range r.byTask() {
			for _, cc := range t.classes {
				seen[cc.class] = true
			}
		}
	}
	if tax != nil {
		for _, c := range tax.Codes() {
			figures = append(figures, trendFigure{name: c})
			delete(seen, c)
		}
	}
	for _, c := range slices.Sorted(maps.Keys(seen)) {
		figures = append(figures, trendFigure{name: c})
	}
	clusters, _ := topClusters(runs)
	for _, c := range clusters {
		figures = append(figures, trendFigure{name: c, cluster: true})
	}
	out := make([]TrendLine, 0, len(figures))
	for _, f := range figures {
		line := TrendLine{Figure: f.name, Cluster: f.cluster, Points: make([]TrendPoint, 0, len(runs))}
		floor := 0.0
		// pass^k's floor needs the two noise runs at one k: otherwise
		// their difference is that of two bars, not noise, and none is
		// taken (the section says so).
		if noise != nil && (f.name != TrendPassHatK || f.cluster || noise[0].k == noise[1].k) {
			d := math.Abs(noise[0].figure(f).Value - noise[1].figure(f).Value)
			line.NoiseFloor, floor = &d, d
		}
		rate := !f.cluster && outcomeFigure(f.name)
		for i, r := range runs {
			e := r.figure(f)
			p := TrendPoint{RunID: r.RunID, Traces: r.n, Tasks: len(r.tasks), Leftovers: r.leftovers, UnknownOutcome: r.unknown,
				K: r.k, ShortOfK: r.shortOfK(), Estimate: e, NoOutcome: rate && !r.scored()}
			if i > 0 && (!rate || (r.scored() && runs[i-1].scored())) {
				prev := runs[i-1].figure(f)
				d := e.Value - prev.Value
				p.Change = &d
				band := z95 * math.Hypot(e.SE, prev.SE)
				switch {
				case f.name == TrendPassHatK && !f.cluster && runs[i-1].k != r.k:
					p.Trend = TrendKDiffers
				case math.Abs(d) <= floor || math.Abs(d) <= band:
					p.Trend = "noise"
				case d > 0:
					p.Trend = "up"
				default:
					p.Trend = "down"
				}
			}
			line.Points = append(line.Points, p)
		}
		out = append(out, line)
	}
	return out
}

// topClusters lists the largest clusters over all runs (at most
// MaxTrendClusters, ties by name) and how many were left out.
func topClusters(runs []*TrendRun) ([]string, int) {
	size := map[string]int{}
	for _, r := range runs {
		for _, t := range r.byTask() {
			for c, n := range t.clusters {
				size[c] += n
			}
		}
	}
	names := slices.Collect(maps.Keys(size))
	slices.SortFunc(names, func(a, b string) int {
		if size[a] != size[b] {
			return size[b] - size[a]
		}
		return strings.Compare(a, b)
	})
	if len(names) <= MaxTrendClusters {
		return names, 0
	}
	return names[:MaxTrendClusters], len(names) - MaxTrendClusters
}

// TrendClustersLeftOut is how many clusters the runs have beyond the
// MaxTrendClusters that Trends follows.
func TrendClustersLeftOut(runs []*TrendRun) int {
	_, n := topClusters(runs)
	return n
}
