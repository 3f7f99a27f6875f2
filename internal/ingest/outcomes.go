package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/triage"
)

// Outcomes finds the scorer's verdict on a run in the files benchmark
// harnesses write beside their logs, so a trajectory imported without
// --results still gets the verdict its run recorded. One Outcomes serves a
// whole import: run-level files (a results list for 500 instances) are read
// once, and a file it cannot read is reported once, as a warning, while
// the traces still import with an unknown outcome.
//
// Per-instance files apply to their own instance only, and win over
// run-level ones. Nothing is guessed: an instance that no file names stays
// unknown, and a file that says both resolved and unresolved for one
// instance gives no verdict at all.
type Outcomes struct {
	mu       sync.Mutex
	files    map[string]*resultsFile
	warnings []string
	warned   map[string]bool
	// dirs are the directories the finder has listed (glob); reports
	// their SWE-bench run reports of other names (runReports).
	dirs    map[string][]string
	reports map[string][]string
}

// NewOutcomes returns an empty finder.
func NewOutcomes() *Outcomes {
	return &Outcomes{files: map[string]*resultsFile{}, warned: map[string]bool{}}
}

// Warnings lists, once each and in the order met, the results files that
// could not be used and why.
func (o *Outcomes) Warnings() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.warnings)
}

// warnOnce is warn for the decoders that read a results file of their
// own (aider's benchmark results): nil-safe, and taking the lock find
// holds.
func (o *Outcomes) warnOnce(path, format string, a ...any) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.warn(path, format, a...)
}

func (o *Outcomes) warn(path, format string, a ...any) {
	if o.warned[path] {
		return
	}
	o.warned[path] = true
	o.warnings = append(o.warnings, path+": "+fmt.Sprintf(format, a...))
}

// resultsFile is one parsed results file: a verdict per instance it names.
type resultsFile struct {
	reports map[string]*sweReport
	// flat is a per-instance report that names no instance (SWE-bench's
	// flattened report.json); it applies only where its place says which
	// instance it is about.
	flat *sweReport
	// statuses are mini-swe-agent's exit statuses by instance.
	statuses map[string]string
}

// maxAncestors bounds how far up from a trajectory the finder looks for
// a run's results: SWE-bench layouts put them one to three levels up.
const maxAncestors = 3

// instanceReportPaths are where per-instance reports live, relative to a
// directory at or above the trajectory's; each may be a glob.
// eval_outputs/ is OpenHands' SWE-bench evaluation (eval_infer.py).
var instanceReportPaths = []string{
	"logs/%s/report.json",
	"eval_outputs/%s/report.json",
	"run_evaluation/%s/report.json",
	"logs/run_evaluation/*/*/%s/report.json",
	"eval_results/*/%s/report.json",
	"evaluation/*/%s/report.json",
}

// runResultNames are run-level results files, read for the instances they
// list (resolved ids, old experiments lists, result summaries).
// results/results.json is the SWE-bench experiments repository's layout.
var runResultNames = []string{"results.json", "report.json", "results_summary.json", "run_evaluation/report.json", "results/results.json"}

