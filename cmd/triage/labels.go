package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// labelRow is one exchanged label event: DESIGN §4's keys plus the
// trace's content hash, which the importing store checks.
type labelRow struct {
	RunID           string    `json:"run_id"`
	TaskID          string    `json:"task_id"`
	Seed            int       `json:"seed"`
	ContentHash     string    `json:"content_hash"`
	Reviewer        string    `json:"reviewer"`
	Kind            string    `json:"kind"`
	Primary         string    `json:"primary"`
	Secondary       []string  `json:"secondary"`
	Note            string    `json:"note"`
	Slice           string    `json:"slice,omitempty"`
	Cluster         string    `json:"cluster,omitempty"`
	TaxonomyVersion string    `json:"taxonomy_version"`
	CreatedAt       time.Time `json:"created_at"`
}

func newLabelsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "labels",
		Short: "Move reviewers' labels between stores, losslessly and idempotently",
	}
	var reviewer, slice string
	var redact bool
	export := &cobra.Command{
		Use:   "export [--reviewer A] [--slice NAME]",
		Short: "Write human and adjudication label events as JSONL (undo and skip included)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runLabelsExport(cmd.Context(), reviewer, slice, redact)
		},
	}
	export.Flags().StringVar(&reviewer, "reviewer", "", "only this reviewer's events")
	export.Flags().StringVar(&slice, "slice", "", "only events given in this slice's blind session")
	export.Flags().BoolVar(&redact, "redact", false, redactFlagUsage)
	export.Flags().Bool("json", true, "JSONL output (the only format; accepted for symmetry)")
	imp := &cobra.Command{
		Use:   "import FILE | -",
		Short: "Read label events exported by another store; each trace is matched by run, task, seed and content hash",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runLabelsImport(cmd.Context(), args[0])
		},
	}
	cmd.AddCommand(export, imp)
	return cmd
}

func (a *app) runLabelsExport(ctx context.Context, reviewer, slice string, redact bool) error {
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	evs, err := db.HumanEvents(ctx, reviewer, slice)
	if err != nil {
		return err
	}
	rd, err := a.storeRedactor(ctx, db, redact)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(a.stdout)
	enc := json.NewEncoder(triage.InertJSON(w))
	for _, x := range evs {
		e := x.Event
		sec := e.Secondary
		if sec == nil {
			sec = []string{}
		}
		row := labelRow{RunID: x.RunID, TaskID: x.TaskID, Seed: x.Seed, ContentHash: x.ContentHash, Reviewer: e.Actor,
			Kind: string(e.Kind), Primary: e.Primary, Secondary: sec, Note: e.Note, Slice: e.Slice, Cluster: e.Cluster, TaxonomyVersion: e.TaxonomyVersion,
			CreatedAt: e.CreatedAt}
		// --redact masks every string of the row, identifiers included.
		rd.Value(&row)
		if err := enc.Encode(row); err != nil {
			return err
		}
	}
	return w.Flush()
}

func (a *app) runLabelsImport(ctx context.Context, path string) error {
	var r io.Reader = a.stdin
	name := "<stdin>"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		r, name = f, path
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	db.SetActivity("the labels import of " + name)
	defer db.Close()
	tax, err := a.taxonomy()
	if err != nil {
		return err
	}
	find, err := db.TraceFinder(ctx)
	if err != nil {
		return err
	}
	defer find.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var events []triage.LabelEvent
	var bad []string
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		e, err := labelEvent(ctx, find, b)
		if err == nil {
			err = checkLabelClasses(tax, e)
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s:%d: %v", name, line, err))
			continue
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	n, err := db.AppendLabels(ctx, events)
	if err != nil {
		return err
	}
	for _, b := range bad {
		sayln(a.stderr, b)
	}
	sayf(a.stdout, "%d label events imported, %d already present, %d rejected\n", n, len(events)-n, len(bad))
	if len(bad) > 0 {
		return &exitErr{code: exitRejected}
	}
	return nil
}

// labelEvent turns one line of a labels file into an event on this
// store's trace, refusing a trace whose content differs from the one
// labelled.
func labelEvent(ctx context.Context, find store.TraceFinder, b []byte) (triage.LabelEvent, error) {
	row, err := parseLabelRow(b)
	if err != nil {
		return triage.LabelEvent{}, err
	}
	id, hash, err := find.Find(ctx, row.RunID, row.TaskID, row.Seed)
	if err != nil {
		return triage.LabelEvent{}, err
	}
	if row.ContentHash != "" && row.ContentHash != hash {
		return triage.LabelEvent{}, fmt.Errorf("%s: content hash %s… differs from this store's %s…: the trace labelled is not the one here",
			triage.TraceKey(row.RunID, row.TaskID, row.Seed), short(row.ContentHash), short(hash))
	}
	return triage.LabelEvent{TraceID: id, Actor: row.Reviewer, Kind: triage.LabelKind(row.Kind), Primary: row.Primary, Secondary: row.Secondary,
		Note: row.Note, Slice: row.Slice, Cluster: row.Cluster, TaxonomyVersion: row.TaxonomyVersion, CreatedAt: row.CreatedAt}, nil
}

// parseLabelRow decodes and checks one line of a labels file without the
// store, so the untrusted part of `labels import` can be fuzzed alone.
func parseLabelRow(b []byte) (labelRow, error) {
	var row labelRow
	if err := json.Unmarshal(b, &row); err != nil {
		return labelRow{}, fmt.Errorf("invalid label row: %s", triage.DescribeJSONError(b, err))
	}
	switch triage.LabelKind(row.Kind) {
	case triage.KindHuman, triage.KindAdjudication, triage.KindSkip, triage.KindUndo:
	default:
		return labelRow{}, fmt.Errorf("kind %q: want human, adjudication, skip or undo", row.Kind)
	}
	if row.Reviewer == "" {
		return labelRow{}, errors.New("reviewer: missing")
	}
	if row.CreatedAt.IsZero() {
		return labelRow{}, errors.New("created_at: missing (labels keep their time)")
	}
	fields := []struct{ name, v string }{{"run_id", row.RunID}, {"task_id", row.TaskID}, {"reviewer", row.Reviewer}, {"primary", row.Primary},
		{"note", row.Note}, {"slice", row.Slice}, {"cluster", row.Cluster}, {"taxonomy_version", row.TaxonomyVersion}}
	for i, s := range row.Secondary {
		fields = append(fields, struct{ name, v string }{fmt.Sprintf("secondary[%d]", i), s})
	}
	for _, f := range fields {
		if err := triage.NoNUL(f.name, f.v); err != nil {
			return labelRow{}, err
		}
	}
	return row, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
