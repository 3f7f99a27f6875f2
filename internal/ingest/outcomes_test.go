package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeFiles makes files under root from name → content.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

const flatResolved = `{"patch_is_None": false, "patch_successfully_applied": true, "resolved": true, "tests_status": {"FAIL_TO_PASS": {"success": ["t1"], "failure": []}, "PASS_TO_PASS": {"success": ["t2"], "failure": []}}}`
const flatRegressed = `{"patch_successfully_applied": true, "resolved": false, "tests_status": {"FAIL_TO_PASS": {"success": ["t1"], "failure": []}, "PASS_TO_PASS": {"success": [], "failure": ["tests/test_x.py::test_old"]}}}`

// TestOutcomeLayouts finds the verdict where each harness writes it, and
// a per-instance report applies to its own instance only.
func TestOutcomeLayouts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		files    map[string]string
		traj     string
		iid      string
		resolved *bool
		source   string
	}{
		{"SWE-bench submission: trajs/<iid>/ beside logs/<iid>/report.json",
			map[string]string{"run/logs/a__b-1/report.json": flatResolved, "run/logs/a__b-2/report.json": flatRegressed},
			"run/trajs/a__b-1/a__b-1.traj.json", "a__b-1", ptr(true), "run/logs/a__b-1/report.json"},
		{"the other instance's report is not this one's",
			map[string]string{"run/logs/a__b-2/report.json": flatRegressed},
			"run/trajs/a__b-1/a__b-1.traj.json", "a__b-1", nil, ""},
		{"eval_results/<model>/<iid>/report.json keyed by instance",
			map[string]string{"run/eval_results/openai__m/a__b-1/report.json": `{"a__b-1": ` + flatRegressed + `}`},
			"run/a__b-1/a__b-1.traj.json", "a__b-1", ptr(false), "run/eval_results/openai__m/a__b-1/report.json"},
		{"run_evaluation/<iid>/report.json (SWE-smith)",
			map[string]string{"run/run_evaluation/a__b-1/report.json": flatResolved},
			"run/trajectories/a__b-1/a__b-1.traj", "a__b-1", ptr(true), "run/run_evaluation/a__b-1/report.json"},
		{"run-level report: resolved is a count, ids_resolved a list",
			map[string]string{"run/run_evaluation/report.json": `{"resolved": 1, "unresolved": 1, "ids_resolved": ["a__b-1"], "ids_unresolved": ["a__b-2"]}`},
			"run/trajectories/a__b-2/a__b-2.traj", "a__b-2", ptr(false), "run/run_evaluation/report.json"},
		{"old experiments results.json, trailing commas and all",
			map[string]string{"run/results.json": "{\n \"generated\": [\"a__b-1\", \"a__b-2\",],\n \"resolved\": [\"a__b-1\",],\n}"},
			"run/trajs/a__b-2.traj", "a__b-2", ptr(false), "run/results.json"},
		{"old harness log: >>>>> All Tests Passed",
			map[string]string{"run/logs/a__b-1.20240604_X.eval.log": ">>>>> Applied Patch (pred)\nok\n>>>>> All Tests Passed\n"},
			"run/trajs/a__b-1.traj", "a__b-1", ptr(true), "run/logs/a__b-1.20240604_X.eval.log"},
		{"post-conditions beside a session",
			map[string]string{"run/t1/post-condition-output.txt": "PASS: a\nFAIL: b\n"},
			"run/t1/transcript.jsonl", "sess", ptr(false), "run/t1/post-condition-output.txt"},
		{"<iid>.report.json beside the trajectory",
			map[string]string{"run/a__b-1.report.json": flatResolved},
			"run/a__b-1.traj.json", "a__b-1", ptr(true), "run/a__b-1.report.json"},
		{"the SWE-bench harness's run report, <model>.<run_id>.json, known by its first keys",
			map[string]string{"run/OpenHands.eval-1.json": "{\n    \"total_instances\": 2,\n    \"submitted_instances\": 2,\n    \"completed_instances\": 2,\n" +
				"    \"resolved_ids\": [\"a__b-1\"],\n    \"unresolved_ids\": [\"a__b-2\"],\n    \"schema_version\": 2\n}\n"},
			"run/trajs/a__b-2.traj", "a__b-2", ptr(false), "run/OpenHands.eval-1.json"},
		{"sb-cli's report under the run's sb-cli-reports/",
			map[string]string{"run/sb-cli-reports/swe-bench_verified__test__r1.json": `{"resolved_ids": ["a__b-1"], "unresolved_ids": ["a__b-2"]}`},
			"run/a__b-1/a__b-1.traj.json", "a__b-1", ptr(true), "run/sb-cli-reports/swe-bench_verified__test__r1.json"},
		{"SWE-bench experiments: results/results.json",
			map[string]string{"run/results/results.json": `{"resolved": ["a__b-1"], "no_generation": [], "no_logs": []}`},
			"run/trajs/a__b-1.traj", "a__b-1", ptr(true), "run/results/results.json"},
		{"a JSON file that is not a run report is not read as one",
			map[string]string{"run/notes.json": `{"resolved_ids": ["a__b-1"]}`},
			"run/trajs/a__b-1.traj", "a__b-1", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeFiles(t, root, c.files)
			oc := NewOutcomes()
			rep, _ := oc.find(filepath.Join(root, c.traj), c.iid, "")
			require.Empty(t, oc.Warnings())
			if c.resolved == nil {
				require.Nil(t, rep)
				return
			}
			require.NotNil(t, rep)
			require.Equal(t, *c.resolved, rep.Resolved)
			require.Equal(t, filepath.Join(root, c.source), rep.Source)
		})
	}
}

