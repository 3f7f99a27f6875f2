package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
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

func mixText(cc []classCount) string {
	parts := make([]string, len(cc))
	for i, c := range cc {
		parts[i] = fmt.Sprintf("%s %d", c.Class, c.N)
	}
	return strings.Join(parts, ", ")
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

// classesOf is a class mix from its counts, largest first, then by name.
func classesOf(n map[string]int) []classCount {
	out := make([]classCount, 0, len(n))
	for k, v := range n {
		out = append(out, classCount{k, v})
	}
	slices.SortFunc(out, func(x, y classCount) int { return cmp.Or(cmp.Compare(y.N, x.N), strings.Compare(x.Class, y.Class)) })
	return out
}

// breakdownOf is a breakdown from its counts (empty keys left out when
// counted), the keys masked, largest first.
func breakdownOf(n map[string]int, rd *triage.Redactor) []keyCount {
	out := make([]keyCount, 0, len(n))
	for k, v := range n {
		out = append(out, keyCount{rd.String(k), v})
	}
	slices.SortFunc(out, func(x, y keyCount) int { return cmp.Or(cmp.Compare(y.N, x.N), strings.Compare(x.Key, y.Key)) })
	return out
}

// eachBucket calls open as each bucket begins, member for each of its
// members in order, and end as it ends: every bucket, in order, whether
// or not it has members.
func (cs *clusterStream) eachBucket(open func(b int) error, member func(b int, key []byte) error, end func(b int) error) error {
	cur := -1
	advance := func(to int) error {
		for cur < to {
			if cur >= 0 {
				if err := end(cur); err != nil {
					return err
				}
			}
			cur++
			if cur < len(cs.buckets) {
				if err := open(cur); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := cs.eachMember(func(b int, key []byte) error {
		if err := advance(b); err != nil {
			return err
		}
		return member(b, key)
	})
	if err != nil {
		return err
	}
	return advance(len(cs.buckets))
}

// membersField is where a cluster's JSON line, encoded with no members,
// gets them: the first `,"members":[]` in it is the field, since a quote
// inside a string is escaped and no other object in the line has one.
var membersField = []byte(`,"members":[]`)

// writeStreamJSON prints `clusters --json`: one line a cluster, its
// members streamed into the line between the fields json encodes.
func writeStreamJSON(w io.Writer, cs *clusterStream, withBaseline bool, rd *triage.Redactor) error {
	iw := triage.InertJSON(w)
	var tail, buf []byte
	n := 0
	open := func(i int) error {
		b := &cs.buckets[i]
		var row clusterJSON
		if i < cs.views {
			sig := redactSignature(*cs.c.Signature(b.sig), rd)
			row = clusterJSON{ID: i + 1, Name: sig.Name(), Size: b.size, Share: ratioOf(b.size, cs.total),
				Signature: &sig, Classes: classesOf(b.classes), Representative: rd.String(b.rep),
				Members: []string{}, Repositories: breakdownOf(b.repos, rd), FailingTools: breakdownOf(b.tools, rd)}
			if withBaseline {
				novel := b.baselineSize == 0
				bs := b.baselineSize
				row.Novel, row.BaselineSize = &novel, &bs
			}
		} else {
			row = clusterJSON{Unclustered: true, Reason: b.reason, Size: b.size, Share: ratioOf(b.size, cs.total),
				Classes: classesOf(b.classes), Members: []string{}}
		}
		line, err := json.Marshal(row)
		if err != nil {
			return err
		}
		at := bytes.Index(line, membersField)
		if at < 0 {
			return errors.New("clusters: a JSON line without its members field")
		}
		at += len(membersField) - 1 // before the ]
		buf = append(buf[:0], line[:at]...)
		tail = append(append(tail[:0], line[at:]...), '\n')
		n = 0
		return nil
	}
	member := func(_ int, key []byte) error {
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		buf = appendJSONString(buf, rd.String(string(key)))
		if len(buf) >= 32<<10 {
			if _, err := iw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		return nil
	}
	end := func(int) error {
		buf = append(buf, tail...)
		_, err := iw.Write(buf)
		buf = buf[:0]
		return err
	}
	if err := cs.eachBucket(open, member, end); err != nil {
		return err
	}
	if cs.skipped > 0 {
		// What the text output says in its head: not left out silently.
		return json.NewEncoder(iw).Encode(clusterJSON{Unclustered: true, NotCounted: true, Size: cs.skipped,
			Reason: "not known to have failed: no label, no scorer result and no outcome", Classes: []classCount{}, Members: []string{}})
	}
	return nil
}

// appendJSONString appends s as encoding/json writes a string: plain
// ASCII as it is, anything else through json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// writeStreamText prints `clusters`' table: each cluster's head, and its
// first o.show members as they stream.
func writeStreamText(w io.Writer, cs *clusterStream, o clusterOpts, rd *triage.Redactor) error {
	scope := "every run"
	if len(o.runs) > 0 {
		scope = "run " + strings.Join(o.runs, ", ")
	} else if o.baseline != "" {
		scope = "every run but " + o.baseline
	}
	head := fmt.Sprintf("clusters · %s · %d failing traces in %d clusters", scope, cs.total, cs.views)
	if o.baseline != "" {
		novel := 0
		for _, b := range cs.buckets[:cs.views] {
			if b.baselineSize == 0 {
				novel++
			}
		}
		head += fmt.Sprintf(" · baseline %s: %d novel, %d of its clusters not seen here", o.baseline, novel, cs.gone)
	}
	fmt.Fprintf(w, "%s · signature v%s\n", triage.Sanitize(head), signature.Version)
	if cs.skipped > 0 {
		what := fmt.Sprintf("%d traces are", cs.skipped)
		if cs.skipped == 1 {
			what = "1 trace is"
		}
		fmt.Fprintf(w, "(%s not counted: nothing says they failed, no label and no scorer result or outcome)\n", what)
	}
	if cs.total == 0 {
		fmt.Fprintln(w, "no failing traces")
		return nil
	}
	n, shown := 0, 0 // members seen in the bucket, bytes of them printed
	open := func(i int) error {
		n, shown = 0, 0
		b := &cs.buckets[i]
		if i >= cs.views {
			fmt.Fprintf(w, "\nunclustered: %d traces · %s\n   members ", b.size, dash(b.reason))
			return nil
		}
		sig := redactSignature(*cs.c.Signature(b.sig), rd)
		tag := ""
		if o.baseline != "" {
			if b.baselineSize == 0 {
				tag = "  NOVEL"
			} else {
				tag = fmt.Sprintf("  (baseline %d)", b.baselineSize)
			}
		}
		fmt.Fprintf(w, "\n#%d %s%s\n", i+1, dash(sig.Name()), tag)
		fmt.Fprintf(w, "   %d traces (%.1f%%) · %s · representative %s\n", b.size, 100*ratioOf(b.size, cs.total),
			mixText(classesOf(b.classes)), dash(rd.String(b.rep)))
		if len(sig.Evidence) > 0 {
			fmt.Fprintf(w, "   evidence %s\n", dash(strings.Join(sig.Evidence, "; ")))
		}
		fmt.Fprintf(w, "   tools %s", dash(sig.Shape))
		if ft := breakdownOf(b.tools, rd); len(ft) > 0 {
			fmt.Fprintf(w, " · failing %s", dash(countsText(ft, 3)))
		}
		if rp := breakdownOf(b.repos, rd); len(rp) > 0 {
			fmt.Fprintf(w, " · repos %s", dash(countsText(rp, 3)))
		}
		fmt.Fprintln(w)
		fmt.Fprint(w, "   members ")
		return nil
	}
	// The members line is dash(someOf(keys, o.show)) written a key at a
	// time: dash's escapes are of one character each (a CR only with the
	// LF after it, which no separator has), so they come out the same.
	member := func(_ int, key []byte) error {
		if n < o.show {
			s := key
			if rd != nil {
				s = []byte(rd.String(string(key)))
			}
			if n > 0 {
				shown += 2
				io.WriteString(w, ", ")
			}
			c := cellText.Replace(triage.Sanitize(string(s)))
			shown += len(c)
			io.WriteString(w, c)
		}
		n++
		return nil
	}
	end := func(int) error {
		if n > o.show {
			fmt.Fprintf(w, " … and %d more (--json lists all)", n-o.show)
		} else if shown == 0 {
			io.WriteString(w, "-")
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	return cs.eachBucket(open, member, end)
}
