package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/signature"
	"github.com/triage-dev/triage/internal/triage"
)

// This file is how `clusters` shows its clusters: grouped into views of
// the runs asked for, as a table or as JSON lines.

// clusterView is one cluster as printed: the traces of the runs asked for.
type clusterView struct {
	members      []int // indexes into traces, by key
	baselineSize int
	sig          int // the representative's distinct signature
	rep          int
}

// views groups the non-baseline traces by cluster, largest first, and the
// unclustered ones by reason; gone counts the clusters only the baseline
// has.
func (cs *clusterSet) views() (views []clusterView, unclustered map[string][]int, gone int) {
	byGroup := make([]clusterView, len(cs.groups))
	for g := range byGroup {
		byGroup[g].sig = -1
	}
	unclustered = map[string][]int{}
	for i := range cs.traces {
		t := &cs.traces[i]
		switch {
		case t.reason != "":
			if !t.baseline {
				unclustered[t.reason] = append(unclustered[t.reason], i)
			}
		case t.baseline:
			byGroup[cs.of[t.sig]].baselineSize++
		default:
			g := cs.of[t.sig]
			byGroup[g].members = append(byGroup[g].members, i)
		}
	}
	for g := range byGroup {
		v := &byGroup[g]
		if len(v.members) == 0 {
			gone++
			continue
		}
		slices.SortFunc(v.members, func(x, y int) int { return strings.Compare(cs.traces[x].key, cs.traces[y].key) })
		// The representative has the cluster's most common signature
		// among the members shown, and the first name.
		n := map[int]int{}
		for _, m := range v.members {
			n[cs.traces[m].sig]++
		}
		v.rep = v.members[0]
		v.sig = cs.traces[v.rep].sig
		for _, m := range v.members {
			s := cs.traces[m].sig
			if n[s] > n[v.sig] {
				v.rep, v.sig = m, s
			}
		}
		views = append(views, *v)
	}
	slices.SortStableFunc(views, func(x, y clusterView) int { return cmp.Compare(len(y.members), len(x.members)) })
	return views, unclustered, gone
}

func (cs *clusterSet) classes(members []int) []classCount {
	n := map[string]int{}
	for _, m := range members {
		p := cs.traces[m].primary
		if p == "" {
			p = "unlabelled"
		}
		n[p]++
	}
	out := make([]classCount, 0, len(n))
	for k, v := range n {
		out = append(out, classCount{k, v})
	}
	slices.SortFunc(out, func(x, y classCount) int { return cmp.Or(cmp.Compare(y.N, x.N), strings.Compare(x.Class, y.Class)) })
	return out
}

func (cs *clusterSet) keys(idx []int, rd *triage.Redactor) []string {
	out := make([]string, len(idx))
	for i, m := range idx {
		out[i] = rd.String(cs.traces[m].key)
	}
	return out
}

// redactSignature masks the trace text a signature quotes.
func redactSignature(s signature.Signature, rd *triage.Redactor) signature.Signature {
	if rd == nil {
		return s
	}
	s.Evidence = slices.Clone(s.Evidence)
	for i := range s.Evidence {
		s.Evidence[i] = rd.String(s.Evidence[i])
	}
	s.Tests = slices.Clone(s.Tests)
	for i := range s.Tests {
		s.Tests[i] = rd.String(s.Tests[i])
	}
	if s.Error != nil {
		e := *s.Error
		e.Type, e.Template = rd.String(e.Type), rd.String(e.Template)
		s.Error = &e
	}
	s.Summary = rd.String(s.Summary)
	return s
}

