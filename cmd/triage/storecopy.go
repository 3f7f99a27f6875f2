package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
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
			copyGC()
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

// copyGC sets the collector for store copy, which streams (a batch of
// traces, verdicts or people's events at a time: its live heap peaked at
// 34 MB on the 100k one-run store with 100k people's events). Beside it
// SQLite and pgx hold some 50 MB outside Go's heap, so streamingGC's
// 72 MiB limit let the copy reach 121 MiB resident; GOGC 200 under a
// 48 MiB soft limit keeps it near 98 MiB, and collects about half as often
// as Go's default (CPU 6.3 -> 4.2 s on that store, alternated,
// docs/PERFORMANCE.md). GOGC and GOMEMLIMIT in the environment win.
func copyGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(48 << 20)
	}
}

type copied struct{ traces, rejects, verdicts, events int }

// copyWholeStore copies src into dst through the store interfaces alone:
// what lands is what the commands read (traces with their rows, files
// and results, rejects, run controls, slices, each trace's current rule
// verdict with its evidence, every people's event), and a copy into a
// store holding some of it already adds only the rest (imports and
// label events are idempotent).
//
// Memory holds a batch of traces and an id map (two int64s a trace),
// never the stores' lists of summaries or label states: the traces
// stream in the source's id order with their summaries (EachStored), the
// import reports each one's id in the target (Added.ID), and the
// verdicts follow a batch of ids at a time.
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
	// A target that held no trace before the copy holds no verdict
	// copied before on any of them: its label states need not be read.
	had, err := dst.Runs(ctx)
	if err != nil {
		return n, err
	}
	fresh := true
	for _, r := range had {
		fresh = fresh && r.Traces == 0
	}
	files, err := src.ImportFiles(ctx)
	if err != nil {
		return n, err
	}
	var ids idMap
	im, err := dst.BeginImport(ctx, func(ad store.Added) error {
		if ad.Result == store.Conflict {
			return fmt.Errorf("%s is stored in the target with other content", ad.Trace.Key())
		}
		n.traces++
		return ids.add(ad.Trace.ID, ad.ID)
	})
	if err != nil {
		return n, err
	}
	defer im.Rollback()
	im.Whole()
	// The traces in the source's id order, so the target numbers them
	// alike and every listing that reads in id order (traces --json,
	// report, the queue's ties) is the same after a copy: a batch at a
	// time with their summaries (it was every summary held at once, and
	// before that Trace and Row a trace, each body read twice).
	if err := src.EachStored(ctx, func(s store.TraceSummary, row store.StoredRow) error {
		t, err := src.Decode(row)
		if err != nil {
			return err
		}
		var norm []byte
		if row.Norm != nil && !bytes.Equal(row.Norm, row.Raw) {
			norm = row.Norm
		}
		t.ID = s.ID // the import reports it back beside the target's id
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
	stored, err := src.Slices(ctx)
	if err != nil {
		return n, err
	}
	for _, sl := range stored {
		full, err := src.Slice(ctx, sl.Name)
		if err != nil {
			return n, err
		}
		for i, id := range full.Items {
			if full.Items[i], err = ids.to(id); err != nil {
				return n, fmt.Errorf("slice %s: %w", sl.Name, err)
			}
		}
		if err := dst.CreateSlice(ctx, full); err != nil && !isFrozen(err) {
			return n, fmt.Errorf("slice %s: %w", sl.Name, err)
		}
	}
	// The verdicts, with their evidence, a batch of traces at a time:
	// the source's label states and verdicts of the batch, the target's
	// states only when it held traces before, and one AppendLabels (a
	// COPY on PostgreSQL, rule_verdicts rows of 256 on SQLite).
	var events []triage.LabelEvent
	var ruled []int64
	for lo := 0; lo < len(ids.from); lo += copyVerdictBatch {
		hi := min(lo+copyVerdictBatch, len(ids.from))
		states, err := src.LabelStatesOf(ctx, ids.from[lo:hi])
		if err != nil {
			return n, err
		}
		ruled = ruled[:0]
		for _, id := range ids.from[lo:hi] {
			if st := states[id]; st != nil && st.Rule != nil {
				ruled = append(ruled, id)
			}
		}
		if len(ruled) == 0 {
			continue
		}
		verdicts, err := src.Verdicts(ctx, ruled)
		if err != nil {
			return n, err
		}
		var have map[int64]*triage.LabelState
		if !fresh {
			if have, err = dst.LabelStatesOf(ctx, ids.into[lo:hi]); err != nil {
				return n, err
			}
		}
		events = events[:0]
		for i, id := range ids.from[lo:hi] {
			st, v := states[id], verdicts[id]
			if st == nil || st.Rule == nil || v == nil {
				continue
			}
			to := ids.into[lo+i]
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
	// The people's events streamed and handed over a batch at a time, in
	// their order (each AppendLabels is a transaction; a copy stopped
	// between two is finished by running it again, as events are
	// idempotent): 100,000 of them held at once took 150 MB.
	events = events[:0]
	if err := src.EachHumanEvent(ctx, "", "", func(x store.ExportedEvent) error {
		e := x.Event
		key := triage.TraceKey(x.RunID, x.TaskID, x.Seed)
		to, err := ids.to(e.TraceID)
		if err != nil {
			return fmt.Errorf("label event %d on %q: %w", x.Event.ID, key, err)
		}
		e.ID, e.TraceID = 0, to
		if err := e.CheckText(); err != nil {
			return fmt.Errorf("label event %d on %q: %w", x.Event.ID, key, err)
		}
		if events = append(events, e); len(events) == copyVerdictBatch {
			k, err := dst.AppendLabels(ctx, events)
			if err != nil {
				return err
			}
			n.events, events = n.events+k, events[:0]
		}
		return nil
	}); err != nil {
		return n, err
	}
	k, err := dst.AppendLabels(ctx, events)
	n.events += k
	return n, err
}

// idMap pairs each copied trace's id in the source with its id in the
// target, in the source's id order (the order the import reports them).
type idMap struct{ from, into []int64 }

func (m *idMap) add(from, into int64) error {
	if into == 0 {
		return fmt.Errorf("trace %d: the target did not say where it stored it", from)
	}
	if k := len(m.from); k > 0 && from <= m.from[k-1] {
		return fmt.Errorf("trace %d: reported after trace %d", from, m.from[k-1])
	}
	m.from, m.into = append(m.from, from), append(m.into, into)
	return nil
}

// to is the target's id of the source's trace id.
func (m *idMap) to(from int64) (int64, error) {
	i, ok := slices.BinarySearch(m.from, from)
	if !ok {
		return 0, fmt.Errorf("trace %d of the source is not among the traces copied (was it added during the copy?)", from)
	}
	return m.into[i], nil
}

// copyVerdictBatch is how many traces' verdicts, or people's events,
// store copy reads and writes at once.
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
