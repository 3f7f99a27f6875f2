package main

import (
	"context"
	"errors"
	"slices"

	"github.com/triage-dev/triage/internal/ui"
)

// Clusters implements ui.ClusterStore with the clustering `triage
// clusters` prints: the same traces, numbers, names and representatives.
// Names and keys are as stored; the screen masks them under --redact.
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
	cs, err := s.app.clusterRuns(ctx, s.db, runs, q.Baseline)
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
		out.Failing += len(v.members)
	}
	for _, m := range unclustered {
		out.Unclustered += len(m)
	}
	out.Failing += out.Unclustered
	out.Clusters = slices.Clip(out.Clusters)
	return out, nil
}
