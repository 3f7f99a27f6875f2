//go:build unix

package ingest

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A FIFO where a run report or OpenHands' scored copy would be is never
// opened: the walk's own check does not see the folders above a log, and
// a read would block the import forever with the finder's lock held.
func TestOutcomeFinderSkipsFIFOs(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	writeFiles(t, filepath.Dir(dir), map[string]string{"run/trajs/.keep": ""})
	fifo := filepath.Join(dir, "pipe.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	require.False(t, RunReport(fifo))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, OpenHandsScoredName), 0o644))
	done := make(chan *Outcomes)
	go func() {
		o := NewOutcomes()
		o.find(filepath.Join(dir, "x.jsonl"), "a__b-3", "")
		done <- o
	}()
	select {
	case o := <-done:
		require.Contains(t, o.Warnings()[0], "not a regular file")
	case <-time.After(5 * time.Second):
		t.Fatal("the outcome finder blocked on a FIFO")
	}
}
