package main

import (
	"context"
	"fmt"

	"github.com/triage-dev/triage/internal/ingest"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// maxReseed bounds how many seeds past its epoch a sample is tried at.
const maxReseed = 1024

// reseeder places Inspect samples that collide with another log's. An
// Inspect log is one eval of a task, its seeds the epochs: two logs of
// one task imported into one run (--run, or an eval retried under the
// same run id) both hold epoch 1 of every sample. They are further
// attempts at the same samples, so the later one takes the next seed
// free in the run, in import order; a sample already stored there (the
// same log imported again) is a duplicate, as anywhere else. Any other
// format's conflict stays a reject: there the key is the trace's own.
//
// Conflicts arrive in the store's batch results, after the import has
// moved on, so the samples are queued and added again once every file
// is read, a seed further each round.
type reseeder struct {
	queue []store.Added
	// from is each moved sample's first key, for the summary.
	from map[*triage.Trace]string
}

// take queues a conflicting Inspect sample for a later seed; false
// leaves the conflict to be rejected.
func (r *reseeder) take(ad store.Added) bool {
	t := ad.Trace
	if t == nil || t.Source != ingest.InspectFormat.Name {
		return false
	}
	if r.from == nil {
		r.from = map[*triage.Trace]string{}
	}
	if _, ok := r.from[t]; !ok {
		r.from[t] = t.Key()
	}
	if t.Seed >= maxReseed {
		return false
	}
	r.queue = append(r.queue, ad)
	return true
}

// landed counts a moved sample that found its seed.
func (r *reseeder) landed(ad store.Added, sum *importSummary) {
	first, ok := r.from[ad.Trace]
	if !ok {
		return
	}
	sum.Reseeded++
	if sum.ReseededExample == "" {
		sum.ReseededExample = fmt.Sprintf("%s → seed %d", first, ad.Trace.Seed)
	}
}

// place adds the queued samples again a seed further, round after round,
// until each is stored, a duplicate, or past maxReseed (then rejected as
// a conflict). begin opens an import when none is; cur returns it.
func (r *reseeder) place(ctx context.Context, begin func() error, cur func() store.Import) error {
	for len(r.queue) > 0 {
		if err := begin(); err != nil {
			return err
		}
		im := cur()
		batch := r.queue
		r.queue = nil
		for _, ad := range batch {
			t := ad.Trace
			t.Seed++
			norm, err := ingest.Finish(t)
			if err != nil {
				return fmt.Errorf("import %s:%d: %w", ad.File, ad.Line, err)
			}
			if err := im.Add(ctx, t, norm, ad.File, ad.Line); err != nil {
				return fmt.Errorf("import %s:%d: %w", ad.File, ad.Line, err)
			}
		}
		if err := im.Flush(ctx); err != nil {
			return err
		}
	}
	return nil
}
