package triage

import (
	"slices"
	"strconv"
	"strings"
)

// StepKind says what a tool call did (DESIGN §8).
type StepKind uint8

// The step kinds. Their numbers are not stored anywhere; their names
// (String) are what `triage steps --json` prints.
const (
	// StepOther: nothing below (cd, echo, a plan, a note, a tool of its own).
	StepOther StepKind = iota
	// StepRead shows a file (cat, sed -n, an editor's view).
	StepRead
	// StepEdit changes a file by any means: an edit tool, sed -i,
	// cat > f <<EOF, apply_patch, git apply, a script that writes.
	StepEdit
	// StepTest runs the project's or the task's tests or checks.
	StepTest
	// StepRun runs a script or the program, inline python - <<EOF and -c
	// included.
	StepRun
	// StepSubmit hands the work in.
	StepSubmit
	// StepSearch looks for files or text (grep, find, ls, rg).
	StepSearch
	// StepBuild compiles or checks without running tests (go build, tsc,
	// cargo check, a linter).
	StepBuild
	// StepInstall installs dependencies (pip, npm, apt …).
	StepInstall
	// StepVCS is git other than what edits (status, diff, log, commit).
	StepVCS
)

var kindNames = [...]string{"other", "read", "edit", "test", "run", "submit", "search", "build", "install", "vcs"}

// String is the kind's name in DESIGN §8.
func (k StepKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "other"
}

// Result is what a step's output shows of how it ended (DESIGN §8).
type Result uint8

// The results.
const (
	// ResultUnknown: the output does not say.
	ResultUnknown Result = iota
	// ResultPassed: the tests or the check ran and passed; a build
	// compiled; a script ran to its end.
	ResultPassed
	// ResultFailed: tests ran and a real assertion or a wrong result
	// failed.
	ResultFailed
	// ResultError: the project's code or the agent's script crashed or
	// did not compile; a read, edit or command that failed.
	ResultError
	// ResultNotRun: the command could not start (command not found, the
	// runner's module missing, exit 127, permission denied, no tests).
	ResultNotRun
	// ResultTimeout: a limit killed it.
	ResultTimeout
	// ResultNone: nothing to judge (a read or an edit that worked).
	ResultNone
)

var resultNames = [...]string{"unknown", "passed", "failed", "error", "not_run", "timeout", "none"}

// String is the result's name in DESIGN §8.
func (r Result) String() string {
	if int(r) < len(resultNames) {
		return resultNames[r]
	}
	return "unknown"
}

// Step is one tool call, read.
type Step struct {
	Kind   StepKind
	Result Result
	// Command is the shell command or tool action, as the harness
	// recorded it.
	Command string
	// Files are the paths the step wrote, when its arguments say.
	Files []string
	// Writes: the step changed files (an edit, or a command of another
	// kind that also wrote one, as in sed -i … && pytest).
	Writes bool
	// CheckedWrite: a test or run in the same command came after its
	// last write, so the write was checked by the step itself.
	CheckedWrite bool
	// Runner names the test runner (pytest, go test …) or interpreter.
	Runner string
	// Tests is what the runner's summary said.
	Tests TestCounts
	// ExitHidden: a pipe, || or ; after the runner means the recorded
	// exit code is not the runner's.
	ExitHidden bool
	// Summary is the line of the output that gave the result (a pytest
	// summary, "FAILED (failures=2)", an exception, why it did not run).
	Summary string
	// Errors are the errors the output reports.
	Errors []RuntimeError
}

// Checks reports whether the step ran something that checks the work:
// a test, or a script or program run, that started.
func (s *Step) Checks() bool {
	return (s.Kind == StepTest || s.Kind == StepRun) && s.Result != ResultNotRun
}

// kindRank orders the kinds of a command's segments: the step is the
// highest-ranked segment (sed -i … && pytest is a test that writes).
var kindRank = [...]int{StepOther: 0, StepRead: 2, StepEdit: 6, StepTest: 9, StepRun: 7, StepSubmit: 10, StepSearch: 3, StepBuild: 5, StepInstall: 4, StepVCS: 1}

