package ingest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/shareddata"
	"github.com/triage-dev/triage/internal/triage"
)

// formatDir is the directory holding the test files of a harness format.
// The hand-written samples (OpenHands, Claude Code, Codex) are under
// testdata/formats; the real runs (SWE-agent, mini-swe-agent, Inspect AI)
// are other people's data, read from ../shared/formats and never copied
// into the project. Without ../shared the test asking for them skips.
func formatDir(tb testing.TB, harness string) string {
	tb.Helper()
	switch harness {
	case "swe-agent":
		// Under <instance_id>.traj, the name SWE-agent writes: the
		// adapter takes the instance id from it.
		return shareddata.SWEAgentDir(tb)
	case "mini-swe-agent", "inspect-ai":
		return shareddata.Dir(tb, "formats", harness)
	}
	return filepath.Join("..", "..", "testdata", "formats", harness)
}

// harnessDirs are the format directories formatDir knows.
var harnessDirs = []string{"swe-agent", "mini-swe-agent", "inspect-ai", "openhands", "claude-code", "codex", "gemini-cli", "acp"}

// fixture is the path of a test file (or a glob) of a harness format.
func fixture(tb testing.TB, harness string, name ...string) string {
	tb.Helper()
	return filepath.Join(append([]string{formatDir(tb, harness)}, name...)...)
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

func readFixture(t *testing.T, harness string, name ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixture(t, harness, name...))
	require.NoError(t, err)
	return b
}

// detected lists the harness formats whose Detect accepts the file.
func detected(name string, head []byte) []string {
	var out []string
	for _, f := range HarnessFormats() {
		if f.Detect(name, head) {
			out = append(out, f.Name)
		}
	}
	return out
}

func TestHarnessDetection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		harness, glob string
		want          []string
	}{
		{"swe-agent", "*.traj", []string{"swe-agent"}},
		{"mini-swe-agent", "*.traj.json", []string{"mini-swe-agent"}},
		{"mini-swe-agent", "*report.json", nil},
		{"mini-swe-agent", "results_summary.json", nil},
		{"inspect-ai", "*", []string{"inspect"}},
		{"openhands", "*", []string{"openhands"}},
		{"claude-code", "*.jsonl", []string{"claude-code"}},
		{"codex", "*.jsonl", []string{"codex"}},
	}
	for _, tc := range tests {
		t.Run(tc.harness+"/"+tc.glob, func(t *testing.T) {
			t.Parallel()
			files, err := filepath.Glob(fixture(t, tc.harness, tc.glob))
			require.NoError(t, err)
			require.NotEmpty(t, files, tc.glob)
			for _, p := range files {
				require.Equal(t, tc.want, detected(p, head(t, p)), p)
				// Content decides: the same bytes under a neutral name.
				require.Equal(t, tc.want, detected("input", head(t, p)), p+" without its name")
			}
		})
	}
	// Our own JSONL rows and other JSON are none of these.
	for _, s := range []string{
		`{"task_id":"t1","exit_code":0,"tool_calls":[]}` + "\n",
		`{"resolved": true, "tests_status": {}}`,
		`[1,2,3]`, ``, `{`, `PK`, "\x00\x01binary",
	} {
		require.Empty(t, detected("x.jsonl", []byte(s)), s)
	}
	names := make([]string, 0, len(HarnessFormats()))
	for _, f := range HarnessFormats() {
		require.NotNil(t, f.Decode)
		names = append(names, f.Name)
	}
	require.Equal(t, []string{"inspect", "trial", "swe-agent", "mini-swe-agent", "openhands", "gemini-cli", "codex", "codex-exec", "acp", "claude-code", "aider"}, names)
}

// truncations are the cut points (fractions of the file) tried on every
// whole-file fixture.
var truncations = []float64{0.001, 0.1, 0.5, 0.97}

func TestHarnessTruncatedWholeFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    Format
		file []string
	}{
		{SWEAgentFormat, []string{"swe-agent", "pydicom__pydicom-1458.traj"}},
		{SWEAgentFormat, []string{"swe-agent", "6e44b9__sweagenttestrepo-1c2844.traj"}},
		{MiniSWEAgentFormat, []string{"mini-swe-agent", "django__django-10999.traj.json"}},
		{InspectFormat, []string{"inspect-ai", "2025-05-12T20-28-26-04-00_security-guide.json"}},
		{InspectFormat, []string{"inspect-ai", "log_read_sample.eval"}},
		{OpenHandsFormat, []string{"openhands", "django__django-11099.json"}},
	}
	for _, tc := range tests {
		name := tc.file[1]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, tc.file[0], name)
			for _, frac := range truncations {
				cut := max(1, int(float64(len(data))*frac))
				t.Run(strconv.Itoa(cut), func(t *testing.T) {
					t.Parallel()
					// On disk, so the reject can name the line.
					dir := filepath.Join(t.TempDir(), "run")
					require.NoError(t, os.MkdirAll(dir, 0o755))
					p := filepath.Join(dir, name)
					require.NoError(t, os.WriteFile(p, data[:cut], 0o644))
					recs := decodeWith(t, tc.f, p, Options{})
					require.NotEmpty(t, recs)
					last := recs[len(recs)-1]
					require.NotNil(t, last.Reject, "a cut file ends in a reject")
					for _, r := range recs[:len(recs)-1] {
						require.NotNil(t, r.Trace, "records before the cut are whole samples")
					}
					require.Equal(t, p, last.Reject.File)
					require.Positive(t, last.Reject.Line)
					if tc.f.Name == InspectFormat.Name && strings.HasSuffix(name, ".eval") {
						require.Contains(t, last.Reject.Reason, ".eval archive")
						return
					}
					require.Contains(t, last.Reject.Reason, "truncated input")
					require.Regexp(t, `^byte \d+: `, last.Reject.Reason)
					// The line is where the file ends.
					require.Equal(t, bytes.Count(data[:cut], []byte{'\n'})+1, last.Reject.Line, last.Reject.Error())
				})
			}
		})
	}
}

func TestHarnessMalformed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f      Format
		data   string
		reason string
	}{
		{SWEAgentFormat, `{"environment":"main","trajectory":5}`, "trajectory: want a JSON array, found a number"},
		{SWEAgentFormat, `{"trajectory":[{"action": 7}]}`, "action: want a string, got number"},
		{SWEAgentFormat, `{"trajectory":[] "info":{}}`, "invalid character"},
		{MiniSWEAgentFormat, `{"messages":{"role":"user"}}`, "messages: want a JSON array, found '{'"},
		{MiniSWEAgentFormat, `["not", "an", "object"]`, "trajectory file: want a JSON object"},
		{InspectFormat, `{"version":2,"eval":{"task":"t"},"samples":7}`, "samples: want a JSON array"},
		{InspectFormat, `{"version":2,"eval":{"task":"t"}}`, "holds no samples"},
		{InspectFormat, "PK\x03\x04garbage", "not a readable .eval archive"},
		{OpenHandsFormat, `[{"id":"x","timestamp":"t","source":"agent","action":"run"}]`, "id: want an integer, got string"},
		{OpenHandsFormat, `[{"id":1,"timestamp":"t","source":"agent","action":"run"},]`, "invalid character"},
	}
	for _, tc := range tests {
		t.Run(tc.f.Name+"/"+tc.data, func(t *testing.T) {
			t.Parallel()
			recs, err := decodeBytes(tc.f, "in.json", []byte(tc.data))
			require.NoError(t, err)
			require.NotEmpty(t, recs)
			last := recs[len(recs)-1]
			require.NotNil(t, last.Reject)
			require.Contains(t, last.Reject.Reason, tc.reason)
			require.Equal(t, "in.json", last.Reject.File)
		})
	}
}

func TestHarnessReadErrorIsReturned(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	for _, f := range HarnessFormats() {
		if f.Name == nameTrial {
			continue // it reads a trial's folder, not the stream
		}
		r := io.MultiReader(strings.NewReader(`{"a":`), iotest.ErrReader(boom))
		err := f.Decode(t.Context(), Source{Name: "in", R: r}, func(Record) error { return nil })
		require.ErrorIs(t, err, boom, f.Name)
	}
}

func TestHarnessEmitErrorStops(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop")
	path := fixture(t, "inspect-ai", "2025-05-12T20-28-26-04-00_security-guide.json")
	n := 0
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	err = InspectFormat.Decode(t.Context(), Source{Name: path, R: fh}, func(Record) error {
		n++
		return stop
	})
	require.Equal(t, stop, err, "emit's error is returned as is")
	require.Equal(t, 1, n)
}
