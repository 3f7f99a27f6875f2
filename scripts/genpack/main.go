// Command genpack writes a large task pack for measuring the rules path
// at scale (issue 27): -tasks task directories T000, T001, … (the task
// ids gentraces writes), each with a prompt, a hidden test and a
// task.json of -globs allowlist globs, every glob distinct so that no
// sharing between tasks hides the cost. The output is generated data:
// keep it out of git (write it under /tmp).
//
//	go run ./scripts/genpack -tasks 100000 -globs 1000 -o /tmp/pack100k
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	tasks := flag.Int("tasks", 1000, "number of tasks")
	globs := flag.Int("globs", 100, "allowlist globs per task")
	out := flag.String("o", "", "directory to write (it gets tasks/)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "genpack: -o DIR is required")
		os.Exit(2)
	}
	if err := write(*out, *tasks, *globs); err != nil {
		fmt.Fprintln(os.Stderr, "genpack:", err)
		os.Exit(1)
	}
}

// taskID is gentraces' name for task i.
func taskID(i int) string { return fmt.Sprintf("T%03d", i) }

func write(out string, tasks, globs int) error {
	for i := range tasks {
		dir := filepath.Join(out, "tasks", taskID(i))
		if err := os.MkdirAll(filepath.Join(dir, "tests"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("Fix the client of task "+taskID(i)+".\n"), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "tests", "test_hidden.py"), []byte("def test_hidden():\n    assert True\n"), 0o644); err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(dir, "task.json"))
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		w.WriteString(`{"hidden_tests": ["tests/test_hidden.py"], "sentinels": ["CANARY-` + taskID(i) + `"], "allowlist": [`)
		w.WriteString(`"src/**"`)
		for g := 1; g < globs; g++ {
			w.WriteString(`, "m` + strconv.Itoa(i) + "/d" + strconv.Itoa(g) + `/*.py"`)
		}
		w.WriteString("]}\n")
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
