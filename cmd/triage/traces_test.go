package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// failingWriter refuses every write, as a full disk or closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// traces reports a failed write of its last buffered rows instead of
// exiting 0 with a short list.
func TestTracesReportsAFailedWrite(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, errOut := c.run(`{"task_id":"T01","exit_code":0}`+"\n", "import", "--format", "jsonl", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	for _, asJSON := range []bool{false, true} {
		a := &app{stdout: failingWriter{}, stderr: &bytes.Buffer{}, dbPath: c.db, isTerminal: func(any) bool { return false }}
		err := a.runTraces(context.Background(), "", asJSON)
		require.ErrorContains(t, err, "no space left on device", "json=%v", asJSON)
	}
}
