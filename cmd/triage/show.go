package main

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/triage"
)

func newShowCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show TRACE",
		Short: "Print a stored trace as triage reads it, in the JSONL format",
		Long: `Print one stored trace (RUN/TASK#SEED or its id) as triage understands it: the row of our
JSONL format (tool_calls with their exit codes, diff, test_output, exit_code, outcome, tokens,
cost_usd, model, stop_reason, scorer_report …) that a harness log was decoded into. With --json
the row is one line, and importing that line gives back the same trace.`,
		Example: `  triage show gemini3pro/django__django-15127
  triage show --json 12 | triage import --run copy -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runShow(cmd.Context(), args[0], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSONL line, re-importable as the same trace")
	return cmd
}

func (a *app) runShow(ctx context.Context, ref string, asJSON bool) error {
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := a.findTrace(ctx, db, ref)
	if err != nil {
		return err
	}
	// The stored row is what triage read: a JSONL row verbatim, unknown
	// fields included, or the row a harness log was decoded into. It is
	// printed as stored, not decoded and encoded again, so a trace of a
	// million tool calls costs its row's bytes, not its decoded calls
	// (640 MB for one of 129 MB of rows).
	row, _, err := db.Row(ctx, id)
	if err != nil {
		return err
	}
	if !asJSON {
		var buf bytes.Buffer
		if err := json.Indent(&buf, row, "", "  "); err == nil {
			row = buf.Bytes()
		}
	}
	out := triage.EscapeJSONText(bytes.TrimSpace(row))
	if _, err = a.stdout.Write(out); err != nil {
		return err
	}
	_, err = a.stdout.Write([]byte{'\n'})
	return err
}