func ratioOf(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func sortedReasons(m map[string][]int) []string {
	out := make([]string, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

func writeClustersJSON(w io.Writer, cs *clusterSet, views []clusterView, unclustered map[string][]int, total int, withBaseline bool, rd *triage.Redactor) error {
	enc := json.NewEncoder(triage.InertJSON(w))
	for i, v := range views {
		sig := redactSignature(*cs.c.Signature(v.sig), rd)
		row := clusterJSON{ID: i + 1, Name: sig.Name(), Size: len(v.members), Share: ratioOf(len(v.members), total),
			Signature: &sig, Classes: cs.classes(v.members), Representative: rd.String(cs.traces[v.rep].key),
			Members: cs.keys(v.members, rd), Repositories: cs.breakdown(v.members, func(t *failing) string { return t.repo }, rd),
			FailingTools: cs.breakdown(v.members, func(t *failing) string { return t.tool }, rd)}
		if withBaseline {
			novel := v.baselineSize == 0
			bs := v.baselineSize
			row.Novel, row.BaselineSize = &novel, &bs
		}
		if err := enc.Encode(row); err != nil {
			return err
		}
	}
	for _, reason := range sortedReasons(unclustered) {
		m := unclustered[reason]
		row := clusterJSON{Unclustered: true, Reason: reason, Size: len(m), Share: ratioOf(len(m), total),
			Classes: cs.classes(m), Members: cs.keys(m, rd)}
		if err := enc.Encode(row); err != nil {
			return err
		}
	}
	if cs.skipped > 0 {
		// What the text output says in its head: not left out silently.
		return enc.Encode(clusterJSON{Unclustered: true, NotCounted: true, Size: cs.skipped,
			Reason: "not known to have failed: no label, no scorer result and no outcome", Classes: []classCount{}, Members: []string{}})
	}
	return nil
}

func writeClustersText(w io.Writer, cs *clusterSet, views []clusterView, unclustered map[string][]int, gone, total int, o clusterOpts, rd *triage.Redactor) error {
	scope := "every run"
	if len(o.runs) > 0 {
		scope = "run " + strings.Join(o.runs, ", ")
	} else if o.baseline != "" {
		scope = "every run but " + o.baseline
	}
	head := fmt.Sprintf("clusters · %s · %d failing traces in %d clusters", scope, total, len(views))
	if o.baseline != "" {
		novel := 0
		for _, v := range views {
			if v.baselineSize == 0 {
				novel++
			}
		}
		head += fmt.Sprintf(" · baseline %s: %d novel, %d of its clusters not seen here", o.baseline, novel, gone)
	}
	fmt.Fprintf(w, "%s · signature v%s\n", triage.Sanitize(head), signature.Version)
	if cs.skipped > 0 {
		what := fmt.Sprintf("%d traces are", cs.skipped)
		if cs.skipped == 1 {
			what = "1 trace is"
		}
		fmt.Fprintf(w, "(%s not counted: nothing says they failed, no label and no scorer result or outcome)\n", what)
	}
	if total == 0 {
		fmt.Fprintln(w, "no failing traces")
		return nil
	}
	for i, v := range views {
		sig := redactSignature(*cs.c.Signature(v.sig), rd)
		tag := ""
		if o.baseline != "" {
			if v.baselineSize == 0 {
				tag = "  NOVEL"
			} else {
				tag = fmt.Sprintf("  (baseline %d)", v.baselineSize)
			}
		}
		fmt.Fprintf(w, "\n#%d %s%s\n", i+1, dash(sig.Name()), tag)
		fmt.Fprintf(w, "   %d traces (%.1f%%) · %s · representative %s\n", len(v.members), 100*ratioOf(len(v.members), total),
			mixText(cs.classes(v.members)), dash(rd.String(cs.traces[v.rep].key)))
		if len(sig.Evidence) > 0 {
			fmt.Fprintf(w, "   evidence %s\n", dash(strings.Join(sig.Evidence, "; ")))
		}
		fmt.Fprintf(w, "   tools %s", dash(sig.Shape))
		if ft := cs.breakdown(v.members, func(t *failing) string { return t.tool }, rd); len(ft) > 0 {
			fmt.Fprintf(w, " · failing %s", dash(countsText(ft, 3)))
		}
		if rp := cs.breakdown(v.members, func(t *failing) string { return t.repo }, rd); len(rp) > 0 {
			fmt.Fprintf(w, " · repos %s", dash(countsText(rp, 3)))
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "   members %s\n", dash(someOf(cs.keys(v.members, rd), o.show)))
	}
	for _, reason := range sortedReasons(unclustered) {
		m := unclustered[reason]
		fmt.Fprintf(w, "\nunclustered: %d traces · %s\n   members %s\n", len(m), dash(reason), dash(someOf(cs.keys(m, rd), o.show)))
	}
	return nil
}

func mixText(cc []classCount) string {
	parts := make([]string, len(cc))
	for i, c := range cc {
		parts[i] = fmt.Sprintf("%s %d", c.Class, c.N)
	}
	return strings.Join(parts, ", ")
}

// someOf lists up to n names and says how many more there are.
func someOf(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" … and %d more (--json lists all)", len(names)-n)
}

// breakdown counts the members by a key (empty keys left out), largest
// first.
func (cs *clusterSet) breakdown(members []int, key func(*failing) string, rd *triage.Redactor) []keyCount {
	n := map[string]int{}
	for _, m := range members {
		if k := key(&cs.traces[m]); k != "" {
			n[k]++
		}
	}
	out := make([]keyCount, 0, len(n))
	for k, v := range n {
		out = append(out, keyCount{rd.String(k), v})
	}
	slices.SortFunc(out, func(x, y keyCount) int { return cmp.Or(cmp.Compare(y.N, x.N), strings.Compare(x.Key, y.Key)) })
	return out
}

func countsText(kc []keyCount, n int) string {
	parts := make([]string, 0, n+1)
	for i, c := range kc {
		if i == n {
			parts = append(parts, fmt.Sprintf("+%d more", len(kc)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", c.Key, c.N))
	}
	return strings.Join(parts, ", ")
}