// TestOutcomeResultsFlag: --results names a file or a folder; a flattened
// report names no instance and is applied only where its name says whose
// it is, so one report never becomes the verdict of a whole run.
func TestOutcomeResultsFlag(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"flat/report.json":             flatResolved,
		"named/a__b-1.report.json":     flatResolved,
		"tree/logs/a__b-1/report.json": flatRegressed,
	})
	oc := NewOutcomes()
	rep, _ := oc.find("", "a__b-1", filepath.Join(root, "flat", "report.json"))
	require.Nil(t, rep, "a flattened report given with --results names no instance")
	require.Len(t, oc.Warnings(), 1)
	require.Contains(t, oc.Warnings()[0], "names no instance")

	rep, _ = NewOutcomes().find("", "a__b-1", filepath.Join(root, "named", "a__b-1.report.json"))
	require.NotNil(t, rep)
	require.True(t, rep.Resolved)

	rep, _ = NewOutcomes().find("", "a__b-1", filepath.Join(root, "tree"))
	require.NotNil(t, rep, "--results may name a folder laid out like a run's")
	require.False(t, rep.Resolved)
	require.Equal(t, []string{"tests/test_x.py::test_old"}, rep.scorerReport().PassToPass.Failed)
}

// TestOutcomeBadResults: a results file that cannot be read, or that says
// an instance both resolved and not, is a warning naming it; no verdict is
// taken from it and the trace still imports.
func TestOutcomeBadResults(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"run/results.json":          `{"resolved_ids": ["a__b-1"], "unresolved_ids": ["a__b-1", "a__b-2"]}`,
		"run2/logs/x/report.json":   `{"resolved": "yes"}`,
		"run3/exit_statuses_1.yaml": "not: [valid\n",
	})
	oc := NewOutcomes()
	rep, _ := oc.find(filepath.Join(root, "run", "trajs", "a__b-1.traj"), "a__b-1", "")
	require.Nil(t, rep, "a contradictory file gives no verdict")
	rep, _ = oc.find(filepath.Join(root, "run", "trajs", "a__b-2.traj"), "a__b-2", "")
	require.NotNil(t, rep, "its consistent entries still count")
	require.False(t, rep.Resolved)
	_, _ = oc.find(filepath.Join(root, "run2", "trajs", "x", "x.traj"), "x", "")
	_, _ = oc.find(filepath.Join(root, "run3", "x", "x.traj.json"), "x", "")
	w := strings.Join(oc.Warnings(), "\n")
	require.Contains(t, w, "a__b-1 is listed both as resolved and as not resolved")
	require.Contains(t, w, filepath.Join("run2", "logs", "x", "report.json"))
	require.Contains(t, w, "want true or false")
	require.Contains(t, w, "exit_statuses_1.yaml")
	require.Len(t, oc.Warnings(), 3, "each file is warned about once")
}

