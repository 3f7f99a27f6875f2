package pack

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/triage"
)

// PromptFiles are the names a task's prompt may have, in the order they
// are looked for.
var PromptFiles = []string{"prompt.md", "prompt.txt", "PROMPT.md"}

// TaskFile is the name of a task's optional settings file.
const TaskFile = "task.json"

// maxFileBytes caps what Load reads of one task.json, prompt or spec:
// these are small, hand-written files, and a pack is not trusted to be
// well-formed.
const maxFileBytes = 8 << 20

// Load reads the pack at dir (the tasks directory or a directory holding
// tasks/, as for Hash): its dataset hash and one triage.Task per
// sub-directory of tasks/, named by the directory. Directories whose name
// starts with a dot are not tasks (they still count in the hash).
//
// Everything wrong with the pack comes back as Problems (task.json keys,
// unparsable specs, missing prompts, hidden tests or withheld files), in
// task order. Every task is read once for them, one at a time; the pack
// returned reads a task again when it is asked for (see Open). The error
// is for a pack that cannot be read at all.
func Load(dir string) (*triage.Pack, []Problem, error) {
	p, src, err := open(dir, false)
	if err != nil {
		return nil, nil, err
	}
	var probs []Problem
	for _, id := range src.ids {
		_, tp := loadTask(src.fsys, path.Join(src.tasks, id), id)
		probs = append(probs, tp...)
	}
	if len(src.ids) == 0 {
		probs = append(probs, noTasks)
	}
	return p, probs, nil
}

// Open is Load without the problems: the hash and the list of tasks, each
// read from disk when the rules first ask for it and kept in a cache
// bounded by weight. It is what labelling uses, where a pack of 100k tasks
// with 1,000 allowlist globs each must cost memory by the batch, not by
// the pack (issue 27). Its hash is CachedHash's: the pack is read whole
// only when its files' stats are not those of its last full read.
func Open(dir string) (*triage.Pack, error) {
	p, _, err := open(dir, true)
	return p, err
}

// open opens the pack at dir; with cached, its hash is CachedHash's, else
// every file is read (Hash).
func open(dir string, cached bool) (*triage.Pack, *dirSource, error) {
	r, tasks, err := openDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("load pack: %w", err)
	}
	var sum string
	if cached {
		sum, _, err = CachedHash(dir)
	} else {
		sum, err = fullHash(dir)
	}
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	entries, err := fs.ReadDir(r.FS(), tasks)
	if err != nil {
		r.Close()
		return nil, nil, fmt.Errorf("load pack: %w", err)
	}
	src := &dirSource{root: r, fsys: r.FS(), tasks: tasks}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			src.ids = append(src.ids, e.Name())
		}
	}
	// ReadDir sorts by name; the ids are searched, so say it.
	sort.Strings(src.ids)
	return &triage.Pack{Dir: dir, SHA256: sum, Source: src}, src, nil
}

var noTasks = Problem{Level: LevelError, Message: "no task directories: a pack holds one sub-directory per task"}

// sourceWeight bounds what a dirSource keeps: the bytes of its tasks'
// prompts and lists, about 32 MiB, after which the cache starts again.
var sourceWeight = 32 << 20

// dirSource reads a pack's tasks from its directory when asked. It keeps
// the directory open (an os.Root, so a task cannot reach outside it) for
// the life of the pack.
type dirSource struct {
	root  *os.Root
	fsys  fs.FS
	tasks string
	ids   []string // sorted

	mu     sync.Mutex
	cache  map[string]*triage.Task
	weight int
}

// Task implements triage.TaskSource.
func (s *dirSource) Task(id string) *triage.Task {
	if _, ok := slices.BinarySearch(s.ids, id); !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.cache[id]; ok {
		return t
	}
	t, _ := loadTask(s.fsys, path.Join(s.tasks, id), id)
	w := taskWeight(t)
	if s.cache == nil || s.weight+w > sourceWeight {
		s.cache, s.weight = map[string]*triage.Task{}, 0
	}
	s.cache[id] = t
	s.weight += w
	return t
}

// Len implements triage.TaskSource.
func (s *dirSource) Len() int { return len(s.ids) }

