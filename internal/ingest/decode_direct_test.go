package ingest

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// decodeModes are the three ways rows are decoded: import's strict full
// decode (DecodeRow), the store's trusted read (DecodeStored) and
// import's lite workers.
var decodeModes = []struct {
	name          string
	lite, trusted bool
}{
	{"strict", false, false},
	{"stored", false, true},
	{"lite", true, false},
}

// checkDirect decodes raw through the tree decoder and the direct pass
// in one mode and fails if the direct pass answers differently. It
// reports whether the direct pass answered.
func checkDirect(t *testing.T, raw []byte, run string, lite, trusted bool) bool {
	t.Helper()
	d := &rowDecoder{lite: lite, trusted: trusted}
	want, werr := d.decodeTree(raw, run)
	got := d.directTrace(raw, run)
	if got != nil {
		require.NoError(t, werr, "direct accepted a row the tree decoder rejects: %q", raw)
		requireSameTrace(t, want, got, raw)
	}
	// decode, as wired, must be the tree decoder to the byte, errors included.
	wired, err := d.decode(raw, run)
	if werr != nil {
		require.EqualError(t, err, werr.Error())
		require.Nil(t, wired)
	} else {
		require.NoError(t, err)
		requireSameTrace(t, want, wired, raw)
	}
	return got != nil
}

// requireSameTrace is require.Equal plus what reflect.DeepEqual lets
// pass: floats must match bit for bit (-0 and 0 are == but not the same).
func requireSameTrace(t *testing.T, want, got *triage.Trace, raw []byte) {
	t.Helper()
	require.Equal(t, want, got, "row %q", raw)
	bits := func(tr *triage.Trace) []uint64 {
		var out []uint64
		for _, p := range []*float64{tr.WallS, tr.WallCap, tr.CostUSD} {
			if p != nil {
				out = append(out, math.Float64bits(*p))
			}
		}
		for _, c := range tr.ToolCalls {
			if c.WallS != nil {
				out = append(out, math.Float64bits(*c.WallS))
			}
		}
		return out
	}
	require.Equal(t, bits(want), bits(got), "float bits of row %q", raw)
}

