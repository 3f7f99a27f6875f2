package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui"
)

type reviewOpts struct {
	reviewer, run, slice string
	baseline             string
	all, redact          bool
	ui                   uiFlags
}

func newReviewCmd(a *app) *cobra.Command {
	var o reviewOpts
	cmd := &cobra.Command{
		Use:   "review --reviewer NAME [--run R] [--slice S]",
		Short: "Review the rules' leftovers (or a held-out slice, blind) in the terminal UI",
		Long: `Open the review screen over the traces the rules could not decide (or, with --slice,
over a held-out slice's items, blind: neither the rules' verdict nor other reviewers'
labels are shown). Digits 1-9 set the primary class (0 then its number past nine),
t tags, c a note, s skips, u undoes, U redoes; space, v and ctrl+a mark traces for a bulk label, a accepts the rules' suggestion.
C opens the clusters screen (the failing traces by signature, as triage clusters groups them;
with --baseline RUN, novel clusters and their traces come first): enter opens a cluster, its
representative first; after you have read a member, a digit or K labels the whole cluster (each
member its own event, marked as given by cluster), and X splits the marked members off.
Every change is stored at once. Press ? for every key, : to switch runs, slices and screens.

Settings come from flags, then variables, then the config file
$XDG_CONFIG_HOME/triage/config.toml (reviewer, store, theme, wrap, mouse, [keys]).
Key bindings can be changed in a TOML file given with --keys (or $TRIAGE_KEYS).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.ui.changed = cmd.Flags().Changed
			return a.runReview(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.reviewer, "reviewer", os.Getenv("TRIAGE_REVIEWER"), "your name, recorded on every label (default $TRIAGE_REVIEWER)")
	f.StringVar(&o.run, "run", "", "only this run's leftovers")
	f.StringVar(&o.slice, "slice", "", "review this held-out slice, blind")
	f.BoolVar(&o.all, "all", false, "review every trace of the run, not only the leftovers (spot-check the rules)")
	f.StringVar(&o.baseline, "baseline", "", "compare the clusters (C) with this run: novel ones, and their traces in the queue, come first")
	f.BoolVar(&o.redact, "redact", false, redactFlagUsage+" (for a shared screen)")
	o.ui.add(f)
	return cmd
}

func (a *app) runReview(ctx context.Context, o reviewOpts) error {
	if o.reviewer == "" {
		o.reviewer = a.cfg.Reviewer
	}
	if o.reviewer == "" {
		return usageErr("review needs --reviewer NAME (or $TRIAGE_REVIEWER): every label records who gave it")
	}
	tax, err := a.taxonomy()
	if err != nil {
		return err
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	// The screen owns the terminal: a label write that waits says so in
	// the status bar, not on stderr.
	db.OnWait(nil)
	// The first page of the queue shows at once and the whole queue loads
	// behind it: a second connection lets the reviewer open a trace then.
	db.AllowConcurrentReads(2)
	if err := requireRun(ctx, db, o.run); err != nil {
		return err
	}
	if err := requireSlice(ctx, db, o.slice); err != nil {
		return err
	}
	if o.baseline != "" {
		if o.slice != "" {
			return usageErr("--baseline: a blind slice review shows no clusters")
		}
		if o.baseline == o.run {
			return usageErr("--run %s is also the --baseline: name the newer run with --run and the older with --baseline", o.run)
		}
		if err := requireRun(ctx, db, o.baseline); err != nil {
			return fmt.Errorf("--baseline: %w", err)
		}
	}
	cfg := ui.Config{Reviewer: o.reviewer, RunID: o.run, Slice: o.slice, Blind: o.slice != "", All: o.all, Taxonomy: tax, Baseline: o.baseline}
	if cfg.Redactor, err = a.storeRedactor(ctx, db, o.redact); err != nil {
		return err
	}
	if err := o.ui.apply(a.cfg, &cfg); err != nil {
		return err
	}
	if !a.isTerminal(a.stdout) {
		return errors.New("review needs a terminal (stdout is not one)")
	}
	if err := switchable(ctx, db, &cfg); err != nil {
		return err
	}
	return ui.Run(ctx, &uiStore{db: db, tax: tax, app: a}, cfg)
}

// uiStore adapts the SQLite store to the UI's own small interface.
type uiStore struct {
	db  store.Store
	tax *triage.Taxonomy
	pk  packs
	// app computes clusters (ui.ClusterStore); nil where the session
	// shows none.
	app *app
}

// Queue implements ui.Store.
func (s *uiStore) Queue(ctx context.Context, q ui.QueueQuery) ([]ui.QueueItem, error) {
	// pos orders a slice's items as sampled; nil means the leftovers.
	var pos map[int64]int
	if q.Slice != "" {
		sl, err := s.db.Slice(ctx, q.Slice)
		if err != nil {
			return nil, err
		}
		pos = make(map[int64]int, len(sl.Items))
		for i, id := range sl.Items {
			pos[id] = i
		}
	}
	// The reviewer's own events say which items they skipped: label
	// states fold skips away. Outside blind review everyone's events are
	// read, so each item also carries the other reviewers' live labels
	// (a store shared on PostgreSQL shows them on the next read).
	who := q.Reviewer
	if !q.Blind {
		who = ""
	}
	evs, err := s.db.HumanEvents(ctx, who, q.Slice)
	if err != nil {
		return nil, err
	}
	own := map[int64][]triage.LabelEvent{}
	others := map[int64]map[string][]triage.LabelEvent{}
	for _, x := range evs {
		e := x.Event
		if e.Actor == q.Reviewer {
			own[e.TraceID] = append(own[e.TraceID], e)
			continue
		}
		if others[e.TraceID] == nil {
			others[e.TraceID] = map[string][]triage.LabelEvent{}
		}
		others[e.TraceID][e.Actor] = append(others[e.TraceID][e.Actor], e)
	}
	limit := q.Limit
	if pos != nil {
		limit = 0 // a slice is read whole, in its sampled order
	}
	rows, err := s.db.QueueRows(ctx, q.RunID, pos == nil && !q.All, limit)
	if err != nil {
		return nil, err
	}
	items := make([]ui.QueueItem, 0, len(rows))
	// Rows share their verdicts (store.QueueRows), so items can share the
	// list of rules that fired: one slice per distinct verdict, not per
	// item, on a queue of 600k leftovers.
	fired := map[*triage.Verdict][]string{}
	calls := make(map[int64]int, len(rows))
	for _, t := range rows {
		calls[t.ID] = t.NToolCalls
		if pos != nil {
			if _, ok := pos[t.ID]; !ok {
				continue
			}
		}
		it := ui.QueueItem{TraceID: t.ID, RunID: t.RunID, TaskID: t.TaskID, Seed: t.Seed, Model: t.Model, Status: ui.StatusTodo}
		if !q.Blind {
			if v := t.Rule; v != nil {
				it.Suggestion, it.Reason = v.Primary, v.Reason
				if v.Primary != "" {
					rs, ok := fired[v]
					if !ok {
						rs = append([]string{v.Primary}, v.Secondary...)
						fired[v] = rs
					}
					it.Rules = rs
				}
			} else {
				it.Reason = "the rules have not run on it"
			}
		}
		if h, _ := triage.LiveEvents(own[t.ID]); h != nil {
			it.Primary, it.Secondary, it.Note, it.Status = h.Primary, h.Secondary, h.Note, ui.StatusLabelled
		}
		if ui.LiveStatus(own[t.ID]) == ui.StatusSkipped {
			it.Status = ui.StatusSkipped
		}
		it.Others = liveOthers(others[t.ID])
		items = append(items, it)
	}
	if pos != nil {
		sort.SliceStable(items, func(i, j int) bool { return pos[items[i].TraceID] < pos[items[j].TraceID] })
		return items, nil
	}
	if err := s.markContents(ctx, items, calls); err != nil {
		return nil, err
	}
	// Empty sessions (455 of the real logs' 1,160 leftovers) go last: a
	// reviewer meets every trace with something to read first, and
	// reaches the empty ones only by asking (the filter empty:yes).
	sort.SliceStable(items, func(i, j int) bool { return !items[i].Empty && items[j].Empty })
	return items, nil
}

// liveOthers is each other reviewer's live label on one trace, in name
// order: what they said last and have not taken back.
func liveOthers(byActor map[string][]triage.LabelEvent) []ui.OtherLabel {
	if len(byActor) == 0 {
		return nil
	}
	var out []ui.OtherLabel
	for actor, evs := range byActor {
		if h, _ := triage.LiveEvents(evs); h != nil && h.Primary != "" {
			out = append(out, ui.OtherLabel{Reviewer: actor, Primary: h.Primary})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reviewer < out[j].Reviewer })
	return out
}

// markContents sets what each item's trace holds (Holds) and Empty on
// those that recorded nothing to read (ui.EmptyTrace). Calls are counted
// in the queue's rows (calls, by trace id); only traces with none are
// decoded, since a trace with a call is never empty.
func (s *uiStore) markContents(ctx context.Context, items []ui.QueueItem, calls map[int64]int) error {
	at := map[int64]int{}
	var refs []store.TraceRef
	for i := range items {
		n := calls[items[i].TraceID]
		if n > 0 {
			items[i].Holds = ui.CallsHeld(n)
			continue
		}
		at[items[i].TraceID] = i
		refs = append(refs, store.TraceRef{ID: items[i].TraceID, RunID: items[i].RunID})
	}
	if len(refs) == 0 {
		return nil
	}
	return s.db.EachTrace(ctx, refs, func(tr *triage.Trace, _ *triage.Verdict) error {
		if i, ok := at[tr.ID]; ok {
			items[i].Holds = ui.TraceHolds(tr)
			items[i].Empty = ui.EmptyTrace(tr)
		}
		return nil
	})
}

// Trace implements ui.Store.
func (s *uiStore) Trace(ctx context.Context, id int64) (*triage.Trace, error) {
	tr, err := s.db.Trace(ctx, id)
	if err == nil && tr.ReadCut != nil {
		// A trace read up to its first calls: the raw tab shows the
		// reading (its JSON says read_cut) instead of the stored row,
		// which it would lay out whole: one row of a million calls took
		// the screen 1.3 GB with the calls cut, 2.4 GB before.
		tr.Raw = nil
	}
	return tr, err
}

// Verdict implements ui.Store.
func (s *uiStore) Verdict(ctx context.Context, id int64) (*triage.Verdict, error) {
	v, err := s.db.Verdict(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return v, err
}

var _ ui.RootCauser = (*uiStore)(nil)

// RootCauses implements ui.RootCauser: the rules' verdicts of the rows on
// screen, evidence and all, each said in one line.
func (s *uiStore) RootCauses(ctx context.Context, ids []int64) (map[int64]string, error) {
	vs, err := s.db.Verdicts(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(vs))
	for id, v := range vs {
		out[id] = triage.RootCause(v)
	}
	return out, nil
}

// Context implements ui.Store.
func (s *uiStore) Context(ctx context.Context, runID, taskID string) (ui.TraceContext, error) {
	pk, c, err := s.pk.forRun(ctx, s.db, runID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return ui.TraceContext{}, err
	}
	tc := ui.TraceContext{Task: pk.Task(taskID)}
	if err == nil {
		tc.Controls = &c
	}
	return tc, nil
}

// AppendLabel implements ui.Store.
func (s *uiStore) AppendLabel(ctx context.Context, e triage.LabelEvent) (triage.LabelEvent, error) {
	if e.TaxonomyVersion == "" {
		e.TaxonomyVersion = s.tax.Version
	}
	// A NUL typed or pasted into a note is refused alike on both stores
	// (PostgreSQL's text cannot hold it), before the write.
	if err := e.CheckText(); err != nil {
		return e, err
	}
	return s.db.AppendLabel(ctx, e)
}

// History implements ui.Store.
func (s *uiStore) History(ctx context.Context, traceID int64, actor string) ([]triage.LabelEvent, error) {
	return s.db.History(ctx, traceID, actor)
}
