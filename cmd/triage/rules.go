package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/rules"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

func newRulesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Label traces with the deterministic rules, and explain a verdict",
	}
	cmd.AddCommand(newRulesRunCmd(a), newRulesExplainCmd(a), newRulesCheckCmd(a))
	return cmd
}

func newRulesRunCmd(a *app) *cobra.Command {
	var run, packDir string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Label every trace that has no verdict under this taxonomy and rules version",
		Long: `Run the rules (TIMEOUT, TOOL_LOOP, ASSUME_API, MISSING_ASK, SCOPE_SLIP, PASS_WEAK,
PASS_CONTRACT, SCORER_RED, in the seed's order) over every trace not yet labelled under
the current taxonomy and rules version. Verdicts under older versions are kept.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runRules(cmd.Context(), run, packDir, true)
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "only this run")
	cmd.Flags().StringVar(&packDir, "pack", "", "task pack to use instead of the one recorded by card init")
	return cmd
}

// labeller classifies stored rows on all cores, with the pack and budgets
// of each row's run. Runs are read by prepare before labelling starts; a
// run's pack is loaded when its first pending row arrives, so a run with
// nothing to label (whose pack may have moved since) is never read.
type labeller struct {
	db  store.Store
	tax *triage.Taxonomy
	// base is the taxonomy compiled once for every run and task; tasks
	// the state of the tasks with a pack entry, bounded.
	base  *rules.Base
	tasks *taskCache
	pk    packs
	held  map[int64]bool
	runs  map[string]*runRules
	// cut counts traces read only up to maxReadToolCalls calls.
	cut atomic.Int64
}

type runRules struct {
	controls triage.Controls
	budgets  rules.Budgets
	once     sync.Once
	loaded   bool // the pack was asked for: some row of the run was labelled
	pack     *triage.Pack
	err      error
}

// loadPack loads the run's pack once; two batches may be labelled at once.
func (rr *runRules) loadPack(p *packs) error {
	rr.once.Do(func() {
		rr.pack, rr.err = p.load(rr.controls)
		if rr.err == nil && rr.pack != nil {
			// Labels are for the pack card init froze: its allowlists,
			// specs and sentinels decide them. pack.Open's hash reads
			// the files only when their stats changed since the last
			// full read (pack.CachedHash).
			rr.err = frozenPack(rr.controls, rr.pack, "its allowlists, specs and sentinels may not be the ones the run was frozen with, so the rules cannot label by them (restore the pack, or freeze a new run with card init)")
		}
		rr.loaded = true
	})
	return rr.err
}

// taskCache holds the compiled state of the tasks being labelled, shared
// by the batches of one command and bounded by weight (rules.Compiled's
// Weight): when it is full it starts again empty, so a store of a million
// tasks, or a pack of tasks with a thousand globs each, holds a bounded
// amount at a time, while the tasks of an ordinary pack are compiled once.
// (A map per batch, tried first, recompiled a 1,000-task pack's tasks in
// every batch of 2,048 rows: rules run 8.5 → 39.7 s of CPU.) A trace whose
// task has no pack entry shares the base's one no-task state.
type taskCache struct {
	base *rules.Base
	mu   sync.Mutex
	// m is keyed by pack and task id, not by the *triage.Task: a pack read
	// on demand (pack.Open) reads a task again, as a new value, once its own
	// cache has dropped it, and that must not compile the task again.
	m      map[taskKey]*rules.Compiled
	weight int
	// compiles counts ForTask calls for a pack entry, for the tests that
	// hold compile work to a task per batch, never a row.
	compiles atomic.Int64
}

// maxTaskWeight bounds a taskCache: about 32,000 compiled globs or API
// paths' worth. A variable so that a test can make a small pack overflow
// it.
var maxTaskWeight = 1 << 15

func newTaskCache(base *rules.Base) *taskCache {
	return &taskCache{base: base}
}

// forTask returns the compiled state of task id in pack pk (nil: no pack).
func (c *taskCache) forTask(pk *triage.Pack, id string) *rules.Compiled {
	ct, _ := c.get(pk, id, true)
	return ct
}

// cached returns the compiled state of task id in pk when it needs no
// compiling (the task is cached, or has no pack entry).
func (c *taskCache) cached(pk *triage.Pack, id string) (*rules.Compiled, bool) {
	return c.get(pk, id, false)
}

func (c *taskCache) get(pk *triage.Pack, id string, compile bool) (*rules.Compiled, bool) {
	k := taskKey{pk, id}
	c.mu.Lock()
	ct, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return ct, true
	}
	t := pk.Task(id)
	if t == nil {
		return c.base.ForTask(nil), true
	}
	if !compile {
		return nil, false
	}
	// Compiled outside the lock, so the other worker is not held up by a
	// long allowlist; if both compile one task, one result is kept.
	c.compiles.Add(1)
	ct = c.base.ForTask(t)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[k]; ok {
		return old, true
	}
	if c.m == nil || c.weight+ct.Weight() > maxTaskWeight {
		c.m, c.weight = map[taskKey]*rules.Compiled{}, 0
	}
	c.m[k] = ct
	c.weight += ct.Weight()
	return ct, true
}

// taskKey names a task of a run's pack within one batch.
type taskKey struct {
	pk *triage.Pack
	id string
}

// errRunAppeared stops a labelling that met a trace of a run it did not
// read the controls of: an import committed the run between prepare and
// LabelPending's transaction. Nothing is written, and the rules run starts
// again with the new run's controls.
var errRunAppeared = errors.New("run appeared during labelling")

// maxRelabels bounds how often a rules run starts again for runs that
// appeared meanwhile (each time, imports committed a new run in the
// moment between reading the controls and beginning to write).
const maxRelabels = 20

// prepare reads every run's controls and budgets before labelling starts:
// during LabelPending the store's one connection is inside a transaction,
// so the callback must not query the store.
func (l *labeller) prepare(ctx context.Context) error {
	runs, err := l.db.RunControls(ctx)
	if err != nil {
		return err
	}
	l.runs = make(map[string]*runRules, len(runs))
	for _, c := range runs {
		l.runs[c.RunID] = &runRules{controls: c, budgets: rules.BudgetsFromControls(&c)}
	}
	return nil
}

func (l *labeller) label(rows []store.StoredRow) ([]triage.LabelEvent, error) {
	for _, r := range rows {
		rr := l.runs[r.RunID]
		if rr == nil {
			return nil, fmt.Errorf("trace %d: run %q: %w", r.ID, r.RunID, errRunAppeared)
		}
		if err := rr.loadPack(&l.pk); err != nil {
			return nil, err
		}
	}
	events := make([]triage.LabelEvent, len(rows))
	errs := make([]error, len(rows))
	// A task is compiled at most once a batch in the first pass. When the
	// cache drops a task the batch already compiled (the batch's tasks
	// outweigh it, e.g. rows alternating between two tasks of 20,000
	// globs), the row waits for the second pass, which compiles each such
	// task once for all its waiting rows: the cache could otherwise
	// compile again for every row.
	var (
		mu       sync.Mutex
		compiled = map[taskKey]bool{}
		waiting  []int
	)
	classify := func(i int, tr *triage.Trace, ct *rules.Compiled) {
		r := rows[i]
		var opts []rules.Option
		if l.held[r.ID] {
			opts = append(opts, rules.HeldOut)
		}
		v := ct.Classify(l.runs[r.RunID].budgets, tr, opts...)
		events[i] = triage.LabelEvent{TraceID: r.ID, Actor: triage.ActorRules, Kind: triage.KindRule,
			Primary: v.Primary, Secondary: v.Secondary, TaxonomyVersion: v.TaxonomyVersion, Verdict: &v}
	}
	taskIDs := make([]string, len(rows))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(rows); i += workers {
				r := rows[i]
				tr, err := l.db.Decode(r)
				if err != nil {
					errs[i] = err
					continue
				}
				if tr.ReadCut != nil {
					l.cut.Add(1)
				}
				pk := l.runs[r.RunID].pack
				ct, ok := l.tasks.cached(pk, tr.TaskID)
				if !ok {
					k := taskKey{pk, tr.TaskID}
					mu.Lock()
					again := compiled[k]
					compiled[k] = true
					if again {
						waiting = append(waiting, i)
						taskIDs[i] = tr.TaskID
					}
					mu.Unlock()
					if again {
						continue
					}
					ct = l.tasks.forTask(pk, tr.TaskID)
				}
				classify(i, tr, ct)
			}
		}()
	}
	wg.Wait()
	if len(waiting) > 0 {
		// Second pass, one task at a time: its rows decoded again (only
		// rows whose task the cache dropped within this batch).
		slices.SortFunc(waiting, func(a, b int) int {
			return cmp.Or(cmp.Compare(rows[a].RunID, rows[b].RunID), cmp.Compare(taskIDs[a], taskIDs[b]), cmp.Compare(a, b))
		})
		for lo := 0; lo < len(waiting); {
			hi := lo + 1
			pk := l.runs[rows[waiting[lo]].RunID].pack
			for hi < len(waiting) && l.runs[rows[waiting[hi]].RunID].pack == pk && taskIDs[waiting[hi]] == taskIDs[waiting[lo]] {
				hi++
			}
			ct := l.tasks.base.ForTask(pk.Task(taskIDs[waiting[lo]]))
			l.tasks.compiles.Add(1)
			for _, i := range waiting[lo:hi] {
				tr, err := l.db.Decode(rows[i])
				if err != nil {
					errs[i] = err
					continue
				}
				classify(i, tr, ct)
			}
			lo = hi
		}
	}
	return events, errors.Join(errs...)
}

func (a *app) runRules(ctx context.Context, run, packDir string, verbose bool) error {
	streamingGC()
	tax, err := a.taxonomy()
	if err != nil {
		return err
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := requireRun(ctx, db, run); err != nil {
		return err
	}
	db.SetActivity("a rules run")
	held, err := db.HeldOut(ctx)
	if err != nil {
		return err
	}
	var l *labeller
	var n int
	start := time.Now()
	base := rules.CompileTaxonomy(tax)
	for try := 0; ; try++ {
		l = &labeller{db: db, tax: tax, base: base, tasks: newTaskCache(base), pk: packs{override: packDir}, held: held}
		if err := l.prepare(ctx); err != nil {
			return err
		}
		n, err = db.LabelPending(ctx, run, tax.Version, rules.RulesVersion, l.label)
		if errors.Is(err, errRunAppeared) && try < maxRelabels {
			continue
		}
		if errors.Is(err, errRunAppeared) {
			return fmt.Errorf("%w %d times: imports keep adding runs; run the rules again when they are done", err, maxRelabels+1)
		}
		if err != nil {
			return err
		}
		break
	}
	if verbose {
		noun := "traces"
		if n == 1 {
			noun = "trace"
		}
		sayf(a.stdout, "%d %s labelled by the rules (taxonomy %s, rules v%s) in %s\n", n, noun, rules.ShortVersion(tax.Version), rules.RulesVersion, time.Since(start).Round(time.Millisecond))
		if c := l.cut.Load(); c > 0 {
			sayf(a.stderr, "note: %d traces have more than %d tool calls: the rules read the first %d of each (rules explain says which)\n", c, maxReadToolCalls, maxReadToolCalls)
		}
		for _, rr := range l.runs {
			if rr.loaded && rr.pack == nil {
				sayln(a.stderr, "note: no task pack for some runs (card init --pack): ASSUME_API, MISSING_ASK and SCOPE_SLIP could not be evaluated there")
				break
			}
		}
	}
	return nil
}

func newRulesExplainCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain RUN/TASK#SEED | ID",
		Short: "Show one trace's verdict with its evidence",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runExplain(cmd.Context(), args[0], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the verdict as JSON")
	return cmd
}

// findTrace resolves RUN/TASK#SEED (seed defaults to 0) or a numeric id
// to a trace id.
func (a *app) findTrace(ctx context.Context, db store.Store, ref string) (int64, error) {
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		if _, err := db.Summary(ctx, id); err != nil {
			return 0, fmt.Errorf("trace %d: %w", id, err)
		}
		return id, nil
	}
	run, rest, ok := strings.Cut(ref, "/")
	if !ok || run == "" || rest == "" {
		return 0, usageErr("trace %q: want RUN/TASK#SEED or a trace id", ref)
	}
	// The seed follows the last '#', since a task id may hold one
	// (TraceKey writes RUN/TASK#SEED whatever the task).
	task, seedS, hasSeed := rest, "", false
	if i := strings.LastIndexByte(rest, '#'); i >= 0 {
		task, seedS, hasSeed = rest[:i], rest[i+1:], true
	}
	seed := 0
	if hasSeed {
		n, err := strconv.Atoi(seedS)
		if err != nil || n < 0 {
			return 0, usageErr("trace %q: seed %q is not a non-negative integer", ref, seedS)
		}
		seed = n
	}
	return db.FindTrace(ctx, run, task, seed)
}

// storedTrace loads the trace a command line names (RUN/TASK#SEED or an
// id).
func (a *app) storedTrace(ctx context.Context, db store.Store, ref string) (*triage.Trace, error) {
	id, err := a.findTrace(ctx, db, ref)
	if err != nil {
		return nil, err
	}
	return db.Trace(ctx, id)
}

func (a *app) runExplain(ctx context.Context, ref string, asJSON bool) error {
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	tr, err := a.storedTrace(ctx, db, ref)
	if err != nil {
		return err
	}
	if tr.ReadCut != nil {
		sayln(a.stderr, "note: "+tr.Key()+": "+tr.ReadCut.Note())
	}
	v, err := db.Verdict(ctx, tr.ID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s has no verdict yet: run 'triage rules run'", tr.Key())
	}
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(a.stdout, struct {
			Trace   string          `json:"trace"`
			Verdict *triage.Verdict `json:"verdict"`
		}{tr.Key(), v})
	}
	return rules.WriteExplain(a.stdout, tr, *v)
}
