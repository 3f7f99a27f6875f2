package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/signature"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

func newClustersCmd(a *app) *cobra.Command {
	var o clusterOpts
	cmd := &cobra.Command{
		Use:   "clusters [--run R]… [--baseline RUN] [--json]",
		Short: "Group failing traces by failure signature, largest first",
		Long: `Group the failing traces (a current label other than PASS_*, or a red scorer) by their
failure signature: the exception type and message template of the last failing run
(numbers, hex addresses, temp paths, quoted identifiers and timestamps normalised away),
the failing test ids, the rules' primary and evidence, and the shape of the tool sequence.
Traces whose signatures are similar enough (weighted Jaccard, single linkage) share a
cluster. Each cluster has a name made from its signature, its size, its class mix (current
labels), a representative trace and its members.
Run ` + "`triage rules run`" + ` first: the rules' evidence is part of the signature.

With --baseline RUN, the baseline's failing traces are clustered too, and a cluster none of
whose traces is from the baseline is marked NOVEL (--json: "novel": true): a cause the
baseline did not show. Members and sizes count the other runs' traces only.

--json prints one JSON object a line per cluster: id, name, size, share, signature,
classes, representative, members (RUN/TASK#SEED), repositories (from SWE-bench-style task
ids), failing_tools (the tool whose call failed last), and with --baseline novel and
baseline_size. Failing traces that show nothing to compare (no verdict, no tool call, no
failing test, no exception) are listed after the clusters as "unclustered": true objects
with the reason (id 0). Shares are of the failing traces; a last "not_counted": true line
gives the size of those not known to have failed (no label, no scorer result, no outcome),
which are in no share.

Signature version ` + signature.Version + `, similarity threshold ` + fmt.Sprint(signature.Threshold) + `.`,
		Example: `  triage rules run
  triage clusters                           # every run
  triage clusters --run run-b --baseline run-a
  triage clusters --run run-b --json | jq -c '{id, size, novel, name}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runClusters(cmd.Context(), o)
		},
	}
	cmd.Flags().StringArrayVar(&o.runs, "run", nil, "cluster this run's traces (repeatable; default every run but the baseline)")
	cmd.Flags().StringVar(&o.baseline, "baseline", "", "flag clusters with no trace of this run as novel")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print one JSON object a line per cluster")
	cmd.Flags().IntVar(&o.show, "members", 5, "members to list per cluster in the table (--json lists all)")
	cmd.Flags().BoolVar(&o.redact, "redact", false, redactFlagUsage)
	return cmd
}

// clusterOpts are the flags of `clusters`.
type clusterOpts struct {
	runs     []string
	baseline string
	asJSON   bool
	show     int
	redact   bool
	// spill is where the clustering's temporary files go and when
	// (tests force them with a small limit).
	spill spillConf
}

// clusterJSON is one line of `clusters --json` (DESIGN §4).
type clusterJSON struct {
	ID             int                  `json:"id"`
	Name           string               `json:"name"`
	Size           int                  `json:"size"`
	Share          float64              `json:"share"`
	Signature      *signature.Signature `json:"signature"`
	Classes        []classCount         `json:"classes"`
	Representative string               `json:"representative"`
	Members        []string             `json:"members"`
	Repositories   []keyCount           `json:"repositories"`
	FailingTools   []keyCount           `json:"failing_tools"`
	Novel          *bool                `json:"novel,omitempty"`
	BaselineSize   *int                 `json:"baseline_size,omitempty"`
	Unclustered    bool                 `json:"unclustered,omitempty"`
	Reason         string               `json:"reason,omitempty"`
	// NotCounted marks the last line: the traces not known to have
	// failed (no label, no scorer result, no outcome), in no cluster and
	// in no share's denominator.
	NotCounted bool `json:"not_counted,omitempty"`
}

// keyCount is one value of a cluster's breakdown and how many of its
// traces have it.
type keyCount struct {
	Key string `json:"key"`
	N   int    `json:"n"`
}

// classCount is one class of a cluster's mix.
type classCount struct {
	Class string `json:"class"`
	N     int    `json:"n"`
}

// failing is one failing trace as clusters keeps it: no trace text, only
// its name, its current class, whether it is the baseline's, and its
// distinct signature once computed.
type failing struct {
	id       int64
	run      string
	key      string
	primary  string
	baseline bool
	// failed is set for a failing trace; a leftover clustered with them
	// (clusterRuns' leftovers) may have any outcome.
	failed bool
	sig    int
	reason string // why it is unclustered, or ""
	// repo is the repository the task is from, when its id names one;
	// tool the tool whose call failed last, "" when none did.
	repo, tool string
	// tools are the distinct tools the trace called, sorted.
	tools []string
}

// clusterSet is the clustering of a set of failing traces.
type clusterSet struct {
	traces  []failing
	c       *signature.Clusterer
	groups  []signature.Group
	of      []int
	skipped int // traces with no label and no known outcome
	cut     int // traces read only up to maxReadToolCalls calls
	// intern and tools keep one copy of each run, class, repository and
	// tool name and of each set of tools: a trace's record points at
	// them instead of holding its own (issue 27).
	intern map[string]string
	tools  map[string][]string
}

// str returns the clusterSet's copy of s.
func (cs *clusterSet) str(s string) string {
	if v, ok := cs.intern[s]; ok {
		return v
	}
	cs.intern[s] = s
	return s
}

// toolSet returns the clusterSet's copy of a sorted set of tool names,
// shared by every trace that called the same tools.
func (cs *clusterSet) toolSet(names []string) []string {
	// Each name with its length before it: a separator alone would
	// make ["a\x00b"] the set ["a", "b"].
	var kb strings.Builder
	for _, n := range names {
		kb.WriteString(strconv.Itoa(len(n)))
		kb.WriteByte(':')
		kb.WriteString(n)
	}
	k := kb.String()
	if v, ok := cs.tools[k]; ok {
		return v
	}
	v := slices.Clip(names)
	for i, n := range v {
		v[i] = cs.str(n)
	}
	cs.tools[k] = v
	return v
}

// isFailing reports whether a trace counts as failing: its current label
// is a class other than a pass, or it has none and the scorer or the
// outcome says it failed.
func isFailing(s *store.TraceSummary, f triage.Final, verdictOutcome triage.Outcome) (failed, unknown bool) {
	if f.Primary != "" {
		return !triage.IsPass(f.Primary), false
	}
	if s.ExitCode != nil && *s.ExitCode != 0 {
		return true, false
	}
	o := s.Outcome
	if o == triage.OutcomeUnknown {
		o = verdictOutcome
	}
	switch o {
	case triage.OutcomeFailed, triage.OutcomeIncomplete, triage.OutcomeBlocked:
		return true, false
	case triage.OutcomeSuccess:
		return false, false
	}
	return false, s.ExitCode == nil
}

// isLeftover reports whether a trace goes to people as the review queue
// takes it (store.QueueRows): the rules have not run on it, or decided it
// as a leftover.
func isLeftover(st *triage.LabelState) bool {
	if st == nil || st.Rule == nil || st.Rule.Verdict == nil {
		return true
	}
	return st.Rule.Verdict.Decision == triage.DecisionLeftover
}

// readFailing streams the traces clustering takes to keep, in id order
// within each run: the failing traces of runs (every run when empty) and
// of the baseline, with leftovers those the rules leave to people too. It
// counts the traces not known to have failed (outside the baseline) in
// skipped. The strings of the record keep is given are its own.
func readFailing(ctx context.Context, db store.Store, runs []string, baseline string, leftovers bool, keep func(failing) error) (skipped int, err error) {
	read := func(run string) error {
		return db.Each(ctx, run, func(s store.TraceSummary, st *triage.LabelState) error {
			isBase := baseline != "" && s.RunID == baseline
			f := triage.Resolve(st)
			var vo triage.Outcome
			if st != nil && st.Rule != nil && st.Rule.Verdict != nil {
				vo = st.Rule.Verdict.Outcome
			}
			failed, unknown := isFailing(&s, f, vo)
			if !failed && !(leftovers && isLeftover(st)) {
				if unknown && !isBase {
					skipped++
				}
				return nil
			}
			return keep(failing{id: s.ID, run: s.RunID, key: s.Key(), primary: f.Primary, baseline: isBase, failed: failed, sig: -1, repo: repoOf(s.TaskID)})
		})
	}
	if len(runs) == 0 {
		return skipped, read("")
	}
	for _, r := range append(slices.Clone(runs), baseline) {
		if r == "" {
			continue
		}
		if err := read(r); err != nil {
			return skipped, err
		}
	}
	return skipped, nil
}

// clusterRuns reads the failing traces of runs (every run when empty) and
// of the baseline, computes their signatures on every core and clusters
// them, every trace's record in memory (the review screen, report
// --clusters and rules candidates; `clusters` streams, clusterStream).
// With leftovers, the traces the rules leave to people are clustered too,
// whatever their outcome: a review session groups its queue by them.
func (a *app) clusterRuns(ctx context.Context, db store.Store, runs []string, baseline string, leftovers bool) (*clusterSet, error) {
	cs := &clusterSet{c: signature.NewClusterer(), intern: map[string]string{}, tools: map[string][]string{}}
	str := cs.str
	skipped, err := readFailing(ctx, db, runs, baseline, leftovers, func(f failing) error {
		if len(cs.traces)%signatureChunk == 0 {
			a.heap.check()
		}
		f.run, f.primary, f.repo = str(f.run), str(f.primary), str(f.repo)
		cs.traces = append(cs.traces, f)
		return nil
	})
	cs.skipped = skipped
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cs.traces, func(x, y failing) int { return cmp.Compare(x.id, y.id) })
	cs.traces = slices.CompactFunc(cs.traces, func(x, y failing) bool { return x.id == y.id })
	// The refs go to the store a chunk at a time: a slice of every
	// failing trace's ref beside cs.traces doubled what a trace costs
	// while the signatures were computed (issue 27).
	refs := make([]store.TraceRef, 0, min(len(cs.traces), signatureChunk))
	var got []signature.Signature
	for lo := 0; lo < len(cs.traces); lo += signatureChunk {
		a.heap.check()
		refs = refs[:0]
		for _, t := range cs.traces[lo:min(lo+signatureChunk, len(cs.traces))] {
			refs = append(refs, store.TraceRef{ID: t.id, RunID: t.run})
		}
		got = slices.Grow(got[:0], len(refs))[:len(refs)]
		cut, err := signatures(ctx, db, refs, true, func(i int, r *sigResult) {
			t := &cs.traces[lo+i]
			t.tool = cs.str(r.tool)
			t.tools = cs.toolSet(r.tools)
			got[i] = r.sig
		})
		cs.cut += cut
		if err != nil {
			return nil, err
		}
		// Added in id order, not as the workers finish: a distinct
		// signature keeps the first trace's steps, which must not
		// change from one run to the next.
		for i := range got {
			t := &cs.traces[lo+i]
			if why := got[i].Unclusterable(); why != "" {
				t.reason = why
				continue
			}
			t.sig = cs.c.Add(got[i])
		}
	}
	cs.groups, cs.of = cs.c.Cluster()
	return cs, nil
}

// signatureChunk is how many traces' refs clustering hands the store at
// once.
const signatureChunk = 8192

// sigResult is what reading one trace's body gives clustering.
type sigResult struct {
	sig  signature.Signature
	tool string // the tool whose call failed last (failingTool)
	// tools are the distinct tools called (toolsUsed), when asked for.
	tools []string
}

// signatures computes the signatures of the traces refs name, decoding
// and reading on all cores while the store streams the rows, and gives
// refs[i]'s to got: one call at a time, in no set order. It returns how
// many traces were read only up to maxReadToolCalls calls.
func signatures(ctx context.Context, db store.Store, refs []store.TraceRef, withTools bool, got func(i int, r *sigResult)) (cut int, err error) {
	type job struct {
		i  int
		tr *triage.Trace
		v  *triage.Verdict
	}
	type done struct {
		i int
		r sigResult
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	// A few jobs a worker: each holds a decoded trace, and 256 of them
	// were a third of the heap's peak (issue 27).
	jobs := make(chan job, 4*workers)
	results := make(chan done, 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				act := triage.ReadActivity(j.tr)
				d := done{i: j.i, r: sigResult{sig: signature.OfActivity(j.tr, &act, j.v), tool: failingTool(j.tr, &act)}}
				if withTools {
					d.r.tools = toolsUsed(j.tr)
				}
				results <- d
			}
		}()
	}
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for d := range results {
			got(d.i, &d.r)
		}
	}()
	i := 0
	err = db.EachTrace(ctx, refs, func(tr *triage.Trace, v *triage.Verdict) error {
		if i >= len(refs) {
			return fmt.Errorf("the store gave more traces than the %d asked for", len(refs))
		}
		tr.Raw = nil // the signature never reads the raw record
		if tr.ReadCut != nil {
			cut++
		}
		jobs <- job{i, tr, v}
		i++
		return nil
	})
	close(jobs)
	wg.Wait()
	close(results)
	<-collected
	return cut, err
}

func (a *app) runClusters(ctx context.Context, o clusterOpts) error {
	if o.show < 0 {
		return usageErr("--members: %d is negative", o.show)
	}
	for i, r := range o.runs {
		if r == "" {
			return usageErr("--run: empty run name")
		}
		if slices.Contains(o.runs[:i], r) {
			return usageErr("--run %s is given twice", triage.Sanitize(r))
		}
		if r == o.baseline {
			return usageErr("--run %s is also the --baseline: name the newer run with --run and the older with --baseline", r)
		}
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, r := range append(slices.Clone(o.runs), o.baseline) {
		if err := requireRun(ctx, db, r); err != nil {
			if r == o.baseline {
				return fmt.Errorf("--baseline: %w", err)
			}
			return err
		}
	}
	rd, err := a.storeRedactor(ctx, db, o.redact)
	if err != nil {
		return err
	}
	a.heap = cappedGC()
	cs, err := a.streamClusters(ctx, db, o.runs, o.baseline, o.spill)
	if err != nil {
		return err
	}
	defer cs.Close()
	if cs.cut > 0 {
		sayf(a.stderr, "note: %d traces have more than %d tool calls: their signatures are of the first %d\n", cs.cut, maxReadToolCalls, maxReadToolCalls)
	}
	w := bufio.NewWriterSize(a.stdout, 64<<10)
	if o.asJSON {
		err = writeStreamJSON(w, cs, o.baseline != "", rd)
	} else {
		err = writeStreamText(w, cs, o, rd)
	}
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return cs.Close()
}

// repoOf is the repository a task id names (triage.RepoOf).
func repoOf(task string) string { return triage.RepoOf(task) }

// failingTool is the tool whose call failed last: the last test or
// script run that failed, else the last call with an error.
func failingTool(tr *triage.Trace, a *triage.Activity) string {
	for i := len(a.Steps) - 1; i >= 0; i-- {
		if r := a.Steps[i].Result; (r == triage.ResultFailed || r == triage.ResultError) && a.Steps[i].Checks() {
			return tr.ToolCalls[i].Name
		}
	}
	for i := len(tr.ToolCalls) - 1; i >= 0; i-- {
		if tr.ToolCalls[i].Error != "" || len(a.Steps[i].Errors) > 0 {
			return tr.ToolCalls[i].Name
		}
	}
	return ""
}

// toolsUsed lists the distinct tools a trace called, sorted.
func toolsUsed(tr *triage.Trace) []string {
	out := make([]string, 0, 4)
	for i := range tr.ToolCalls {
		out = append(out, tr.ToolCalls[i].Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
