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
type Pack struct {
	Dir    string
	SHA256 string
	Tasks  map[string]*Task
}

// Task returns the task with the given ID, or nil.
func (p *Pack) Task(id string) *Task {
	if p == nil {
		return nil
	}
	return p.Tasks[id]
}