// find returns the verdict on instance iid for the trajectory at path, and
// the harness exit status a batch file recorded for it ("" when none).
func (o *Outcomes) find(path, iid, given string) (*sweReport, string) {
	if o == nil {
		o = NewOutcomes()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	status := ""
	if path != "" {
		dir := filepath.Dir(path)
		// Beside the trajectory: <iid>.report.json, or report.json when the
		// folder is the instance's own.
		if rep := o.instanceFile(filepath.Join(dir, iid+".report.json"), iid, true); rep != nil {
			return rep, ""
		}
		if rep := o.instanceFile(filepath.Join(dir, "report.json"), iid, filepath.Base(dir) == iid); rep != nil {
			return rep, ""
		}
		for a, up := dir, 0; up <= maxAncestors; a, up = filepath.Dir(a), up+1 {
			for _, pat := range instanceReportPaths {
				for _, p := range o.glob(filepath.Join(a, fmt.Sprintf(pat, globEscape(iid)))) {
					if rep := o.instanceFile(p, iid, true); rep != nil {
						return rep, ""
					}
				}
			}
			if up == 0 {
				if rep := o.openHandsScored(a, iid); rep != nil {
					return rep, ""
				}
			}
			if rep := o.evalLog(a, iid); rep != nil {
				return rep, ""
			}
			if rep := o.postConditions(a, up); rep != nil {
				return rep, ""
			}
			for _, name := range runResultNames {
				p := filepath.Join(a, name)
				if up == 0 && name == "report.json" {
					continue // read above as the instance's own
				}
				if rep := o.instanceFile(p, iid, false); rep != nil {
					return rep, status
				}
			}
			if rep := o.agreedRunReport(a, iid); rep != nil {
				return rep, status
			}
			if status == "" {
				status = o.exitStatus(a, iid)
			}
			if parent := filepath.Dir(a); parent == a {
				break
			}
		}
	}
	if given != "" {
		if rep := o.given(given, iid); rep != nil {
			return rep, status
		}
	}
	return nil, status
}

// given reads --results: a file, or a folder searched like a run's own.
func (o *Outcomes) given(given, iid string) *sweReport {
	st, err := os.Stat(given)
	if err != nil {
		o.warn(given, "--results: %v", pathErr(err))
		return nil
	}
	if st.IsDir() {
		for _, pat := range append([]string{"%s/report.json", "%s.report.json"}, instanceReportPaths...) {
			for _, p := range o.glob(filepath.Join(given, fmt.Sprintf(pat, globEscape(iid)))) {
				if rep := o.instanceFile(p, iid, true); rep != nil {
					return rep
				}
			}
		}
		for _, name := range runResultNames {
			if rep := o.instanceFile(filepath.Join(given, name), iid, false); rep != nil {
				return rep
			}
		}
		return nil
	}
	if strings.EqualFold(filepath.Base(given), OpenHandsScoredName) {
		return o.openHandsScored(filepath.Dir(given), iid)
	}
	f := o.load(given)
	if f == nil {
		return nil
	}
	if rep := f.reports[iid]; rep != nil {
		return rep
	}
	if f.flat != nil {
		// A flattened report names no instance: it applies only when its
		// name or folder does.
		base := filepath.Base(given)
		if strings.HasPrefix(base, iid+".") || filepath.Base(filepath.Dir(given)) == iid {
			return f.flat
		}
		o.warn(given, "a per-instance report that names no instance: not applied (put it at logs/<instance_id>/report.json or name it <instance_id>.report.json)")
	}
	return nil
}

// instanceFile returns the verdict on iid in the file at p, if it exists
// and names iid; a flattened report counts when mine says the file's place
// is iid's.
func (o *Outcomes) instanceFile(p, iid string, mine bool) *sweReport {
	f := o.load(p)
	if f == nil {
		return nil
	}
	if rep := f.reports[iid]; rep != nil {
		return rep
	}
	if mine && f.flat != nil {
		return f.flat
	}
	return nil
}

// load reads and caches the results file at p; nil when it does not exist
// or cannot be used (then warned once).
func (o *Outcomes) load(p string) *resultsFile {
	if f, ok := o.files[p]; ok {
		return f
	}
	o.files[p] = nil
	data, err := readSmall(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errIsDir) {
		return nil
	}
	if err != nil {
		o.warn(p, "cannot read: %v", err)
		return nil
	}
	f, err := parseResults(data, filepath.Base(p))
	if err != nil {
		o.warn(p, "%v; its verdicts were not used", err)
		return nil
	}
	var both []string
	for iid, rep := range f.reports {
		if rep == nil {
			both = append(both, iid)
		}
	}
	if both != nil {
		// One warning for the file (warn says each file once), naming
		// every such instance, in order.
		sort.Strings(both)
		verb := "is"
		if len(both) > 1 {
			verb = "are each"
		}
		o.warn(p, "%s %s listed both as resolved and as not resolved; no verdict taken for %s", strings.Join(both, ", "), verb, map[bool]string{true: "them", false: "it"}[len(both) > 1])
	}
	if rep := f.flat; rep != nil {
		rep.Source = p
	}
	for _, rep := range f.reports {
		if rep != nil {
			rep.Source = p
		}
	}
	o.files[p] = f
	return f
}

var errIsDir = errors.New("is a directory")

// maxResultsBytes bounds a results file read whole (the largest real
// run-level list, for 2,294 instances, is under 1 MB).
const maxResultsBytes = 64 << 20

func readSmall(p string) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, pathErr(err)
	}
	if st.IsDir() {
		return nil, errIsDir
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if st.Size() > maxResultsBytes {
		return nil, fmt.Errorf("%d bytes is over the %d-byte limit for a results file", st.Size(), maxResultsBytes)
	}
	return os.ReadFile(p)
}

