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

// This file keeps the writers `clusters` had before it streamed (issue
// 27), over the whole-list clustering (clusterRuns and views, what the
// review screen shows): the oracle the streamed output is compared with.

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

// someOf lists up to n names and says how many more there are.
func someOf(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" … and %d more (--json lists all)", len(names)-n)
}
