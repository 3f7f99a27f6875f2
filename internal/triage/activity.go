package triage

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"
)

// Activity is what the agent did, read one way from a trace of any
// format: each tool call as a step (a command it ran, a file it edited,
// a test run and how it ended), and what it submitted. Decoders fill the
// trace's fields (tool calls with their arguments, outputs and exit
// codes, the final diff, the stop reason); ReadActivity is the single
// reading of them the rules use, so a new format only has to fill the
// trace to get every rule.
type Activity struct {
	// Steps has one entry per tool call, at the same index.
	Steps []Step
	// LastEdit is the index of the last step that edited a file, or -1.
	LastEdit int
	// Submit is the index of the step that submitted, or -1 when the log
	// shows none (the harness may still have taken the diff).
	Submit int
}

// ReadActivity reads tr's tool calls as steps.
func ReadActivity(tr *Trace) Activity { return ReadActivityInto(tr, nil) }

// ReadActivityInto is ReadActivity with its steps in buf's array when it
// has room: the rules read every trace's steps and drop them after the
// verdict, and a new array each time was a tenth of the bytes
// `import --rules` allocated (docs/PERFORMANCE.md, issue 21).
func ReadActivityInto(tr *Trace, buf []Step) Activity {
	steps := buf[:0]
	if cap(steps) < len(tr.ToolCalls) {
		steps = make([]Step, len(tr.ToolCalls))
	}
	a := Activity{Steps: steps[:len(tr.ToolCalls)], LastEdit: -1, Submit: -1}
	for i := range tr.ToolCalls {
		s := readStep(&tr.ToolCalls[i])
		a.Steps[i] = s
		if s.Writes {
			a.LastEdit = i
		}
		switch s.Kind {
		case StepSubmit:
			if a.Submit < 0 {
				a.Submit = i
			}
		}
	}
	return a
}

// LastRun is the index of the last test or run step before end (all
// steps when end < 0), or -1.
func (a *Activity) LastRun(end int, kinds ...StepKind) int {
	if end < 0 || end > len(a.Steps) {
		end = len(a.Steps)
	}
	for i := end - 1; i >= 0; i-- {
		for _, k := range kinds {
			if a.Steps[i].Kind == k {
				return i
			}
		}
	}
	return -1
}

// callArgs is the part of a tool call's arguments steps are read from.
type callArgs struct {
	Command  json.RawMessage `json:"command"`
	Cmd      json.RawMessage `json:"cmd"`
	Path     string          `json:"path"`
	FilePath string          `json:"file_path"`
	Input    string          `json:"input"`
	Patch    string          `json:"patch"`
}

// editorTools are file-editing tools whose "command" argument is the
// action (create, str_replace, insert, view).
var editorTools = map[string]bool{
	"str_replace_editor": true, "str_replace_based_edit_tool": true, "text_editor": true,
	"edit_file": true, "write": true, "multiedit": true, "notebookedit": true,
	"write_file": true, "replace": true,
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// argText is a JSON argument as text: a string, or an argv list joined.
func argText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if s, ok := plainString(raw); ok {
		return s
	}
	if s, ok := unmarshalString(raw); ok {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		// Codex runs ["bash", "-lc", "cmd"]: the script is the last word.
		if len(argv) >= 3 && (argv[1] == "-lc" || argv[1] == "-c") {
			return argv[len(argv)-1]
		}
		return strings.Join(argv, " ")
	}
	return ""
}

var patchFileLine = regexp.MustCompile(`(?m)^\*\*\* (?:Update|Add|Delete) File: (.+)$`)

func patchFiles(p string) []string {
	var out []string
	for _, m := range patchFileLine.FindAllStringSubmatch(p, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

// scratchName matches files an agent writes for itself: reproducers,
// backups, scratch tests and notes, which are not a fix when they are all
// a submission holds.
// A scratch script's name counts only at the top of the repository, where
// agents drop them (django/core/checks.py and src/demo.py are the
// project's own); backups, logs and editor files count anywhere.
var scratchName = regexp.MustCompile(`(?i)^(?:repro\w*|reproduce\w*|debug\w*|scratch\w*|tmp\w*|temp\w*|test_fix\w*|check\w*|verify\w*|demo\w*|example\w*|run_test\w*|test_settings\w*|my_test\w*)\.(?:py|js|ts|sh|rb|go|txt)$|\.(?:bak\d*|orig|rej|swp|pyc|log)$|~$|(?:^|/)\.coveragerc$|(?:^|/)(?:fake[\w-]*|shims?|fakebin)/|(?:^|/)\.(?:env|venv)\b`)

// IsScratchFile reports whether p looks like a file the agent made for
// itself rather than part of a fix.
func IsScratchFile(p string) bool { return mayBeScratch(p) && scratchName.MatchString(p) }

// scratchWords hold, between them, a word of every alternative of
// scratchName: a path with none of them (most of a diff's) is not
// scratch, and skips the pattern, which the rules run on every file an
// edit step names (a third of classifying a seed row, issue 26).
var scratchWords = [...]string{"repro", "debug", "scratch", "tmp", "temp", "test_fix", "test_settings", "check", "verify", "demo", "example",
	"run_test", "my_test", ".bak", ".orig", ".rej", ".swp", ".pyc", ".log", "~", ".coveragerc", "fake", "shim", ".env", ".venv"}

func mayBeScratch(p string) bool {
	l := strings.ToLower(p)
	for _, w := range scratchWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// IsTestPath reports whether p looks like a test file by the common
// conventions (tests/ folders, test_*.py, *_test.go, *.spec.ts …).
func IsTestPath(p string) bool {
	base := path.Base(p)
	return strings.Contains("/"+p, "/tests/") || strings.Contains("/"+p, "/test/") || strings.Contains("/"+p, "/testing/") ||
		strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.go") || strings.HasSuffix(base, "_test.py") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.")
}