// trailingComma matches a comma before a closing bracket, which the old
// SWE-bench experiments results.json files carry.
var trailingComma = regexp.MustCompile(`,(\s*[\]}])`)

// parseResults reads any of the results shapes: a flattened per-instance
// report; {iid: report}; a run summary with resolved_ids/unresolved_ids or
// ids_resolved/ids_unresolved (with "resolved" a count); the old
// experiments schema of lists (no_generation, generated, applied, …,
// resolved); or a summary with an "instances" list of {instance_id,
// resolved}. An instance listed both ways maps to nil.
func parseResults(data []byte, name string) (*resultsFile, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		relaxed := trailingComma.ReplaceAll(data, []byte("$1"))
		if err2 := json.Unmarshal(relaxed, &top); err2 != nil {
			return nil, fmt.Errorf("not a results file: %v", explainJSONErr(err))
		}
	}
	f := &resultsFile{reports: map[string]*sweReport{}}
	set := func(iid string, resolved bool, summary string) {
		if old, ok := f.reports[iid]; ok {
			if old == nil || old.Resolved != resolved {
				f.reports[iid] = nil
			}
			return
		}
		f.reports[iid] = &sweReport{Resolved: resolved, FromSummary: summary}
	}
	if raw, ok := top["resolved"]; ok && !isJSONBool(raw) {
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] != '[' && (t[0] < '0' || t[0] > '9') {
			return nil, fmt.Errorf("resolved is %s, want true or false (a report), a count or a list of ids (a run summary)", clipBytes(t, 40))
		}
	}
	if raw, ok := top["resolved"]; ok && isJSONBool(raw) {
		rep, err := flatReport(raw, data)
		if err != nil {
			return nil, err
		}
		f.flat = rep
		return f, nil
	}
	lists := map[string][]string{}
	for k, raw := range top {
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			var ids []string
			if json.Unmarshal(t, &ids) == nil {
				lists[k] = ids
			}
		}
	}
	positive := firstList(lists, "resolved_ids", "ids_resolved", "resolved")
	negative := [][]string{lists["unresolved_ids"], lists["ids_unresolved"], lists["error_ids"], lists["empty_patch_ids"], lists["ids_error"], lists["ids_empty_patch"]}
	if positive != nil || lists["unresolved_ids"] != nil || lists["ids_unresolved"] != nil {
		for _, id := range positive {
			set(id, true, name)
		}
		for _, l := range negative {
			for _, id := range l {
				set(id, false, name)
			}
		}
		// The old experiments schema lists every instance under the stages
		// it reached; one that reached any stage and is not resolved was
		// scored and failed, or never produced a patch.
		if _, ok := lists["resolved"]; ok {
			for _, stage := range []string{"no_generation", "generated", "with_logs", "install_fail", "reset_failed", "no_apply", "applied", "test_errored", "test_timeout"} {
				for _, id := range lists[stage] {
					if _, ok := f.reports[id]; !ok {
						set(id, false, name)
					}
				}
			}
		}
		return f, nil
	}
	if raw, ok := top["instances"]; ok {
		var list []struct {
			InstanceID string `json:"instance_id"`
			Resolved   *bool  `json:"resolved"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("results summary instances: %v", explainJSONErr(err))
		}
		for _, in := range list {
			if in.Resolved != nil {
				set(in.InstanceID, *in.Resolved, name)
			}
		}
		return f, nil
	}
	// {iid: report, …}, the official harness's per-instance shape.
	for iid, raw := range top {
		t := bytes.TrimSpace(raw)
		if len(t) == 0 || t[0] != '{' {
			continue
		}
		var inner map[string]json.RawMessage
		if json.Unmarshal(t, &inner) != nil {
			continue
		}
		res, ok := inner["resolved"]
		if !ok {
			continue
		}
		rep, err := flatReport(res, t)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", iid, err)
		}
		f.reports[iid] = rep
	}
	if len(f.reports) == 0 {
		return nil, fmt.Errorf("names no instance's verdict (no resolved field, resolved list or instance reports)")
	}
	return f, nil
}

func firstList(lists map[string][]string, keys ...string) []string {
	for _, k := range keys {
		if l, ok := lists[k]; ok {
			return l
		}
	}
	return nil
}

func isJSONBool(raw json.RawMessage) bool {
	t := string(bytes.TrimSpace(raw))
	return t == "true" || t == "false"
}

// agreedRunReport is the verdict on iid of the run reports in dir
// (runReports): several runs' reports often sit in one folder (one per
// model or run id), so one that names iid is taken only if every other
// one that names it agrees; when they disagree, no verdict is taken and a
// warning names them.
func (o *Outcomes) agreedRunReport(dir, iid string) *sweReport {
	var got *sweReport
	var from string
	for _, p := range o.runReports(dir) {
		rep := o.instanceFile(p, iid, false)
		switch {
		case rep == nil:
		case got == nil:
			got, from = rep, p
		case rep.Resolved != got.Resolved:
			o.warn(from+" and "+filepath.Base(p), "run reports in one folder disagree on whether %s was resolved (the first instance they disagree on; there may be more): no verdict taken from them where they disagree; name the run's own with --results", iid)
			return nil
		}
	}
	return got
}

// runReports are the SWE-bench harness's run reports in dir that go by
// another name than runResultNames: run_evaluation writes
// <model>.<run_id>.json where it is run. They are known by their first
// keys (RunReport), and sb-cli's reports in sb-cli-reports/, listed once
// per directory.
func (o *Outcomes) runReports(dir string) []string {
	if o.reports == nil {
		o.reports = map[string][]string{}
	}
	if r, ok := o.reports[dir]; ok {
		return r
	}
	var out []string
	for _, name := range o.listDir(dir) {
		if p := filepath.Join(dir, name); !slices.Contains(runResultNames, name) && RunReport(p) {
			out = append(out, p)
		}
	}
	// sb-cli writes its reports (<subset>__<split>__<run_id>.json) to
	// sb-cli-reports/, as SWE-agent's and mini-swe-agent's evaluation
	// hooks run it, under the run's folder.
	sb := filepath.Join(dir, "sb-cli-reports")
	for _, name := range o.listDir(sb) {
		if strings.HasSuffix(strings.ToLower(name), ".json") {
			out = append(out, filepath.Join(sb, name))
		}
	}
	o.reports[dir] = out
	return out
}

// RunReport says whether the file at p is a SWE-bench harness run report
// (make_run_report's JSON: total_instances, submitted_instances, … and
// the id lists): by name a .json that is not a trajectory, by content
// its first keys. A directory walk skips such files as results.
func RunReport(p string) bool {
	l := strings.ToLower(filepath.Base(p))
	if !strings.HasSuffix(l, ".json") || strings.HasSuffix(l, ".traj.json") || strings.HasSuffix(l, ".trajectory.json") {
		return false
	}
	// A FIFO or device would block the read forever: regular files only.
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return false
	}
	fh, err := os.Open(p)
	if err != nil {
		return false
	}
	defer fh.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(fh, head)
	head = head[:n]
	return bytes.Contains(head, []byte(`"total_instances"`)) && bytes.Contains(head, []byte(`"submitted_instances"`))
}

// OpenHandsScoredName is the scored copy of output.jsonl that OpenHands'
// SWE-bench evaluation (eval_infer.py) writes beside it: the same lines,
// each with test_result.report.resolved.
const OpenHandsScoredName = "output.swebench_eval.jsonl"

// openHandsScored is the verdict on iid in the scored copy of
// output.jsonl in dir, read once per import: only instance_id and
// test_result.report are taken from each line. A line that does not parse
// is a warning (the others still count); an instance said both resolved
// and not gets no verdict.
func (o *Outcomes) openHandsScored(dir, iid string) *sweReport {
	p := filepath.Join(dir, OpenHandsScoredName)
	f, ok := o.files[p]
	if !ok {
		f = o.loadOpenHandsScored(p)
		o.files[p] = f
	}
	if f == nil {
		return nil
	}
	return f.reports[iid]
}

func (o *Outcomes) loadOpenHandsScored(p string) *resultsFile {
	st, err := os.Stat(p)
	if err == nil && !st.Mode().IsRegular() {
		o.warn(p, "not a regular file: its verdicts were not read")
		return nil
	}
	fh, err := os.Open(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			o.warn(p, "%v", pathErr(err))
		}
		return nil
	}
	defer fh.Close()
	f := &resultsFile{reports: map[string]*sweReport{}}
	seen := map[string]bool{}
	// problems are said in one warning, the file's (warn says each file
	// once).
	var problems []string
	defer func() {
		if n := len(problems); n > 5 {
			problems = append(problems[:5], fmt.Sprintf("and %d more", n-5))
		}
		if problems != nil {
			o.warn(p, "%s", strings.Join(problems, "; "))
		}
	}()
	r := bufio.NewReaderSize(fh, 1<<16)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var l struct {
				InstanceID string `json:"instance_id"`
				TestResult *struct {
					Report *ohReport `json:"report"`
				} `json:"test_result"`
			}
			switch jerr := json.Unmarshal(line, &l); {
			case jerr != nil:
				problems = append(problems, fmt.Sprintf("line %d: %s (the other lines still count)", n, triage.DescribeJSONError(line, jerr)))
			case l.InstanceID != "" && l.TestResult != nil && l.TestResult.Report != nil && l.TestResult.Report.Resolved != nil:
				res := *l.TestResult.Report.Resolved
				if prev, dup := f.reports[l.InstanceID]; dup && prev != nil && prev.Resolved != res {
					problems = append(problems, l.InstanceID+" is listed both as resolved and as not resolved; no verdict taken for it")
					f.reports[l.InstanceID] = nil
				} else if !seen[l.InstanceID] {
					f.reports[l.InstanceID] = &sweReport{Resolved: res, FromSummary: OpenHandsScoredName, Source: p}
				}
				seen[l.InstanceID] = true
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				problems = append(problems, pathErr(err).Error())
			}
			return f
		}
	}
}

// evalLog reads the old SWE-bench harness log for iid under dir/logs
// (<iid>.<run>.eval.log), whose last verdict line says whether the tests
// passed.
func (o *Outcomes) evalLog(dir, iid string) *sweReport {
	for _, p := range o.glob(filepath.Join(dir, "logs", globEscape(iid)+".*eval.log")) {
		if f, ok := o.files[p]; ok {
			if f != nil {
				return f.reports[iid]
			}
			continue
		}
		o.files[p] = nil
		verdict, ok := scanEvalLog(p)
		if !ok {
			o.warn(p, "no verdict line (>>>>> All Tests Passed or Some Tests Failed) in the harness log")
			continue
		}
		rep := &sweReport{Resolved: verdict, FromSummary: filepath.Base(p), Source: p}
		o.files[p] = &resultsFile{reports: map[string]*sweReport{iid: rep}}
		return rep
	}
	return nil
}

// scanEvalLog returns the last verdict line of an old harness log.
func scanEvalLog(p string) (resolved, ok bool) {
	fh, err := os.Open(p)
	if err != nil {
		return false, false
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, ">>>>> ") {
			continue
		}
		switch {
		case strings.Contains(l, "All Tests Passed"):
			resolved, ok = true, true
		case strings.Contains(l, "Some Tests Failed"), strings.Contains(l, "Tests Errored"), strings.Contains(l, "Tests Timed Out"), strings.Contains(l, "Patch Apply Failed"):
			resolved, ok = false, true
		}
	}
	return resolved, ok
}

// postConditions reads a post-condition-output.txt written beside a
// session (claude-reliability's snapshot tests): every check prints PASS
// or FAIL, and the file ends "All post-conditions passed!" when all held.
// It applies only to the folder the session is in (up 0).
func (o *Outcomes) postConditions(dir string, up int) *sweReport {
	if up != 0 {
		return nil
	}
	p := filepath.Join(dir, "post-condition-output.txt")
	if f, ok := o.files[p]; ok {
		if f != nil {
			return f.flat
		}
		return nil
	}
	o.files[p] = nil
	data, err := readSmall(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			o.warn(p, "cannot read: %v", err)
		}
		return nil
	}
	var pass, fail []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "PASS:"):
			pass = append(pass, strings.TrimSpace(strings.TrimPrefix(l, "PASS:")))
		case strings.HasPrefix(l, "FAIL:"):
			fail = append(fail, strings.TrimSpace(strings.TrimPrefix(l, "FAIL:")))
		}
	}
	allPassed := strings.Contains(string(data), "All post-conditions passed")
	if len(pass)+len(fail) == 0 && !allPassed {
		o.warn(p, "no PASS or FAIL line: not a post-condition report")
		return nil
	}
	if allPassed && len(fail) > 0 {
		o.warn(p, "says all post-conditions passed but lists %d FAIL lines; no verdict taken", len(fail))
		return nil
	}
	rep := &sweReport{Resolved: len(fail) == 0, FromSummary: filepath.Base(p), Source: p, postCond: true,
		Tests: map[string]sweTestStatus{"FAIL_TO_PASS": {Success: pass, Failure: fail}}}
	o.files[p] = &resultsFile{flat: rep}
	return rep
}

// exitStatus returns the status a mini-swe-agent batch file
// (exit_statuses_*.yaml in dir) lists iid under, the newest file first.
func (o *Outcomes) exitStatus(dir, iid string) string {
	paths := o.glob(filepath.Join(dir, "exit_statuses_*.yaml"))
	for i := len(paths) - 1; i >= 0; i-- {
		p := paths[i]
		f, ok := o.files[p]
		if !ok {
			o.files[p] = nil
			data, err := readSmall(p)
			if err != nil {
				o.warn(p, "cannot read: %v", err)
				continue
			}
			st, err := parseExitStatuses(data)
			if err != nil {
				o.warn(p, "%v", err)
				continue
			}
			f = &resultsFile{statuses: st}
			o.files[p] = f
		}
		if f != nil {
			if s := f.statuses[iid]; s != "" {
				return s
			}
		}
	}
	return ""
}

// parseExitStatuses reads mini-swe-agent's batch file:
//
//	instances_by_exit_status:
//	    LimitsExceeded:
//	    - mwaskom__seaborn-3069
//
// by hand: it is a fixed two-level shape, not general YAML.
func parseExitStatuses(data []byte) (map[string]string, error) {
	out := map[string]string{}
	status := ""
	sawTop := false
	for n, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case t == "instances_by_exit_status:":
			sawTop = true
		case strings.HasPrefix(t, "- "):
			if status == "" {
				return nil, fmt.Errorf("line %d: an instance before any exit status", n+1)
			}
			out[strings.Trim(strings.TrimSpace(t[2:]), `"'`)] = status
		case strings.HasSuffix(t, ":"):
			status = strings.Trim(strings.TrimSuffix(t, ":"), `"'`)
		default:
			return nil, fmt.Errorf("line %d: not an exit-statuses file (want 'status:' or '- instance_id')", n+1)
		}
	}
	if !sawTop {
		return nil, fmt.Errorf("no instances_by_exit_status key: not a mini-swe-agent exit-statuses file")
	}
	return out, nil
}

