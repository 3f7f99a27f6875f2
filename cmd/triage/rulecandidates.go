package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/signature"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// defaultMinCluster is how many of a cluster's traces must carry a settled
// final label before rules check proposes the cluster as a rule.
const defaultMinCluster = 3

// ruleCandidate is a failure signature people closed with a class the
// rules did not give (seed 003: "closed cases sharpen future detection"):
// a cluster most of whose settled members people labelled Class while the
// rules said otherwise, proposed as a rule "this signature ⇒ Class", with
// its precision on the settled traces it would label.
type ruleCandidate struct {
	// Cluster is the cluster's id as `triage clusters` numbers it over
	// the same runs; Name is made from its signature.
	Cluster   int                  `json:"cluster"`
	Name      string               `json:"name"`
	Signature *signature.Signature `json:"signature"`
	Class     string               `json:"class"`
	// Size is the cluster's traces; Settled those with a settled final
	// label (adjudicated or agreed), the only ones the precision counts.
	Size    int `json:"size"`
	Settled int `json:"settled"`
	// Precision is the share of the settled members whose final label
	// is Class: what the candidate would get right if it labelled them.
	Precision float64 `json:"precision"`
	// RulesGave is the rules' primary on the settled members.
	RulesGave []classCount `json:"rules_gave"`
	// Fixes counts settled members labelled Class that the rules got
	// wrong; Breaks those the rules got right that the candidate would
	// relabel wrongly.
	Fixes  int `json:"fixes"`
	Breaks int `json:"breaks"`
	// ByCluster counts the settled members whose final label rests on
	// a label given to a whole cluster (review by cluster): people
	// closed them together, after reading a sample.
	ByCluster int `json:"by_cluster"`
	// OneByOne counts the settled members labelled trace by trace, and
	// OneByOnePrecision is the precision on them alone: a label given to
	// the whole cluster agrees with the cluster by construction, so the
	// unattended bar rests on these.
	OneByOne          int     `json:"one_by_one"`
	OneByOnePrecision float64 `json:"one_by_one_precision"`
	// MayLabelUnattended applies the rules' own bar: precision at least
	// --min-precision on at least --min-fired settled traces labelled one
	// by one.
	MayLabelUnattended bool `json:"may_label_unattended"`
}

// ruleCandidates clusters the failing traces of the check's run (every
// run when none) and proposes, for each cluster with at least minCluster
// settled members most of which people labelled with one class the rules
// did not give them, that signature as a rule for the class.
func (a *app) ruleCandidates(ctx context.Context, db store.Store, o ruleCheckOpts, checked []checkedTrace) ([]ruleCandidate, error) {
	out := []ruleCandidate{}
	if len(checked) == 0 {
		return out, nil
	}
	run := o.run
	if run == "" && o.slice != "" {
		sl, err := db.Slice(ctx, o.slice)
		if err != nil {
			return nil, err
		}
		run = sl.RunID
	}
	var runs []string
	if run != "" {
		runs = []string{run}
	}
	cs, err := a.clusterRuns(ctx, db, runs, "", false)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*checkedTrace, len(checked))
	for i := range checked {
		byID[checked[i].sum.ID] = &checked[i]
	}
	views, _, _ := cs.views()
	for i, v := range views {
		var settled []*checkedTrace
		for _, m := range v.members {
			if c := byID[cs.traces[m].id]; c != nil {
				settled = append(settled, c)
			}
		}
		if len(settled) < max(1, o.minCluster) {
			continue
		}
		finals := map[string]int{}
		for _, c := range settled {
			finals[c.final.Primary]++
		}
		class := ""
		for _, k := range slices.Sorted(maps.Keys(finals)) {
			if finals[k] > finals[class] {
				class = k
			}
		}
		agree := finals[class]
		if 2*agree <= len(settled) {
			continue // people did not close the cluster with one class
		}
		cand := ruleCandidate{Cluster: i + 1, Name: cs.c.Signature(v.sig).Name(), Signature: cs.c.Signature(v.sig), Class: class,
			Size: len(v.members), Settled: len(settled), Precision: ratioOf(agree, len(settled))}
		gave := map[string]int{}
		oneAgree := 0
		for _, c := range settled {
			gave[c.verdict.Primary]++
			if c.byCluster {
				cand.ByCluster++
			} else if c.final.Primary == class {
				oneAgree++
			}
			switch {
			case c.final.Primary == class && c.verdict.Primary != class:
				cand.Fixes++
			case c.final.Primary != class && c.verdict.Primary == c.final.Primary:
				cand.Breaks++
			}
		}
		if 2*cand.Fixes <= agree {
			continue // the rules already give the class to most of them
		}
		for k, n := range gave {
			cand.RulesGave = append(cand.RulesGave, classCount{Class: k, N: n})
		}
		slices.SortFunc(cand.RulesGave, func(x, y classCount) int { return cmp.Or(cmp.Compare(y.N, x.N), strings.Compare(x.Class, y.Class)) })
		cand.OneByOne = cand.Settled - cand.ByCluster
		cand.OneByOnePrecision = ratioOf(oneAgree, cand.OneByOne)
		cand.MayLabelUnattended = cand.OneByOnePrecision >= o.minPrecision && cand.OneByOne >= o.minFired
		out = append(out, cand)
	}
	slices.SortStableFunc(out, func(x, y ruleCandidate) int { return cmp.Compare(y.Fixes, x.Fixes) })
	return out, nil
}

// writeRuleCandidates prints the candidates after the check.
func writeRuleCandidates(w io.Writer, cands []ruleCandidate, o ruleCheckOpts) {
	fmt.Fprintln(w)
	if len(cands) == 0 {
		fmt.Fprintf(w, "Rule candidates: none (no cluster with at least %d settled traces that people closed with a class the rules did not give)\n", o.minCluster)
		return
	}
	fmt.Fprintln(w, "Rule candidates from closed cases: clusters people labelled with a class the rules did not give")
	for _, c := range cands {
		var gave []string
		for _, g := range c.RulesGave {
			gave = append(gave, fmt.Sprintf("%s %d", dash(g.Class), g.N))
		}
		bar := "keep people in the loop"
		if c.MayLabelUnattended {
			bar = "may label unattended"
		} else if c.OneByOne < o.minFired {
			bar += fmt.Sprintf(" (%d settled traces labelled one by one, fewer than --min-fired %d)", c.OneByOne, o.minFired)
		} else {
			bar += fmt.Sprintf(" (precision %.2f on those labelled one by one, below --min-precision %.2f)", c.OneByOnePrecision, o.minPrecision)
		}
		fmt.Fprintf(w, "  cluster #%d %s\n", c.Cluster, triage.Sanitize(c.Name))
		byCluster := ""
		if c.ByCluster > 0 {
			byCluster = fmt.Sprintf(" (%d labelled by cluster, which agree with it by construction)", c.ByCluster)
		}
		fmt.Fprintf(w, "    ⇒ %s · precision %.2f on %d settled%s of %d traces · fixes %d, breaks %d · rules gave %s · %s\n",
			triage.Sanitize(c.Class), c.Precision, c.Settled, byCluster, c.Size, c.Fixes, c.Breaks, triage.Sanitize(strings.Join(gave, ", ")), bar)
	}
}
