// Command triage tells a team why its coding agents fail: it imports agent
// traces into a local SQLite store, labels them with deterministic rules,
// walks reviewers through what the rules cannot decide, measures whether
// reviewers agree, and publishes benchmark cards and failure-mix reports.
//
// This package is the only place that parses flags, reads config and wires
// the internal packages together (DESIGN §1).
package main

import (
	"context"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/metrics"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// streamingGC tunes the collector for the commands that stream through a
// bounded working set (import, rules run): they allocate many short-lived
// values, and collecting less often buys a fifth of their time, while the
// soft limit keeps the resident set flat whatever the input size. Commands
// that must hold a large live heap (the review queue of a million-trace
// store) keep the defaults: under a 128 MB limit they collected without
// pause and spent 40% of their time in the collector.
//
// The limit is 72 MiB: SQLite's page cache, its other allocations and the
// binary add about 45 MiB outside Go's heap, and the resident set is to
// stay under 128 MiB (issue 21). The live heap of an import or a rules
// run of seed-sized rows is 15-30 MB, so the collector still runs only
// every 40-50 MB allocated; at 128 MiB `import --rules` of 100k rows
// peaked at 138 MiB, at 72 MiB at 113 MiB, with no CPU cost that four
// alternated rounds could tell (docs/PERFORMANCE.md). Inputs whose live
// heap passes the limit (traces of megabytes each) are collected at
// most half the time, the runtime's own bound.
//
// GOGC and GOMEMLIMIT in the environment, when set, win over these: the
// runtime has read them already.
func streamingGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(boundedHeapLimit)
	}
}

// harnessGC raises the soft memory limit to 112 MiB once an import
// decodes harness logs ahead (prefetch.go). The prefetcher holds up to
// 48 MiB of files decoded ahead, their traces and rows, so the live heap
// sat near the 72 MiB limit and the collector ran without pause: a sixth
// of a 1 GB import's CPU (issue 15). At 112 MiB the 1 GB directory peaks
// at about 141 MB resident (the target is 200 MB) for a fifth less CPU.
// Our JSONL never reaches it (it streams), so issue 21's figures stand.
// GOMEMLIMIT in the environment still wins.
func harnessGC() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(112 << 20)
	}
}

// boundedHeapLimit is the soft limit of streamingGC and cappedGC, and
// boundedHeapLift the live heap at which cappedGC gives it up.
const (
	boundedHeapLimit = 72 << 20
	boundedHeapLift  = 48 << 20
)

// heapCap is a soft memory limit kept only while the live heap stays well
// under it (cappedGC).
type heapCap struct {
	on     bool
	sample []metrics.Sample
}

// cappedGC sets streamingGC's 72 MiB soft limit (and no GOGC change)
// for `clusters` and `report`, whose live heap is small on most stores
// but grows with what they read (the report's with its tasks: 46 MB at
// 100,000, where the default collector put it at 125-131 MB resident and
// the limit at 122-124). For clusters: under the default collector their
// heap peaks at twice the live heap, 2×40 MB at 100k failing traces, which
// with SQLite's memory put the resident set at 131-137 MB; under the limit
// it is 123 MB at the same CPU (issue 27). `clusters` now streams its
// per-trace records through temporary files (clusters_stream.go) and its
// live heap grows only with the distinct signatures (32 bytes each): 35
// MB at a million rows failing 277k ways, so the limit holds there. A
// store failing in many more ways could still pass it, and a limit under
// the live heap would make the collector run half the time, so check
// gives the limit up (back to the default, GOGC alone) once the live heap
// passes 48 MiB. GOMEMLIMIT in the environment wins.
func cappedGC() *heapCap {
	if os.Getenv("GOMEMLIMIT") != "" {
		return &heapCap{}
	}
	debug.SetMemoryLimit(boundedHeapLimit)
	return &heapCap{on: true, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

// check gives the limit up once the live heap (as of the last collection)
// passes boundedHeapLift. It is cheap: call it every few thousand traces.
// A nil heapCap does nothing.
func (h *heapCap) check() {
	if h == nil || !h.on {
		return
	}
	metrics.Read(h.sample)
	if v := h.sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > boundedHeapLift {
		debug.SetMemoryLimit(math.MaxInt64)
		h.on = false
	}
}