// glob is filepath.Glob, sorted and with errors as no match, with each
// directory read once per import: the
// finder globs a dozen patterns per trace, each naming the trace's
// instance under a folder that holds one entry per instance, so
// filepath.Glob read that folder again for every trace (an import of N
// traces read N² entries, under o.mu). Patterns and matches are
// filepath.Glob's; a directory that cannot be read matches nothing, as
// there. Call it with o.mu held.
func (o *Outcomes) glob(pattern string) []string {
	if !hasGlobMeta(pattern) {
		if _, err := os.Lstat(pattern); err != nil {
			return nil
		}
		return []string{pattern}
	}
	dir, file := filepath.Split(pattern)
	dir = strings.TrimSuffix(dir, string(filepath.Separator))
	if dir == "" {
		dir = "."
	}
	dirs := []string{dir}
	if hasGlobMeta(dir) {
		dirs = o.glob(dir)
	}
	var out []string
	for _, d := range dirs {
		for _, name := range o.listDir(d) {
			if ok, _ := filepath.Match(file, name); ok {
				out = append(out, filepath.Join(d, name))
			}
		}
	}
	sort.Strings(out)
	return out
}

// listDir is a directory's entry names, sorted, read once (nil when it
// is not a readable directory).
func (o *Outcomes) listDir(dir string) []string {
	if names, ok := o.dirs[dir]; ok {
		return names
	}
	f, err := os.Open(dir)
	var names []string
	if err == nil {
		names, _ = f.Readdirnames(-1)
		_ = f.Close()
		sort.Strings(names)
	}
	if o.dirs == nil {
		o.dirs = map[string][]string{}
	}
	o.dirs[dir] = names
	return names
}