// shellTools are tools whose command argument is a shell command line.
var shellTools = map[string]bool{
	"bash": true, "execute_bash": true, "shell": true, "exec_command": true, "run_shell_command": true,
	"terminal": true, "run_command": true, "run": true, "cmd": true, "execute_command": true, "local_shell": true,
	"container.exec": true, "run_terminal_cmd": true, "execute": true, "sh": true, "command": true,
}

// readTools, searchTools and otherTools name tools by what they do.
var (
	readTools = map[string]bool{"read": true, "read_file": true, "view": true, "open": true, "view_file": true,
		"read_many_files": true, "notebookread": true, "goto": true, "scroll_down": true, "scroll_up": true, "cat": true}
	searchTools = map[string]bool{"grep": true, "glob": true, "ls": true, "list_directory": true, "search_file_content": true,
		"find": true, "find_file": true, "search_dir": true, "search_file": true, "codebase_search": true, "file_search": true,
		"list_files": true, "search": true, "list_dir": true}
	submitTools = map[string]bool{"submit": true, "finish": true, "task_complete": true, "attempt_completion": true, "final_answer": true}
	editTools   = map[string]bool{"create": true, "insert": true, "append": true, "write_to_file": true, "replace_in_file": true,
		"edit": true, "apply_patch": true, "applypatch": true}
	pythonTools = map[string]bool{"run_ipython": true, "execute_ipython_cell": true, "python": true, "ipython": true, "jupyter": true}
)

// Tool classes, a bit each, so a step looks its tool's name up once.
const (
	toolShell uint8 = 1 << iota
	toolRead
	toolSearch
	toolSubmit
	toolEdit
	toolPython
	toolEditor
)

// toolClasses is every tool name the maps above know, with its classes.
var toolClasses = func() map[string]uint8 {
	m := map[string]uint8{}
	for _, c := range []struct {
		names map[string]bool
		bit   uint8
	}{{shellTools, toolShell}, {readTools, toolRead}, {searchTools, toolSearch}, {submitTools, toolSubmit},
		{editTools, toolEdit}, {pythonTools, toolPython}, {editorTools, toolEditor}} {
		for n := range c.names {
			m[n] |= c.bit
		}
	}
	return m
}()

