package pack

import "fmt"

// Level says how bad a problem is. A pack with errors gives wrong labels; a
// pack with only warnings gives right labels but cannot show every class.
type Level string

// The levels of a problem.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
)

// Problem is one thing wrong with a pack, named precisely enough to fix:
// the task, the file (relative to the pack's parent, "tasks/T04/task.json"),
// and the task.json key when one is at fault.
type Problem struct {
	Task    string `json:"task,omitempty"`
	File    string `json:"file,omitempty"`
	Key     string `json:"key,omitempty"`
	Message string `json:"message"`
	Level   Level  `json:"level"`
}

// String formats the problem as `tasks/T04/task.json: key "allowlist":
// want a list of strings, got number`.
func (p Problem) String() string {
	where := p.File
	if where == "" && p.Task != "" {
		where = TasksDir + "/" + p.Task
	}
	if where == "" {
		where = TasksDir
	}
	if p.Key != "" {
		return fmt.Sprintf("%s: key %q: %s", where, p.Key, p.Message)
	}
	return fmt.Sprintf("%s: %s", where, p.Message)
}

// Errors counts the problems at LevelError.
func Errors(ps []Problem) int {
	n := 0
	for _, p := range ps {
		if p.Level == LevelError {
			n++
		}
	}
	return n
}
