package main

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/ui"
)

// Clusters implements ui.ClusterStore with the clustering `triage
// clusters` prints: the same traces, numbers, names and representatives.
// With q.Leftovers the leftovers are clustered with the failing traces
// (and the numbers are of that clustering); the traces with no cause
// signature are the list's NoCause. Names and keys are as stored; the
// screen masks them under --redact.
func (s *uiStore) Clusters(ctx context.Context, q ui.ClusterQuery) (*ui.ClusterList, error) {
	if s.app == nil {
		return nil, errors.New("this session cannot compute clusters")
	}
	if q.RunID != "" && q.RunID == q.Baseline {
		return nil, errors.New("the run is the baseline: review another run against it")
	}
	var runs []string
	if q.RunID != "" {
		runs = []string{q.RunID}
	}
	cs, err := s.app.clusterRuns(ctx, s.db, runs, q.Baseline, q.Leftovers)
	if err != nil {
		return nil, err
	}
	views, unclustered, _ := cs.views()
	out := &ui.ClusterList{}
	for i, v := range views {
		rep := cs.traces[v.rep]
		c := ui.Cluster{ID: i + 1, Name: cs.c.Signature(v.sig).Name(), Representative: rep.id, RepresentativeKey: rep.key,
			Members: make([]int64, 0, len(v.members)), Novel: q.Baseline != "" && v.baselineSize == 0, BaselineSize: v.baselineSize}
		c.Members, c.Labels = append(c.Members, rep.id), append(c.Labels, rep.primary)
		for _, m := range v.members {
			if m != v.rep {
				c.Members, c.Labels = append(c.Members, cs.traces[m].id), append(c.Labels, cs.traces[m].primary)
			}
		}
		out.Clusters = append(out.Clusters, c)
		tally(out, cs, v.members)
	}
	// The reasons (no verdict; no cause) sort apart in `clusters`; here
	// they are one list in key order, the traces to label one by one.
	var none []int
	for _, m := range unclustered {
		none = append(none, m...)
	}
	slices.SortFunc(none, func(x, y int) int { return strings.Compare(cs.traces[x].key, cs.traces[y].key) })
	for _, m := range none {
		out.NoCause.Members = append(out.NoCause.Members, cs.traces[m].id)
		out.NoCause.Labels = append(out.NoCause.Labels, cs.traces[m].primary)
	}
	out.Unclustered = len(none)
	tally(out, cs, none)
	out.Clusters = slices.Clip(out.Clusters)
	return out, nil
}

// tally adds members to the list's counts: failing traces, and the
// other leftovers.
func tally(l *ui.ClusterList, cs *clusterSet, members []int) {
	for _, m := range members {
		if cs.traces[m].failed {
			l.Failing++
		} else {
			l.Leftovers++
		}
	}
}
