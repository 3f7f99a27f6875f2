package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// addSWEReport sets t's exit code and test output from the SWE-bench
// verdict on its task (see findMiniReport); with no report they stay
// unknown. The error is a report that exists but cannot be read.
func addSWEReport(src Source, t *triage.Trace) error {
	rep, err := findMiniReport(src, t.TaskID)
	if err != nil || rep == nil {
		return err
	}
	t.ExitCode = ptr(rep.exitCode())
	t.TestOutput = ptr(rep.testOutput())
	return nil
}

// findMiniReport looks for the verdict on instance iid, most specific
// first: <iid>.report.json beside the trajectory; report.json beside it;
// the SWE-bench submission layout's logs/<iid>/report.json (trajectories in
// trajs/<iid>/); then the --results file. A file that exists but does not
// parse is an error (a wrong verdict is worse than none); no report at all
// gives nil, and the exit code stays unknown.
func findMiniReport(src Source, iid string) (*sweReport, error) {
	var candidates []string
	if src.Path != "" {
		dir := filepath.Dir(src.Path)
		candidates = append(candidates,
			filepath.Join(dir, iid+".report.json"),
			filepath.Join(dir, "report.json"),
			filepath.Join(dir, "..", "..", "logs", iid, "report.json"))
	}
	for _, p := range candidates {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("report %s: %w", p, err)
		}
		rep, err := parseSWEReport(data, iid, filepath.Base(p))
		if err != nil {
			return nil, fmt.Errorf("report %s: %w", p, err)
		}
		if rep != nil {
			return rep, nil
		}
	}
	if src.Opts.Results == "" {
		return nil, nil
	}
	data, err := os.ReadFile(src.Opts.Results)
	if err != nil {
		return nil, fmt.Errorf("--results: %w", err)
	}
	rep, err := parseSWEReport(data, iid, filepath.Base(src.Opts.Results))
	if err != nil {
		return nil, fmt.Errorf("--results %s: %w", src.Opts.Results, err)
	}
	return rep, nil
}

// parseSWEReport reads any of the report shapes for instance iid: a
// flattened per-instance report; {iid: report}; a harness summary with
// resolved_ids/unresolved_ids; or a summary with an "instances" list of
// {instance_id, resolved}. It returns nil when the file does not mention
// iid.
func parseSWEReport(data []byte, iid, name string) (*sweReport, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a SWE-bench report: %w", err)
	}
	if _, ok := top["resolved"]; ok {
		return flatReport(top["resolved"], data)
	}
	if raw, ok := top[iid]; ok && len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '{' {
		var inner map[string]json.RawMessage
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, fmt.Errorf("%s: %w", iid, err)
		}
		if _, ok := inner["resolved"]; ok {
			return flatReport(inner["resolved"], raw)
		}
	}
	if _, ok := top["resolved_ids"]; ok {
		var s struct {
			Resolved   []string `json:"resolved_ids"`
			Unresolved []string `json:"unresolved_ids"`
			Error      []string `json:"error_ids"`
			Empty      []string `json:"empty_patch_ids"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("results summary: %w", err)
		}
		switch {
		case slices.Contains(s.Resolved, iid):
			return &sweReport{Resolved: true, FromSummary: name}, nil
		case slices.Contains(s.Unresolved, iid), slices.Contains(s.Error, iid), slices.Contains(s.Empty, iid):
			return &sweReport{Resolved: false, FromSummary: name}, nil
		}
		return nil, nil
	}
	if raw, ok := top["instances"]; ok {
		var list []struct {
			InstanceID string `json:"instance_id"`
			Resolved   *bool  `json:"resolved"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("results summary instances: %w", err)
		}
		for _, in := range list {
			if in.InstanceID == iid && in.Resolved != nil {
				return &sweReport{Resolved: *in.Resolved, FromSummary: name}, nil
			}
		}
		return nil, nil
	}
	return nil, nil
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