// TestExitStatusesYAML: mini-swe-agent's batch file gives the stop reason
// of an instance whose trajectory records none.
func TestExitStatusesYAML(t *testing.T) {
	t.Parallel()
	got, err := parseExitStatuses([]byte("instances_by_exit_status:\n    LimitsExceeded:\n    - a__b-1\n    Submitted:\n    - a__b-2\n"))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"a__b-1": "LimitsExceeded", "a__b-2": "Submitted"}, got)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"run/exit_statuses_17.yaml": "instances_by_exit_status:\n  LimitsExceeded:\n  - a__b-1\n"})
	_, status := NewOutcomes().find(filepath.Join(root, "run", "a__b-1", "a__b-1.traj.json"), "a__b-1", "")
	require.Equal(t, "LimitsExceeded", status)
}

// TestOutcomesGlobIsFilepathGlob: the finder's cached glob matches what
// filepath.Glob matches, escaped instance ids and missing folders
// included, and lists each folder once however many patterns ask.
func TestOutcomesGlobIsFilepathGlob(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, p := range []string{
		"logs/run_evaluation/r1/m1/a__b-1/report.json",
		"logs/run_evaluation/r1/m2/a__b-1/report.json",
		"logs/run_evaluation/r2/m1/odd[1]*/report.json",
		"logs/a__b-1.r1.eval.log",
		"logs/a__b-1.r2.eval.log",
		"exit_statuses_1.yaml",
		"exit_statuses_2.yaml",
		"eval_results/m/a__b-2/report.json",
	} {
		f := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(f), 0o755))
		require.NoError(t, os.WriteFile(f, []byte("{}"), 0o644))
	}
	o := NewOutcomes()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, iid := range []string{"a__b-1", "a__b-2", "odd[1]*", "missing"} {
		for _, pat := range append([]string{"logs/%s.*eval.log", "exit_statuses_*.yaml", "nowhere/*/%s/report.json"}, instanceReportPaths...) {
			p := filepath.Join(root, fmt.Sprintf(pat, globEscape(iid)))
			want, err := filepath.Glob(p)
			require.NoError(t, err)
			sort.Strings(want)
			got := o.glob(p)
			if len(want) == 0 {
				require.Empty(t, got, p)
				continue
			}
			require.Equal(t, want, got, p)
		}
	}
	require.Contains(t, o.dirs, filepath.Join(root, "logs", "run_evaluation", "r1"), "folders are listed once and kept")
}