// Each implements triage.TaskSource: every task read afresh, one at a
// time, none kept.
func (s *dirSource) Each(fn func(*triage.Task) error) error {
	for _, id := range s.ids {
		t, _ := loadTask(s.fsys, path.Join(s.tasks, id), id)
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// taskWeight is about the bytes a task holds.
func taskWeight(t *triage.Task) int {
	w := 256 + len(t.Prompt)
	for _, l := range [][]string{t.Spec, t.Allowlist, t.Withheld, t.HiddenTests, t.Sentinels, t.AskTools} {
		for _, x := range l {
			w += 16 + len(x)
		}
	}
	if t.API != nil {
		for _, o := range t.API.Operations {
			w += 64 + len(o.Path) + len(o.OperationID)
		}
		for _, x := range t.API.Paths {
			w += 16 + len(x)
		}
	}
	return w
}

// LoadFS is Load over a file system (the embedded sample); root is as for
// HashFS. The pack's Dir is root.
func LoadFS(fsys fs.FS, root string) (*triage.Pack, []Problem, error) {
	tasks, err := tasksRoot(fsys, root)
	if err != nil {
		return nil, nil, fmt.Errorf("load pack: %w", err)
	}
	p, probs, err := load(fsys, tasks, fsTree(fsys))
	if err != nil {
		return nil, nil, err
	}
	p.Dir = root
	return p, probs, nil
}

// Check returns the problems of the pack at dir, for `triage pack check`.
func Check(dir string) ([]Problem, error) {
	_, probs, err := Load(dir)
	return probs, err
}

// load reads the pack; the hash reads it through t (see Hash).
func load(fsys fs.FS, tasks string, t tree) (*triage.Pack, []Problem, error) {
	sum, err := hashTasks(t, tasks)
	if err != nil {
		return nil, nil, err
	}
	entries, err := fs.ReadDir(fsys, tasks)
	if err != nil {
		return nil, nil, fmt.Errorf("load pack: %w", err)
	}
	p := &triage.Pack{SHA256: sum, Tasks: map[string]*triage.Task{}}
	var probs []Problem
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		t, tp := loadTask(fsys, path.Join(tasks, e.Name()), e.Name())
		p.Tasks[t.ID] = t
		probs = append(probs, tp...)
	}
	if len(p.Tasks) == 0 {
		probs = append(probs, noTasks)
	}
	return p, probs, nil
}

// taskLoader gathers one task's problems as it reads the task.
type taskLoader struct {
	fsys  fs.FS
	dir   string // the task's directory in fsys
	id    string
	probs []Problem
}

func (l *taskLoader) name(rel string) string { return TasksDir + "/" + l.id + "/" + rel }

func (l *taskLoader) add(level Level, file, key, format string, args ...any) {
	f := ""
	if file != "" {
		f = l.name(file)
	}
	l.probs = append(l.probs, Problem{Task: l.id, File: f, Key: key, Message: fmt.Sprintf(format, args...), Level: level})
}

// loadTask reads one task directory.
func loadTask(fsys fs.FS, dir, id string) (*triage.Task, []Problem) {
	l := &taskLoader{fsys: fsys, dir: dir, id: id}
	t := &triage.Task{ID: id}
	l.readSettings(t)
	l.readPrompt(t)
	l.readSpecs(t)
	if len(t.HiddenTests) == 0 {
		l.add(LevelWarning, "", "", "no hidden test: PASS_WEAK cannot be detected (add a test the agent cannot see and list it in %s under \"hidden_tests\")", TaskFile)
	}
	for _, h := range t.HiddenTests {
		if !l.isFile(h) {
			l.add(LevelError, TaskFile, "hidden_tests", "%q does not exist in the task", h)
		}
	}
	// A withheld file may live in the pack, as DESIGN §3's own example
	// does with openapi.yaml under both "spec" and "withheld": like a
	// hidden test, the harness keeps it from the agent, and the rules need
	// the spec to read the known API surface.
	return t, l.probs
}

// readPrompt finds the first prompt file.
func (l *taskLoader) readPrompt(t *triage.Task) {
	for _, name := range PromptFiles {
		data, err := l.read(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			l.add(LevelError, name, "", "%v", err)
			return
		}
		t.Prompt, t.HasPrompt = string(data), true
		return
	}
	l.add(LevelError, "", "", "no prompt: want one of %s", strings.Join(PromptFiles, ", "))
}

// readSpecs parses the spec files into one API surface.
func (l *taskLoader) readSpecs(t *triage.Task) {
	var api *triage.APISurface
	for _, name := range t.Spec {
		data, err := l.read(name)
		if errors.Is(err, fs.ErrNotExist) {
			l.add(LevelError, TaskFile, "spec", "%q does not exist in the task", name)
			continue
		}
		if err != nil {
			l.add(LevelError, name, "", "%v", err)
			continue
		}
		s, err := ParseSpec(data)
		if err != nil {
			l.add(LevelError, name, "", "spec does not parse: %v", err)
			continue
		}
		if api == nil {
			api = &triage.APISurface{}
		}
		api.Operations = append(api.Operations, s.Operations...)
		api.Paths = mergeSorted(api.Paths, s.Paths)
	}
	t.API = api
}

// read returns a file of the task, refusing anything but a regular file
// of a sane size.
func (l *taskLoader) read(rel string) ([]byte, error) {
	name := path.Join(l.dir, rel)
	fi, err := fs.Stat(l.fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > maxFileBytes {
		return nil, fmt.Errorf("%d bytes is too large (limit %d)", fi.Size(), maxFileBytes)
	}
	f, err := l.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxFileBytes))
}

func (l *taskLoader) isFile(rel string) bool {
	fi, err := fs.Stat(l.fsys, path.Join(l.dir, rel))
	return err == nil && fi.Mode().IsRegular()
}

// mergeSorted merges two sorted string lists without duplicates.
func mergeSorted(a, b []string) []string {
	out := append(a, b...)
	sort.Strings(out)
	j := 0
	for i, s := range out {
		if i == 0 || s != out[j-1] {
			out[j] = s
			j++
		}
	}
	return out[:j]
}
