package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// sweReport is a SWE-bench verdict for one instance: from a per-instance
// harness report (with test lists) or from a run summary (verdict only).
type sweReport struct {
	Resolved     bool
	PatchApplied *bool
	Tests        map[string]sweTestStatus
	// FromSummary is the summary file's name when only a verdict is known.
	FromSummary string
	PatchIsNone *bool
	// Source is the file the verdict came from.
	Source string
	// postCond marks a post-condition check list rather than tests.
	postCond bool
}

type sweTestStatus struct {
	Success []string `json:"success"`
	Failure []string `json:"failure"`
}

// sweReportJSON is the flattened per-instance report the harness writes.
type sweReportJSON struct {
	Resolved     *bool                    `json:"resolved"`
	PatchApplied *bool                    `json:"patch_successfully_applied"`
	PatchIsNone  *bool                    `json:"patch_is_None"`
	TestsStatus  map[string]sweTestStatus `json:"tests_status"`
}

// exitCode is the scorer's code: 0 when resolved, else 1.
func (r *sweReport) exitCode() int {
	if r.Resolved {
		return 0
	}
	return 1
}

// testOutput is what the scorer would have printed: the verdict and the
// tests still failing among FAIL_TO_PASS and PASS_TO_PASS.
func (r *sweReport) testOutput() string {
	var b strings.Builder
	if r.postCond {
		fmt.Fprintf(&b, "post-conditions (%s): passed=%t\n", r.FromSummary, r.Resolved)
		st := r.Tests["FAIL_TO_PASS"]
		for _, p := range st.Success {
			fmt.Fprintf(&b, "PASS: %s\n", p)
		}
		for _, f := range st.Failure {
			fmt.Fprintf(&b, "FAIL: %s\n", f)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "SWE-bench: resolved=%t", r.Resolved)
	if r.FromSummary != "" {
		fmt.Fprintf(&b, " (from %s)", r.FromSummary)
	}
	b.WriteByte('\n')
	if r.PatchIsNone != nil && *r.PatchIsNone {
		b.WriteString("no patch was submitted\n")
	} else if r.PatchApplied != nil && !*r.PatchApplied {
		b.WriteString("the patch did not apply\n")
	}
	for _, k := range []string{"FAIL_TO_PASS", "PASS_TO_PASS"} {
		st, ok := r.Tests[k]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "%s: %d passed, %d failed\n", k, len(st.Success), len(st.Failure))
		for _, f := range st.Failure {
			fmt.Fprintf(&b, "  FAILED %s\n", f)
		}
	}
	return b.String()
}

// addSWEReport sets t's exit code, test output and scorer report from the
// verdict its run recorded (see Outcomes.find); with none they stay
// unknown. A batch file's exit status fills a stop reason the trajectory
// did not record.
func addSWEReport(src Source, t *triage.Trace) {
	rep, status := src.Opts.Outcomes.find(src.Path, t.TaskID, src.Opts.Results)
	if status != "" && t.StopReason == "" {
		t.StopReason = status
		if t.Timeout == nil {
			t.Outcome, t.Timeout = miniExitOutcome(status)
		}
	}
	if rep == nil {
		return
	}
	t.ExitCode = ptr(rep.exitCode())
	scorerOutcome(t)
	t.TestOutput = ptr(rep.testOutput())
	t.Scorer = rep.scorerReport()
	if t.Scorer != nil {
		t.Scorer.Source = relativeTo(src.Path, t.Scorer.Source)
	}
}

// relativeTo names a results file from the log's own folder, so the trace
// (and its content hash) is the same wherever the tree of logs is moved or
// imported from: the same logs imported from another path are duplicates,
// not conflicts.
func relativeTo(log, file string) string {
	if log == "" || file == "" {
		return file
	}
	a, err1 := filepath.Abs(filepath.Dir(log))
	b, err2 := filepath.Abs(file)
	if err1 != nil || err2 != nil {
		return file
	}
	if rel, err := filepath.Rel(a, b); err == nil {
		return filepath.ToSlash(rel)
	}
	return file
}

func flatReport(resolved json.RawMessage, data []byte) (*sweReport, error) {
	var r sweReportJSON
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if r.Resolved == nil {
		return nil, fmt.Errorf("report: resolved is %s, want true or false", bytes.TrimSpace(resolved))
	}
	return &sweReport{Resolved: *r.Resolved, PatchApplied: r.PatchApplied, PatchIsNone: r.PatchIsNone, Tests: r.TestsStatus}, nil
}

// scorerOutcome makes the scorer's verdict (t.ExitCode) the outcome:
// success when it passed, failed when not, whatever the harness said of
// how the agent stopped (a budget kill, an auto-submission, a crash after
// the patch was written), which stays the stop reason. A run SWE-bench
// resolved after "submitted (exit_cost)" is resolved, as the harness's
// own resolved rate counts it.
func scorerOutcome(t *triage.Trace) {
	if t.ExitCode == nil {
		return
	}
	t.Outcome = triage.OutcomeFailed
	if *t.ExitCode == 0 {
		t.Outcome = triage.OutcomeSuccess
	}
}
