package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzDecodeDirect holds the direct pass to the tree decoder on
// arbitrary rows in all three modes: whenever it answers, the trace is
// the tree decoder's (bit for bit); whenever the tree decoder rejects a
// row, it does not answer; and decode as wired gives the tree decoder's
// trace or its exact error.
func FuzzDecodeDirect(f *testing.F) {
	for _, r := range genRows(40, 7) {
		f.Add(r, "gen")
	}
	seeds := []string{
		`{"task_id":"T","tool_calls":[{"name":"a","args":{ "p" : [1, 2.50, "x y", {"k" :true}] },"output":{"a": [1 ,2]},"error":false,"wall_s":-0.0,"ts":12.5}]}`,
		`{"task_id":"T","tool_calls":[{"name":"\u0061\n","args":{"k\u00e9":"v\"\\\/"},"output":"\ud83d\ude00 \ud800 \ud800\u0041 \udc00\ud800 é"}]}`,
		`{"task_id":"T","seed":3e0,"exit_code":-2147483648,"tokens":{"input":1E2,"output":null}}`,
		`{"task_id":"T","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{},{"role":7,"content":true}]}`,
		`{"task_id":"T","task_\u0069d":"U","tool_calls":[{"name":"a","name":"b"}]}`,
		`{"task_id":"T","answer":"a\u0000b","written_tests":true,"wall_s":1e-3,"cost_usd":0.1234567890123456789}`,
		"{\"task_id\":\"T\xff\"}",
		"{\"task_id\":\"T\x00\"}",
		`{"task_id": "T02",}`,
		`{"task_id":"T","extra":NaN,"wall_s":Infinity}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), "r")
	}
	// The rows of the other targets' corpora and of the sample traces.
	for _, dir := range []string{"FuzzDecodeStored", "FuzzJSONL", "FuzzValidJSON"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", dir, "*"))
		for _, name := range files {
			for _, r := range corpusRows(name) {
				f.Add(r, "corpus")
			}
		}
	}
	if raw, err := os.ReadFile("../../testdata/sample/traces.jsonl"); err == nil {
		for _, r := range bytes.Split(raw, []byte("\n"))[:5] {
			f.Add(r, "sample")
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte, run string) {
		for _, m := range decodeModes {
			checkDirect(t, raw, run, m.lite, m.trusted)
		}
	})
}

// corpusRows reads the first value of a Go fuzz corpus file, a []byte or
// a string, and splits it into lines.
func corpusRows(name string) [][]byte {
	raw, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	lines := bytes.Split(raw, []byte("\n"))
	if len(lines) < 2 {
		return nil
	}
	v := string(lines[1])
	for _, p := range []string{"[]byte(", "string("} {
		if len(v) > len(p) && v[:len(p)] == p && v[len(v)-1] == ')' {
			s, err := strconv.Unquote(v[len(p) : len(v)-1])
			if err != nil {
				return nil
			}
			return bytes.Split([]byte(s), []byte("\n"))
		}
	}
	return nil
}
