package triage

import (
	"encoding/json"
	"strings"
	"testing"
)

// stepCase is one command as a real log records it, and how a reviewer
// reads it (DESIGN §8).
type stepCase struct {
	name   string
	call   ToolCall
	kind   StepKind
	result Result
	// summary and errType, when set, must be found.
	summary, errType, ident string
	files                   []string
}

func exitp(n int) *int { return &n }

func tool(name, args, out string, exit *int) ToolCall {
	return ToolCall{Name: name, Args: json.RawMessage(args), Output: out, ExitCode: exit}
}

var stepCases = []stepCase{
	// The misreads of issue 26, from real logs.
	{name: "pytest missing is not a test failure", call: shell("pytest -q tests/forms_tests/tests/test_forms.py::FormsTestCase::test_changed_data -q", "/bin/sh: 1: pytest: not found\n", exitp(127)),
		kind: StepTest, result: ResultNotRun, summary: "pytest: not found"},
	{name: "no module named pytest", call: shell("python -m pytest tests/test_x.py", "/usr/bin/python: No module named pytest\n", exitp(1)),
		kind: StepTest, result: ResultNotRun, summary: "No module named pytest"},
	{name: "a pipe hides pytest's exit code, the output does not", call: shell("cd /testbed && python -m pytest tests -x 2>&1 | tail -5", "FAILED tests/test_a.py::test_b - assert 1 == 2\n=== 1 failed, 4 passed in 0.31s ===\n", exitp(0)),
		kind: StepTest, result: ResultFailed, summary: "1 failed, 4 passed"},
	{name: "a piped missing runner", call: shell("pytest tests | tail -5", "bash: pytest: command not found\n", exitp(0)),
		kind: StepTest, result: ResultNotRun},
	{name: "an inline heredoc script is a run", call: shell("PYTHONPATH=. python - <<'PY'\nfrom sympy import *\nprint(det(Matrix([[1, 2], [3, 4]])))\nPY", "-2\n", exitp(0)),
		kind: StepRun, result: ResultPassed},
	{name: "a heredoc script that rewrites a file is an edit", call: shell("python - <<'PY'\nfrom pathlib import Path\np = Path('django/forms/forms.py')\ns = p.read_text()\np.write_text(s.replace('a', 'b'))\nPY", "", exitp(0)),
		kind: StepEdit, result: ResultNone, files: []string{"django/forms/forms.py"}},
	{name: "cat > f <<EOF is an edit", call: shell("cat > repro.py <<'EOF'\nimport x\nprint(x.y > 2)\nEOF", "", exitp(0)),
		kind: StepEdit, result: ResultNone, files: []string{"repro.py"}},
	{name: "a check script holding > is not an edit", call: shell("python -c \"import x; assert x.f() > 2, 'too small'\"", "", exitp(0)),
		kind: StepRun, result: ResultPassed},
	{name: "|| true hides the exit code", call: shell("./tests/runtests.py utils_tests.test_html || true", "Ran 16 tests in 0.2s\n\nFAILED (failures=5, errors=1)\n", exitp(0)),
		kind: StepTest, result: ResultFailed, summary: "FAILED (failures=5, errors=1)"},
	{name: "sed -i then pytest: a test that writes", call: shell("sed -i 's/a/b/' src/x.py && pytest -q", "3 passed in 0.1s\n", exitp(0)),
		kind: StepTest, result: ResultPassed, files: []string{"src/x.py"}},
	{name: "bash -lc wraps the command", call: tool("exec_command", `{"cmd":["bash","-lc","cd repo && go test ./..."]}`, "--- FAIL: TestParse (0.00s)\nFAIL\tgithub.com/x/y\t0.01s\n", exitp(1)),
		kind: StepTest, result: ResultFailed},
	{name: "a timeout", call: shell("pytest", "The last command <command>pytest</command> timed out and has been killed.", nil),
		kind: StepTest, result: ResultTimeout},
	{name: "a script missing", call: shell("python reproduce_issue.py", "python: can't open file '/testbed/reproduce_issue.py': [Errno 2] No such file or directory\n", exitp(2)),
		kind: StepRun, result: ResultNotRun},
	{name: "an unparseable command", call: shell("echo 'unterminated", "", exitp(0)), kind: StepOther, result: ResultUnknown},
	{name: "grep with no match is not an error", call: shell("grep -rn foo src", "", exitp(1)), kind: StepSearch, result: ResultNone},
	{name: "pip install", call: shell("pip install -e .", "Successfully installed x-1.0\n", exitp(0)), kind: StepInstall, result: ResultNone},
	{name: "git diff", call: shell("git --no-pager diff", "diff --git a/x b/x\n", exitp(0)), kind: StepVCS, result: ResultNone},
	{name: "git apply edits", call: shell("git apply fix.patch", "error: patch failed: x.py:1\n", exitp(1)), kind: StepEdit, result: ResultError},
	{name: "go build", call: shell("go build ./...", "./main.go:12:5: undefined: foo\n", exitp(1)), kind: StepBuild, result: ResultError, errType: "compile error", ident: "foo"},
	// Errors in other languages.
	{name: "cv2.error", call: shell("python detect.py", "Traceback (most recent call last):\n  File \"detect.py\", line 3, in <module>\n    img = cv2.resize(img, (0, 0))\ncv2.error: OpenCV(4.8.0) :-1: error: (-5:Bad argument) in function 'resize'\n", exitp(1)),
		kind: StepRun, result: ResultError, errType: "cv2.error"},
	{name: "a bare KeyError", call: shell("python run.py", "Traceback (most recent call last):\n  File \"run.py\", line 9, in <module>\n    print(d['X'])\nKeyError: 'X'\n", exitp(1)),
		kind: StepRun, result: ResultError, errType: "KeyError", ident: "X"},
	{name: "a KeyError with no message", call: shell("python run.py", "Traceback (most recent call last):\n  File \"run.py\", line 9, in <module>\n    raise KeyError\nKeyError\n", exitp(1)),
		kind: StepRun, result: ResultError, errType: "KeyError"},
	{name: "scalac through sbt", call: shell("sbt compile", "[info] compiling 3 Scala sources\n[error] /repo/src/main/scala/App.scala:12:5: not found: value fooBar\n[error] one error found\n[error] (Compile / compileIncremental) Compilation failed\n", exitp(1)),
		kind: StepBuild, result: ResultError, errType: "compile error", ident: "fooBar"},
	{name: "javac", call: shell("javac src/Main.java", "src/Main.java:7: error: cannot find symbol\n        foo.barBaz();\n", exitp(1)),
		kind: StepBuild, result: ResultError, errType: "compile error"},
	{name: "a Java exception", call: shell("java -jar app.jar", "Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\"\n\tat App.main(App.java:5)\n", exitp(1)),
		kind: StepRun, result: ResultError, errType: "java.lang.NullPointerException"},
	{name: "node", call: shell("node index.js", "/app/index.js:3\nfoo.bar()\n    ^\n\nTypeError: foo.bar is not a function\n    at Object.<anonymous> (/app/index.js:3:5)\n", exitp(1)),
		kind: StepRun, result: ResultError, errType: "TypeError", ident: "foo.bar"},
	{name: "rust", call: shell("cargo test", "error[E0425]: cannot find value `widht` in this scope\n --> src/lib.rs:4:5\nerror: could not compile `geo` due to previous error\n", exitp(101)),
		kind: StepTest, result: ResultError, errType: "E0425", ident: "widht"},
	{name: "cargo test results summed over crates", call: shell("cargo test 2>&1", "test result: ok. 5 passed; 0 failed; 0 ignored\ntest a::b ... FAILED\ntest result: FAILED. 2 passed; 1 failed; 0 ignored\n", exitp(101)),
		kind: StepTest, result: ResultFailed},
	{name: "jest", call: shell("npx jest", "Tests:       1 failed, 3 passed, 4 total\n", exitp(1)), kind: StepTest, result: ResultFailed, summary: "Tests:       1 failed, 3 passed, 4 total"},
	{name: "mocha", call: shell("npm test", "  3 passing (12ms)\n  1 failing\n", exitp(1)), kind: StepTest, result: ResultFailed},
	{name: "maven", call: shell("mvn -q test", "[ERROR] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0\n[ERROR] BUILD FAILURE\n", exitp(1)), kind: StepTest, result: ResultFailed},
	{name: "gradle", call: shell("./gradlew test", "AppTest > testAdd FAILED\n5 tests completed, 1 failed\nBUILD FAILED\n", exitp(1)), kind: StepTest, result: ResultFailed},
	{name: "sbt tests", call: shell("sbt 'testOnly *Spec'", "[info] Tests: succeeded 4, failed 0, canceled 0\n[info] All tests passed.\n", exitp(0)), kind: StepTest, result: ResultPassed},
	{name: "ctest", call: shell("ctest --output-on-failure", "80% tests passed, 1 tests failed out of 5\n", exitp(8)), kind: StepTest, result: ResultFailed},
	{name: "rspec", call: shell("bundle exec rspec", "4 examples, 1 failure\n", exitp(1)), kind: StepTest, result: ResultFailed},
	{name: "phpunit", call: shell("vendor/bin/phpunit", "OK (12 tests, 30 assertions)\n", exitp(0)), kind: StepTest, result: ResultPassed},
	{name: "go test ok", call: shell("go test ./...", "ok  \tgithub.com/x/y\t0.01s\n", exitp(0)), kind: StepTest, result: ResultPassed},
	{name: "no tests ran", call: shell("pytest tests/test_none.py", "collected 0 items\n\n=== no tests ran in 0.01s ===\n", exitp(5)), kind: StepTest, result: ResultNotRun},
	// Tools.
	{name: "Claude Code Read", call: tool("Read", `{"file_path":"/repo/a.py"}`, "1→x", nil), kind: StepRead, result: ResultNone},
	{name: "Claude Code Edit", call: tool("Edit", `{"file_path":"/repo/a.py","old_string":"a","new_string":"b"}`, "ok", nil), kind: StepEdit, result: ResultNone, files: []string{"/repo/a.py"}},
	{name: "an editor's refused edit", call: tool("str_replace_editor", `{"command":"str_replace","path":"/repo/a.py","old_str":"zz","new_str":"b"}`, "No replacement was performed, old_str `zz` did not appear verbatim in /repo/a.py.", nil),
		kind: StepEdit, result: ResultError},
	{name: "SWE-agent's string form", call: tool("str_replace_editor", `"str_replace_editor view /repo/a.py"`, "1 x", nil), kind: StepRead, result: ResultNone},
	{name: "a title for a command", call: tool("bash", `{"command":"bash"}`, "(no output)", nil), kind: StepOther, result: ResultNone},
	{name: "Gemini CLI shell", call: tool("run_shell_command", `{"command":"npm run build"}`, "error TS2339: Property 'x' does not exist on type 'Y'.\n", exitp(2)), kind: StepBuild, result: ResultError},
}

