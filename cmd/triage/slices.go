package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/agreement"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

func newSliceCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "slice",
		Short: "Held-out slices: deterministic samples that two reviewers label blind",
	}
	cmd.AddCommand(newSliceCreateCmd(a), newSliceListCmd(a), newSliceShowCmd(a))
	return cmd
}

type sliceOpts struct {
	name, run, stratify, from string
	size                      int
	seed                      uint64
}

func newSliceCreateCmd(a *app) *cobra.Command {
	var o sliceOpts
	cmd := &cobra.Command{
		Use:   "create NAME --size N [--seed S] [--run R] [--stratify task|class] [--from leftovers|all]",
		Short: "Draw a deterministic held-out sample (same inputs, same items); frozen once labelling starts",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name = args[0]
			return a.runSliceCreate(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.size, "size", 0, "number of traces (required)")
	f.Uint64Var(&o.seed, "seed", 1, "sampling seed")
	f.StringVar(&o.run, "run", "", "only this run's traces")
	f.StringVar(&o.stratify, "stratify", "", "stratify proportionally by task or by class (the rules' primary)")
	f.StringVar(&o.from, "from", "all", "sample from the rules' leftovers or from all traces")
	_ = cmd.MarkFlagRequired("size")
	_ = cmd.RegisterFlagCompletionFunc("stratify", cobra.FixedCompletions([]string{"task", "class"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{"leftovers", "all"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

type sliceCand struct {
	id    int64
	key   string
	task  string
	class string
}

func (a *app) runSliceCreate(ctx context.Context, o sliceOpts) error {
	if o.size <= 0 {
		return usageErr("--size must be positive")
	}
	if o.stratify != "" && o.stratify != "task" && o.stratify != "class" {
		return usageErr("--stratify %q: want task or class", o.stratify)
	}
	if o.from != "all" && o.from != "leftovers" {
		return usageErr("--from %q: want leftovers or all", o.from)
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := requireRun(ctx, db, o.run); err != nil {
		return err
	}
	// The slice this one replaces, if any, read before drawing: a slice
	// of the name another process creates meanwhile is not replaced.
	replaces := ""
	switch old, err := db.Slice(ctx, o.name); {
	case err == nil:
		replaces = old.CreatedAt
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	var cands []sliceCand
	err = db.Each(ctx, o.run, func(s store.TraceSummary, st *triage.LabelState) error {
		c := sliceCand{id: s.ID, key: s.Key(), task: s.TaskID, class: "unlabelled"}
		if st != nil && st.Rule != nil {
			c.class = st.Rule.Primary
		}
		if o.from == "leftovers" && st != nil && st.Rule != nil && st.Rule.Verdict != nil && st.Rule.Verdict.Decision == triage.DecisionCertain {
			return nil
		}
		cands = append(cands, c)
		return nil
	})
	if err != nil {
		return err
	}
	if len(cands) == 0 {
		return fmt.Errorf("slice %s: no traces to sample from (run %q, from %s)", o.name, o.run, o.from)
	}
	var stratum func(sliceCand) string
	switch o.stratify {
	case "task":
		stratum = func(c sliceCand) string { return c.task }
	case "class":
		stratum = func(c sliceCand) string { return c.class }
	}
	picked, err := agreement.Sample(cands, o.size, o.seed, func(c sliceCand) string { return c.key }, stratum)
	if err != nil {
		return err
	}
	sl := store.Slice{Name: o.name, RunID: o.run, Size: o.size, Seed: o.seed, Stratify: o.stratify, Source: o.from, Replaces: replaces}
	for _, p := range picked {
		sl.Items = append(sl.Items, p.id)
	}
	if err := db.CreateSlice(ctx, sl); err != nil {
		return err
	}
	sayf(a.stdout, "slice %s: %d traces (of %d candidates, seed %d", o.name, len(sl.Items), len(cands), o.seed)
	if o.stratify != "" {
		sayf(a.stdout, ", stratified by %s", o.stratify)
	}
	sayln(a.stdout, ")")
	if len(sl.Items) < o.size {
		sayf(a.stderr, "note: only %d traces were available for a slice of %d\n", len(sl.Items), o.size)
	}
	sayf(a.stderr, "next: triage review --slice %s --reviewer NAME (two reviewers, blind), then triage agree %s\n", o.name, o.name)
	return nil
}

// sliceRow is one line of slice list --json.
type sliceRow struct {
	Name     string `json:"name"`
	Size     int    `json:"size"`
	RunID    string `json:"run_id"`
	Seed     uint64 `json:"seed"`
	Stratify string `json:"stratify"`
	From     string `json:"from"`
	// Reviewers is how many items each reviewer has a live blind label on.
	Reviewers map[string]int `json:"reviewers"`
	Frozen    bool           `json:"frozen"`
	CreatedAt string         `json:"created_at"`
}

// sliceItemRow is one item of slice show --json: the trace, each
// reviewer's blind label and the adjudication ("" where none).
type sliceItemRow struct {
	Trace       string            `json:"trace"`
	RunID       string            `json:"run_id"`
	TaskID      string            `json:"task_id"`
	Seed        int               `json:"seed"`
	Labels      map[string]string `json:"labels"`
	Adjudicated string            `json:"adjudicated"`
}

// sliceShowJSON is slice show --json.
type sliceShowJSON struct {
	sliceRow
	Items []sliceItemRow `json:"items"`
}

func newSliceListCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List slices",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := a.openStore(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			sls, err := db.Slices(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(triage.InertJSON(a.stdout))
				for _, s := range sls {
					p, err := sliceProgressOf(cmd.Context(), db, s.Name)
					if err != nil {
						return err
					}
					if err := enc.Encode(sliceRowOf(s, p)); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			sayln(tw, "SLICE\tSIZE\tRUN\tSEED\tSTRATIFY\tFROM\tLABELLED BLIND\tSTATE")
			for _, s := range sls {
				state := "open"
				if s.Labelled > 0 {
					state = "frozen"
				}
				p, err := sliceProgressOf(cmd.Context(), db, s.Name)
				if err != nil {
					return err
				}
				sayf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%s\t%s\n", triage.Sanitize(s.Name), s.Size, dash(s.RunID), s.Seed, dash(s.Stratify), s.Source, p.short(s.Size), state)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON lines, one a slice")
	return cmd
}

// sliceRowOf is a slice as slice list --json writes it.
func sliceRowOf(s store.Slice, p sliceProgress) sliceRow {
	r := sliceRow{Name: s.Name, Size: s.Size, RunID: s.RunID, Seed: s.Seed, Stratify: s.Stratify, From: s.Source,
		Reviewers: map[string]int{}, Frozen: s.Labelled > 0, CreatedAt: s.CreatedAt}
	for name, n := range p.reviewers {
		r.Reviewers[name] = n
	}
	return r
}

func newSliceShowCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "A slice's items, who labelled what, and completion per reviewer",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				return a.runSliceShowJSON(cmd.Context(), args[0])
			}
			return a.runSliceShow(cmd.Context(), args[0])
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the slice and its items as one JSON object")
	return cmd
}

// runSliceShowJSON is slice show --json: the slice's facts and each item
// with every reviewer's blind label and the adjudication, whole.
func (a *app) runSliceShowJSON(ctx context.Context, name string) error {
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := requireSlice(ctx, db, name); err != nil {
		return err
	}
	sl, err := db.Slice(ctx, name)
	if err != nil {
		return err
	}
	p, err := sliceProgressOf(ctx, db, sl.Name)
	if err != nil {
		return err
	}
	out := sliceShowJSON{sliceRow: sliceRowOf(sl, p), Items: make([]sliceItemRow, 0, len(sl.Items))}
	for _, id := range sl.Items {
		s, err := db.Summary(ctx, id)
		if err != nil {
			return err
		}
		it := sliceItemRow{Trace: s.Key(), RunID: s.RunID, TaskID: s.TaskID, Seed: s.Seed, Labels: map[string]string{}}
		if st := p.states[id]; st != nil {
			for r, e := range st.Humans {
				if e.Primary != "" {
					it.Labels[r] = e.Primary
				}
			}
			if st.Adjudication != nil {
				it.Adjudicated = st.Adjudication.Primary
			}
		}
		out.Items = append(out.Items, it)
	}
	return json.NewEncoder(triage.InertJSON(a.stdout)).Encode(out)
}

func (a *app) runSliceShow(ctx context.Context, name string) error {
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := requireSlice(ctx, db, name); err != nil {
		return err
	}
	sl, err := db.Slice(ctx, name)
	if err != nil {
		return err
	}
	p, err := sliceProgressOf(ctx, db, sl.Name)
	if err != nil {
		return err
	}
	states, names := p.states, p.names()
	sayf(a.stdout, "slice %s: %d items, seed %d", triage.Sanitize(sl.Name), len(sl.Items), sl.Seed)
	if sl.Stratify != "" {
		sayf(a.stdout, ", stratified by %s", sl.Stratify)
	}
	sayln(a.stdout)
	p.write(a.stdout, len(sl.Items))
	sayln(a.stdout)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	sayln(tw, "TRACE\t"+strings.Join(sanitizeAll(names), "\t")+"\tADJUDICATED")
	for _, id := range sl.Items {
		s, err := db.Summary(ctx, id)
		if err != nil {
			return err
		}
		row := []string{triage.Sanitize(s.Key())}
		st := states[id]
		for _, r := range names {
			l := "-"
			if st != nil && st.Humans[r] != nil {
				l = dash(st.Humans[r].Primary)
			}
			row = append(row, l)
		}
		adj := "-"
		if st != nil && st.Adjudication != nil {
			adj = dash(st.Adjudication.Primary)
		}
		row = append(row, adj)
		sayln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

func sanitizeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = triage.Sanitize(s)
	}
	return out
}

// sliceProgress is how far a slice's blind labelling has come: each
// trace's state from the slice's own session only (store.SliceStates),
// and how many items each reviewer has a live blind label on. slice show,
// slice list and agree all print this one count.
type sliceProgress struct {
	states    map[int64]*triage.LabelState
	reviewers map[string]int
}

func sliceProgressOf(ctx context.Context, db store.Store, name string) (sliceProgress, error) {
	states, err := db.SliceStates(ctx, name)
	if err != nil {
		return sliceProgress{}, err
	}
	p := sliceProgress{states: states, reviewers: map[string]int{}}
	for _, st := range states {
		for r, e := range st.Humans {
			if e.Primary != "" {
				p.reviewers[r]++
			}
		}
	}
	return p, nil
}

// names lists the reviewers with a blind label, sorted.
func (p sliceProgress) names() []string {
	names := make([]string, 0, len(p.reviewers))
	for r := range p.reviewers {
		names = append(names, r)
	}
	sort.Strings(names)
	return names
}

// write prints one line a reviewer: "ann  8 of 40 labelled blind (20%)".
func (p sliceProgress) write(w io.Writer, items int) {
	for _, r := range p.names() {
		sayf(w, "  %-16s %d of %d labelled blind (%.0f%%)\n", triage.Sanitize(r), p.reviewers[r], items, 100*float64(p.reviewers[r])/float64(max(items, 1)))
	}
	if len(p.reviewers) == 0 {
		sayln(w, "  nobody has labelled it blind yet")
	}
}

// short is the progress in one table cell: "ann 8/40, bob 3/40".
func (p sliceProgress) short(items int) string {
	var parts []string
	for _, r := range p.names() {
		parts = append(parts, fmt.Sprintf("%s %d/%d", triage.Sanitize(r), p.reviewers[r], items))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