// OpenHands' SWE-bench evaluation writes output.swebench_eval.jsonl beside
// output.jsonl (the same runs, scored) and eval_outputs/<iid>/report.json:
// output.jsonl's runs take their verdicts from both, a walk does not
// import the scored copy as traces that would conflict with them, and a
// scored copy that contradicts itself gives no verdict.
func TestOpenHandsEvaluationOutcomes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := func(iid, extra string) string {
		return `{"instance_id":"` + iid + `","history":[],"metadata":{"agent_class":"CodeActAgent"}` + extra + "}\n"
	}
	scored := func(iid string, resolved bool) string {
		return line(iid, fmt.Sprintf(`,"test_result":{"git_patch":"","report":{"empty_generation":false,"resolved":%t}}`, resolved))
	}
	out := filepath.Join(dir, "output.jsonl")
	require.NoError(t, os.WriteFile(out, []byte(line("a__a-1", "")+line("b__b-2", "")+line("c__c-3", "")+line("d__d-4", "")), 0o644))
	copyPath := filepath.Join(dir, OpenHandsScoredName)
	require.NoError(t, os.WriteFile(copyPath, []byte(scored("a__a-1", true)+scored("b__b-2", false)+
		scored("c__c-3", true)+"{not json\n"+scored("c__c-3", false)), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "eval_outputs", "d__d-4"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "eval_outputs", "d__d-4", "report.json"), []byte(`{"d__d-4": `+flatResolved+`}`), 0o644))

	o := NewOutcomes()
	recs := decodeWith(t, OpenHandsFormat, out, Options{Outcomes: o})
	require.Len(t, recs, 4)
	exit := map[string]*int{}
	for _, r := range recs {
		require.NotNil(t, r.Trace)
		exit[r.Trace.TaskID] = r.Trace.ExitCode
	}
	require.Equal(t, 0, *exit["a__a-1"])
	require.Equal(t, 1, *exit["b__b-2"])
	require.Nil(t, exit["c__c-3"], "resolved and not: no verdict")
	require.Equal(t, 0, *exit["d__d-4"], "eval_outputs/<iid>/report.json")
	require.Contains(t, *recs[0].Trace.TestOutput, "from "+OpenHandsScoredName)
	warnings := strings.Join(o.Warnings(), "\n")
	require.Contains(t, warnings, copyPath+": line 4: ")
	require.Contains(t, warnings, "c__c-3 is listed both as resolved and as not resolved")

	w, err := ExpandWalk([]string{dir})
	require.NoError(t, err)
	require.Equal(t, []string{out}, w.Files, "the scored copy is not a second set of traces")
	require.Contains(t, fmt.Sprint(w.Skipped), "OpenHands' scored copy of output.jsonl")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "OpenHands.eval.json"), []byte("{\n  \"total_instances\": 4,\n  \"submitted_instances\": 4,\n  \"resolved_ids\": []\n}\n"), 0o644))
	w, err = ExpandWalk([]string{dir})
	require.NoError(t, err)
	require.Equal(t, []string{out}, w.Files, "a run report is not a trace")
	require.Contains(t, fmt.Sprint(w.Skipped), "a SWE-bench run report")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sb-cli-reports"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sb-cli-reports", "swe-bench_lite__test__r.json"), []byte(`{"resolved_ids": []}`), 0o644))
	w, err = ExpandWalk([]string{dir})
	require.NoError(t, err)
	require.Equal(t, []string{out}, w.Files)
	require.Contains(t, fmt.Sprint(w.Skipped), "an sb-cli report")
	// Both named on the command line (a shell glob): the copy is still
	// read for outcomes only.
	w, err = ExpandWalk([]string{copyPath, out})
	require.NoError(t, err)
	require.Equal(t, []string{out}, w.Files)
	// --results may name the scored copy too.
	oc := NewOutcomes()
	rep, _ := oc.find("", "a__a-1", copyPath)
	require.NotNil(t, rep)
	require.True(t, rep.Resolved)
	// Alone, the scored copy is the runs' log, verdicts and all.
	require.NoError(t, os.Remove(out))
	w, err = ExpandWalk([]string{dir})
	require.NoError(t, err)
	require.Contains(t, w.Files, copyPath)
}

// Run reports of several runs in one folder that disagree on an instance
// give it no verdict: the first file in name order used to win.
func TestRunReportsThatDisagree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	report := func(resolved, unresolved string) string {
		return "{\n  \"total_instances\": 2,\n  \"submitted_instances\": 2,\n  \"resolved_ids\": [" + resolved + "],\n  \"unresolved_ids\": [" + unresolved + "]\n}\n"
	}
	writeFiles(t, root, map[string]string{
		"run/amodel.r1.json": report(`"a__b-1", "a__b-2"`, ""),
		"run/zmodel.r1.json": report(`"a__b-2"`, `"a__b-1"`),
	})
	o := NewOutcomes()
	rep, _ := o.find(filepath.Join(root, "run", "trajs", "a__b-1.traj"), "a__b-1", "")
	require.Nil(t, rep, "one run says resolved, the other not")
	require.Contains(t, strings.Join(o.Warnings(), "\n"), "disagree on whether a__b-1 was resolved")
	rep, _ = o.find(filepath.Join(root, "run", "trajs", "a__b-2.traj"), "a__b-2", "")
	require.NotNil(t, rep, "both say resolved")
	require.True(t, rep.Resolved)
}
