package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// maxCompletions bounds the trace names a completion offers: a store of
// 600k traces must not print them all on a tab.
const maxCompletions = 2000

// addStoreCompletions makes shell completion offer what the store holds:
// trace names (RUN/TASK#SEED) for the commands that take a trace, slice
// names where a slice is named, run names for every --run and --baseline,
// slices for every --slice. A store that cannot be opened offers nothing
// (completion never prints an error into the shell).
func addStoreCompletions(a *app, root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		for _, name := range []string{"run", "baseline"} {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, a.completeRuns)
			}
		}
		if c.Flags().Lookup("slice") != nil {
			_ = c.RegisterFlagCompletionFunc("slice", a.completeSlices)
		}
		path := strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
		switch path {
		case "show", "steps", "rules explain":
			c.ValidArgsFunction = firstArg(a.completeTraces)
		case "slice show", "agree", "adjudicate":
			c.ValidArgsFunction = firstArg(a.completeSlices)
		case "compare":
			c.ValidArgsFunction = nil // card files: the shell's own
		}
	}
	walk(root)
}

// firstArg completes the first argument only.
func firstArg(f cobra.CompletionFunc) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return f(c, args, toComplete)
	}
}

// completionStore opens the store for a completion, with the config
// file's store when no --db was given; nil when there is none.
func (a *app) completionStore(c *cobra.Command) store.Store {
	_ = a.applyConfig(c.Root())
	db, err := a.openStore(context.Background())
	if err != nil {
		return nil
	}
	return db
}

func (a *app) completeRuns(c *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	db := a.completionStore(c)
	if db == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	runs, err := db.Runs(context.Background())
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, r := range runs {
		if id := r.Controls.RunID; strings.HasPrefix(id, toComplete) {
			out = append(out, triage.Sanitize(id))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func (a *app) completeSlices(c *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	db := a.completionStore(c)
	if db == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	sls, err := db.Slices(context.Background())
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, s := range sls {
		if strings.HasPrefix(s.Name, toComplete) {
			out = append(out, triage.Sanitize(s.Name))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeTraces offers RUN/TASK#SEED names; until a run is typed whole
// it offers the runs ("RUN/"), so a big store completes in two steps.
func (a *app) completeTraces(c *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	db := a.completionStore(c)
	if db == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	ctx := context.Background()
	run, _, typedRun := strings.Cut(toComplete, "/")
	if !typedRun {
		runs, err := db.Runs(ctx)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, r := range runs {
			if id := r.Controls.RunID; strings.HasPrefix(id, toComplete) {
				out = append(out, triage.Sanitize(id)+"/")
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	sums, err := db.Summaries(ctx, run)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for i := range sums {
		if k := sums[i].Key(); strings.HasPrefix(k, toComplete) && len(out) < maxCompletions {
			out = append(out, triage.Sanitize(k))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
