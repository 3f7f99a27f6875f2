package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"

	"github.com/triage-dev/triage/internal/agreement"
	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui"
)

// showAgreementTUI shows an agreement report full screen (`agree SLICE
// --tui`): the figures, the verdict with its reasons and the confusion
// matrix as a coloured grid, whose cells and confused pairs open their
// traces in the review screen when the units are traces of db (nil: a
// ratings file, whose figures can be read only). title names what was
// rated; caveats say what the store's figures leave out.
func (a *app) showAgreementTUI(ctx context.Context, db store.Store, rep *agreement.Report, rs []agreement.Rating, title string) error {
	if !a.isTerminal(a.stdout) {
		return errors.New("--tui needs a terminal (stdout is not one); drop --tui for the text report")
	}
	v := &ui.AgreementView{Title: title, Report: rep, Ratings: rs, NotTraces: db == nil}
	cfg, err := a.docConfig("")
	if err != nil {
		return err
	}
	cfg.Agreement = v
	if db == nil {
		return ui.RunAgreement(ctx, nil, cfg)
	}
	// The caveats read the whole store (every trace's outcome and label):
	// seconds on a large one, so the screen shows the figures at once and
	// the caveats when they are counted. A copy: the screen draws v
	// meanwhile.
	cfg.LoadAgreement = func(ctx context.Context) (*ui.AgreementView, error) {
		in, notes, err := a.cardInputAlone(ctx, "", false)
		if err != nil {
			return nil, err
		}
		w := *v
		w.Caveats = withNotes(card.CaveatText(card.Report(in).Caveats), notes)
		return &w, nil
	}
	if err := switchable(ctx, db, &cfg); err != nil {
		return err
	}
	return ui.RunAgreement(ctx, a.docStore(db, cfg.Taxonomy), cfg)
}

// showReportTUI shows a run's report full screen (`report --tui`): the
// failure mix as bars, the outcomes, the root causes of failing traces
// and the per-task × seed grid as coloured cells, then the sections the
// text report shows; a bar, an outcome, the leftovers, the leaked, a root
// cause or a cell opens its traces in the review screen.
func (a *app) showReportTUI(ctx context.Context, run string, redact bool) error {
	if !a.isTerminal(a.stdout) {
		return errors.New("--tui needs a terminal (stdout is not one); drop --tui for the text report")
	}
	cfg, err := a.docConfig(run)
	if err != nil {
		return err
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	// What can fail at once fails before the screen opens: a mistyped
	// run, a pack --redact cannot read.
	if err := requireRun(ctx, db, run); err != nil {
		return err
	}
	rd, err := a.storeRedactor(ctx, db, redact)
	if err != nil {
		return err
	}
	cfg.Redactor = rd
	// The report reads every trace of the run (3.9 s over 100k): the
	// screen computes it after its first frame, in a command.
	cfg.LoadReport = func(ctx context.Context) (*reportview.Report, error) {
		in, notes, err := a.cardInputAlone(ctx, run, true)
		if err != nil {
			return nil, err
		}
		r := card.Report(in)
		rd.Value(r)
		v := card.View(r)
		v.Caveats = withNotes(v.Caveats, rd.String(notes))
		return v, nil
	}
	if err := switchable(ctx, db, &cfg); err != nil {
		return err
	}
	return ui.RunReport(ctx, a.docStore(db, cfg.Taxonomy), cfg)
}

// cardInputAlone reads a report's input over a store of its own, so that
// it does not queue behind (nor hold up) the screen's reads; with
// rootCauses, the failing traces' root causes too, as report does. It
// runs while the screen owns the terminal, where a note on stderr would
// tear the frame: the notes are returned, for the caveats.
func (a *app) cardInputAlone(ctx context.Context, run string, rootCauses bool) (card.Input, string, error) {
	var notes bytes.Buffer
	q := *a
	q.stderr = &notes
	var opt cardRead
	var failing failingRefs
	if rootCauses {
		opt.failing = &failing
	}
	in, _, err := q.loadCardInput(ctx, run, false, opt)
	if err == nil && rootCauses {
		// Unmasked: the screen's Redactor masks the report as a whole.
		in.RootCauses, err = q.reportRootCauses(ctx, &failing, false, true)
	}
	return in, strings.TrimSpace(notes.String()), err
}

// withNotes adds the notes written while a report was read to its caveats.
func withNotes(caveats, notes string) string {
	if notes == "" {
		return caveats
	}
	notes = strings.ReplaceAll(strings.TrimPrefix(notes, "note: "), "\nnote: ", " · ")
	if caveats == "" {
		return notes
	}
	return caveats + " · " + notes
}

// docConfig is the review app's settings for a report or agreement
// screen: every trace of run (all runs when empty) is in the queue, so
// any figure's traces can be opened; labelling needs a reviewer from
// $TRIAGE_REVIEWER or the config file, else the screens are read only.
func (a *app) docConfig(run string) (ui.Config, error) {
	tax, err := a.taxonomy()
	if err != nil {
		return ui.Config{}, err
	}
	reviewer := os.Getenv("TRIAGE_REVIEWER")
	if reviewer == "" {
		reviewer = a.cfg.Reviewer
	}
	cfg := ui.Config{Reviewer: reviewer, RunID: run, All: true, Taxonomy: tax}
	o := uiFlags{keys: os.Getenv("TRIAGE_KEYS"), theme: os.Getenv("TRIAGE_THEME")}
	if err := o.apply(a.cfg, &cfg); err != nil {
		return ui.Config{}, err
	}
	return cfg, nil
}

// docStore is db as the review app's store, for the traces a figure
// opens.
func (a *app) docStore(db store.Store, tax *triage.Taxonomy) ui.Store {
	db.OnWait(nil)
	db.AllowConcurrentReads(2)
	return &uiStore{db: db, tax: tax}
}

// switchable fills what the : switcher offers besides screens: the
// store's runs and slices.
func switchable(ctx context.Context, db store.Store, cfg *ui.Config) error {
	// The names only: Runs would count each run's traces, 15-20 ms at
	// 100k before the screen's first frame.
	runs, err := db.RunControls(ctx)
	if err != nil {
		return err
	}
	for _, r := range runs {
		cfg.Runs = append(cfg.Runs, r.RunID)
	}
	slices, err := db.Slices(ctx)
	if err != nil {
		return err
	}
	for _, s := range slices {
		cfg.Slices = append(cfg.Slices, s.Name)
	}
	return nil
}
