package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func generate(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	require.NoError(t, run(args, &out, &errb))
	require.Empty(t, errb.String())
	return out.Bytes()
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	a := generate(t, "-n", "3000", "-seed", "7")
	b := generate(t, "-n", "3000", "-seed", "7")
	require.Equal(t, a, b)
	c := generate(t, "-n", "3000", "-seed", "8")
	require.NotEqual(t, a, c)
	// A shorter file is a prefix of a longer one with the same seed.
	require.True(t, bytes.HasPrefix(a, generate(t, "-n", "100", "-seed", "7")))
}

func TestGzipMatchesPlain(t *testing.T) {
	t.Parallel()
	plain := generate(t, "-n", "500")
	zipped := generate(t, "-n", "500", "-gz")
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	require.NoError(t, err)
	got, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.Equal(t, plain, got)

	path := filepath.Join(t.TempDir(), "out.jsonl")
	generate(t, "-n", "500", "-o", path)
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, plain, onDisk)
}

type row struct {
	TaskID    *string `json:"task_id"`
	Seed      int     `json:"seed"`
	ExitCode  *int    `json:"exit_code"`
	ToolCalls []struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"tool_calls"`
	WrittenTests     bool    `json:"written_tests"`
	WallS            float64 `json:"wall_s"`
	WallCap          float64 `json:"wall_cap"`
	AssumedAPI       *bool   `json:"assumed_api"`
	RequiredMissing  *bool   `json:"required_missing"`
	OutsideAllowlist *bool   `json:"outside_allowlist"`
}

// The benchmark's contract: about 640 bytes and eight tool calls a row,
// unique (task, seed), a minority of rows with the seed flags, and the
// evidence of every class present.
func TestShapeAndMix(t *testing.T) {
	t.Parallel()
	const n = 20000
	data := generate(t, "-n", fmt.Sprint(n), "-seed", "1")
	sc := bufio.NewScanner(bytes.NewReader(data))
	seen := map[string]bool{}
	var rows, calls, flagged, loops, invented, timeouts, weak, slips, missing, red int
	for sc.Scan() {
		var r row
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "line %d", rows+1)
		require.NotNil(t, r.TaskID)
		require.NotNil(t, r.ExitCode)
		key := fmt.Sprintf("%s#%d", *r.TaskID, r.Seed)
		require.False(t, seen[key], "duplicate %s", key)
		seen[key] = true
		rows++
		calls += len(r.ToolCalls)
		if r.AssumedAPI != nil {
			flagged++
			if *r.RequiredMissing {
				missing++
			}
			if *r.OutsideAllowlist {
				slips++
			}
		}
		for i := 2; i < len(r.ToolCalls); i++ {
			a, b, c := r.ToolCalls[i-2], r.ToolCalls[i-1], r.ToolCalls[i]
			if a.Name == b.Name && b.Name == c.Name && string(a.Args) == string(b.Args) && string(b.Args) == string(c.Args) {
				loops++
				break
			}
		}
		for _, c := range r.ToolCalls {
			if strings.Contains(string(c.Args), "/v2/") {
				invented++
			}
		}
		if r.WallS >= r.WallCap {
			timeouts++
		}
		if r.WrittenTests && *r.ExitCode == 0 {
			weak++
		}
		if *r.ExitCode != 0 {
			red++
		}
	}
	require.NoError(t, sc.Err())
	require.Equal(t, n, rows)
	avgBytes := float64(len(data)) / n
	avgCalls := float64(calls) / n
	require.InDelta(t, 640, avgBytes, 25, "average row size")
	require.InDelta(t, 8, avgCalls, 0.3, "average tool calls")
	share := func(k int) float64 { return float64(k) / n }
	require.InDelta(t, 0.30, share(flagged), 0.05, "rows with the seed flags")
	require.InDelta(t, 0.10, share(loops), 0.02, "tool loops, and no accidental ones")
	require.InDelta(t, 0.15, share(invented), 0.02, "invented API calls")
	require.InDelta(t, 0.07, share(timeouts), 0.02, "wall-clock timeouts")
	require.InDelta(t, 0.10, share(weak), 0.02, "green with agent-written tests")
	require.InDelta(t, 0.08, share(slips), 0.02, "outside the allowlist")
	require.InDelta(t, 0.05, share(missing), 0.02, "required input missing")
	require.Greater(t, share(red), 0.2)
}

func TestFlagErrors(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"-n -1: want a count ≥ 0":       {"-n", "-1"},
		`unexpected argument "extra"`:   {"extra"},
		"flag provided but not defined": {"-bogus"},
	}
	for want, args := range cases {
		var out, errb bytes.Buffer
		err := run(args, &out, &errb)
		require.ErrorContains(t, err, want)
		require.Empty(t, out.String())
	}
}

// -runs and -tasks spread the rows as teams accumulate them (issue 27):
// each run holds n/runs rows cycling through its tasks, every (run, task,
// seed) once, and the class mix is the default file's, row for row.
func TestShapes(t *testing.T) {
	t.Parallel()
	type key struct {
		Run  string `json:"run_id"`
		Task string `json:"task_id"`
		Seed int    `json:"seed"`
	}
	read := func(b []byte) []key {
		var out []key
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var k key
			require.NoError(t, json.Unmarshal(sc.Bytes(), &k))
			out = append(out, k)
		}
		return out
	}
	rows := read(generate(t, "-n", "1000", "-runs", "20", "-tasks", "5"))
	require.Len(t, rows, 1000)
	seen := map[key]bool{}
	runs, tasks := map[string]int{}, map[string]bool{}
	for _, k := range rows {
		require.False(t, seen[k], "%v twice", k)
		seen[k] = true
		runs[k.Run]++
		tasks[k.Task] = true
	}
	require.Len(t, runs, 20)
	require.Len(t, tasks, 5)
	require.Equal(t, 50, runs["R000"])
	require.Equal(t, key{"R001", "T000", 0}, rows[50])
	require.Equal(t, key{"R001", "T001", 1}, rows[56])

	one := read(generate(t, "-n", "300", "-tasks", "300"))
	require.Equal(t, key{"", "T299", 0}, one[299])
	// Only the identity differs from the default file.
	strip := func(b []byte) string {
		var s strings.Builder
		for line := range strings.SplitSeq(string(b), "\n") {
			if _, rest, ok := strings.Cut(line, `"model"`); ok {
				s.WriteString(rest)
			}
		}
		return s.String()
	}
	require.Equal(t, strip(generate(t, "-n", "300")), strip(generate(t, "-n", "300", "-runs", "7", "-tasks", "3")))
	var out, errb bytes.Buffer
	require.ErrorContains(t, run([]string{"-tasks", "0"}, &out, &errb), "want runs ≥ 0 and tasks ≥ 1")
}
