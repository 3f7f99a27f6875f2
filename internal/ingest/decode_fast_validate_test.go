package ingest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fastjson"
)

// validCases are inputs with the answer both validators give.
var validCases = []struct {
	in   string
	want bool
}{
	{``, false},
	{` \t\r\n`, false},
	{`{}`, true},
	{" \r\n\t{ } \n", true},
	{`[]`, true},
	{`[ ]`, true},
	{`{"a":1}`, true},
	{`{"a" : [1, 2.5e-3, -0, "x", true, false, null, {}] }`, true},
	{`"x"`, true},
	{`1`, true},
	{`-1.25E+10`, true},
	{`0`, true},
	{`01`, false},
	{`-01`, false},
	{`1.`, false},
	{`.5`, false},
	{`-`, false},
	{`1e`, false},
	{`1e+`, false},
	{`1e+5`, true},
	{`+1`, false},
	{`inf`, false},
	{`nan`, false},
	{`NaN`, false},
	{`Infinity`, false},
	{`tru`, false},
	{`truex`, false},
	{`nul`, false},
	{`nulll`, false},
	{`{"a":1}x`, false},
	{`{"a":1} {}`, false},
	{`{"a":1,}`, false},
	{`[1,]`, false},
	{`[,1]`, false},
	{`{,}`, false},
	{`{"a"}`, false},
	{`{"a":}`, false},
	{`{a:1}`, false},
	{`{"a":1 "b":2}`, false},
	{`[1 2]`, false},
	{`{"a":1]`, false},
	{`[1}`, false},
	{`[[[`, false},
	{`]`, false},
	{`"abc`, false},
	{`"abc\"`, false},
	{`"a\"b"`, true},
	{`"a\\"`, true},
	{`"a\\\"`, false},
	{`"\/\b\f\n\r\t"`, true},
	{`"\x"`, false},
	{`"\'"`, false},
	{`"\u00e9\uD83D\uDE00"`, true},
	{`"\u12"`, false},
	{`"\u12G4"`, false},
	{`"\u+123"`, false},
	{`"\u"`, false},
	{`"\`, false},
	{"\"a\tb\"", false},
	{"\"a\x1fb\"", false},
	{"\"a\x7fb\"", true},
	{"\"a\x00b\"", false},
	{"{\"a\nb\":1}", false},
	{`{"\u0061":1,"\q":2}`, false},
	{`"0123456789abcdef0123456789abcdef\n0123456789abcdef"`, true},
	{"\"0123456789abcdef0123456789abcdef\x01456789abcdef\"", false},
	{`"` + strings.Repeat("é", 40) + `"`, true},
	{strings.Repeat("[", 100) + strings.Repeat("]", 100), true},
	{strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100), true},
	{strings.Repeat("[", 100) + strings.Repeat("]", 99), false},
}

// TestValidJSON holds validJSON to fastjson's answer on the table, and
// checks that deep nesting, which validJSON leaves to fastjson, is not
// rejected by it in the decoder.
func TestValidJSON(t *testing.T) {
	t.Parallel()
	for _, c := range validCases {
		require.Equal(t, c.want, validJSON([]byte(c.in)), "%q", c.in)
		require.Equal(t, c.want, fastjson.Validate(c.in) == nil, "fastjson on %q", c.in)
	}
	deep := strings.Repeat("[", fastValidDepth+1) + strings.Repeat("]", fastValidDepth+1)
	require.False(t, validJSON([]byte(deep)), "too deep for validJSON: fastjson decides")
	require.NoError(t, fastjson.Validate(deep))
	row := `{"task_id":"a","x":` + deep + `}`
	var p fastjson.Parser
	_, perr := p.Parse(row)
	require.ErrorContains(t, perr, "too big depth")
	_, err := DecodeRow([]byte(row), "r")
	require.EqualError(t, err, "invalid JSON: "+perr.Error(), "a deep row still reaches the parser, as before")
	// fastjson misses a control byte before a string's last escape and
	// so has always imported such rows; validJSON refuses, fastjson
	// accepts, and the row still imports.
	lenient := "{\"task_id\":\"a\x01\\n\"}"
	require.False(t, validJSON([]byte(lenient)))
	require.NoError(t, fastjson.Validate(lenient))
	tr, err := DecodeRow([]byte(lenient), "r")
	require.NoError(t, err)
	require.Equal(t, "a\x01\n", tr.TaskID)
	ok := strings.Repeat("[", fastValidDepth) + strings.Repeat("]", fastValidDepth)
	require.True(t, validJSON([]byte(ok)))
}

// TestDecodeRowSyntaxErrors checks the decoder still words invalid JSON
// with encoding/json's column, whichever validator saw it first.
func TestDecodeRowSyntaxErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`{"task_id":"a",}`, "invalid JSON at column 16: invalid character '}' looking for beginning of object key string"},
		{`{"task_id":"a\x"}`, `invalid JSON at column 15: invalid character 'x' in string escape code`},
		{`{"task_id":01}`, "invalid JSON at column 13: invalid character '1' after object key:value pair"},
		{"{\"task_id\":\"a\tb\"}", "invalid JSON at column 14: invalid character '\\t' in string literal"},
		{`{"task_id":"a"`, "invalid JSON at column 14: unexpected end of JSON input"},
	} {
		_, err := DecodeRow([]byte(c.in), "r")
		require.EqualError(t, err, c.want, "%q", c.in)
	}
}

// FuzzValidJSON holds the one property the decoder relies on: whatever
// validJSON accepts, fastjson.ValidateBytes accepts too, so no row
// rejected before is imported now. It also expects the same answer on
// input within validJSON's depth and free of control bytes, so the fast
// path is not silently lost. (fastjson misses control bytes in a string
// before its last escape, e.g. "\x01\\n"; validJSON refuses those and
// fastjson then accepts them, as it always did.)
func FuzzValidJSON(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c.in))
	}
	f.Add([]byte(`{"task_id":"T04","exit_code":0,"tool_calls":[{"name":"read","args":{"path":"README.md"}}],"written_tests":false,"wall_s":41}`))
	f.Add([]byte("{\"k\":\"\\u00zz\"}"))
	f.Add([]byte(`[1e5,-0.0e-0,"\"\\",{"":[]}]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast := validJSON(raw)
		slow := fastjson.ValidateBytes(raw)
		if fast {
			require.NoError(t, slow, "validJSON accepted what fastjson rejects: %q", raw)
		}
		if bytes.Count(raw, []byte("["))+bytes.Count(raw, []byte("{")) < fastValidDepth && !hasControl(raw) {
			require.Equal(t, slow == nil, fast, "fastjson: %v on %q", slow, raw)
		}
	})
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}
