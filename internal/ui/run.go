package ui

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// Run runs the review app until the reviewer quits or ctx ends. It turns
// on the alternate screen and, when cfg.Mouse is set, mouse wheel
// reporting; opts add or override program options (input and output in
// tests, tea.WithoutRenderer, …).
func Run(ctx context.Context, store Store, cfg Config, opts ...tea.ProgramOption) error {
	if store == nil {
		return errors.New("review: no store")
	}
	if cfg.Reviewer == "" {
		return errors.New("review: a reviewer name is required")
	}
	if err := runProgram(ctx, New(store, cfg).WithContext(ctx), cfg.Mouse, opts); err != nil {
		return fmt.Errorf("review: %w", err)
	}
	return ctx.Err()
}

// runProgram runs m on the alternate screen until it quits or ctx ends,
// with mouse wheel reporting when mouse is set; opts add or override
// program options. A program killed by ctx is not an error: the caller
// reports ctx.Err().
func runProgram(ctx context.Context, m tea.Model, mouse bool, opts []tea.ProgramOption) error {
	base := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx)}
	if mouse {
		base = append(base, tea.WithMouseCellMotion())
	}
	if _, err := tea.NewProgram(m, append(base, opts...)...).Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return err
	}
	return nil
}
