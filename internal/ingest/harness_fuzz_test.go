package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/triage"
)

// fuzzSeeds adds the test files of a harness format matching glob, each
// cut to 16 KiB and, when it is one JSON document, shrunk whole, plus a
// few hostile shapes. Cut seeds: the fuzzer minimises every new
// interesting input, and on 64 KiB inputs that took the whole run (27
// execs in 90 s). Shrunk seeds are small whole documents, so the seed run
// also takes the path of a complete trace. The real runs are read from
// ../shared at test time (formatDir), never checked in as corpus files.
func fuzzSeeds(f *testing.F, harness, glob string) {
	files, err := filepath.Glob(fixture(f, harness, glob))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds for %s/%s", harness, glob)
	}
	for _, p := range files {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 16<<10)])
		if small, ok := shrinkJSON(b); ok {
			f.Add(small)
		}
	}
	for _, s := range []string{"", "{", "[", "null", `{"a":1}`, "[{}]", "{}\n{}\n", "PK\x03\x04", "\xff\xfe"} {
		f.Add([]byte(s))
	}
}

// shrinkJSON keeps a JSON document's shape with less in it: every array
// cut to its first three items and every string to 256 bytes. It says no
// when data is not one JSON value (JSONL, a zip) or is already small.
func shrinkJSON(data []byte) ([]byte, bool) {
	if len(data) <= 16<<10 {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	var shrink func(any) any
	shrink = func(v any) any {
		switch v := v.(type) {
		case []any:
			v = v[:min(len(v), 3)]
			for i := range v {
				v[i] = shrink(v[i])
			}
			return v
		case map[string]any:
			for k := range v {
				v[k] = shrink(v[k])
			}
			return v
		case string:
			return strings.ToValidUTF8(v[:min(len(v), 256)], "")
		}
		return v
	}
	b, err := json.Marshal(shrink(v))
	return b, err == nil
}

// fuzzDecode checks the decoder's contract on arbitrary bytes: no panic,
// no error from an in-memory reader, and every record exactly one of a
// valid trace or a reject that names the file.
func fuzzDecode(t *testing.T, format Format, data []byte) {
	var n int
	err := format.Decode(context.Background(), Source{Name: "fuzz.json", R: bytes.NewReader(data)}, func(r Record) error {
		n++
		switch {
		case r.Trace != nil && r.Reject != nil:
			t.Fatalf("record %d is both a trace and a reject", n)
		case r.Trace != nil:
			if err := r.Trace.Validate(); err != nil {
				t.Fatalf("record %d: invalid trace: %v", n, err)
			}
			if r.Trace.Source != format.Name {
				t.Fatalf("record %d: source %q", n, r.Trace.Source)
			}
			requireStoresBack(t, r.Trace)
		case r.Reject != nil:
			if r.Reject.File != "fuzz.json" || r.Reject.Reason == "" || r.Reject.Line < 1 {
				t.Fatalf("record %d: reject without place or reason: %+v", n, r.Reject)
			}
		default:
			t.Fatalf("record %d is empty", n)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("decode returned %v for in-memory input", err)
	}
}

func FuzzSWEAgentDecode(f *testing.F) {
	fuzzSeeds(f, "swe-agent", "*.traj")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, SWEAgentFormat, data) })
}

func FuzzMiniDecode(f *testing.F) {
	fuzzSeeds(f, "mini-swe-agent", "*.traj.json")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, MiniSWEAgentFormat, data) })
}

func FuzzInspectDecode(f *testing.F) {
	fuzzSeeds(f, "inspect-ai", "*")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, InspectFormat, data) })
}

func FuzzOpenHandsDecode(f *testing.F) {
	fuzzSeeds(f, "openhands", "*")
	// The resolver's output.jsonl: flat history, fields encoded twice.
	f.Add([]byte(`{"issue": "{\"owner\": \"o\", \"repo\": \"r\", \"number\": 1}", "issue_type": "issue", "instruction": "\"fix\"", "git_patch": "\"diff --git a/x b/x\\r\\n\"", "history": [{"content": "fix", "action": "message"}, {"command": "ls", "thought": "t", "action": "run"}, {"content": "x", "command": "ls", "exit_code": 0, "observation": "run"}, {"outputs": {}, "action": "finish"}], "metrics": "{\"accumulated_cost\": 0.1}", "success": true, "error": null}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, OpenHandsFormat, data) })
}

func FuzzClaudeCodeDecode(f *testing.F) {
	fuzzSeeds(f, "claude-code", "*.jsonl")
	// An Edit result with structuredPatch, a failed Bash, stream-json's end.
	f.Add([]byte(`{"type":"assistant","sessionId":"s","cwd":"/w","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{}}]}}` + "\n" +
		`{"type":"user","sessionId":"s","cwd":"/w","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"ok"}]},"toolUseResult":{"filePath":"/w/a.py","structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-a","+b"]}]}}` + "\n" +
		`{"type":"user","sessionId":"s","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"Exit code 2\nboom","is_error":true}]},"toolUseResult":"Error: Exit code 2"}` + "\n" +
		`{"type":"result","subtype":"error_max_turns","session_id":"s","total_cost_usd":1}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, ClaudeCodeFormat, data) })
}

func FuzzCodexDecode(f *testing.F) {
	fuzzSeeds(f, "codex", "*.jsonl")
	// A web search, an apply_patch and an exec header.
	f.Add([]byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/w"}}` + "\n" +
		`{"timestamp":"t","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}}` + "\n" +
		`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","call_id":"p","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@ x\n-a\n+b\n*** Add File: c\n+c\n*** Delete File: d\n*** End Patch"}}` + "\n" +
		`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"p","output":"Wall time: 1 seconds\nProcess exited with code 3\nOutput:\n"}}` + "\n"))
	// A rollout from before the envelope.
	if b, err := os.ReadFile(filepath.Join("testdata", "codex-legacy", "rollout-2025-08-12T09-14-03-0198c7e1-5a2b-7c3d-9e4f-1a2b3c4d5e6f.jsonl")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, CodexFormat, data) })
}

