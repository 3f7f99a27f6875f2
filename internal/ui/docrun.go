package ui

import (
	"context"
	"errors"
	"fmt"

	"github.com/triage-dev/triage/internal/reportview"
)

// NewReportView is the app started on the report screen with no store
// behind it: the figures can be read, not opened. Tests use it; report
// --tui runs RunReport with its store.
func NewReportView(r *reportview.Report) Model {
	return New(nil, Config{Report: r})
}

// NewAgreementView is the app started on the agreement screen with no
// store behind it.
func NewAgreementView(v *AgreementView) Model {
	return New(nil, Config{Agreement: v})
}

// RunReport runs the app on the report screen (cfg.Report, or what
// cfg.LoadReport computes while the screen says so) until q: a bar or a
// grid cell opens its traces in the review screen, over store (nil: the
// figures only). A label needs cfg.Reviewer.
func RunReport(ctx context.Context, store Store, cfg Config) error {
	if cfg.Report == nil && cfg.LoadReport == nil {
		return errors.New("report view: no report")
	}
	return runDoc(ctx, store, cfg)
}

// RunAgreement runs the app on the agreement screen (cfg.Agreement, its
// caveats completed by cfg.LoadAgreement when set): a matrix cell or a
// confused pair opens its traces, over store (nil: the figures only).
func RunAgreement(ctx context.Context, store Store, cfg Config) error {
	if cfg.Agreement == nil || cfg.Agreement.Report == nil {
		return errors.New("agreement view: no report")
	}
	return runDoc(ctx, store, cfg)
}

func runDoc(ctx context.Context, store Store, cfg Config) error {
	m := New(store, cfg).WithContext(ctx)
	if err := runProgram(ctx, m, cfg.Mouse, nil); err != nil {
		return fmt.Errorf("tui: %w", err)
	}
	return ctx.Err()
}