func TestDecodeDirectCases(t *testing.T) {
	t.Parallel()
	cases := []struct {
		row    string
		direct bool // the direct pass is expected to answer
	}{
		{`{"task_id":"T01","exit_code":0}`, true},
		{` {"task_id" : "T01" , "exit_code" : 0 } ` + "\r", true},
		{`{"task_id":"T","run_id":"","seed":3.0,"exit_code":-2147483648,"outcome":""}`, true},
		{`{"task_id":"T","seed":3e0,"tokens":{"input":1E2,"output":null,"x":[1]}}`, true},
		{`{"task_id":"T","seed":null,"model":null,"tool_calls":null,"messages":null,"answer":null,"timeout":null,"wall_s":null,"tokens":null}`, true},
		{`{"task_id":"T","tool_calls":[],"messages":[],"tokens":{}}`, true},
		{`{"task_id":"T","tool_calls":[{"name":"a","args":null,"output":null,"error":null,"wall_s":null,"ts":null}]}`, true},
		{`{"task_id":"T","tool_calls":[{"name":"a","args":{ "p" : [1, 2.50, "x y", {"k" :true}] },"output":{"a": [1 ,2]},"error":false,"wall_s":-0.0,"ts":12.5}]}`, true},
		{`{"task_id":"T","tool_calls":[{"name":"a","args":"{\"a\" : [1, 2.50]}","ts":"2025-01-01T00:00:00Z","x":{"y":[]}}]}`, true},
		{`{"task_id":"T","tool_calls":[{"name":"\u0061\n","args":{"k\u00e9":"v\"\\\/"},"output":"\ud83d\ude00 \ud800 \ud800\u0041 \udc00\ud800 é"}]}`, true},
		{`{"task_id":"T","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{},{"role":7,"content":true}]}`, true},
		{`{"task_id":"T","answer":"a\u0000b","diff":"","test_output":"x\tyz","written_tests":true,"asked":false,"assumed_api":true,"required_missing":false,"outside_allowlist":true,"timeout":false}`, true},
		{`{"task_id":"T","wall_s":1e-3,"wall_cap":180,"cost_usd":0.1234567890123456789,"extra":{"deep":[[[[{}]]]]}}`, true},
		{"{\"task_id\":\"é\xe2\x82\xac\",\"model\":\"\xf0\x9f\x98\x80\"}", true},
		// The tree decoder decides these.
		{`{"task_id":"T","task_id":"U"}`, false},
		{`{"task_\u0069d":"T"}`, false},
		{`{"task_id":"T","tool_calls":[{"name":"a","name":"b"}]}`, false},
		{`{"task_id":"T","tool_calls":[{"name":"a","x":1,"x":2}]}`, true},
		{`{"task_id":"T","messages":[{"role":"a","role":"b"}]}`, false},
		{`{"task_id":"T","tokens":{"input":1,"input":2}}`, false},
		{`{"task_id":"T","seed":1e400}`, false},
		{`{"task_id":"T","wall_s":1e400}`, false},
		{`{"task_id":"T","seed":9007199254740993.0}`, false},
		{`{"task_id":"T","seed":12345678901234567890}`, false},
		{`{"task_id":"T","extra":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, false},
		// Bad rows: the tree decoder words the error.
		{`{"task_id": "T02",}`, false},
		{`{"task_id":"T02","exit_c`, false},
		{`[1,2]`, false},
		{`"x"`, false},
		{`{"exit_code":0}`, false},
		{`{"task_id":4}`, false},
		{`{"task_id":""}`, false},
		{`{"task_id":null}`, false},
		{`{"task_id":"T","exit_code":"zero"}`, false},
		{`{"task_id":"T","exit_code":1.5}`, false},
		{`{"task_id":"T","exit_code":2147483648}`, false},
		{`{"task_id":"T","seed":-1}`, false},
		{`{"task_id":"T","tool_calls":[{"name":"read"},{"args":{}}]}`, false},
		{`{"task_id":"T","tool_calls":[{"name":""}]}`, false},
		{`{"task_id":"T","tool_calls":[{"name":null}]}`, false},
		{`{"task_id":"T","tool_calls":[1]}`, false},
		{`{"task_id":"T","tool_calls":[{"name":"a","wall_s":"1"}]}`, false},
		{"{\"task_id\":\"T\xff\"}", false},
		{"{\"task_id\":\"T\x00\"}", false},
		{"{\"task_id\":\"T\"}\x00", false},
		{"{\"task_id\":\"\xed\xa0\x80\"}", false},
		{"\xef\xbb\xbf{\"task_id\":\"T\"}", false},
		{`{"task_id":"T","timeout":"yes"}`, false},
		{`{"task_id":"T","outcome":"won"}`, false},
		{`{"task_id":"T","tokens":{"input":-1}}`, false},
		{`{"task_id":"T","tokens":[]}`, false},
		{`{"task_id":"T","tool_calls":{}}`, false},
		{`{"task_id":"T","messages":[[]]}`, false},
		{`{"task_id":"T","messages":[{"role":"user","content":"x","at":2},{"role":"a","content":"y","at":null}]}`, true},
		{`{"task_id":"T","messages":[{"role":"user","content":"x","at":3.0}]}`, true},
		{`{"task_id":"T","messages":[{"role":"user","content":"x","at":-1}]}`, false},
		{`{"task_id":"T","messages":[{"role":"user","content":"x","at":1.5}]}`, false},
		{`{"task_id":"T","messages":[{"role":"user","content":"x","at":"2"}]}`, false},
		{`{"task_id":"T","messages":[{"role":"user","content":"x","at":1,"at":2}]}`, false},
		{`{"task_id":"T","answer":1}`, false},
		{`{"task_id":"T","extra":[1,]}`, false},
		{`{"task_id":"T","extra":01}`, false},
		{`{"task_id":"T","extra":NaN}`, false},
		{`{"task_id":"T","wall_s":-}`, false},
		{`{"task_id":"T","extra":"\x"}`, false},
		{`{"task_id":"T","extra":"\u12"}`, false},
		{`{"task_id":"T"} {}`, false},
		{`{"task_id":"T",}`, false},
		{``, false},
	}
	for _, tc := range cases {
		for _, m := range decodeModes {
			t.Run(m.name+"/"+tc.row, func(t *testing.T) {
				t.Parallel()
				got := checkDirect(t, []byte(tc.row), "run", m.lite, m.trusted)
				require.Equal(t, tc.direct, got, "did the direct pass answer for %q", tc.row)
			})
		}
	}
}

// TestDecodeDirectRows decodes generated rows, the sample traces and the
// fuzz corpora's rows both ways, and requires that the direct pass
// answered for nearly all the well-formed rows, so that this cannot pass
// by always deferring.
func TestDecodeDirectRows(t *testing.T) {
	t.Parallel()
	rows := genRows(20000, 1)
	sample := readRows(t, "../../testdata/sample/traces.jsonl")
	require.NotEmpty(t, sample)
	for _, m := range decodeModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			n := 0
			for _, r := range rows {
				if checkDirect(t, r, "gen", m.lite, m.trusted) {
					n++
				}
			}
			require.Greater(t, n, len(rows)*99/100, "direct answered %d of %d generated rows", n, len(rows))
			for _, r := range sample {
				require.True(t, checkDirect(t, r, "sample", m.lite, m.trusted), "sample row %.80q", r)
			}
		})
	}
}