func TestStepReading(t *testing.T) {
	t.Parallel()
	for _, c := range stepCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := readStep(&c.call)
			if s.Kind != c.kind || s.Result != c.result {
				t.Fatalf("%q: %s/%s (summary %q, errors %+v), want %s/%s", s.Command, s.Kind, s.Result, s.Summary, s.Errors, c.kind, c.result)
			}
			if c.summary != "" && !strings.Contains(s.Summary, c.summary) {
				t.Errorf("summary %q, want it to hold %q", s.Summary, c.summary)
			}
			if c.errType != "" {
				if len(s.Errors) == 0 || s.Errors[len(s.Errors)-1].Type != c.errType {
					t.Errorf("errors %+v, want the last of type %q", s.Errors, c.errType)
				} else if c.ident != "" && s.Errors[len(s.Errors)-1].Ident != c.ident {
					t.Errorf("ident %q, want %q", s.Errors[len(s.Errors)-1].Ident, c.ident)
				}
			}
			for i, f := range c.files {
				if i >= len(s.Files) || s.Files[i] != f {
					t.Errorf("files %v, want %v", s.Files, c.files)
					break
				}
			}
		})
	}
}

// TestWarningsAreNotErrors: a DeprecationWarning in a script's output is
// not an error of the run.
func TestWarningsAreNotErrors(t *testing.T) {
	t.Parallel()
	c := shell("python - <<'PY'\nimport sympy\nPY", "/testbed/sympy/core/basic.py:3: DeprecationWarning: Using or importing the ABCs from 'collections'\n  from collections import Mapping\n", exitp(0))
	s := readStep(&c)
	if len(s.Errors) != 0 || s.Result != ResultPassed {
		t.Fatalf("errors %+v, result %s", s.Errors, s.Result)
	}
}

