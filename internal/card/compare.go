package card

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// CompareOptions relax Compare's refusal.
type CompareOptions struct {
	// Force compares cards of different datasets anyway (and says so).
	Force bool
}

// Comparison is what changed between two cards A and B.
type Comparison struct {
	A Side `json:"a"`
	B Side `json:"b"`
	// NewBenchmark is true when the dataset hashes differ: B ran other
	// tasks, so its figures are not comparable with A's like for like.
	NewBenchmark bool `json:"new_benchmark"`
	Forced       bool `json:"forced"`
	// Changes lists every difference in what was run and how it was
	// measured; Kind is control, subject or instrument.
	Changes []Change `json:"changes"`
	// SameConfiguration is true when nothing in Changes differs: two runs
	// of one configuration, whose flips are the noise floor.
	SameConfiguration bool         `json:"same_configuration"`
	ClassDeltas       []ClassDelta `json:"class_deltas"`
	RateDeltas        []RateDelta  `json:"rate_deltas"`
	CellsCompared     int          `json:"cells_compared"`
	CellsFlipped      int          `json:"cells_flipped"`
	Flips             []Flip       `json:"flips"`
	OnlyInA           []string     `json:"only_in_a"`
	OnlyInB           []string     `json:"only_in_b"`
	NoiseFloor        *NoiseFloor  `json:"noise_floor"`
	// Trend is A → B with 95 % intervals clustered by task, each change
	// called up, down or noise; nil when the sides are card files (a
	// card carries no per-task class counts).
	Trend *TrendReport `json:"trend"`
	Notes []string     `json:"notes"`
}

// Side identifies one card of a comparison.
type Side struct {
	RunID         string   `json:"run_id"`
	DatasetID     string   `json:"dataset_id"`
	DatasetSHA256 string   `json:"dataset_sha256"`
	PromptID      string   `json:"prompt_id"`
	NTasks        int      `json:"n_tasks"`
	Tasks         int      `json:"tasks"`
	Models        []string `json:"models"`
	Agents        []string `json:"agents"`
	// Caveats say what this side's figures left out or rest on.
	Caveats Caveats `json:"caveats"`
}

// Change kinds.
const (
	KindControl    = "control"    // a frozen control of seed 000 (or the prompt id)
	KindSubject    = "subject"    // what ran: models, agents
	KindInstrument = "instrument" // how it was measured: taxonomy, rules
)

// Change is one field that differs between A and B.
type Change struct {
	Kind  string `json:"kind"`
	Field string `json:"field"`
	A     string `json:"a"`
	B     string `json:"b"`
}

// ClassDelta is one primary class's count and share in A and B.
type ClassDelta struct {
	Code       string  `json:"code"`
	A          int     `json:"a"`
	B          int     `json:"b"`
	Delta      int     `json:"delta"`
	ShareA     float64 `json:"share_a"`
	ShareB     float64 `json:"share_b"`
	ShareDelta float64 `json:"share_delta"`
}

// RateDelta is one derived figure in A and B.
type RateDelta struct {
	Name  string  `json:"name"`
	A     float64 `json:"a"`
	B     float64 `json:"b"`
	Delta float64 `json:"delta"`
}

// Flip is a task whose pass^k cell differs between A and B.
type Flip struct {
	TaskID  string `json:"task_id"`
	A       bool   `json:"a"`
	B       bool   `json:"b"`
	SolvedA int    `json:"solved_a"`
	RunsA   int    `json:"runs_a"`
	SolvedB int    `json:"solved_b"`
	RunsB   int    `json:"runs_b"`
}

// NoiseFloor is the flips between two runs of one configuration (seed
// 004): differences no larger than this are not findings.
type NoiseFloor struct {
	Flipped int     `json:"flipped"`
	Cells   int     `json:"cells"`
	Share   float64 `json:"share"`
	Text    string  `json:"text"`
}

