package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// fixture is the path of a file under testdata/formats.
func fixture(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "testdata", "formats"}, parts...)...)
}

// decodeWith runs f over the file at path and collects its records; it
// fails the test if Decode returns an error.
func decodeWith(t *testing.T, f Format, path string, opts Options) []Record {
	t.Helper()
	recs, err := tryDecode(f, path, opts)
	require.NoError(t, err)
	return recs
}

func tryDecode(f Format, path string, opts Options) ([]Record, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var recs []Record
	err = f.Decode(context.Background(), Source{Name: path, Path: path, R: fh, Opts: opts}, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

// decodeBytes runs f over in-memory content (no path: a stream).
func decodeBytes(f Format, name string, data []byte) ([]Record, error) {
	var recs []Record
	err := f.Decode(context.Background(), Source{Name: name, R: bytes.NewReader(data)}, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

// onlyTrace requires exactly one record, a trace, and returns it.
func onlyTrace(t *testing.T, recs []Record) *triage.Trace {
	t.Helper()
	require.Len(t, recs, 1)
	require.Nil(t, recs[0].Reject, "unexpected reject: %v", recs[0].Reject)
	require.NotNil(t, recs[0].Trace)
	require.NoError(t, recs[0].Trace.Validate())
	return recs[0].Trace
}

func head(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b[:min(len(b), DetectBytes)]
}

func readFixture(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixture(parts...))
	require.NoError(t, err)
	return b
}