// TestHugeOutputsBounded: a 100 MB output and a million-line traceback are
// read within the head and tail windows.
func TestHugeOutputsBounded(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x = 1\n", 100<<20/6) + "=== 2 failed, 1 passed in 3s ===\n"
	c := shell("pytest", big, exitp(1))
	s := readStep(&c)
	if s.Result != ResultFailed || s.Tests.Failed != 2 {
		t.Fatalf("result %s, tests %+v", s.Result, s.Tests)
	}
	tb := "Traceback (most recent call last):\n" + strings.Repeat("  File \"x.py\", line 1, in f\n    f()\n", 500_000) + "RecursionError: maximum recursion depth exceeded\n"
	c = shell("python x.py", tb, exitp(1))
	if s := readStep(&c); s.Result != ResultError || len(s.Errors) == 0 || s.Errors[len(s.Errors)-1].Type != "RecursionError" {
		t.Fatalf("result %s, errors %+v", s.Result, s.Errors)
	}
}

// FuzzReadStep: no command or output makes the reader panic, and every
// step keeps DESIGN §8's vocabulary and the reader's bounds.
func FuzzReadStep(f *testing.F) {
	for _, c := range stepCases {
		f.Add(string(c.call.Args), c.call.Output)
	}
	f.Fuzz(func(t *testing.T, cmd, out string) {
		c := shell(cmd, out, nil)
		s := readStep(&c)
		if int(s.Kind) >= len(kindNames) || int(s.Result) >= len(resultNames) {
			t.Fatalf("kind %d result %d outside DESIGN §8", s.Kind, s.Result)
		}
		if len(s.Files) > maxStepFiles || len(s.Errors) > maxRuntimeErrors || len(s.Tests.Failing) > maxFailing {
			t.Fatalf("unbounded step: %d files, %d errors, %d failing", len(s.Files), len(s.Errors), len(s.Tests.Failing))
		}
		if !s.Writes && len(s.Files) > 0 {
			t.Fatalf("files %v written by a step that does not write", s.Files)
		}
		if s.Kind == StepSubmit && len(s.Errors) > 0 {
			t.Fatal("a submit read for errors")
		}
	})
}

func TestLastFrameIn(t *testing.T) {
	t.Parallel()
	out := "Traceback (most recent call last):\n  File \"/testbed/tests/test_x.py\", line 9, in test_a\n    f()\n  File \"/testbed/django/utils/html.py\", line 42, in escape\n    return x.y\nAttributeError: 'str' object has no attribute 'y'\n"
	f, n := LastFrameIn(out, []string{"django/utils/html.py", "README"})
	if f != "django/utils/html.py" || n != 42 {
		t.Fatalf("got %q:%d", f, n)
	}
	if f, _ := LastFrameIn(out, []string{"other.py"}); f != "" {
		t.Fatalf("a frame outside the diff: %q", f)
	}
	if f, n := LastFrameIn("src/lib.rs:12:5: error", []string{"src/lib.rs"}); f != "src/lib.rs" || n != 12 {
		t.Fatalf("rust: %q:%d", f, n)
	}
}