// Compare compares card A with card B. When the dataset hashes differ it
// refuses with ErrNewBenchmark unless forced; the returned Comparison then
// still lists the changes, so the caller can show why.
func Compare(a, b *Card, opts CompareOptions) (*Comparison, error) {
	if a == nil || b == nil {
		return nil, fmt.Errorf("%w: compare needs two cards", ErrBadInput)
	}
	c := &Comparison{A: sideOf(a), B: sideOf(b), Forced: opts.Force,
		Flips: []Flip{}, OnlyInA: []string{}, OnlyInB: []string{}, Notes: []string{}}
	c.Changes = changes(a, b)
	c.SameConfiguration = len(c.Changes) == 0
	if a.DatasetSHA256 != b.DatasetSHA256 {
		c.NewBenchmark = true
		msg := fmt.Sprintf("dataset_sha256 differs (%s vs %s): B ran a different task pack, so this is a new benchmark and the figures are not comparable like for like",
			short(clean(orNone(a.DatasetSHA256))), short(clean(orNone(b.DatasetSHA256))))
		if !opts.Force {
			return c, fmt.Errorf("%w: %s; pass --force to compare anyway", ErrNewBenchmark, msg)
		}
		c.Notes = append(c.Notes, "Forced: "+msg+".")
	}
	c.ClassDeltas = classDeltas(a, b)
	c.RateDeltas = []RateDelta{
		rate("headline_pass_rate", a.Derived.HeadlinePassRate, b.Derived.HeadlinePassRate),
		rate("contract_pass_rate", a.Derived.ContractPassRate, b.Derived.ContractPassRate),
		rate("assumption_share", a.Derived.AssumptionShare, b.Derived.AssumptionShare),
		rate("loop_share", a.Derived.LoopShare, b.Derived.LoopShare),
		rate("pass_at_1", a.Seeds.PassAt1, b.Seeds.PassAt1),
		rate("pass_hat_k", a.Seeds.PassHatK, b.Seeds.PassHatK),
	}
	compareGrid(c, a, b)
	c.Notes = append(c.Notes, caveatNotes(c)...)
	if a.Seeds.K != b.Seeds.K {
		c.Notes = append(c.Notes, fmt.Sprintf("k differs (%d vs %d): pass^k asks more of the side with more seeds.", a.Seeds.K, b.Seeds.K))
	}
	if len(a.Seeds.PerTask) == 0 || len(b.Seeds.PerTask) == 0 {
		c.Notes = append(c.Notes, "A card carries no per-task grid (seeds.per_task), so no cells were compared.")
	}
	if c.CellsCompared > 0 {
		share := ratio(c.CellsFlipped, c.CellsCompared)
		if c.SameConfiguration {
			c.NoiseFloor = &NoiseFloor{Flipped: c.CellsFlipped, Cells: c.CellsCompared, Share: share,
				Text: fmt.Sprintf("%d of %d pass^k cells flipped between two runs of one configuration: that is the noise floor, and a difference no larger than it is not a finding.",
					c.CellsFlipped, c.CellsCompared)}
		} else {
			c.Notes = append(c.Notes, fmt.Sprintf("%d of %d pass^k cells flipped; compare two runs of one configuration to learn the noise floor before reading these as an effect.",
				c.CellsFlipped, c.CellsCompared))
		}
	}
	return c, nil
}

// CompareInputs compares two runs directly: it builds a draft card of each
// (no refusals except an empty run) and compares those.
func CompareInputs(a, b Input, opts CompareOptions) (*Comparison, error) {
	draft := Options{AllowUnresolved: true, AllowUntrusted: true, AllowMissingControls: true}
	ca, err := Build(a, draft)
	if err != nil {
		return nil, fmt.Errorf("run A: %w", err)
	}
	cb, err := Build(b, draft)
	if err != nil {
		return nil, fmt.Errorf("run B: %w", err)
	}
	return Compare(ca, cb, opts)
}

