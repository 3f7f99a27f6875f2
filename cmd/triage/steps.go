package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/triage"
)

func newStepsCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "steps TRACE",
		Short: "Show how triage reads each tool call: kind, result, files, errors",
		Long: `Print one stored trace's tool calls as triage reads them (DESIGN §8), one step a line:
its kind (read, search, edit, test, run, build, install, vcs, submit, other), its result from
what its output shows (passed, failed, error, not_run, timeout, none, unknown), the command as
the harness recorded it, and the line that gave the result; then the files it wrote and the
errors its output reports. The rules, their evidence, root causes, clusters and the review
screen all read this one reading, so this is how to check any of them.

With --json: an array of {"index", "kind", "result", "command", "files", "summary",
"errors": [{"type", "message"}]}, index being the tool call's index in show --json.`,
		Example: `  triage steps live-gpt5mini/sympy__sympy-13877
  triage steps --json 12 | jq '.[] | select(.result == "failed")'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSteps(cmd.Context(), args[0], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the steps as a JSON array")
	return cmd
}

// stepJSON is one step of steps --json (DESIGN §4).
type stepJSON struct {
	Index   int             `json:"index"`
	Kind    string          `json:"kind"`
	Result  string          `json:"result"`
	Command string          `json:"command"`
	Files   []string        `json:"files"`
	Summary string          `json:"summary"`
	Errors  []stepErrorJSON `json:"errors"`
	Runner  string          `json:"runner,omitempty"`
	Tests   *stepTestsJSON  `json:"tests,omitempty"`
	Writes  bool            `json:"writes,omitempty"`
	// ExitHidden: the recorded exit code is not the runner's (a pipe).
	ExitHidden bool `json:"exit_hidden,omitempty"`
}

type stepErrorJSON struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Ident   string `json:"ident,omitempty"`
}

type stepTestsJSON struct {
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Errors  int      `json:"errors"`
	Failing []string `json:"failing"`
}

func stepsJSON(a *triage.Activity) []stepJSON {
	out := make([]stepJSON, len(a.Steps))
	for i := range a.Steps {
		s := &a.Steps[i]
		j := stepJSON{Index: i, Kind: s.Kind.String(), Result: s.Result.String(), Command: s.Command,
			Files: s.Files, Summary: s.Summary, Errors: []stepErrorJSON{}, Runner: s.Runner, Writes: s.Writes, ExitHidden: s.ExitHidden}
		if j.Files == nil {
			j.Files = []string{}
		}
		for _, e := range s.Errors {
			j.Errors = append(j.Errors, stepErrorJSON{Type: e.Type, Message: e.Message, Ident: e.Ident})
		}
		if s.Tests.Ran() || len(s.Tests.Failing) > 0 {
			f := s.Tests.Failing
			if f == nil {
				f = []string{}
			}
			j.Tests = &stepTestsJSON{Passed: s.Tests.Passed, Failed: s.Tests.Failed, Errors: s.Tests.Errors, Failing: f}
		}
		out[i] = j
	}
	return out
}

func (a *app) runSteps(ctx context.Context, ref string, asJSON bool) error {
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	tr, err := a.storedTrace(ctx, db, ref)
	if err != nil {
		return err
	}
	if tr.ReadCut != nil {
		sayln(a.stderr, "note: "+tr.Key()+": "+tr.ReadCut.Note())
	}
	act := triage.ReadActivity(tr)
	if asJSON {
		b, err := json.Marshal(stepsJSON(&act))
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(append(triage.EscapeJSONText(b), '\n'))
		return err
	}
	w := bufio.NewWriter(a.stdout)
	writeStepsText(w, &act, terminalWidth(a.stdout, 120))
	return w.Flush()
}

// writeStepsText prints the steps one a line, with their files and
// errors indented below. Every string from the trace is sanitized.
func writeStepsText(w *bufio.Writer, a *triage.Activity, width int) {
	if len(a.Steps) == 0 {
		fmt.Fprintln(w, "no tool calls recorded")
		return
	}
	cmdWidth := max(20, width-34)
	for i := range a.Steps {
		s := &a.Steps[i]
		cmd := oneLineClip(s.Command, cmdWidth)
		fmt.Fprintf(w, "%4d  %-7s  %-7s  %s\n", i+1, s.Kind, s.Result, triage.Sanitize(cmd))
		if s.Summary != "" {
			fmt.Fprintf(w, "      %s\n", triage.Sanitize(oneLineClip(s.Summary, width-6)))
		}
		if len(s.Files) > 0 {
			fmt.Fprintf(w, "      wrote %s\n", triage.Sanitize(oneLineClip(strings.Join(s.Files, ", "), width-12)))
		}
		if s.Tests.Ran() {
			fmt.Fprintf(w, "      tests: %d passed, %d failed, %d errors", s.Tests.Passed, s.Tests.Failed, s.Tests.Errors)
			if len(s.Tests.Failing) > 0 {
				fmt.Fprintf(w, " (%s)", triage.Sanitize(oneLineClip(strings.Join(s.Tests.Failing, ", "), width-50)))
			}
			fmt.Fprintln(w)
		}
		if s.ExitHidden && (s.Kind == triage.StepTest || s.Kind == triage.StepRun) {
			fmt.Fprintln(w, "      exit code hidden by a pipe or ||: read from the output")
		}
		for _, e := range s.Errors {
			fmt.Fprintf(w, "      ! %s\n", triage.Sanitize(oneLineClip(e.Type+": "+e.Message, width-8)))
		}
	}
}

// oneLineClip is s on one line, at most n runes.
func oneLineClip(s string, n int) string {
	return clipCell(strings.Join(strings.Fields(s), " "), max(n, 2))
}