// readStep reads one tool call.
func readStep(c *ToolCall) Step {
	var args stepArgs
	if len(c.Args) > 0 && c.Args[0] == '{' {
		args = readCallArgs(c.Args)
	}
	cmd := argText(args.command)
	if cmd == "" {
		cmd = argText(args.cmd)
	}
	if cmd == "" && len(c.Args) > 0 && c.Args[0] == '"' {
		cmd = argText(c.Args)
	}
	name := strings.ToLower(c.Name)
	cls := toolClasses[name]
	s := Step{Command: cmd}
	var segs []segment
	main := -1
	parsed := true
	words := strings.Fields(cmd)
	switch {
	case cls&toolSubmit != 0:
		s.Kind = StepSubmit
	case cls&toolEditor != 0:
		// str_replace_editor and its kin: the command is the sub-action,
		// as a member or as the second word (SWE-agent's string form).
		action := strings.TrimSpace(cmd)
		file := firstNonEmpty(args.str(argPath), args.str(argFilePath))
		if len(words) >= 2 && words[0] == name {
			action = words[1]
			if len(words) >= 3 && file == "" {
				file = words[2]
			}
		}
		if action == "" {
			// OpenHands' editor may keep the sub-action only inside its
			// translated code, or not at all: what it wrote tells.
			raw := string(c.Args)
			switch {
			case strings.Contains(raw, `'command': 'create'`) || strings.Contains(raw, `'command': 'str_replace'`) || strings.Contains(raw, `'command': 'insert'`):
				action = "create"
			case strings.Contains(raw, `"new_str"`) || strings.Contains(raw, `"file_text"`) || strings.HasPrefix(c.Output, "--- ") && strings.Contains(c.Output, "\n+++ "):
				action = "create"
			}
		}
		switch action {
		case "view", "":
			s.Kind = StepRead
			// Tools that only write (Claude Code's Write and Edit,
			// Gemini CLI's write_file and replace) take no sub-action.
			if name == "write" || name == "edit" || name == "multiedit" || name == "write_file" || name == "replace" || name == "notebookedit" || name == "edit_file" {
				s.Kind = StepEdit
			}
		case "undo_edit", "create", "str_replace", "insert", "write", "append":
			s.Kind = StepEdit
		default:
			s.Kind = StepEdit
		}
		if s.Kind == StepEdit {
			s.Writes = true
			if file != "" {
				s.Files = []string{file}
			}
		}
	case name == "apply_patch" || strings.Contains(cmd, "*** Begin Patch") && !strings.Contains(cmd, "git apply") || strings.Contains(args.str(argInput), "*** Begin Patch"):
		s.Kind, s.Writes = StepEdit, true
		s.Files = patchFiles(firstNonEmpty(args.str(argInput), args.str(argPatch), cmd))
	case cls&toolPython != 0:
		code := firstNonEmpty(cmd, args.str(argInput), string(c.Args))
		s.Kind, s.Runner = StepRun, "python"
		if k, ok := agentSkill(code); ok {
			// OpenHands' agentskills: open_file(…), edit_file_by_replace(…).
			s.Kind, s.Runner = k, ""
			s.Writes = k == StepEdit
			break
		}
		if scriptWrites(code) {
			s.Writes, s.Files = true, scriptTargets(code)
			if !checksAfterWrite(code) {
				s.Kind = StepEdit
			} else {
				s.CheckedWrite = true
			}
		}
		segs = []segment{{kind: s.Kind, runner: "python", prog: "python"}}
		main = 0
	case cls&toolRead != 0 && cls&toolShell == 0 && (cmd == "" || len(words) > 0 && words[0] == name):
		s.Kind = StepRead
	case cls&toolSearch != 0 && (cmd == "" || len(words) > 0 && words[0] == name):
		s.Kind = StepSearch
	case cls&toolEdit != 0 && (cmd == "" || len(words) > 0 && words[0] == name):
		// SWE-agent's edit N:M and create FILE act on files.
		s.Kind, s.Writes = StepEdit, true
		if name == "create" && len(words) > 1 {
			s.Files = []string{words[1]}
		} else if f := firstNonEmpty(args.str(argPath), args.str(argFilePath)); f != "" {
			s.Files = []string{f} // Claude Code's Edit, Gemini CLI's edit
		}
	case cmd == "" || cmd == c.Name && cls&toolShell == 0 && len(words) == 1:
		// No command recorded (or only the tool's own name, as some
		// harnesses title a call): the tool's name may be a program
		// (a "pytest" tool), else there is nothing to read.
		s.Kind = StepOther
		if cls == 0 && name != "" {
			if k, runner := progKind(name, name, nil, &shellCmd{}); k == StepTest || k == StepBuild || k == StepInstall {
				s.Kind, s.Runner = k, runner
			}
		}
	default:
		segs, parsed = readShell(cmd, 0)
		if !parsed {
			s.Kind, s.Result = StepOther, ResultUnknown
			s.Summary = "the command does not parse as shell"
			s.Errors = stepErrors(c.Output)
			return s
		}
		s.Kind, main = combineSegments(segs, &s)
	}
	s.Errors = nil
	switch s.Kind {
	case StepSubmit:
	case StepRead, StepSearch, StepVCS, StepEdit:
		// What a read shows is the file, not errors of the step: only its
		// edges can say the command failed (No such file, fatal: …).
		s.Errors = stepErrors(edges(c.Output))
	default:
		s.Errors = stepErrors(c.Output)
	}
	s.Result, s.Summary = stepResult(c, &s, segs, main)
	return s
}

