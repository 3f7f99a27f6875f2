package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// traceExtra is what the report learns of a failing trace by reading its
// body (report --clusters): its failure cluster and the tools it called.
type traceExtra struct {
	cluster     string
	tools       []string
	failingTool string
}

// traceExtras clusters the failing traces of runs (every run when none is
// named) as `triage clusters` does and returns, for each, its cluster's
// name (#ID and the name made from its signature, the ids as `clusters`
// numbers them for the same runs) and its tools.
func (a *app) traceExtras(ctx context.Context, db store.Store, runs []string) (map[int64]traceExtra, error) {
	cs, err := a.clusterRuns(ctx, db, runs, "", false)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]traceExtra, len(cs.traces))
	for i := range cs.traces {
		t := &cs.traces[i]
		out[t.id] = traceExtra{tools: t.tools, failingTool: t.tool}
	}
	views, _, _ := cs.views()
	for i, v := range views {
		name := fmt.Sprintf("#%d %s", i+1, cs.c.Signature(v.sig).Name())
		for _, m := range v.members {
			e := out[cs.traces[m].id]
			e.cluster = name
			out[cs.traces[m].id] = e
		}
	}
	return out, nil
}

// applyExtra sets what a trace's body told about it on its row.
func applyExtra(row *card.TraceRow, extra map[int64]traceExtra, id int64) {
	if extra == nil {
		return
	}
	if e, ok := extra[id]; ok {
		row.BodyRead, row.Tools, row.FailingTool, row.Cluster = true, e.tools, e.failingTool, e.cluster
	}
}

// parseNoise reads --noise X,Y: two different runs of one configuration.
func parseNoise(noise string) ([]string, error) {
	if noise == "" {
		return nil, nil
	}
	x, y, ok := strings.Cut(noise, ",")
	if !ok || x == "" || y == "" || x == y {
		return nil, usageErr("--noise %q: want X,Y, two different runs of one configuration", triage.Sanitize(noise))
	}
	return []string{x, y}, nil
}

// readTrendRun reads one run as a trend point, each trace by its current
// label (trendRow) and, with extra, its cluster.
func readTrendRun(ctx context.Context, db store.Store, run string, extra map[int64]traceExtra) (*card.TrendRun, error) {
	tr := card.NewTrendRun(run)
	err := db.Each(ctx, run, func(s store.TraceSummary, st *triage.LabelState) error {
		row := trendRow(&s, st)
		applyExtra(&row, extra, s.ID)
		tr.Add(&row)
		return nil
	})
	return tr, err
}

// readNoise reads the two runs of --noise as trend points.
func readNoise(ctx context.Context, db store.Store, runs []string, extra map[int64]traceExtra) (*[2]*card.TrendRun, error) {
	if runs == nil {
		return nil, nil
	}
	var pair [2]*card.TrendRun
	for i, r := range runs {
		if err := requireRun(ctx, db, r); err != nil {
			return nil, fmt.Errorf("--noise: %w", err)
		}
		tr, err := readTrendRun(ctx, db, r, extra)
		if err != nil {
			return nil, err
		}
		pair[i] = tr
	}
	return &pair, nil
}

// clusterScope is the runs report --clusters clusters: the report's run
// (every run when none) and the noise runs, so that a cluster has one
// name in both.
func clusterScope(run string, noise []string) []string {
	if run == "" {
		return nil
	}
	out := []string{run}
	for _, n := range noise {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// noteTrendDatasets adds a note to trends by run whose runs ran
// different datasets (their dataset_sha256 differ): a change between
// them is a new benchmark as much as a trend, as compare says of two.
func (a *app) noteTrendDatasets(ctx context.Context, tr *card.TrendReport) error {
	if tr == nil || tr.By != card.TrendByRun {
		return nil
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	controls, err := db.RunControls(ctx)
	if err != nil {
		return err
	}
	hash := map[string]string{}
	for _, c := range controls {
		hash[c.RunID] = c.DatasetSHA256
	}
	var seen []string
	for _, p := range tr.Points {
		h := hash[p]
		if h == "" {
			h = "none"
		}
		if !slices.Contains(seen, h) {
			seen = append(seen, h)
		}
	}
	if len(seen) > 1 {
		tr.Notes = append(tr.Notes, fmt.Sprintf("the runs ran %d different datasets (dataset_sha256, \"none\" when not frozen with card init --pack): a change between them may be the benchmark's, not the agent's.", len(seen)))
	}
	return nil
}
