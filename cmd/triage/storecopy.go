package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

func newStoreCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Whole stores: copy one between SQLite and PostgreSQL",
	}
	var from, to string
	cp := &cobra.Command{
		Use:   "copy --from A --to B",
		Short: "Copy a whole store (traces, rejects, runs, slices, rule verdicts, people's labels) into another, empty or not",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return usageErr("store copy needs --from and --to (a file or a postgres:// URL each)")
			}
			ctx := cmd.Context()
			src, err := openDB(ctx, from, decodeWholeRow)
			if err != nil {
				return err
			}
			defer src.Close()
			dst, err := openDB(ctx, to, decodeWholeRow)
			if err != nil {
				return err
			}
			defer dst.Close()
			dst.OnWait(a.sayWaiting)
			n, err := copyWholeStore(ctx, src, dst)
			if err != nil {
				return fmt.Errorf("store copy: %w", err)
			}
			sayf(a.stderr, "store copy: %d traces, %d rejects, %d rule verdicts, %d people's label events\n", n.traces, n.rejects, n.verdicts, n.events)
			return nil
		},
	}
	cp.Flags().StringVar(&from, "from", "", "the store to copy (a file or a postgres:// URL)")
	cp.Flags().StringVar(&to, "to", "", "the store to copy into (created when missing)")
	cmd.AddCommand(cp)
	return cmd
}

type copied struct{ traces, rejects, verdicts, events int }