func sideOf(c *Card) Side {
	return Side{RunID: c.RunID, DatasetID: c.DatasetID, DatasetSHA256: c.DatasetSHA256, PromptID: c.PromptID,
		NTasks: c.NTasks, Tasks: c.Seeds.Tasks, Models: orEmpty(c.Models), Agents: orEmpty(c.Agents), Caveats: cardCaveats(c)}
}

// cardCaveats are a card's caveats; a card written before it carried them
// gives what it can: its unresolved count and its trust verdict.
func cardCaveats(c *Card) Caveats {
	if c.Caveats.Traces > 0 {
		return c.Caveats
	}
	cv := Caveats{Traces: c.NTasks, Trust: trustWord(c.Taxonomy.Trust), UnknownOutcome: -1}
	if c.Unresolved != nil {
		cv.Leftovers = c.Unresolved.Count
	}
	if n, ok := c.OutcomeCounts.Get("unknown"); ok {
		cv.UnknownOutcome = n
	} else if len(c.OutcomeCounts) > 0 {
		cv.UnknownOutcome = 0
	}
	return cv
}

// caveatNotes warn, side by side, about what the figures rest on: a delta
// between provisional labels or under an untrusted taxonomy is not yet a
// finding.
func caveatNotes(c *Comparison) []string {
	var out []string
	for _, sd := range []struct {
		name string
		s    Side
	}{{"A", c.A}, {"B", c.B}} {
		cv := sd.s.Caveats
		if cv.Leftovers > 0 {
			out = append(out, fmt.Sprintf("%s: %d of %d traces are unlabelled leftovers, counted by a provisional label: review them (triage review --run %s) before reading a delta as an effect.",
				sd.name, cv.Leftovers, cv.Traces, clean(orDash(sd.s.RunID))))
		}
		if cv.UnknownOutcome > 0 {
			out = append(out, fmt.Sprintf("%s: %d of %d traces have an unknown outcome (%s).", sd.name, cv.UnknownOutcome, cv.Traces, UnknownOutcomeEffect))
		}
	}
	ta, tb := c.A.Caveats.Trust, c.B.Caveats.Trust
	if ta != TrustTrusted || tb != TrustTrusted {
		out = append(out, fmt.Sprintf("Taxonomy trust: A %s, B %s: until two people agree on a blind slice, the class deltas measure the labels as much as the runs.", clean(trustWord(ta)), clean(trustWord(tb))))
	}
	return out
}

func changes(a, b *Card) []Change {
	out := []Change{}
	add := func(kind, field, x, y string) {
		if x != y {
			out = append(out, Change{Kind: kind, Field: field, A: x, B: y})
		}
	}
	add(KindControl, "dataset_id", a.DatasetID, b.DatasetID)
	add(KindControl, "dataset_sha256", a.DatasetSHA256, b.DatasetSHA256)
	add(KindControl, "scorer", a.Scorer, b.Scorer)
	add(KindControl, "budgets.wall_s", fmtPtr(a.Budgets.WallS), fmtPtr(b.Budgets.WallS))
	add(KindControl, "budgets.max_output_tokens", fmtPtr(a.Budgets.MaxOutputTokens), fmtPtr(b.Budgets.MaxOutputTokens))
	add(KindControl, "budgets.max_tool_calls", fmtPtr(a.Budgets.MaxToolCalls), fmtPtr(b.Budgets.MaxToolCalls))
	add(KindControl, "env.image_digest", a.Env.ImageDigest, b.Env.ImageDigest)
	add(KindControl, "env.network", fmtPtr(a.Env.Network), fmtPtr(b.Env.Network))
	add(KindControl, "prompt_id", a.PromptID, b.PromptID)
	add(KindSubject, "models", strings.Join(a.Models, ", "), strings.Join(b.Models, ", "))
	add(KindSubject, "agents", strings.Join(a.Agents, ", "), strings.Join(b.Agents, ", "))
	add(KindInstrument, "taxonomy.version", a.Taxonomy.Version, b.Taxonomy.Version)
	add(KindInstrument, "rules_version", a.RulesVersion, b.RulesVersion)
	return out
}

