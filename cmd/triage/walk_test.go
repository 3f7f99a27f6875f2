package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/shareddata"
)

// TestImportDirectorySkipsWhatIsNotATrace: a directory holds results
// files, notes, a FIFO and JSON no format reads beside its traces; each is
// listed with its reason and the import neither fails nor hangs.
func TestImportDirectorySkipsWhatIsNotATrace(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.file("runs/a.jsonl", `{"task_id":"T1","exit_code":0}`+"\n")
	c.file("runs/results.json", `{"resolved":["T1"]}`)
	c.file("runs/manifest.json", `{"files":[]}`)
	c.file("runs/notes.md", "# notes\n")
	c.file("runs/x.all_preds.jsonl", `{"instance_id":"a__b-1","model_patch":"diff","model_name_or_path":"m"}`+"\n")
	c.file("runs/preds.json", `{"a__b-1":{"instance_id":"a__b-1","model_patch":"diff"}}`)
	c.file("runs/other.json", "{\n  \"hello\": \"world\"\n}\n")
	fifo := filepath.Join(c.dir, "runs", "b.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	code, out, errOut := c.run("", "import", "--json", filepath.Join(c.dir, "runs"))
	require.Equal(t, exitOK, code, errOut)
	var sum struct {
		Imported int `json:"imported"`
		Skipped  []struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		} `json:"skipped_files"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &sum))
	require.Equal(t, 1, sum.Imported)
	why := map[string]string{}
	for _, s := range sum.Skipped {
		why[filepath.Base(s.Path)] = s.Reason
	}
	require.Contains(t, why["results.json"], "results file")
	require.Contains(t, why["manifest.json"], "manifest")
	require.Contains(t, why["notes.md"], "not a trace file type")
	require.Contains(t, why["x.all_preds.jsonl"], "predictions file")
	require.Contains(t, why["preds.json"], "predictions file")
	require.Contains(t, why["b.jsonl"], "FIFO")
	require.Contains(t, why["other.json"], "no trace format reads it")
}

// TestImportUnknownFileNamedDirectly: a file named on the command line
// that no format reads is an error naming every format tried and what
// each looks for.
func TestImportUnknownFileNamedDirectly(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	p := c.file("other.json", "{\n  \"hello\": \"world\"\n}\n")
	code, _, errOut := c.run("", "import", p)
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "not a trace file of any known format")
	for _, f := range []string{"swe-agent: wants", "mini-swe-agent: wants", "inspect: wants", "jsonl: wants"} {
		require.Contains(t, errOut, f)
	}
}

// TestReportSaysOnceWhatARunCouldNotCheck: a run with no task pack has
// ASSUME_API, MISSING_ASK and SCOPE_SLIP unchecked for every trace; the
// report says so once for the run, and a run with a pack says nothing.
func TestReportSaysOnceWhatARunCouldNotCheck(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, errOut := c.run(`{"task_id":"T1","exit_code":1}`+"\n"+`{"task_id":"T2","exit_code":0}`+"\n", "import", "--rules", "--format", "jsonl", "--run", "nopack", "-")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := c.run("", "report", "--run", "nopack", "--json")
	require.Equal(t, exitOK, code, errOut)
	var rep struct {
		NotChecked []struct {
			RunID  string `json:"run_id"`
			Note   string `json:"note"`
			Traces int    `json:"traces"`
		} `json:"not_checked"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.NotChecked, 1)
	require.Equal(t, "nopack", rep.NotChecked[0].RunID)
	require.Equal(t, 2, rep.NotChecked[0].Traces)
	require.Contains(t, rep.NotChecked[0].Note, "ASSUME_API, MISSING_ASK and SCOPE_SLIP")
	code, out, _ = c.run("", "report", "--run", "nopack")
	require.Equal(t, exitOK, code)
	require.Equal(t, 1, strings.Count(out, "no task pack (card init --pack)"), out)

	d := demoStore(t)
	code, out, _ = d.run("", "report", "--run", "demo", "--json")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"not_checked": []`)
}

// TestSameLogsFromAnotherPathAreDuplicates: a log's trace does not depend
// on where its tree sits: the same run imported from a copy elsewhere is a
// duplicate, not a conflict (the scorer report is named relative to the
// log).
func TestSameLogsFromAnotherPathAreDuplicates(t *testing.T) {
	t.Parallel()
	src := shareddata.Dir(t, "real-logs", "mini-swe-agent", "gemini3pro")
	c := newCLI(t)
	var dirs []string
	for _, name := range []string{"one", "two"} {
		dst := filepath.Join(c.dir, name, "gemini3pro")
		require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
		dirs = append(dirs, dst)
	}
	code, out, errOut := c.run("", "import", dirs[0])
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "8 imported")
	code, out, errOut = c.run("", "import", dirs[1])
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "0 imported, 8 duplicates, 0 rejected")
}

// TestPrefetchKeepsFileOrder: harness logs are decoded ahead on every core,
// yet they land in file order, each whole, with JSONL files streamed in
// their place, exactly as one file at a time would store them; a budget
// smaller than the files still never stalls.
func TestPrefetchKeepsFileOrder(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var names []string
	for i := range 40 {
		iid := fmt.Sprintf("org__repo-%03d", i)
		if i%10 == 5 {
			names = append(names, c.file(fmt.Sprintf("logs/%03d.jsonl", i), fmt.Sprintf(`{"task_id":"J%03d","exit_code":0}`+"\n", i)))
			continue
		}
		traj := fmt.Sprintf(`{"trajectory_format":"mini-swe-agent-1","instance_id":%q,"info":{"exit_status":"Submitted","submission":"diff --git a/x.py b/x.py\n"},"messages":[{"role":"system","content":"s"},{"role":"user","content":"fix %d"},{"role":"assistant","content":"`+"```bash\\nls\\n```"+`"},{"role":"user","content":"<returncode>0</returncode><output>a</output>"}]}`, iid, i)
		names = append(names, c.file(fmt.Sprintf("logs/%03d.traj.json", i), traj))
	}
	code, _, errOut := c.run("", "import", "--run", "r", filepath.Join(c.dir, "logs"))
	require.Equal(t, exitOK, code, errOut)
	_, all, _ := c.run("", "traces", "--json")

	one := newCLI(t)
	for _, n := range names {
		code, _, errOut := one.run("", "import", "--run", "r", n)
		require.Equal(t, exitOK, code, errOut)
	}
	_, seq, _ := one.run("", "traces", "--json")
	strip := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m))
			delete(m, "source_file") // the one field that names how it was given
			b, _ := json.Marshal(m)
			out = append(out, string(b))
		}
		return out
	}
	require.Equal(t, strip(seq), strip(all), "the same traces, in the same order")
	require.Len(t, strip(all), 40)

	// A budget far smaller than one file: each file still goes, alone.
	b := newByteBudget(10)
	require.True(t, b.take(t.Context(), 1<<20))
	b.release(1 << 20)
}

// TestEndlessDeviceEnds: /dev/zero named directly as our JSONL holds one
// line that never ends; it is rejected with the line limit and the rest
// of the input is not read, so the import ends instead of spinning.
func TestEndlessDeviceEnds(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	c := newCLI(t)
	code, _, errOut := c.run("", "import", "--format", "jsonl", "/dev/zero")
	require.Equal(t, exitRejected, code, errOut)
	require.Contains(t, errOut, "over the 64 MiB limit")
	require.Contains(t, errOut, "no line end in 256 MiB: the rest of the input was not read")
}

// TestImportSummaryCountsEveryRejectedLine: the "… and N more" line
// counts every rejected line past those listed, repeated ones included
// (they are counted, filed once, and not listed).
func TestImportSummaryCountsEveryRejectedLine(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var b strings.Builder
	for i := range 5 {
		fmt.Fprintf(&b, `{"task_id":"T%d","exit_code":"x%d"}`+"\n", i, i)
	}
	for range 30 {
		b.WriteString(`{"task_id":"R","exit_code":"same"}` + "\n")
	}
	f := c.file("bad.jsonl", b.String())
	code, out, errOut := c.run("", "import", f)
	require.Equal(t, exitRejected, code)
	require.Equal(t, "0 imported, 0 duplicates, 35 rejected\n", out)
	require.Equal(t, 6, strings.Count(errOut, f+":"), "the five distinct lines and the first repeated one are listed")
	require.Contains(t, errOut, "… and 29 more rejected lines (see 'triage rejects')")
}

// A results file that contradicts itself (an id both resolved and not) is
// a warning naming the file and the id; the trace still imports, with an
// unknown outcome, and the file is listed as skipped, in the singular.
func TestSelfContradictingResultsFileIsAWarning(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	const id = "django__django-11119"
	src := shareddata.Dir(t, "real-logs", "mini-swe-agent", "live-gpt5mini", id, id+".traj.json")
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, id), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, id, id+".traj.json"), data, 0o644))
	results := filepath.Join(dir, "results.json")
	require.NoError(t, os.WriteFile(results, []byte(`{"resolved_ids":["`+id+`"],"unresolved_ids":["`+id+`"]}`), 0o644))
	code, out, errOut := c.run("", "import", dir)
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "1 imported, 0 duplicates, 0 rejected\n", out)
	require.Contains(t, errOut, "warning: "+results+": "+id+" is listed both as resolved and as not resolved; no verdict taken for it")
	require.Contains(t, errOut, "skipped 1 file that is not a trace:\n  "+results+": results file")
	code, out, _ = c.run("", "traces", "--json")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"outcome":""`, "no verdict taken from the file")
}

