package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/triage-dev/triage/internal/signature"
	"github.com/triage-dev/triage/internal/store"
)

// This file is how `clusters` clusters a store of any size in bounded
// memory (issue 27): every failing trace's record goes through spills
// (spill.go), never a slice of them all. Three spills, each read once or
// twice in order:
//
//  1. the traces to cluster, as readFailing gives them, sorted by id;
//  2. read back a chunk at a time for the store's EachTrace, each with
//     its signature, reason and failing tool, in id order; only per
//     distinct signature are its counts and its smallest member key kept,
//     which give every view's size, order, baseline size and
//     representative before any member is read again;
//  3. one pass over (2) for each view's classes, repositories and failing
//     tools, which writes the members by (view, key), the unclustered by
//     (reason, id), to be printed in that order (clusters_view.go).
//
// The clusterer keeps one entry a distinct signature, as before. The
// review screen, report --clusters and rules candidates keep the whole
// list (clusterRuns): their results hold every member.

// spillConf is where and past how many bytes clusterStream's spills
// write their runs; the zero value is os.TempDir() and spillLimit.
type spillConf struct {
	dir   string
	limit int
	// chunk is how many traces go to the store's EachTrace at once
	// (signatureChunk when 0).
	chunk int
}

// sigStat is what clusterStream keeps of one distinct signature: how
// many traces of the runs asked for, and of the baseline, have it.
type sigStat struct{ n, base int32 }

// streamBucket is one block of the output, in order: a view (a cluster
// as printed, with members of the runs asked for), or the unclustered
// traces of one reason.
type streamBucket struct {
	reason       string // "" for a view
	sig          int    // a view's representative's distinct signature
	rep          string // its representative's key
	size         int
	baselineSize int
	most         int32 // a view's most common signature's traces
	classes      map[string]int
	repos, tools map[string]int
}

// clusterStream is `clusters`' clustering: the buckets with their counts,
// and the members in a spill to read in bucket order.
type clusterStream struct {
	c       *signature.Clusterer
	buckets []streamBucket
	views   int // buckets[:views] are views, the rest reasons, sorted
	gone    int // clusters only the baseline has
	total   int // failing traces of the runs asked for
	skipped int // traces with no label and no known outcome
	cut     int // traces read only up to maxReadToolCalls calls
	members *spill
	spills  []*spill
	// spilled says whether any spill went to a file (tests).
	spilled bool
}