// combineSegments gives the step its kind from its segments (the
// highest-ranked one; filters in a pipe after it do not count), its files
// and whether a check followed its last write. It returns the index of
// the segment that gave the kind, or -1.
func combineSegments(segs []segment, s *Step) (StepKind, int) {
	main := -1
	lastWrite, lastCheck := -1, -1
	for i := range segs {
		g := &segs[i]
		if g.writes {
			lastWrite = i
			s.Writes = true
			for _, f := range g.files {
				f = strings.Trim(f, `"'`)
				if len(s.Files) < maxStepFiles && !slices.Contains(s.Files, f) {
					s.Files = append(s.Files, f)
				}
			}
		}
		if g.kind == StepTest || g.kind == StepRun {
			lastCheck = i
		}
		if g.checked {
			lastCheck = i + 1 // the script checked its own write
		}
		if g.piped && (g.kind == StepRead || g.kind == StepSearch || g.kind == StepOther) {
			continue // | tail -5, | grep x, | head
		}
		if main < 0 || kindRank[g.kind] > kindRank[segs[main].kind] {
			main = i
		}
	}
	s.CheckedWrite = lastWrite >= 0 && lastCheck > lastWrite
	if main < 0 {
		return StepOther, -1
	}
	k := segs[main].kind
	s.Runner = segs[main].runner
	// Is the recorded exit code the main segment's? Only when what
	// follows it is joined by && (so a nonzero code came from it or a
	// later step), with no pipe out of it.
	for i := main; i < len(segs); i++ {
		op := segs[i].op
		if op == "" {
			break
		}
		if op != "&&" {
			if op == "|" && i == main || op != "|" {
				s.ExitHidden = true
				break
			}
		}
	}
	if k == StepOther && s.Writes {
		k = StepEdit
	}
	return k, main
}

// stepResult is how the step ended (DESIGN §8), and the line that says
// so.
func stepResult(c *ToolCall, s *Step, segs []segment, main int) (Result, string) {
	out := c.Output
	exit := c.ExitCode
	if s.ExitHidden {
		exit = nil
	}
	prog, runner := "", s.Runner
	wrapped := false
	if main >= 0 {
		prog = segs[main].prog
		if strings.Contains(s.Command, "timeout ") {
			wrapped = true
		}
	}
	if why := timeoutWhy(out, c.Error, exit, wrapped); why != "" && s.Kind != StepSubmit {
		return ResultTimeout, why
	}
	if s.Kind == StepSubmit {
		return ResultNone, ""
	}
	if main < 0 && (strings.Contains(out, "requested permissions to") || strings.Contains(out, "haven't granted it yet") || strings.Contains(c.Error, "permission denied by the user")) {
		// Claude Code's tool did not run: the user had not allowed it.
		return ResultNotRun, clipLine(out)
	}
	switch s.Kind {
	case StepTest, StepRun, StepBuild, StepInstall:
		if why := notRunWhy(out, c.ExitCode, prog, runner, s.Errors); why != "" {
			return ResultNotRun, why
		}
	default:
		// Any other command that could not start: its program missing.
		if c.ExitCode != nil && *c.ExitCode == 127 || hasErrorType(s.Errors, "command not found") {
			if why := notRunWhy(out, c.ExitCode, prog, runner, s.Errors); strings.Contains(why, "not found") || strings.Contains(why, "exit code 127") {
				return ResultNotRun, why
			}
		}
	}
	switch s.Kind {
	case StepTest:
		return testResult(c, s, exit)
	case StepRun:
		return runResult(c, s, exit)
	case StepBuild:
		if e := lastError(s.Errors); e != "" {
			return ResultError, e
		}
		if exit != nil {
			if *exit == 0 {
				return ResultPassed, "exit code 0"
			}
			return ResultError, "exit code " + strconv.Itoa(*exit)
		}
		if c.Error != "" {
			return ResultError, clipLine(c.Error)
		}
		if strings.TrimSpace(out) == "" {
			return ResultUnknown, ""
		}
		return ResultPassed, ""
	}
	// read, search, edit, install, vcs, other: none unless it failed.
	if failed, why := plainFailure(c, s, exit, segs == nil); failed {
		return ResultError, why
	}
	return ResultNone, ""
}

