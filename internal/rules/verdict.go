package rules

import (
	"github.com/triage-dev/triage/internal/triage"
)

// A verdict's evidence, unevaluated items and labels (Fired, then
// Secondary) share one allocation shaped to fit them: three quarters of
// seed-format rows need one evidence item and one label, 96 bytes, and
// allocating the size a verdict needs rather than a fixed worst case
// halves what the collector sweeps and the heap grows by per row.
type (
	verdict1 struct {
		ev     [1]triage.Evidence
		labels [1]string
	}
	verdict2 struct {
		ev     [2]triage.Evidence
		labels [3]string
	}
	verdict3 struct {
		ev     [3]triage.Evidence
		labels [5]string
	}
)

// alloc returns room for nEv evidence items and nLab labels, in one
// allocation for the common shapes.
func alloc(nEv, nLab int) ([]triage.Evidence, []string) {
	switch {
	case nEv <= 1 && nLab <= 1:
		b := new(verdict1)
		return b.ev[:0:nEv], b.labels[:0:nLab]
	case nEv <= 2 && nLab <= 3:
		b := new(verdict2)
		return b.ev[:0:nEv], b.labels[:0:nLab]
	case nEv <= 3 && nLab <= 5:
		b := new(verdict3)
		return b.ev[:0:nEv], b.labels[:0:nLab]
	}
	var labels []string
	if nLab > 0 {
		labels = make([]string, 0, nLab)
	}
	return make([]triage.Evidence, 0, nEv), labels
}

// build fills v's labels (Fired, Secondary), Evidence and Unevaluated
// from the run: every class that fired, in rule order; the secondary tags
// are all but the primary, then LEAKED; the unevaluated rules in order,
// each with its reason.
func (r *run) build(v *triage.Verdict, primary, nFired int, leaked bool) {
	nSec := max(nFired-1, 0)
	if leaked {
		nSec++
	}
	tags := r.tagged & r.c.enabledMask &^ r.fired
	if primary >= 0 {
		tags &^= bit(primary)
	}
	nSec += tags.count()
	nEv := r.nEvs
	nUn := r.uneval.count()
	if nEv+nUn == 0 && nFired+nSec == 0 {
		v.Secondary, v.Fired, v.Evidence = []string{}, []string{}, []triage.Evidence{}
		return
	}
	all, labels := alloc(nEv+nUn, nFired+nSec)
	all = append(all, r.evArr[:min(nEv, len(r.evArr))]...)
	all = append(all, r.more...)
	for m := r.uneval; m != 0; m &= m - 1 {
		i := m.first()
		all = append(all, triage.Evidence{Rule: table[i].code, Message: r.unWhy[i], ToolCall: -1, RunLevel: r.runLevel.has(i)})
	}
	v.Evidence = all[:nEv:nEv]
	if nUn > 0 {
		v.Unevaluated = all[nEv:]
	}
	if nFired+nSec == 0 {
		v.Secondary, v.Fired = []string{}, []string{}
		return
	}
	for m := r.fired & r.c.enabledMask; m != 0; m &= m - 1 {
		labels = append(labels, table[m.first()].code)
	}
	if nFired > 0 {
		// Every fired class but the primary, in order (the primary need
		// not be the first: see capPrimary).
		v.Primary = table[primary].code
		for _, l := range labels[:nFired] {
			if l != v.Primary {
				labels = append(labels, l)
			}
		}
	}
	for m := tags; m != 0; m &= m - 1 {
		labels = append(labels, table[m.first()].code)
	}
	if leaked {
		labels = append(labels, triage.TagLeaked)
	}
	v.Fired = labels[:nFired:nFired]
	v.Secondary = labels[nFired:]
}