// hasGlobMeta is filepath.Glob's test for a pattern (on Unix).
func hasGlobMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// globEscape quotes the glob metacharacters an instance id may hold.
func globEscape(s string) string {
	return globMeta.Replace(s)
}

// globMeta is built once: building a Replacer per call was a sixth of
// the reports' lookup, which runs for every trace.
var globMeta = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)

// scorerReport is the vocabulary's view of a verdict from checks the agent
// never saw: a SWE-bench report (its hidden tests), or a post-condition
// list written by the test's author (each check is one "test"; they are
// all the task's own, FAIL_TO_PASS in SWE-bench's words).
func (r *sweReport) scorerReport() *triage.ScorerReport {
	out := &triage.ScorerReport{Source: r.Source, PatchApplied: r.PatchApplied}
	if r.PatchIsNone != nil && *r.PatchIsNone {
		out.NoPatch = true
	}
	if st, ok := r.Tests["FAIL_TO_PASS"]; ok {
		out.FailToPass = triage.TestResults{Passed: st.Success, Failed: st.Failure}
	}
	if st, ok := r.Tests["PASS_TO_PASS"]; ok {
		out.PassToPass = triage.TestResults{Passed: st.Success, Failed: st.Failure}
	}
	// A bare resolved list names no test, but still says the benchmark's
	// own tests scored the run.
	return out
}

func clipBytes(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
