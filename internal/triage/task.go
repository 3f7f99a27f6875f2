package triage

// Task is one task of a task pack, as task.json and the pack's files
// describe it. The rules receive it as a value so they never touch files.
type Task struct {
	ID          string   `json:"id"`
	Prompt      string   `json:"-"`
	HasPrompt   bool     `json:"-"`
	Spec        []string `json:"spec,omitempty"`
	Allowlist   []string `json:"allowlist,omitempty"`
	Withheld    []string `json:"withheld,omitempty"`
	HiddenTests []string `json:"hidden_tests,omitempty"`
	Sentinels   []string `json:"sentinels,omitempty"`
	AskTools    []string `json:"ask_tools,omitempty"`
	// API is the known surface read from the spec files; nil when the
	// task has no spec, which means ASSUME_API cannot be decided.
	API *APISurface `json:"-"`
}

// APISurface is what a frozen OpenAPI spec allows an agent to call.
type APISurface struct {
	// Operations are the (method, path template, operationId) triples.
	Operations []Operation
	// Paths are the path templates, e.g. "/v1/invoices/{invoice_id}".
	Paths []string
}

// Operation is one OpenAPI operation.
type Operation struct {
	Method      string // upper case, e.g. "GET"
	Path        string // template as written in the spec
	OperationID string
}

// Pack is a loaded task pack: its dataset hash and its tasks by ID.
//
// A pack read from a directory is read on demand (Source): a benchmark of
// 100k tasks with 1,000 allowlist globs each is gigabytes of task.json, and
// the rules need one task's entry at a time (issue 27). A pack read whole
// (the embedded sample, tests) keeps its tasks in Tasks.
type Pack struct {
	Dir    string
	SHA256 string
	// Tasks holds every task of a pack read whole; nil when Source reads them.
	Tasks map[string]*Task
	// Source reads a task when it is asked for; nil for a pack read whole.
	Source TaskSource
}

// TaskSource reads a pack's tasks one at a time, so that what is held is
// bounded by what the caller keeps, not by the pack.
type TaskSource interface {
	// Task returns the task with the given ID, or nil.
	Task(id string) *Task
	// Len is the number of tasks.
	Len() int
	// Each calls fn with every task in ID order, reading one at a time,
	// and stops at fn's first error.
	Each(fn func(*Task) error) error
}

// Task returns the task with the given ID, or nil.
func (p *Pack) Task(id string) *Task {
	if p == nil {
		return nil
	}
	if p.Source != nil {
		return p.Source.Task(id)
	}
	return p.Tasks[id]
}

// Len is the number of tasks in the pack.
func (p *Pack) Len() int {
	if p == nil {
		return 0
	}
	if p.Source != nil {
		return p.Source.Len()
	}
	return len(p.Tasks)
}

// Each calls fn with every task (in ID order when Source reads them, in
// no order otherwise) and stops at fn's first error.
func (p *Pack) Each(fn func(*Task) error) error {
	if p == nil {
		return nil
	}
	if p.Source != nil {
		return p.Source.Each(fn)
	}
	for _, t := range p.Tasks {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}
