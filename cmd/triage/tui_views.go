package main

import (
	"context"
	"errors"
	"os"

	"github.com/triage-dev/triage/internal/agreement"
	"github.com/triage-dev/triage/internal/card"
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
	in, _, err := a.loadCardInput(ctx, "", false, cardRead{})
	if err != nil {
		return err
	}
	v.Caveats = card.CaveatText(card.Report(in).Caveats)
	if err := switchable(ctx, db, &cfg); err != nil {
		return err
	}
	return ui.RunAgreement(ctx, a.docStore(db, cfg.Taxonomy), cfg)
}

// showReportTUI shows a run's report full screen (`report --tui`): the
// failure mix as bars and the per-task × seed grid as coloured cells; a
// bar or a cell opens its traces in the review screen.
func (a *app) showReportTUI(ctx context.Context, run string, redact bool) error {
	if !a.isTerminal(a.stdout) {
		return errors.New("--tui needs a terminal (stdout is not one); drop --tui for the text report")
	}
	in, rd, err := a.loadCardInput(ctx, run, redact, cardRead{})
	if err != nil {
		return err
	}
	r := card.Report(in)
	rd.Value(r)
	cfg, err := a.docConfig(run)
	if err != nil {
		return err
	}
	cfg.Report, cfg.Redactor = card.View(r), rd
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := switchable(ctx, db, &cfg); err != nil {
		return err
	}
	return ui.RunReport(ctx, a.docStore(db, cfg.Taxonomy), cfg)
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
	runs, err := db.Runs(ctx)
	if err != nil {
		return err
	}
	for _, r := range runs {
		cfg.Runs = append(cfg.Runs, r.Controls.RunID)
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
