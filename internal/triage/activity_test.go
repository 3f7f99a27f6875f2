package triage

import (
	"encoding/json"
	"testing"
)

func shell(cmd, out string, exit *int) ToolCall {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return ToolCall{Name: "bash", Args: args, Output: out, ExitCode: exit}
}

// TestReadActivity reads the steps the rules rely on from the shapes real
// harnesses write: tests and their results (exit code first, else the
// runner's own summary), scripts, edits with their files, the submit.
func TestReadActivity(t *testing.T) {
	t.Parallel()
	one, zero := 1, 0
	tr := &Trace{ToolCalls: []ToolCall{
		shell("cat > reproduce.py <<'EOF'\nprint(1)\nEOF", "", &zero),
		shell("python reproduce.py", "Traceback (most recent call last):\nAttributeError: 'Foo' object has no attribute 'bar'", nil),
		shell("sed -i 's/a/b/' src/x.py", "", &zero),
		shell("pytest -q tests/test_x.py", "F.\n1 failed, 1 passed in 0.04s\n", nil),
		shell("python -m pytest tests", "============ 3 passed in 0.10s ============", nil),
		shell("./tests/runtests.py utils_tests", "Ran 12 tests in 0.3s\n\nFAILED (errors=1)\n", nil),
		shell("go test ./...", "ok  \tpkg\t0.1s\n", &one),
		{Name: "str_replace_editor", Args: json.RawMessage(`{"command":"str_replace","path":"/repo/a.py","old_str":"x","new_str":"y"}`)},
		{Name: "str_replace_editor", Args: json.RawMessage(`{"command":"view","path":"/repo/a.py"}`)},
		{Name: "apply_patch", Args: json.RawMessage(`{"input":"*** Begin Patch\n*** Update File: b.py\n@@\n-a\n+b\n*** End Patch"}`)},
		shell("grep -n FAILED log.txt", "FAILED tests/x.py::t", nil),
		shell("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached", "diff --git", nil),
	}}
	a := ReadActivity(tr)
	want := []struct {
		kind   StepKind
		result Result
		files  []string
	}{
		{StepEdit, ResultNone, []string{"reproduce.py"}},
		{StepRun, ResultError, nil},
		{StepEdit, ResultNone, []string{"src/x.py"}},
		{StepTest, ResultFailed, nil},
		{StepTest, ResultPassed, nil},
		{StepTest, ResultError, nil},  // FAILED (errors=1): a test crashed, none failed an assertion
		{StepTest, ResultFailed, nil}, // ok, but exit code 1
		{StepEdit, ResultNone, []string{"/repo/a.py"}},
		{StepRead, ResultNone, nil},
		{StepEdit, ResultNone, []string{"b.py"}},
		{StepSearch, ResultNone, nil},
		{StepSubmit, ResultNone, nil},
	}
	for i, w := range want {
		s := a.Steps[i]
		if s.Kind != w.kind || s.Result != w.result || len(s.Files) != len(w.files) {
			t.Errorf("step %d (%s): kind %d result %d files %v, want %d %d %v", i, s.Command, s.Kind, s.Result, s.Files, w.kind, w.result, w.files)
			continue
		}
		for j := range w.files {
			if s.Files[j] != w.files[j] {
				t.Errorf("step %d: file %q, want %q", i, s.Files[j], w.files[j])
			}
		}
	}
	if a.Submit != 11 || a.LastEdit != 9 {
		t.Errorf("submit %d, last edit %d; want 11, 9", a.Submit, a.LastEdit)
	}
	if e := a.Steps[1].Errors; len(e) != 1 || e[0].Type != "AttributeError" || e[0].Ident != "bar" {
		t.Errorf("runtime errors of step 1: %+v", e)
	}
	if got := a.Steps[3].Summary; got != "1 failed, 1 passed" {
		t.Errorf("pytest -q summary %q", got)
	}
	if got := a.LastRun(11, StepTest); got != 6 {
		t.Errorf("last test before the submit: %d, want 6", got)
	}
}

func TestScratchAndTestPaths(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"reproduce_issue.py": true, "sklearn/x.py.bak2": true, ".coveragerc": true, "tmp_test_timesince.py": true,
		"test_settings_minimal.py": true, "django/utils/html.py": false, "src/check.rs": false, "a.orig": true,
		"django/core/checks.py": false, "src/demo.py": false, "scripts/reproduce.py": false, "pkg/x.py.bak": true,
	} {
		if IsScratchFile(p) != want {
			t.Errorf("IsScratchFile(%q) = %v", p, !want)
		}
	}
	for p, want := range map[string]bool{"tests/test_x.py": true, "pkg/a_test.go": true, "src/app.spec.ts": true, "src/app.py": false} {
		if IsTestPath(p) != want {
			t.Errorf("IsTestPath(%q) = %v", p, !want)
		}
	}
}

// FuzzScratchPrefilter holds mayBeScratch to scratchName: every path the
// pattern matches passes the prefilter.
func FuzzScratchPrefilter(f *testing.F) {
	for _, p := range []string{"repro.py", "src/x.py.bak2", "fakebin/psql", "a/.ENV", "Reproduce_Issue.PY", "x~", "shims/go", "Check_all.sh"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if scratchName.MatchString(p) && !mayBeScratch(p) {
			t.Errorf("%q: scratchName matches, mayBeScratch says no", p)
		}
	})
}