func FuzzCodexExecDecode(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "codex-exec", "fix-tests.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"item.completed","item":{"id":"i","type":"file_change","changes":null}}` + "\n" + `{"type":"item.updated","item":{"id":"i","type":"web_search","query":"\u00e9"}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, CodexExecFormat, data) })
}

func FuzzGeminiDecode(f *testing.F) {
	fuzzSeeds(f, "gemini-cli", "*")
	// A rewind, a $set, a shell call with an old-style exit line and an
	// edit whose fileDiff has no hunk.
	f.Add([]byte(`{"sessionId":"s","projectHash":"h"}` + "\n" +
		`{"id":"a","type":"gemini","toolCalls":[{"name":"run_shell_command","status":"success","result":[{"functionResponse":{"response":{"output":"Command: x\nExit Code: (none)"}}}]},{"name":"replace","status":"success","resultDisplay":{"fileDiff":"Index: f","fileName":"f"}}]}` + "\n" +
		`{"$rewindTo":"zz"}` + "\n" + `{"$set":{"sessionId":"t"}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, GeminiFormat, data) })
}

func FuzzACPDecode(f *testing.F) {
	fuzzSeeds(f, "acp", "*.jsonl")
	fuzzSeeds(f, "acp", "timeout/*.jsonl")
	f.Add([]byte(`{"type":"tool_call","tool_call_id":"","kind":"edit","title":"","status":"completed","content":[{"type":"diff","path":"/a","oldText":null,"newText":""},{"type":"terminal","terminalId":"t"}],"raw_output":{"metadata":{"exit":-1}}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, ACPFormat, data) })
}

// FuzzTrialResult checks a trial folder whose result.json is any bytes:
// a reject naming the file, or a valid trace, never a panic.
func FuzzTrialResult(f *testing.F) {
	for _, p := range []string{"fix-regex__A1b2C3d", "build-cache__Q4r5S6t", "count-words__1a2b3c4d"} {
		b, err := os.ReadFile(filepath.Join(fixture(f, "trials", "tb2-sonnet", p), "result.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{"", "{", "[]", "null", `{"verifier_result":{"rewards":{"reward":"x"}}}`, `{"exception_info":{"exception_type":"AgentTimeoutError","exception_message":"after 1e400 seconds"}}`} {
		f.Add([]byte(s))
	}
	dir := filepath.Join(f.TempDir(), "job", "t__x")
	if err := os.MkdirAll(filepath.Join(dir, "verifier"), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, "result.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		err := TrialFormat.Decode(context.Background(), Source{Name: dir, Path: dir, trial: true}, func(r Record) error {
			switch {
			case (r.Trace == nil) == (r.Reject == nil):
				t.Fatalf("record is not exactly one of a trace and a reject: %+v", r)
			case r.Trace != nil:
				if err := r.Trace.Validate(); err != nil {
					t.Fatalf("invalid trace: %v", err)
				}
				requireStoresBack(t, r.Trace)
			case r.Reject.Reason == "" || r.Reject.Line < 1:
				t.Fatalf("reject without place or reason: %+v", r.Reject)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
	})
}

func FuzzAiderDecode(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "aider", "sample.aider.chat.history.md"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("# aider chat started at x\n> a\nb\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n> Applied edit to \n"))
	f.Add([]byte("> quoted\nrun on\n#### !\n#### /test\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, AiderFormat, data) })
}

// requireStoresBack checks what import does with a harness trace: the
// normalised row Finish stores must decode again with the stored-row
// decoder to the same trace (as the rules and the review screen read it).
func requireStoresBack(t *testing.T, tr *triage.Trace) {
	t.Helper()
	norm, err := Finish(tr)
	if err != nil {
		t.Fatalf("finish %s: %v", tr.Key(), err)
	}
	if norm == nil {
		return
	}
	back, err := DecodeStored(norm, tr.RunID)
	if err != nil {
		t.Fatalf("stored row of %s does not decode: %v\n%s", tr.Key(), err, norm)
	}
	if back.Key() != tr.Key() || len(back.ToolCalls) != len(tr.ToolCalls) || back.Outcome != tr.Outcome || back.Green() != tr.Green() {
		t.Fatalf("stored row of %s decodes to %s (%d calls, outcome %q, green %v), want %d calls, outcome %q, green %v",
			tr.Key(), back.Key(), len(back.ToolCalls), back.Outcome, back.Green(), len(tr.ToolCalls), tr.Outcome, tr.Green())
	}
}

// FuzzHarnessDetect checks detection never panics on any head.
func FuzzHarnessDetect(f *testing.F) {
	for _, h := range harnessDirs {
		fuzzSeeds(f, h, "*")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range HarnessFormats() {
			_ = format.Detect("x", data)
		}
	})
}
