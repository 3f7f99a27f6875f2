package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// traceRow is one line of `traces --json` (DESIGN §4).
type traceRow struct {
	// RootCause is triage.RootCause of the rules' verdict, "" before the
	// rules ran on the trace.
	RootCause string `json:"root_cause"`

	RunID       string   `json:"run_id"`
	TaskID      string   `json:"task_id"`
	Seed        int      `json:"seed"`
	Model       string   `json:"model"`
	Agent       string   `json:"agent"`
	PromptID    string   `json:"prompt_id"`
	Outcome     string   `json:"outcome"`
	ExitCode    *int     `json:"exit_code"`
	NToolCalls  int      `json:"n_tool_calls"`
	WallS       *float64 `json:"wall_s"`
	CostUSD     *float64 `json:"cost_usd"`
	Primary     string   `json:"primary"`
	Secondary   []string `json:"secondary"`
	Decision    string   `json:"decision"`
	LabelSource string   `json:"label_source"`
	ContentHash string   `json:"content_hash"`
	// SourceFile is the log the trace came from; Format the format it was
	// read as (jsonl, swe-agent, mini-swe-agent, …).
	SourceFile string `json:"source_file"`
	Format     string `json:"format"`
	// Disagreement, when reviewers disagree and nobody adjudicated, is
	// every reviewer's live label ("ann SCORER_RED · bob TIMEOUT"):
	// primary is then only the latest word, which no card counts.
	Disagreement string `json:"disagreement,omitempty"`
}

func newTracesCmd(a *app) *cobra.Command {
	var run string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "traces",
		Short: "List traces with their outcome and current label",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runTraces(cmd.Context(), run, asJSON)
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "only this run")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON lines")
	return cmd
}

// eachTraceRow streams the rows of `traces`, one per trace.
func (a *app) eachTraceRow(ctx context.Context, run string, fn func(traceRow) error) error {
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := requireRun(ctx, db, run); err != nil {
		return err
	}
	files, err := db.ImportFiles(ctx)
	if err != nil {
		return err
	}
	rc := newRootCauses(ctx, db, fn)
	err = db.Each(ctx, run, func(s store.TraceSummary, st *triage.LabelState) error {
		r := traceRow{SourceFile: files[s.ImportID], Format: s.Source, RunID: s.RunID, TaskID: s.TaskID, Seed: s.Seed, Model: s.Model, Agent: s.Agent, PromptID: s.PromptID,
			Outcome: string(s.Outcome), ExitCode: s.ExitCode, NToolCalls: s.NToolCalls, WallS: s.WallS, CostUSD: s.CostUSD,
			Secondary: []string{}, ContentHash: s.ContentHash}
		if st != nil {
			f := triage.Resolve(st)
			r.Primary, r.LabelSource = f.Primary, string(f.Source)
			if f.Unresolved && f.Source == triage.SourceHuman {
				r.Disagreement = disagreement(st)
			}
			if f.Secondary != nil {
				r.Secondary = f.Secondary
			}
			if st.Rule != nil && st.Rule.Verdict != nil {
				r.Decision = string(st.Rule.Verdict.Decision)
				if r.Outcome == "" {
					r.Outcome = string(st.Rule.Verdict.Outcome)
				}
			}
		}
		return rc.add(r, s.ID, st != nil && st.Rule != nil)
	})
	if err != nil {
		return err
	}
	return rc.flush()
}

// disagreement is every reviewer's live label of a trace, in reviewer
// order: "ann SCORER_RED · bob TIMEOUT".
func disagreement(st *triage.LabelState) string {
	actors := make([]string, 0, len(st.Humans))
	for a := range st.Humans {
		actors = append(actors, a)
	}
	sort.Strings(actors)
	parts := make([]string, len(actors))
	for i, a := range actors {
		parts[i] = a + " " + st.Humans[a].Primary
	}
	return strings.Join(parts, " · ")
}

func (a *app) runTraces(ctx context.Context, run string, asJSON bool) error {
	w := bufio.NewWriterSize(a.stdout, 64<<10)
	if err := a.writeTraces(ctx, w, run, asJSON); err != nil {
		return err
	}
	// The last buffered rows are written here: a failure (a full disk, a
	// closed pipe) is the command's failure, not a silent short list.
	return w.Flush()
}

func (a *app) writeTraces(ctx context.Context, w *bufio.Writer, run string, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(triage.InertJSON(w))
		return a.eachTraceRow(ctx, run, func(r traceRow) error { return enc.Encode(r) })
	}
	// The table is aligned over a window of rows at a time, so a huge
	// store streams instead of being held for one tabwriter.
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	sayln(tw, "TRACE\tMODEL\tEXIT\tOUTCOME\tCALLS\tLABEL\tSOURCE\tDECISION\tROOT CAUSE")
	n := 0
	err := a.eachTraceRow(ctx, run, func(r traceRow) error {
		exit := "?"
		if r.ExitCode != nil {
			exit = fmt.Sprint(*r.ExitCode)
		}
		label := r.Primary
		if r.Disagreement != "" {
			// Both words, not the latest one: a disagreement is shown.
			label = "≠ " + r.Disagreement
		}
		sayf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", triage.Sanitize(triage.TraceKey(r.RunID, r.TaskID, r.Seed)), triage.Sanitize(r.Model), exit,
			dash(r.Outcome), r.NToolCalls, dash(label), dash(r.LabelSource), dash(r.Decision), dash(clipCell(r.RootCause, rootCauseCell)))
		n++
		if n%1000 == 0 {
			return tw.Flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Flush()
}

// dash is a table cell: "-" when empty, else s made inert and kept on
// one line, since cells hold store text (run IDs, class names from
// imported labels) that may carry escapes, tabs or line breaks.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return cellText.Replace(triage.Sanitize(s))
}

// cellText shows the line breaks and tabs triage.Sanitize keeps as one
// cell each, so a value cannot break a table's rows or columns.
var cellText = strings.NewReplacer("\n", "␤", "\t", " ")
