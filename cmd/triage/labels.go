package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
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
	br := bufio.NewReaderSize(r, 64<<10)
	var events []triage.LabelEvent
	var bad []string
	for line := 1; ; line++ {
		b, long, err := readLabelLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		switch {
		case long > 0:
			// One long line is rejected alone: it ended the whole import
			// ("token too long") and nothing was imported.
			bad = append(bad, fmt.Sprintf("%s:%d: line of %d bytes is longer than a label row may be (%d MiB)", name, line, long, maxLabelLine>>20))
		case len(b) > 0:
			e, lerr := labelEvent(ctx, find, b)
			if lerr == nil {
				lerr = checkLabelClasses(tax, e)
			}
			if lerr != nil {
				bad = append(bad, fmt.Sprintf("%s:%d: %v", name, line, lerr))
			} else {
				events = append(events, e)
			}
		}
		if err != nil {
			break
		}
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
	if k, ok := duplicateLabelKey(b); ok {
		return labelRow{}, fmt.Errorf("%s: named twice: readers disagree on which value counts", k)
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

// duplicateLabelKey finds a key a label row names twice ("kind" twice,
// or "Kind" and "kind", which encoding/json reads as one field), so
// {"kind":"undo", …, "kind":"human"} is rejected rather than read as its
// last value. b is already known to be a JSON object.
func duplicateLabelKey(b []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, ok := tok.(string)
		if !ok {
			return "", false
		}
		fold := strings.ToLower(k)
		if seen[fold] {
			return k, true
		}
		seen[fold] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// maxLabelLine bounds one row of a labels file: a label is a few hundred
// bytes, and a longer line is rejected alone.
const maxLabelLine = 16 << 20

// readLabelLine reads one line without its newline. A line over
// maxLabelLine is read to its end but not kept: its length is returned
// instead, so memory stays bounded. The last line may end without a
// newline; io.EOF comes with it.
func readLabelLine(br *bufio.Reader) (line []byte, long int, err error) {
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if long == 0 && n > maxLabelLine {
			long, line = n, nil
		}
		if long > 0 {
			long = n
		} else {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long > 0 {
			if err == nil {
				long-- // the newline
			}
			return nil, long, err
		}
		// As bufio.ScanLines did: a CRLF file reads the same.
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		return line, 0, err
	}
}