// Close removes the stream's temporary files.
func (cs *clusterStream) Close() error {
	var err error
	for _, s := range cs.spills {
		if e := s.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

func (cs *clusterStream) newSpill(conf spillConf, cmp func(a, b []byte) int) *spill {
	limit := conf.limit
	if limit <= 0 {
		limit = spillLimit
	}
	s := newSpill(conf.dir, limit, cmp)
	cs.spills = append(cs.spills, s)
	return s
}

// byID orders the first spill's records: by the id they start with.
func byID(a, b []byte) int { return bytes.Compare(a[:8], b[:8]) }

// byBucket orders the members: by bucket, then by the sort key (the key
// of a view's member; empty for the unclustered, which keep id order).
func byBucket(a, b []byte) int {
	if c := bytes.Compare(a[:4], b[:4]); c != 0 {
		return c
	}
	ra, rb := recReader{b: a[4:]}, recReader{b: b[4:]}
	return bytes.Compare(ra.bytes(), rb.bytes())
}

// streamClusters clusters the failing traces of runs (every run when
// empty) and of the baseline as clusterRuns does, through spills. Close
// the result, which holds temporary files, on every path; on an error
// streamClusters has closed it.
func (a *app) streamClusters(ctx context.Context, db store.Store, runs []string, baseline string, conf spillConf) (_ *clusterStream, err error) {
	cs := &clusterStream{c: signature.NewClusterer()}
	defer func() {
		if err != nil {
			cs.Close()
		}
	}()
	var w recWriter
	byIDs := cs.newSpill(conf, byID)
	cs.skipped, err = readFailing(ctx, db, runs, baseline, false, func(f failing) error {
		if byIDs.Len()%signatureChunk == 0 {
			a.heap.check()
		}
		w.reset()
		w.be64(uint64(f.id))
		w.str(f.run)
		w.str(f.key)
		w.str(f.primary)
		w.str(f.repo)
		w.flag(f.baseline)
		w.flag(f.failed)
		return byIDs.Add(w.b)
	})
	if err != nil {
		return nil, err
	}

	// (2) The signatures, a chunk at a time in id order.
	read := cs.newSpill(conf, nil)
	var sigs []sigStat
	reasons := map[string]int{} // reason → its number in read's records, 1 on
	var reasonOf []string
	var reasonN []int // traces of the runs asked for with each reason, by number-1
	chunkSize := signatureChunk
	if conf.chunk > 0 {
		chunkSize = conf.chunk
	}
	chunk := make([]failing, 0, min(byIDs.Len(), chunkSize))
	refs := make([]store.TraceRef, 0, cap(chunk))
	var got []signature.Signature
	flush := func() error {
		a.heap.check()
		refs = refs[:0]
		for i := range chunk {
			refs = append(refs, store.TraceRef{ID: chunk[i].id, RunID: chunk[i].run})
		}
		got = slices.Grow(got[:0], len(chunk))[:len(chunk)]
		cut, err := signatures(ctx, db, refs, false, func(i int, r *sigResult) {
			chunk[i].tool = r.tool
			got[i] = r.sig
		})
		cs.cut += cut
		if err != nil {
			return err
		}
		for i := range chunk {
			t := &chunk[i]
			// In id order, as clusterRuns adds them.
			if why := got[i].Unclusterable(); why != "" {
				t.reason = why
			} else {
				t.sig = cs.c.Add(got[i])
			}
			reason := 0
			if t.reason != "" {
				reason = reasons[t.reason]
				if reason == 0 {
					reasonOf, reasonN = append(reasonOf, t.reason), append(reasonN, 0)
					reason = len(reasonOf)
					reasons[t.reason] = reason
				}
				if !t.baseline {
					reasonN[reason-1]++
				}
			} else {
				if t.sig >= len(sigs) {
					sigs = append(sigs, make([]sigStat, t.sig+1-len(sigs))...)
				}
				if t.baseline {
					sigs[t.sig].base++
				} else {
					sigs[t.sig].n++
				}
			}
			w.reset()
			w.be64(uint64(t.id))
			w.str(t.key)
			w.str(t.primary)
			w.str(t.repo)
			w.str(t.tool)
			w.flag(t.baseline)
			w.flag(t.failed)
			w.uint(uint64(t.sig + 1))
			w.uint(uint64(reason))
			if err := read.Add(w.b); err != nil {
				return err
			}
		}
		chunk = chunk[:0]
		return nil
	}
	last := int64(-1)
	err = byIDs.Each(func(rec []byte) error {
		r := recReader{b: rec}
		f := failing{id: int64(r.be64()), run: r.str(), key: r.str(), primary: r.str(), repo: r.str(), sig: -1}
		f.baseline, f.failed = r.flag(), r.flag()
		if r.err != nil {
			return r.err
		}
		if f.id == last {
			return nil // a trace read twice is clustered once
		}
		last = f.id
		chunk = append(chunk, f)
		if len(chunk) == chunkSize {
			return flush()
		}
		return nil
	})
	if err == nil && len(chunk) > 0 {
		err = flush()
	}
	if err != nil {
		return nil, err
	}
	cs.spilled = byIDs.Spilled()
	if err := byIDs.Close(); err != nil {
		return nil, err
	}
	chunk, refs = nil, nil

	// The views, from the counts alone: sizes, order and baseline sizes
	// as clusterSet.views finds them from the members, and which
	// signatures the representative may have: the most common among the
	// members (the representative is the smallest key of those, the
	// first of the most common signature, ties to the smaller first key).
	groups, of := cs.c.Cluster()
	sigs = append(sigs, make([]sigStat, cs.c.Len()-len(sigs))...)
	viewOf := make([]int, len(groups)) // group → bucket, -1 for none
	for g, gr := range groups {
		viewOf[g] = -1
		b := streamBucket{sig: -1}
		for _, s := range gr.Sigs {
			st := &sigs[s]
			b.size += int(st.n)
			b.baselineSize += int(st.base)
			b.most = max(b.most, st.n)
		}
		if b.size == 0 {
			cs.gone++
			continue
		}
		viewOf[g] = len(cs.buckets)
		cs.buckets = append(cs.buckets, b)
	}
	perm := make([]int, len(cs.buckets))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(x, y int) int { return cmp.Compare(cs.buckets[y].size, cs.buckets[x].size) })
	at := make([]int, len(perm))
	sorted := make([]streamBucket, len(perm))
	for r, i := range perm {
		sorted[r], at[i] = cs.buckets[i], r
	}
	for g := range viewOf {
		if viewOf[g] >= 0 {
			viewOf[g] = at[viewOf[g]]
		}
	}
	cs.buckets, cs.views = sorted, len(sorted)
	// A reason only the baseline's traces have is not listed.
	sortedReasons := slices.Sorted(slices.Values(reasonOf))
	reasonBucket := make([]int, len(reasonOf)+1)
	for _, r := range sortedReasons {
		if reasonN[reasons[r]-1] == 0 {
			continue
		}
		reasonBucket[reasons[r]] = len(cs.buckets)
		cs.buckets = append(cs.buckets, streamBucket{reason: r, sig: -1})
	}
	for i := range cs.buckets {
		b := &cs.buckets[i]
		b.classes, b.repos, b.tools = map[string]int{}, map[string]int{}, map[string]int{}
	}

	// (3) The breakdowns, and the members in the order they print.
	cs.members = cs.newSpill(conf, byBucket)
	err = read.Each(func(rec []byte) error {
		r := recReader{b: rec}
		r.be64()
		key, primary, repo, tool := r.bytes(), r.bytes(), r.bytes(), r.bytes()
		isBase, _ := r.flag(), r.flag()
		sig, reason := int(r.uint())-1, int(r.uint())
		if r.err != nil {
			return r.err
		}
		if isBase {
			return nil
		}
		var bi int
		switch {
		case reason > 0 && reason < len(reasonBucket):
			bi = reasonBucket[reason]
		case sig >= 0 && sig < len(of):
			bi = viewOf[of[sig]]
		default:
			return errDamagedSpill
		}
		b := &cs.buckets[bi]
		if bi >= cs.views {
			b.size++
		} else if sigs[sig].n == b.most && (b.sig < 0 || bytes.Compare(key, []byte(b.rep)) < 0) {
			b.sig, b.rep = sig, string(key)
		}
		cs.total++
		b.classes[string(orUnlabelled(primary))]++
		if len(repo) > 0 {
			b.repos[string(repo)]++
		}
		if len(tool) > 0 {
			b.tools[string(tool)]++
		}
		// A view's members sort by key; a reason's, with an empty sort
		// key, keep the order they come in (id), the key after it.
		w.reset()
		w.be32(uint32(bi))
		if bi < cs.views {
			w.bytes(key)
		} else {
			w.bytes(nil)
			w.bytes(key)
		}
		return cs.members.Add(w.b)
	})
	if err != nil {
		return nil, err
	}
	cs.spilled = cs.spilled || read.Spilled()
	if err := read.Close(); err != nil {
		return nil, err
	}
	return cs, nil
}

// errDamagedSpill is a record that names no cluster nor reason.
var errDamagedSpill = errors.New("a temporary file for the traces holds a record of no cluster")

// orUnlabelled is a class as the mix names it.
func orUnlabelled(p []byte) []byte {
	if len(p) == 0 {
		return []byte("unlabelled")
	}
	return p
}

// eachMember calls fn with every member in the order they print: bucket
// by bucket, a view's by key, a reason's by id. key is valid only until
// fn returns.
func (cs *clusterStream) eachMember(fn func(bucket int, key []byte) error) error {
	return cs.members.Each(func(rec []byte) error {
		r := recReader{b: rec}
		b := int(r.be32())
		key := r.bytes()
		if b >= cs.views {
			key = r.bytes()
		}
		if r.err != nil {
			return r.err
		}
		if b >= len(cs.buckets) {
			return errDamagedSpill
		}
		return fn(b, key)
	})
}