// copyStore copies src into dst through the store interfaces alone:
// what lands is what the commands read (traces with their rows, files
// and results, rejects, run controls, slices, each trace's current rule
// verdict with its evidence, every people's event), and a copy into a
// store holding some of it already adds only the rest (imports and
// label events are idempotent).
func copyWholeStore(ctx context.Context, src, dst store.Store) (copied, error) {
	var n copied
	runs, err := src.Runs(ctx)
	if err != nil {
		return n, err
	}
	for _, r := range runs {
		if r.ControlsSet {
			if err := dst.SetControls(ctx, r.Controls); err != nil {
				return n, fmt.Errorf("run %s: %w", r.Controls.RunID, err)
			}
		}
	}
	files, err := src.ImportFiles(ctx)
	if err != nil {
		return n, err
	}
	sums, err := src.Summaries(ctx, "")
	if err != nil {
		return n, err
	}
	// Summaries come in key order; the traces are added in the source's
	// id order, so the target numbers them alike and every listing that
	// reads in id order (traces --json, report, the queue's ties) is the
	// same after a copy.
	slices.SortFunc(sums, func(x, y store.TraceSummary) int { return cmp.Compare(x.ID, y.ID) })
	im, err := dst.BeginImport(ctx, func(ad store.Added) error {
		if ad.Result == store.Conflict {
			return fmt.Errorf("%s is stored in the target with other content", ad.Trace.Key())
		}
		n.traces++
		return nil
	})
	if err != nil {
		return n, err
	}
	defer im.Rollback()
	im.Whole()
	// The rows stream a batch at a time (a few queries a batch of 1,024;
	// it was Trace and Row for each trace, so every body was read twice
	// and each with its own query), in id order; sums is in key order.
	byID := slices.Clone(sums)
	slices.SortFunc(byID, func(a, b store.TraceSummary) int { return cmp.Compare(a.ID, b.ID) })
	refs := make([]store.TraceRef, len(byID))
	for i, s := range byID {
		refs[i] = store.TraceRef{ID: s.ID, RunID: s.RunID}
	}
	next := 0
	if err := src.EachRow(ctx, refs, func(row store.StoredRow) error {
		for next < len(byID) && byID[next].ID != row.ID {
			next++
		}
		if next == len(byID) {
			return fmt.Errorf("trace %d: read out of order", row.ID)
		}
		s := byID[next]
		row.Hash, row.Source = s.ContentHash, s.Source
		t, err := src.Decode(row)
		if err != nil {
			return err
		}
		var norm []byte
		if row.Norm != nil && !bytes.Equal(row.Norm, row.Raw) {
			norm = row.Norm
		}
		t.RunID, t.TaskID, t.Seed, t.Model, t.Agent, t.PromptID = s.RunID, s.TaskID, s.Seed, s.Model, s.Agent, s.PromptID
		t.ExitCode, t.Outcome, t.WallS, t.Tokens, t.CostUSD, t.Source, t.ContentHash = s.ExitCode, s.Outcome, s.WallS, s.Tokens, s.CostUSD, s.Source, s.ContentHash
		// A store written before NULs were refused may hold one in a
		// text field, which PostgreSQL cannot keep: the copy stops
		// naming the trace and field (the import is rolled back whole).
		if err := t.Validate(); err != nil {
			return fmt.Errorf("trace %q (id %d): %w", t.Key(), s.ID, err)
		}
		return im.Add(ctx, t, norm, files[s.ImportID], 0)
	}); err != nil {
		return n, err
	}
	if err := src.EachReject(ctx, "", func(r store.Reject) error {
		n.rejects++
		return im.Reject(ctx, r)
	}); err != nil {
		return n, err
	}
	if err := im.Commit(ctx); err != nil {
		return n, err
	}
	// The same traces under the target's ids.
	idOf := map[string]int64{}
	keyOf := map[int64]string{}
	for _, s := range sums {
		keyOf[s.ID] = s.Key()
	}
	dsums, err := dst.Summaries(ctx, "")
	if err != nil {
		return n, err
	}
	for _, s := range dsums {
		idOf[s.Key()] = s.ID
	}
	stored, err := src.Slices(ctx)
	if err != nil {
		return n, err
	}
	for _, sl := range stored {
		full, err := src.Slice(ctx, sl.Name)
		if err != nil {
			return n, err
		}
		items := make([]int64, len(full.Items))
		for i, id := range full.Items {
			items[i] = idOf[keyOf[id]]
		}
		full.Items = items
		if err := dst.CreateSlice(ctx, full); err != nil && !isFrozen(err) {
			return n, fmt.Errorf("slice %s: %w", sl.Name, err)
		}
	}
	states, err := src.LabelStates(ctx, "")
	if err != nil {
		return n, err
	}
	have, err := dst.LabelStates(ctx, "")
	if err != nil {
		return n, err
	}
	// The verdicts, with their evidence, a batch at a time: they were
	// read all at once and written one rule_verdicts row each.
	var events []triage.LabelEvent
	var ids []int64
	for lo := 0; lo < len(sums); lo += copyVerdictBatch {
		part := sums[lo:min(lo+copyVerdictBatch, len(sums))]
		ids = ids[:0]
		for _, s := range part {
			if st := states[s.ID]; st != nil && st.Rule != nil {
				ids = append(ids, s.ID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		verdicts, err := src.Verdicts(ctx, ids)
		if err != nil {
			return n, err
		}
		events = events[:0]
		for _, s := range part {
			st := states[s.ID]
			v := verdicts[s.ID]
			if st == nil || st.Rule == nil || v == nil {
				continue
			}
			to := idOf[s.Key()]
			if h := have[to]; h != nil && h.Rule != nil && h.Rule.CreatedAt.Equal(st.Rule.CreatedAt) && h.Rule.Verdict.RulesVersion == v.RulesVersion && h.Rule.TaxonomyVersion == v.TaxonomyVersion {
				continue // copied before
			}
			events = append(events, triage.LabelEvent{TraceID: to, Actor: st.Rule.Actor, Kind: triage.KindRule, Primary: v.Primary,
				Secondary: v.Secondary, TaxonomyVersion: v.TaxonomyVersion, Verdict: v, CreatedAt: st.Rule.CreatedAt})
		}
		k, err := dst.AppendLabels(ctx, events)
		if err != nil {
			return n, err
		}
		n.verdicts += k
	}
	if err := copyTrust(ctx, src, dst); err != nil {
		return n, err
	}
	people, err := src.HumanEvents(ctx, "", "")
	if err != nil {
		return n, err
	}
	events = events[:0]
	for _, x := range people {
		e := x.Event
		e.ID, e.TraceID = 0, idOf[triage.TraceKey(x.RunID, x.TaskID, x.Seed)]
		if err := e.CheckText(); err != nil {
			return n, fmt.Errorf("label event %d on %q: %w", x.Event.ID, triage.TraceKey(x.RunID, x.TaskID, x.Seed), err)
		}
		events = append(events, e)
	}
	n.events, err = dst.AppendLabels(ctx, events)
	return n, err
}

// copyVerdictBatch is how many traces' verdicts store copy reads and
// writes at once.
const copyVerdictBatch = 4096

func isFrozen(err error) bool { return errors.Is(err, store.ErrFrozen) }

// copyTrust copies the trust verdicts the target lacks, oldest first, so
// the copy's newest verdict (what reports and cards say of the taxonomy)
// is the source's; a verdict the target holds already is not added again.
func copyTrust(ctx context.Context, src, dst store.Store) error {
	from, err := src.Trusts(ctx)
	if err != nil {
		return err
	}
	to, err := dst.Trusts(ctx)
	if err != nil {
		return err
	}
	same := func(a, b store.Trust) bool {
		eq := func(x, y *float64) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
		return a.TaxonomyVersion == b.TaxonomyVersion && a.Slice == b.Slice && a.Status == b.Status && a.Units == b.Units &&
			a.Reasons == b.Reasons && eq(a.Alpha, b.Alpha) && eq(a.CILo, b.CILo) && eq(a.CIHi, b.CIHi)
	}
	// The target's verdicts match a prefix of the source's when it was
	// copied to before: copy what follows it.
	skip := 0
	for skip < len(from) && skip < len(to) && same(from[skip], to[skip]) {
		skip++
	}
	for _, t := range from[skip:] {
		if err := dst.SaveTrust(ctx, t.TaxonomyVersion, t.Slice, t.Status, t.Alpha, t.CILo, t.CIHi, t.Units, t.Reasons); err != nil {
			return fmt.Errorf("trust verdict on slice %s: %w", t.Slice, err)
		}
	}
	return nil
}
