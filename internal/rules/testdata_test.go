package rules

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// loadTask reads a task.json from testdata with the parsed spec inlined
// under "api" (the pack package parses real OpenAPI files; rules never
// read files).
func loadTask(t *testing.T, path string) *triage.Task {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var task triage.Task
	require.NoError(t, json.Unmarshal(b, &task))
	var api struct {
		API struct {
			Paths      []string `json:"paths"`
			Operations []struct {
				Method, Path string
				OperationID  string `json:"operation_id"`
			} `json:"operations"`
		} `json:"api"`
	}
	require.NoError(t, json.Unmarshal(b, &api))
	task.API = &triage.APISurface{Paths: api.API.Paths}
	for _, op := range api.API.Operations {
		task.API.Operations = append(task.API.Operations, triage.Operation{Method: op.Method, Path: op.Path, OperationID: op.OperationID})
	}
	return &task
}

// TestRealisticTraces classifies hand-written traces that tell the seed
// articles' stories and checks each against its "expect" field.
func TestRealisticTraces(t *testing.T) {
	t.Parallel()
	task := loadTask(t, "../../testdata/rules/task_invoice.json")
	comp := Compile(nil, task)
	f, err := os.ReadFile("../../testdata/rules/traces.jsonl")
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(f))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		tr := traceFromSeedRow(t, line)
		tr.Raw = append([]byte(nil), line...)
		var want struct {
			Expect struct {
				Primary   string   `json:"primary"`
				Secondary []string `json:"secondary"`
				Decision  string   `json:"decision"`
				Outcome   string   `json:"outcome"`
			} `json:"expect"`
		}
		require.NoError(t, json.Unmarshal(line, &want))
		v := comp.Classify(Budgets{WallS: ptr(180.0), MaxOutputTokens: ptr(int64(4096)), MaxToolCalls: ptr(int64(12))}, tr)
		e := want.Expect
		require.Equal(t, e.Primary, v.Primary, "line %d: %+v", n, v)
		require.Equal(t, e.Secondary, v.Secondary, "line %d", n)
		require.Equal(t, e.Decision, string(v.Decision), "line %d: %s", n, v.Reason)
		require.Equal(t, e.Outcome, string(v.Outcome), "line %d", n)
		require.NotEmpty(t, v.Evidence, "line %d: a verdict always shows why", n)
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 6, n)
}
