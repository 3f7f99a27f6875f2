package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// openDecode imports the file at path the way `triage import` does: Open
// (which decompresses gzip), then Decode with detection.
func openDecode(t *testing.T, path string) []Record {
	t.Helper()
	in, err := Open(path, nil, nil)
	require.NoError(t, err)
	defer in.Close()
	var recs []Record
	require.NoError(t, Decode(context.Background(), in, "", Options{}, func(r Record) error {
		recs = append(recs, r)
		return nil
	}))
	return recs
}

// writeGzip writes data gzipped to dir/name and returns its path.
func writeGzip(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// A gzipped file decodes as its plain twin does: the adapters that go
// back to the file on disk (to count a reject's line, or to open a .eval
// zip at random) must not read the compressed bytes.
func TestGzippedHarnessFilesDecodeLikePlainOnes(t *testing.T) {
	t.Parallel()
	traj := readFixture(t, "swe-agent", "pydicom__pydicom-1458.traj")
	cut := traj[:len(traj)/2]
	eval := readFixture(t, "inspect-ai", "log_read_sample.eval")
	tests := []struct {
		name string
		data []byte
	}{
		{"pydicom__pydicom-1458.traj", cut},
		{"log_read_sample.eval", eval},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			plain := filepath.Join(dir, tc.name)
			require.NoError(t, os.WriteFile(plain, tc.data, 0o644))
			want := openDecode(t, plain)
			got := openDecode(t, writeGzip(t, dir, tc.name+".gz", tc.data))
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, want[i].Line, got[i].Line)
				require.Equal(t, want[i].Reject == nil, got[i].Reject == nil, "record %d", i)
				if want[i].Reject != nil {
					require.Equal(t, want[i].Reject.Line, got[i].Reject.Line)
					require.Equal(t, want[i].Reject.Reason, got[i].Reject.Reason)
				} else {
					require.Equal(t, want[i].Trace.TaskID, got[i].Trace.TaskID)
					require.Len(t, got[i].Trace.ToolCalls, len(want[i].Trace.ToolCalls))
				}
			}
		})
	}
}