func fmtPtr[T any](p *T) string {
	if p == nil {
		return ""
	}
	return fmt.Sprint(*p)
}

// classDeltas lists a's classes, then those only b has. Counts are looked
// up in maps: card files are untrusted and may list any number of classes.
func classDeltas(a, b *Card) []ClassDelta {
	ca, cb := countMap(a.PrimaryCounts), countMap(b.PrimaryCounts)
	codes := a.PrimaryCounts.Keys()
	for _, k := range b.PrimaryCounts.Keys() {
		if _, ok := ca[k]; !ok {
			codes = append(codes, k)
		}
	}
	out := make([]ClassDelta, 0, len(codes))
	for _, k := range codes {
		x, y := ca[k], cb[k]
		sa, sb := ratio(x, a.NTasks), ratio(y, b.NTasks)
		out = append(out, ClassDelta{Code: k, A: x, B: y, Delta: y - x, ShareA: sa, ShareB: sb, ShareDelta: sb - sa})
	}
	return out
}

// countMap indexes counts by key; like Counts.Get, the first of a
// repeated key wins.
func countMap(c Counts) map[string]int {
	m := make(map[string]int, len(c))
	for _, e := range c {
		if _, ok := m[e.Key]; !ok {
			m[e.Key] = e.N
		}
	}
	return m
}

func rate(name string, a, b float64) RateDelta {
	return RateDelta{Name: name, A: a, B: b, Delta: b - a}
}

func compareGrid(c *Comparison, a, b *Card) {
	bt := map[string]TaskRow{}
	for _, t := range b.Seeds.PerTask {
		bt[t.TaskID] = t
	}
	seen := map[string]bool{}
	for _, ta := range a.Seeds.PerTask {
		seen[ta.TaskID] = true
		tb, ok := bt[ta.TaskID]
		if !ok {
			c.OnlyInA = append(c.OnlyInA, ta.TaskID)
			continue
		}
		c.CellsCompared++
		if ta.PassHatK != tb.PassHatK {
			c.CellsFlipped++
			c.Flips = append(c.Flips, Flip{TaskID: ta.TaskID, A: ta.PassHatK, B: tb.PassHatK,
				SolvedA: ta.Solved, RunsA: ta.Runs, SolvedB: tb.Solved, RunsB: tb.Runs})
		}
	}
	for _, tb := range b.Seeds.PerTask {
		if !seen[tb.TaskID] {
			c.OnlyInB = append(c.OnlyInB, tb.TaskID)
		}
	}
}

// WriteCompareJSON writes the comparison as indented JSON.
func WriteCompareJSON(w io.Writer, c *Comparison) error {
	enc := json.NewEncoder(triage.InertJSON(w))
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	return nil
}

