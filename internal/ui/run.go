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
	base := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx)}
	if cfg.Mouse {
		base = append(base, tea.WithMouseCellMotion())
	}
	m := New(store, cfg).WithContext(ctx)
	_, err := tea.NewProgram(m, append(base, opts...)...).Run()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("review: %w", err)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}
