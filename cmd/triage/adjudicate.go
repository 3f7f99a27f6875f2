package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/agreement"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui"
)

type adjudicateOpts struct {
	adjudicator string
	redact      bool
	ui          uiFlags
}

func newAdjudicateCmd(a *app) *cobra.Command {
	var o adjudicateOpts
	cmd := &cobra.Command{
		Use:   "adjudicate SLICE --adjudicator NAME",
		Short: "Settle the slice's disagreements in the terminal UI: pick the final label and say why",
		Long: `Open the adjudication screen over a slice's items where the reviewers' primaries differ
(press a for every doubly-labelled item). Each trace shows the same panes as review, with
every reviewer's primary, tags and note side by side. Digits 1-9 (0 and a number past nine, or p) pick the final
label, t its tags; a reason is required (c edits it; ctrl+s stores). The adjudication is
stored as an event of kind "adjudication" and takes precedence over every other label.
u undoes, A shows the slice's agreement figures. Press ? for every key.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ui.changed = cmd.Flags().Changed
			return a.runAdjudicate(cmd.Context(), args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.adjudicator, "adjudicator", os.Getenv("TRIAGE_REVIEWER"), "your name, recorded on every adjudication (default $TRIAGE_REVIEWER)")
	f.BoolVar(&o.redact, "redact", false, redactFlagUsage)
	o.ui.add(f)
	return cmd
}

func (a *app) runAdjudicate(ctx context.Context, slice string, o adjudicateOpts) error {
	if o.adjudicator == "" {
		o.adjudicator = a.cfg.Reviewer
	}
	if o.adjudicator == "" {
		return usageErr("adjudicate needs --adjudicator NAME (or $TRIAGE_REVIEWER): every adjudication records who gave it")
	}
	tax, err := a.taxonomy()
	if err != nil {
		return err
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := requireSlice(ctx, db, slice); err != nil {
		return err
	}
	cfg := ui.Config{Reviewer: o.adjudicator, Slice: slice, Taxonomy: tax}
	if cfg.Redactor, err = a.storeRedactor(ctx, db, o.redact); err != nil {
		return err
	}
	if err := o.ui.apply(a.cfg, &cfg); err != nil {
		return err
	}
	if !a.isTerminal(a.stdout) {
		return errors.New("adjudicate needs a terminal (stdout is not one)")
	}
	return ui.RunAdjudicate(ctx, &adjStore{uiStore: &uiStore{db: db, tax: tax}}, cfg)
}

// loadKeys reads a key binding override file.
func loadKeys(path string) (ui.KeyMap, error) {
	data, err := readSmallFile(path, maxSettingsBytes)
	if err != nil {
		return ui.KeyMap{}, fmt.Errorf("keys: %w", err)
	}
	km, err := ui.LoadKeyMap(data)
	if err != nil {
		return km, fmt.Errorf("keys %s: %w", path, err)
	}
	return km, nil
}

// adjStore adds what the adjudication screen needs to the review adapter.
type adjStore struct {
	*uiStore
}

// Disagreements implements ui.AdjudicationStore: the slice's items that
// two or more reviewers labelled and (unless q.All) labelled differently,
// each with the live adjudication, which the store folds with undo.
func (s *adjStore) Disagreements(ctx context.Context, q ui.DisagreementQuery) ([]ui.Disputed, error) {
	sl, err := s.db.Slice(ctx, q.Slice)
	if err != nil {
		return nil, err
	}
	states, err := s.db.SliceStates(ctx, q.Slice)
	if err != nil {
		return nil, err
	}
	// The adjudicator's own events say which items they skipped.
	mine, err := s.db.HumanEvents(ctx, q.Adjudicator, q.Slice)
	if err != nil {
		return nil, err
	}
	own := map[int64][]triage.LabelEvent{}
	for _, x := range mine {
		own[x.Event.TraceID] = append(own[x.Event.TraceID], x.Event)
	}
	var out []ui.Disputed
	for _, id := range sl.Items {
		st := states[id]
		if st == nil {
			continue
		}
		var revs []triage.LabelEvent
		for _, h := range st.Humans {
			if h.Primary != "" {
				revs = append(revs, *h)
			}
		}
		if len(revs) < 2 {
			continue
		}
		ui.SortReviews(revs)
		d := ui.Disputed{Reviews: revs}
		if !q.All && d.Agree() {
			continue
		}
		sum, err := s.db.Summary(ctx, id)
		if err != nil {
			return nil, err
		}
		it := ui.QueueItem{TraceID: id, RunID: sum.RunID, TaskID: sum.TaskID, Seed: sum.Seed, Model: sum.Model, Status: ui.StatusTodo}
		if st.Rule != nil && st.Rule.Verdict != nil {
			it.Suggestion, it.Reason = st.Rule.Primary, st.Rule.Verdict.Reason
		}
		switch {
		case st.Adjudication != nil:
			a := st.Adjudication
			it.Primary, it.Secondary, it.Note, it.Status = a.Primary, a.Secondary, a.Note, ui.StatusLabelled
		case ui.LiveStatus(own[id]) == ui.StatusSkipped:
			it.Status = ui.StatusSkipped
		}
		d.QueueItem = it
		out = append(out, d)
	}
	return out, nil
}

// Agreement implements ui.AdjudicationStore with the same figures as
// `triage agree SLICE` (taxonomy classes, default resamples, seed 1).
func (s *adjStore) Agreement(ctx context.Context, slice string) (*ui.AgreementView, error) {
	rep, rs, err := sliceAgreement(ctx, s.db, slice, agreement.Options{Categories: s.tax.Codes(), Seed: 1})
	if err != nil {
		return nil, err
	}
	return &ui.AgreementView{Title: "slice " + slice, Report: rep, Ratings: rs}, nil
}

// sliceAgreement computes agreement on a slice from its reviewers' live
// human labels (agree SLICE and the adjudicate screen's agreement view).
func sliceAgreement(ctx context.Context, db store.Store, name string, opt agreement.Options) (*agreement.Report, []agreement.Rating, error) {
	if err := requireSlice(ctx, db, name); err != nil {
		return nil, nil, err
	}
	sl, err := db.Slice(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	// Only the labels given in the slice's blind session count: a label
	// given with the verdict showing, or imported without a slice, is not
	// blind (issue 16).
	states, err := db.SliceStates(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	var rs []agreement.Rating
	for _, id := range sl.Items {
		st := states[id]
		if st == nil {
			continue
		}
		s, err := db.Summary(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		for actor, e := range st.Humans {
			if e.Primary == "" {
				continue
			}
			rs = append(rs, agreement.Rating{Unit: s.Key(), Rater: actor, Label: e.Primary, Tags: e.Secondary, HasTags: true})
		}
	}
	if len(rs) == 0 {
		return nil, nil, fmt.Errorf("slice %s has no blind labels yet (labels given outside its blind session do not count): two reviewers run 'triage review --slice %s --reviewer NAME'", name, name)
	}
	rep, err := agreement.Compute(rs, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("slice %s: %w", name, err)
	}
	return rep, rs, nil
}