// WriteCompareText writes the comparison as plain text for a terminal.
func WriteCompareText(w io.Writer, c *Comparison) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("compare A run %s (%d traces, %d tasks) with B run %s (%d traces, %d tasks)",
		fit(orNone(c.A.RunID), keyColumn), c.A.NTasks, c.A.Tasks, fit(orNone(c.B.RunID), keyColumn), c.B.NTasks, c.B.Tasks)
	for _, sd := range []struct {
		name string
		s    Side
	}{{"A", c.A}, {"B", c.B}} {
		if sd.s.Caveats.Traces > 0 {
			p("%s left out: %s", sd.name, CaveatText(sd.s.Caveats))
		}
	}
	if c.NewBenchmark {
		p("NEW BENCHMARK: dataset_sha256 %s vs %s; not comparable like for like%s.",
			short(clean(orNone(c.A.DatasetSHA256))), short(clean(orNone(c.B.DatasetSHA256))), map[bool]string{true: " (forced)", false: ""}[c.Forced])
	}
	p("")
	if len(c.Changes) == 0 {
		p("Nothing changed: same controls, prompt, models, agents, taxonomy and rules (two runs of one configuration).")
	} else {
		p("Changed:")
		for _, ch := range c.Changes {
			p("  %-10s %-26s %s → %s", ch.Kind, ch.Field, fit(orNone(ch.A), 40), fit(orNone(ch.B), 40))
		}
	}
	if c.NewBenchmark && !c.Forced {
		_, err := io.WriteString(w, b.String())
		return err
	}
	p("")
	p("Primary classes:")
	codeW := 5
	for _, d := range c.ClassDeltas {
		codeW = max(codeW, len([]rune(fit(d.Code, keyColumn))))
	}
	for _, d := range c.ClassDeltas {
		p("  %s %4d → %-4d %6s   %6s → %-6s %s", padRight(fit(d.Code, keyColumn), codeW), d.A, d.B, signed(d.Delta),
			pct(d.ShareA), pct(d.ShareB), signedPct(d.ShareDelta))
	}
	p("")
	p("Rates:")
	for _, r := range c.RateDeltas {
		p("  %-20s %s → %s  %s", r.Name, frac(r.A), frac(r.B), signedFrac(r.Delta))
	}
	p("")
	p("pass^k cells: %d of %d flipped", c.CellsFlipped, c.CellsCompared)
	for _, f := range c.Flips {
		p("  %s  %s (%d/%d) → %s (%d/%d)", fit(f.TaskID, keyColumn), yesNo(f.A), f.SolvedA, f.RunsA, yesNo(f.B), f.SolvedB, f.RunsB)
	}
	if len(c.OnlyInA) > 0 {
		p("  only in A: %s", clean(listSome(c.OnlyInA, 10)))
	}
	if len(c.OnlyInB) > 0 {
		p("  only in B: %s", clean(listSome(c.OnlyInB, 10)))
	}
	if c.NoiseFloor != nil {
		p("")
		p("Noise floor: %s", c.NoiseFloor.Text)
	}
	if c.Trend != nil {
		b.WriteString(TrendText(c.Trend, 100))
	}
	for _, n := range c.Notes {
		p("Note: %s", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// TrendText is trends as plain text for a terminal of the given width, as
// compare and triage trends print them.
func TrendText(tr *TrendReport, width int) string {
	var b strings.Builder
	writeTextSection(&b, TrendSection(tr), plainStyles(), width)
	return b.String()
}

// CompareTrend follows the figures from run A to run B of a comparison
// (their tallies' trend points), with the noise floor of noise when
// given; nil when either tally lacks its run.
func CompareTrend(tax *triage.Taxonomy, a, b Input, noise *[2]*TrendRun, noiseRuns []string, clustered bool) *TrendReport {
	if a.Tally == nil || b.Tally == nil {
		return nil
	}
	ta, tb := a.Tally.TrendRun(a.Controls.RunID), b.Tally.TrendRun(b.Controls.RunID)
	if ta == nil || tb == nil {
		return nil
	}
	pts := []*TrendRun{ta, tb}
	tr := &TrendReport{By: TrendByRun, Order: "A → B", Notes: []string{}, Points: []string{ta.RunID, tb.RunID}, NoiseRuns: []string{}, Lines: Trends(tax, pts, noise),
		Clustered: clustered, ClustersLeftOut: TrendClustersLeftOut(pts)}
	if noise != nil {
		tr.NoiseRuns = noiseRuns
	}
	return tr
}

func signed(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func signedPct(f float64) string {
	s := strconv.FormatFloat(100*f, 'f', 1, 64)
	if f > 0 {
		s = "+" + s
	}
	return s + " pt"
}

func signedFrac(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	if f > 0 {
		s = "+" + s
	}
	return s
}
