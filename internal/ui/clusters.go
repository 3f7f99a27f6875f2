package ui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// ClusterStore is what the clusters screen needs on top of Store: the
// failing traces and the leftovers grouped by signature, as `triage
// clusters` groups the failing ones. A review session's store offers it when it can compute
// clusters; without it (or in a blind review or an adjudication) the
// screen is not there.
type ClusterStore interface {
	// Clusters groups the failing traces of q.RunID (every run when
	// empty), and with q.Leftovers its leftovers, by signature, largest
	// first; without q.Leftovers numbered as `triage clusters` numbers
	// them. With q.Baseline, a cluster none of whose traces is
	// the baseline's is Novel, and the baseline's own traces are not
	// members. It reads every failing trace: it is called from a
	// tea.Cmd, once a screen asks for it.
	Clusters(ctx context.Context, q ClusterQuery) (*ClusterList, error)
}

// ClusterQuery says which traces the clusters cover.
type ClusterQuery struct {
	RunID    string // empty: every run (but the baseline)
	Baseline string // set: mark the clusters this run does not show
	// Leftovers clusters the traces the rules leave to people with the
	// failing ones, whatever their outcome: the review queue's traces.
	Leftovers bool
}

// ClusterList is the clustering of a session's failing traces (and, when
// asked, its leftovers).
type ClusterList struct {
	Clusters []Cluster
	// Failing counts the failing traces covered; Leftovers the other
	// leftovers (not failing) covered; Unclustered those of either with
	// no cause signature (no verdict, failing check, failing test or
	// exception to compare), which belong to no cluster.
	Failing, Leftovers, Unclustered int
	// NoCause holds the unclustered traces (ID 0, no name, no
	// representative): the screen lists them apart, "no cause found",
	// to be labelled one by one.
	NoCause Cluster
}

// Cluster is one group of failing traces with a similar signature.
type Cluster struct {
	// ID is the cluster's number in the clustering: `triage clusters`'s
	// over the same runs when the query asked for no leftovers.
	ID int
	// Name is made from the signature (as stored: the screen masks it
	// under --redact).
	Name string
	// Representative is the member with the cluster's most common
	// signature; Members are every member's trace id, the
	// representative first.
	Representative int64
	Members        []int64
	// Labels are the members' current labels when the clusters were
	// computed ("" for none), in Members' order: a group's class mix.
	Labels []string
	// RepresentativeKey names the representative as RUN/TASK#SEED.
	RepresentativeKey string
	// Novel is set, with a baseline, when no baseline trace has this
	// signature; BaselineSize counts the baseline's traces that do.
	Novel        bool
	BaselineSize int
}

// loadClustersCmd computes the session's clusters; gen drops a result
// for a queue the reviewer has since left (another run).
func (m *Model) loadClustersCmd(gen int) tea.Cmd {
	cs, ctx, q := m.clusterStore, m.ctx, ClusterQuery{RunID: m.cfg.RunID, Baseline: m.cfg.Baseline, Leftovers: true}
	return func() tea.Msg {
		l, err := cs.Clusters(ctx, q)
		if err != nil {
			return clustersLoadedMsg{gen: gen, err: fmt.Errorf("compute clusters: %w", err)}
		}
		return clustersLoadedMsg{gen: gen, list: l}
	}
}
