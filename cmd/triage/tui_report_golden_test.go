package main

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui"
)

// screenInput is a report with what the report screen draws differently:
// two runs sharing the grid's columns, an unlabelled trace, an unknown
// outcome, a leak, a pass label on an unsolved attempt and a long model
// name in the breakdowns.
func screenInput() card.Input {
	var rows []card.TraceRow
	for _, run := range []string{"a", "b"} {
		for task := range 4 {
			for seed := range 3 {
				r := card.TraceRow{RunID: run, TaskID: fmt.Sprintf("T%d", task), Seed: seed, Model: "m-" + run, Agent: "ag", PromptID: "p",
					Outcome: triage.OutcomeFailed, Primary: triage.ToolLoop, Import: map[string]int64{"a": 1, "b": 2}[run]}
				switch {
				case task == 0 || (task == 1 && run == "b"):
					r.Outcome, r.Primary = triage.OutcomeSuccess, triage.PassContract
				case task == 2 && seed == 0:
					r.Primary = ""
				case task == 2 && seed == 1:
					r.Outcome = ""
				case task == 3 && seed == 2:
					r.Leaked = true
				case task == 3 && seed == 1:
					r.Primary = triage.PassWeak
				}
				if run == "b" && task == 3 {
					r.Model = "a-model-name-of-28-cells-xyz"
				}
				rows = append(rows, r)
			}
		}
	}
	return card.Input{Traces: rows, Taxonomy: &triage.Taxonomy{Name: "t", Classes: []triage.Class{
		{Code: triage.PassContract, Name: "Real pass"}, {Code: triage.PassWeak, Name: "Lucky pass"},
		{Code: triage.ToolLoop, Name: "Repeated tool", DoNot: "Raise the retry cap", DoThis: "Deduplicate tool args"},
	}}}
}

// TestReportScreenFromCardGolden pins the report screen drawn from a
// card report, whole (a tall terminal), at three widths.
func TestReportScreenFromCardGolden(t *testing.T) {
	t.Parallel()
	r := card.Report(screenInput())
	for _, w := range []int{70, 110, 140} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			t.Parallel()
			var m tea.Model = ui.NewReportView(card.View(r))
			m, _ = m.Update(tea.WindowSizeMsg{Width: w, Height: 200})
			golden.RequireEqual(t, []byte(m.View()))
		})
	}
}
