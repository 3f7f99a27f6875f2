package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

func newTrendsCmd(a *app) *cobra.Command {
	var runs []string
	var noise string
	var asJSON, clusters bool
	cmd := &cobra.Command{
		Use:   "trends --run A --run B [--run C]… [--noise X,Y] [--json]",
		Short: "pass@1, pass^k and each class's share across runs, with 95% intervals and the noise floor",
		Long: `Follow pass@1, pass^k and the share of each class across runs, in the order the --run flags
give them (oldest first): each run's value with its 95% interval clustered by task (seeds of one
task rise and fall together, so they are not independent draws), and each change from the run
before marked up, down, or noise; a pass^k change between runs of different k (the most
attempts a task ran) is marked "k differs", never a trend. Each point says its k and how many
tasks ran fewer attempts.

A change is called noise when it is inside the 95% interval of the difference, or inside the
noise floor: with --noise X,Y (two runs of one configuration, seed 004) the floor of a figure is
its difference between X and Y, and no smaller change is called a trend. Shares count every
trace once by its current label, as the report does.`,
		Example: `  triage trends --run v1 --run v2 --run v3
  triage trends --run v1 --run v2 --noise v2,v2-rerun --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runTrends(cmd.Context(), runs, noise, asJSON, clusters)
		},
	}
	cmd.Flags().StringArrayVar(&runs, "run", nil, "a run, oldest first (repeat, at least two)")
	cmd.Flags().StringVar(&noise, "noise", "", "X,Y: two runs of one configuration, whose differences are the noise floor")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object a line per figure")
	cmd.Flags().BoolVar(&clusters, "clusters", false, "also follow the share of each of the largest failure clusters (reads the failing traces)")
	return cmd
}

// trendRow is a trace as the trends count it: by its current label and
// typed outcome, as cardInput reads them for the report.
func trendRow(s *store.TraceSummary, st *triage.LabelState) card.TraceRow {
	row := card.TraceRow{RunID: s.RunID, TaskID: s.TaskID, Seed: s.Seed, Model: s.Model, Agent: s.Agent, ExitCode: s.ExitCode, Outcome: s.Outcome}
	f := triage.Resolve(st)
	row.Primary, row.Secondary, row.Source, row.Decision, row.Leftover = f.Primary, f.Secondary, f.Source, f.Decision, f.Unresolved
	if st != nil && st.Rule != nil && st.Rule.Verdict != nil {
		if v := st.Rule.Verdict; v.Outcome != "" {
			row.Outcome = v.Outcome
		}
	}
	row.Leaked = triage.Leaked(st, row.Secondary)
	return row
}

func (a *app) runTrends(ctx context.Context, runs []string, noise string, asJSON, clusters bool) error {
	if len(runs) < 2 {
		return usageErr("--run: name at least two runs, oldest first")
	}
	for i, r := range runs {
		if r == "" {
			return usageErr("--run: empty run name")
		}
		if slices.Contains(runs[:i], r) {
			return usageErr("--run %s is given twice", triage.Sanitize(r))
		}
	}
	noiseRuns, err := parseNoise(noise)
	if err != nil {
		return err
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
	for _, r := range append(slices.Clone(runs), noiseRuns...) {
		if err := requireRun(ctx, db, r); err != nil {
			return err
		}
	}
	var extra map[int64]traceExtra
	if clusters {
		if extra, err = a.traceExtras(ctx, db, clusterScope(runs[0], append(slices.Clone(runs[1:]), noiseRuns...))); err != nil {
			return err
		}
	}
	byRun := map[string]*card.TrendRun{}
	var ordered []*card.TrendRun
	for _, r := range append(slices.Clone(runs), noiseRuns...) {
		if byRun[r] == nil {
			tr, err := readTrendRun(ctx, db, r, extra)
			if err != nil {
				return err
			}
			byRun[r] = tr
		}
	}
	for _, r := range runs {
		ordered = append(ordered, byRun[r])
	}
	var pair *[2]*card.TrendRun
	if noiseRuns != nil {
		pair = &[2]*card.TrendRun{byRun[noiseRuns[0]], byRun[noiseRuns[1]]}
	}
	lines := card.Trends(tax, ordered, pair)
	w := bufio.NewWriter(a.stdout)
	if asJSON {
		enc := json.NewEncoder(triage.InertJSON(w))
		for _, l := range lines {
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
		return w.Flush()
	}
	trust := ""
	if t, err := db.LatestTrust(ctx, tax.Version); err == nil {
		trust = t.Status
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	noiseNames := noiseRuns
	if noiseNames == nil {
		noiseNames = []string{}
	}
	writeTrendsText(w, &card.TrendReport{By: card.TrendByRun, Order: "in the order --run gives them", Points: runs, NoiseRuns: noiseNames,
		Lines: lines, Clustered: clusters, ClustersLeftOut: card.TrendClustersLeftOut(ordered)}, trust)
	return w.Flush()
}

// writeTrendsText prints the trends as the report's Trends section does,
// under what the section leaves to the report above it: each point's
// size and the taxonomy's trust.
func writeTrendsText(w *bufio.Writer, tr *card.TrendReport, trust string) {
	names := make([]string, len(tr.Points))
	for i, r := range tr.Points {
		names[i] = triage.Sanitize(r)
	}
	fmt.Fprintf(w, "trends · %s · %s\n", strings.Join(names, " → "), card.TrustPhrase(trust))
	if len(tr.Lines) > 0 {
		var sizes []string
		for _, p := range tr.Lines[0].Points {
			sizes = append(sizes, fmt.Sprintf("%s %d traces, %d tasks", triage.Sanitize(p.RunID), p.Traces, p.Tasks))
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(sizes, " · "))
	}
	fmt.Fprint(w, card.TrendText(tr, 100))
}
