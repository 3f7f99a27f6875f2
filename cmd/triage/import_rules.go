package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/triage-dev/triage/internal/rules"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// importRules labels traces as `import --rules` stores them: the verdicts
// `rules run` would write afterwards, from the traces import has already
// decoded. A run created by this import has no frozen controls yet, as in
// a later `rules run`.
type importRules struct {
	l  *labeller
	mu sync.Mutex // guards l.runs: two batches are labelled at once
}

// newImportRules reads the taxonomy and every run's controls before the
// import's transaction pins the store's connection.
func (a *app) newImportRules(ctx context.Context, db store.Store) (*importRules, error) {
	tax, err := a.taxonomy()
	if err != nil {
		return nil, err
	}
	base := rules.CompileTaxonomy(tax)
	l := &labeller{db: db, tax: tax, base: base, tasks: newTaskCache(base)}
	if err := l.prepare(ctx); err != nil {
		return nil, err
	}
	return &importRules{l: l}, nil
}

func (ir *importRules) run(id string) *runRules {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	rr := ir.l.runs[id]
	if rr == nil {
		c := triage.Controls{RunID: id}
		rr = &runRules{controls: c, budgets: rules.BudgetsFromControls(&c)}
		ir.l.runs[id] = rr
	}
	return rr
}

// label is the store.ImportLabel of the import. A trace from another
// format is classified from its normalised row, as `rules run` reads it,
// so that both give the same verdict.
func (ir *importRules) label(batch []store.Added) ([]*triage.Verdict, error) {
	out := make([]*triage.Verdict, len(batch))
	// The batch is classified a task at a time, so that a task is
	// compiled at most once a batch whatever order its rows came in (rows
	// alternating between tasks that outweigh the cache would otherwise
	// compile again a row).
	order := make([]int, len(batch))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ta, tb := batch[a].Trace, batch[b].Trace
		return cmp.Or(cmp.Compare(ta.RunID, tb.RunID), cmp.Compare(ta.TaskID, tb.TaskID))
	})
	var last struct {
		run, task string
		ct        *rules.Compiled
	}
	for _, i := range order {
		ad := batch[i]
		tr := ad.Trace
		rr := ir.run(tr.RunID)
		if err := rr.loadPack(&ir.l.pk); err != nil {
			return nil, err
		}
		if ad.Norm != nil {
			var err error
			if tr, err = ir.l.db.Decode(store.StoredRow{RunID: tr.RunID, Source: tr.Source, Raw: tr.Raw, Norm: ad.Norm}); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", ad.File, ad.Line, err)
			}
		}
		if last.ct == nil || last.run != tr.RunID || last.task != tr.TaskID {
			last.run, last.task, last.ct = tr.RunID, tr.TaskID, ir.l.tasks.forTask(rr.pack, tr.TaskID)
		}
		v := last.ct.Classify(rr.budgets, tr)
		out[i] = &v
	}
	return out, nil
}

// missingPack says whether some run labelled had no task pack.
func (ir *importRules) missingPack() bool {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	for _, rr := range ir.l.runs {
		if rr.loaded && rr.pack == nil {
			return true
		}
	}
	return false
}