// testResult reads a test step: the runner's summary first, then what
// shows it did not get that far.
func testResult(c *ToolCall, s *Step, exit *int) (Result, string) {
	sum := testSummary(c.Output)
	s.Tests = sum.counts
	switch {
	case sum.found && sum.counts.Failed > 0:
		return ResultFailed, sum.line
	case sum.buildFailed:
		return ResultError, firstNonEmpty(lastError(s.Errors), "the tests did not compile: "+sum.line)
	case sum.found && sum.counts.Errors > 0 || sum.collectErrors > 0:
		return ResultError, firstNonEmpty(sum.line, lastError(s.Errors))
	case sum.found && sum.counts.Passed > 0:
		if exit != nil && *exit != 0 {
			// Tests passed but the command failed (a coverage threshold,
			// a later && step): not a pass.
			return ResultFailed, sum.line + " (exit code " + strconv.Itoa(*exit) + ")"
		}
		return ResultPassed, sum.line
	case sum.noTests != "":
		return ResultNotRun, "no tests ran: " + sum.noTests
	}
	if s.Runner == "python" || s.Runner == "script" || s.Runner == "ruby" {
		// A test file or script run directly, printing no runner summary:
		// read as a script.
		return runResult(c, s, exit)
	}
	if e := lastError(s.Errors); e != "" {
		if s.Errors[len(s.Errors)-1].Type == "AssertionError" {
			return ResultFailed, e
		}
		return ResultError, e
	}
	if exit != nil {
		if *exit == 0 {
			return ResultPassed, "exit code 0"
		}
		if saysFailure(c.Output) {
			return ResultFailed, "exit code " + strconv.Itoa(*exit)
		}
		return ResultError, "exit code " + strconv.Itoa(*exit) + " (no test summary)"
	}
	if c.Error != "" {
		return ResultError, clipLine(c.Error)
	}
	return ResultUnknown, ""
}

// runResult reads a script or program run.
func runResult(c *ToolCall, s *Step, exit *int) (Result, string) {
	if sum := testSummary(c.Output); sum.found && sum.counts.Ran() {
		// A script that runs tests (python -c "import pytest; …", a
		// reproducer calling unittest.main()) reports like a runner.
		s.Tests = sum.counts
		if sum.counts.Failed > 0 {
			return ResultFailed, sum.line
		}
		if sum.counts.Errors > 0 {
			return ResultError, sum.line
		}
	}
	if e := lastError(s.Errors); e != "" {
		if s.Errors[len(s.Errors)-1].Type == "AssertionError" {
			return ResultFailed, e
		}
		if (exit == nil || *exit == 0) && !strings.Contains(c.Output, "Traceback (most recent call last)") {
			// The script caught the exception and printed it: it ran to
			// its end and reported a failure (a reproducer showing the
			// bug), it did not crash.
			return ResultFailed, "reported " + e
		}
		return ResultError, e
	}
	if exit != nil {
		if *exit == 0 {
			if saysFailed(c.Output) {
				return ResultFailed, "the script reported a failure: " + clipLine(failedLine(c.Output))
			}
			return ResultPassed, "exit code 0"
		}
		return ResultFailed, "exit code " + strconv.Itoa(*exit)
	}
	if c.Error != "" {
		return ResultError, clipLine(c.Error)
	}
	if strings.TrimSpace(c.Output) == "" {
		return ResultUnknown, ""
	}
	if saysFailed(c.Output) {
		return ResultFailed, "the script reported a failure: " + clipLine(failedLine(c.Output))
	}
	return ResultPassed, ""
}

// saysFailed: a script of the agent's printed that its check failed
// ("FAIL: thresholds > 1", "Crashed: …", "An error occurred").
func saysFailed(out string) bool { return failedLine(out) != "" }

