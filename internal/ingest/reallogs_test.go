package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// realLog is the path of <repo root>/../shared/real-logs/<parts…>: real
// harness logs written by other people's runs, kept beside the repository
// and never copied into it. The test is skipped, naming the folder, when
// it is absent (a clone on its own).
func realLog(t testing.TB, parts ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod above the test's directory")
		}
		dir = parent
	}
	p := filepath.Join(append([]string{dir, "..", "shared", "real-logs"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		t.Skipf("%s is missing (the real harness logs live beside the repository in ../shared/real-logs); skipping", p)
	}
	return p
}

// decodeReal detects and decodes one real input (a file or a claimed
// directory) the way import does.
func decodeReal(t testing.TB, path string) []Record {
	t.Helper()
	in, err := Open(path, nil, nil)
	require.NoError(t, err)
	defer in.Close()
	var recs []Record
	err = Decode(context.Background(), in, "", Options{}, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	require.NoError(t, err, path)
	return recs
}

// realTrace decodes a real input that holds one trace.
func realTrace(t *testing.T, parts ...string) *triage.Trace {
	t.Helper()
	return onlyTrace(t, decodeReal(t, realLog(t, parts...)))
}

// exitCodes counts the calls that carry an exit code, and those non-zero.
func exitCodes(tr *triage.Trace) (n, nonZero int) {
	for _, c := range tr.ToolCalls {
		if c.ExitCode != nil {
			n++
			if *c.ExitCode != 0 {
				nonZero++
			}
		}
	}
	return n, nonZero
}

// TestRealLogsTable prints, for every input under ../shared/real-logs,
// what the decoders extract (run with -v): the table in the issue's
// measurement. It also checks that no input is rejected whole.
func TestRealLogsTable(t *testing.T) {
	root := realLog(t)
	files, err := expandFiles([]string{root})
	require.NoError(t, err)
	for _, p := range files {
		in, err := Open(p, nil, nil)
		require.NoError(t, err)
		var rows []string
		err = Decode(context.Background(), in, "", Options{}, func(r Record) error {
			if r.Reject != nil {
				rows = append(rows, fmt.Sprintf("REJECT %d: %s", r.Reject.Line, r.Reject.Reason))
				return nil
			}
			tr := r.Trace
			n, nz := exitCodes(tr)
			diff := ""
			if tr.Diff != nil {
				diff = strings.Join(diffFiles(*tr.Diff), ",")
			}
			rows = append(rows, fmt.Sprintf("%s | %d | exit %d (%d non-zero) | diff %s | stop %q", tr.TaskID, len(tr.ToolCalls), n, nz, diff, tr.StopReason))
			return nil
		})
		in.Close()
		rel, _ := filepath.Rel(root, p)
		if err != nil {
			t.Logf("%s: ERROR %v", rel, err)
			continue
		}
		for _, r := range rows {
			t.Logf("%s | %s", rel, r)
		}
	}
}

// diffFiles lists the b/ paths of a git diff's file headers.
func diffFiles(d string) []string {
	var out []string
	for _, l := range strings.Split(d, "\n") {
		if rest, ok := strings.CutPrefix(l, "diff --git "); ok {
			if i := strings.LastIndex(rest, " b/"); i >= 0 {
				out = append(out, rest[i+3:])
			}
		}
	}
	return out
}

type triageTrace = triage.Trace

// BenchmarkRealLogs decodes every input under ../shared/real-logs, the
// aider history's 4.1 MB most of it, and reports the throughput.
func BenchmarkRealLogs(b *testing.B) {
	files, err := expandFiles([]string{realLog(b)})
	require.NoError(b, err)
	var size int64
	for _, p := range files {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			size += st.Size()
		}
	}
	b.SetBytes(size)
	for b.Loop() {
		for _, p := range files {
			in, err := Open(p, nil, nil)
			require.NoError(b, err)
			_ = Decode(context.Background(), in, "", Options{}, func(Record) error { return nil })
			in.Close()
		}
	}
}