// TestDecodeDirectBenchRows checks the file TRIAGE_BENCH_ROWS names (e.g.
// `go run ./cmd/gentraces -n 20000 -seed 1 -o /tmp/x.jsonl`), when set.
func TestDecodeDirectBenchRows(t *testing.T) {
	t.Parallel()
	path := os.Getenv("TRIAGE_BENCH_ROWS")
	if path == "" {
		t.Skip("TRIAGE_BENCH_ROWS is not set")
	}
	rows := readRows(t, path)
	for _, m := range decodeModes {
		n := 0
		for _, r := range rows {
			if checkDirect(t, r, "bench", m.lite, m.trusted) {
				n++
			}
		}
		t.Logf("%s: direct answered %d of %d rows", m.name, n, len(rows))
		require.Greater(t, n, len(rows)*99/100)
	}
}

func readRows(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var rows [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			rows = append(rows, append([]byte(nil), sc.Bytes()...))
		}
	}
	require.NoError(t, sc.Err())
	return rows
}

// genRows makes n well-formed rows from a fixed seed, varying what a
// real harness varies: which fields are present or null, spacing (Python
// writes ", " and ": "), escapes, non-ASCII text, number spellings, and
// structured values where text is expected.
func genRows(n int, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	texts := []string{
		`ok`, `line one\nline two\n`, `say \"hi\" \\ done`, `caf\u00e9 \u2603`, `\ud83d\ude00 emoji`,
		"naïve — ünïcode ☃", `tab\tand\/slash`, ``, `<script>\u003c/x\u003e`, `a\u0000b`,
	}
	nums := []string{`0`, `1`, `28.5`, `0.0057`, `1e-3`, `180`, `-0.0`, `3.14159`, `2.5E+2`, `0.1`}
	var b strings.Builder
	rows := make([][]byte, 0, n)
	for i := range n {
		b.Reset()
		sep, col := ",", ":"
		if r.IntN(4) == 0 {
			sep, col = ", ", ": "
		}
		pick := func(s []string) string { return s[r.IntN(len(s))] }
		field := func(k, v string) { fmt.Fprintf(&b, `%s"%s"%s%s`, sep, k, col, v) }
		fmt.Fprintf(&b, `{"task_id"%s"T%03d"`, col, i%200)
		if r.IntN(3) > 0 {
			field("run_id", `"run-`+strconv.Itoa(r.IntN(5))+`"`)
		}
		field("seed", []string{strconv.Itoa(i / 200), strconv.Itoa(i/200) + ".0", "null"}[r.IntN(3)])
		field("model", `"`+pick([]string{"gpt-5.1", "sonnet-4-6", "gemini-3.1-pro"})+`"`)
		if r.IntN(2) == 0 {
			field("exit_code", pick([]string{"0", "1", "2", "-1", "null"}))
		}
		if r.IntN(3) == 0 {
			field("outcome", `"`+pick([]string{"success", "incomplete", "failed", "blocked", ""})+`"`)
		}
		if r.IntN(10) > 0 {
			var calls []string
			for range r.IntN(12) {
				c := fmt.Sprintf(`{"name"%s"%s"`, col, pick([]string{"read_file", "bash", "http", "edit_file", "grep"}))
				switch r.IntN(5) {
				case 0:
					c += fmt.Sprintf(`%s"args"%s{"path"%s"%s"}`, sep, col, col, pick(texts))
				case 1:
					c += fmt.Sprintf(`%s"args"%s{"cmd"%s"pytest -q", "n"%s[1, 2.50, true, null]}`, sep, col, col, col)
				case 2:
					c += fmt.Sprintf(`%s"args"%s"{\"a\": 1}"`, sep, col)
				case 3:
					c += fmt.Sprintf(`%s"args"%snull`, sep, col)
				}
				if r.IntN(2) == 0 {
					c += fmt.Sprintf(`%s"output"%s"%s"`, sep, col, pick(texts))
				} else if r.IntN(4) == 0 {
					c += fmt.Sprintf(`%s"output"%s{"stdout"%s"%s", "rc"%s0}`, sep, col, col, pick(texts), col)
				}
				if r.IntN(8) == 0 {
					c += fmt.Sprintf(`%s"error"%s"%s"`, sep, col, pick(texts))
				}
				if r.IntN(2) == 0 {
					c += fmt.Sprintf(`%s"wall_s"%s%s`, sep, col, pick(nums))
				}
				if r.IntN(6) == 0 {
					c += fmt.Sprintf(`%s"ts"%s%s`, sep, col, pick([]string{`"2025-10-01T12:00:00Z"`, `1727784000.5`, `null`}))
				}
				calls = append(calls, c+"}")
			}
			field("tool_calls", "["+strings.Join(calls, sep)+"]")
		}
		if r.IntN(4) == 0 {
			field("messages", fmt.Sprintf(`[{"role"%s"user"%s"content"%s"%s"}%s{"role"%s"assistant"%s"content"%s[{"type"%s"text"}]}]`,
				col, sep, col, pick(texts), sep, col, sep, col, col))
		}
		for _, k := range []string{"answer", "diff", "test_output"} {
			if r.IntN(3) == 0 {
				field(k, `"`+pick(texts)+`"`)
			}
		}
		for _, k := range []string{"written_tests", "timeout", "assumed_api", "required_missing", "asked", "outside_allowlist"} {
			if r.IntN(4) == 0 {
				field(k, pick([]string{"true", "false", "null"}))
			}
		}
		field("wall_s", pick(nums))
		if r.IntN(2) == 0 {
			field("wall_cap", "180")
		}
		if r.IntN(2) == 0 {
			field("tokens", fmt.Sprintf(`{"input"%s%d%s"output"%s%d}`, col, r.IntN(50000), sep, col, r.IntN(5000)))
		}
		if r.IntN(2) == 0 {
			field("cost_usd", pick(nums))
		}
		if r.IntN(5) == 0 {
			field("expect", `{"primary": "ASSUME_API", "secondary": ["PASS_WEAK"]}`)
		}
		b.WriteString("}")
		rows = append(rows, []byte(b.String()))
	}
	return rows
}