// failedLine is the last line of out that reports a failure, or "".
func failedLine(out string) string {
	t := tailOf(out, 16<<10)
	found := ""
	for line := range strings.SplitSeq(t, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "✗") || strings.HasPrefix(l, "❌") || strings.Contains(l, " FAIL:") || strings.HasPrefix(l, "Crashed") || strings.HasPrefix(l, "An error occurred") ||
			strings.HasPrefix(l, "BUG") || strings.Contains(l, "Bug reproduced") || strings.Contains(l, "bug reproduced") ||
			strings.HasPrefix(l, "MISMATCH") || strings.HasPrefix(l, "Mismatch") || strings.HasPrefix(l, "ERROR:") || strings.HasPrefix(l, "Error:") {
			found = l
		}
	}
	return found
}

// plainFailure: a read, edit, search or other command that failed, by
// its exit code (grep's 1 is "no match", not a failure), the harness's
// error, or what it printed.
func plainFailure(c *ToolCall, s *Step, exit *int, tool bool) (bool, string) {
	if c.Error != "" && !strings.HasPrefix(c.Error, "exit code 1") {
		if !(s.Kind == StepSearch && strings.HasPrefix(c.Error, "exit code")) {
			return true, clipLine(c.Error)
		}
	}
	if exit != nil && *exit != 0 {
		if s.Kind == StepSearch && *exit == 1 {
			return false, ""
		}
		if *exit == 1 && s.Kind == StepVCS {
			// git diff --exit-code and the like.
			if e := lastError(s.Errors); e != "" {
				return true, e
			}
			return false, ""
		}
		if e := lastError(s.Errors); e != "" {
			return true, e
		}
		if s.Kind == StepSearch || s.Kind == StepOther {
			return false, ""
		}
		return true, "exit code " + strconv.Itoa(*exit)
	}
	if (s.Kind == StepEdit || s.Kind == StepRead) && tool {
		// Editor tools report a refused edit at the start of their output
		// (a lint hint further down is not a refusal).
		out := strings.TrimSpace(c.Output)
		if len(out) > 400 {
			out = out[:400]
		}
		for _, m := range [...]string{"No replacement was performed", "did not appear verbatim", "ERROR:", "Error:", "Invalid `path`", "does not exist. Please provide", "is not a valid", "cannot edit", "String to replace not found", "old_string not found", "Failed to apply", "patch does not apply", "unrecognized input", "No exact match found", "introduced new syntax error", "[Error"} {
			if i := strings.Index(out, m); i >= 0 {
				return true, clipLine(out[i:])
			}
		}
	}
	if !tool && len(s.Errors) > 0 && (s.Kind == StepEdit || s.Kind == StepRead || s.Kind == StepSearch || s.Kind == StepVCS || s.Kind == StepInstall) {
		// A shell read or search that failed, even behind || true:
		// ls: cannot access 'x': No such file or directory.
		e := s.Errors[len(s.Errors)-1]
		if e.Type == "no such file" || e.Type == "fatal" || e.Type == "error" || e.Type == "permission denied" || e.Type == "is a directory" {
			return true, e.Type + ": " + e.Message
		}
	}
	return false, ""
}

// edgeBytes is how much of each end of a read's output is scanned.
const edgeBytes = 2 << 10

// edges is the head and tail of out, where a read or search says it
// failed.
func edges(out string) string {
	if len(out) <= 2*edgeBytes {
		return out
	}
	return out[:edgeBytes] + "\n" + out[len(out)-edgeBytes:]
}

func hasErrorType(errs []RuntimeError, typ string) bool {
	for _, e := range errs {
		if e.Type == typ {
			return true
		}
	}
	return false
}

// lastError is the last error's line ("KeyError: 'x'"), or "".
func lastError(errs []RuntimeError) string {
	if len(errs) == 0 {
		return ""
	}
	e := errs[len(errs)-1]
	if e.Message == "" {
		return e.Type
	}
	return e.Type + ": " + e.Message
}