// TestImportWalkFailsForAPathTooLong: a trace under a directory walk whose
// path is longer than the system allows (PATH_MAX) cannot be read: the
// import lands the rest and exits 1 naming it (it was listed as skipped,
// with exit 0, as if it were not a trace).
func TestImportWalkFailsForAPathTooLong(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := filepath.Join(c.dir, "logs")
	require.NoError(t, os.Mkdir(dir, 0o755))
	c.file("logs/a.jsonl", `{"task_id":"T01"}`+"\n")
	// 45 directories of 100 bytes: 4,500 bytes, past Linux's 4,096. Made
	// one at a time through os.Root, which never builds the whole path.
	r, err := os.OpenRoot(dir)
	require.NoError(t, err)
	for range 45 {
		name := strings.Repeat("d", 100)
		require.NoError(t, r.Mkdir(name, 0o755))
		sub, err := r.OpenRoot(name)
		require.NoError(t, err)
		require.NoError(t, r.Close())
		r = sub
	}
	f, err := r.Create("deep.jsonl")
	require.NoError(t, err)
	_, err = f.WriteString(`{"task_id":"T02"}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, r.Close())

	code, out, errOut := c.run("", "import", dir)
	require.Equal(t, exitError, code, errOut)
	require.Contains(t, errOut, "triage: "+filepath.Join(dir, strings.Repeat("d", 100)))
	require.Contains(t, errOut, ": cannot be read: file name too long")
	require.NotContains(t, errOut, "skipped")
	require.Equal(t, "1 imported, 0 duplicates, 0 rejected\n", out)
}

// TestALineWithNoEndInAFileIsRejectedAlone: in a regular file, a line
// longer than four times the line limit (260 MiB of zeros, sparse on
// disk) is rejected with its length and the good line after it imports:
// the import gave up on the rest of the file at 256 MiB and lost it.
// /dev/zero, whose end never comes, still ends (TestEndlessDeviceEnds).
func TestALineWithNoEndInAFileIsRejectedAlone(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	p := c.file("run-a.jsonl", `{"task_id":"T01"}`+"\n")
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	require.NoError(t, err)
	const hole = 260 << 20
	_, err = f.WriteAt([]byte("\n"+`{"task_id":"T02"}`+"\n"), int64(len(`{"task_id":"T01"}`)+1+hole))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	code, out, errOut := c.run("", "import", p)
	require.Equal(t, exitRejected, code, errOut)
	require.Contains(t, errOut, p+":2: ")
	require.Contains(t, errOut, "line is 272629760 bytes, over the 64 MiB limit")
	require.NotContains(t, errOut, "the rest of the input was not read")
	require.Equal(t, "2 imported, 0 duplicates, 1 rejected\n", out)
}
