package triage

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCanonicalJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, want string
	}{
		{`{"b": 2, "a": 1}`, `{"a":1,"b":2}`},
		{` { "a" : [ 1 , 2 ] } `, `{"a":[1,2]}`},
		{`{"a": 1, "a": 2}`, `{"a":2}`},
		// Objects inside arrays inside objects share the parser's arena.
		{`{"":{"":[{"":[]}]}}`, `{"":{"":[{"":[]}]}}`},
		{`{"z":[{"y":[{"b":1,"a":[2,{"d":3,"c":4}]}]}],"a":0}`, `{"a":0,"z":[{"y":[{"a":[2,{"c":4,"d":3}],"b":1}]}]}`},
		{`"\u0041\/"`, `"A/"`},
		{`"é"`, `"\u00e9"`},
		{`"\ud83d\ude00"`, `"\ud83d\ude00"`},
		{`"😀"`, `"\ud83d\ude00"`},
		{`"\ud800"`, `"\ud800"`},
		{`1`, `1`},
		{`-0`, `0`},
		{`1.0`, `1e+00`},
		{`10e-1`, `1e+00`},
		{`1e400`, `Infinity`},
		{`-1e400`, `-Infinity`},
		{`NaN`, `NaN`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{`null`, `null`},
		{`[true,false,null]`, `[true,false,null]`},
		{`{}`, `{}`},
		{`[]`, `[]`},
		{`"a\nb\"c"`, `"a\u000ab\"c"`},
	}
	for _, c := range cases {
		got, err := CanonicalJSON([]byte(c.in))
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
}

func TestCanonicalJSONDistinguishes(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{`1`, `1.0`},
		{`0.0`, `-0.0`},
		{`{"a":1}`, `{"a":"1"}`},
		{`[1,2]`, `[2,1]`},
		{`null`, `{}`},
		{`"\u00e9"`, `"\\u00e9"`},
	}
	for _, p := range pairs {
		a, err := CanonicalJSON([]byte(p[0]))
		require.NoError(t, err)
		b, err := CanonicalJSON([]byte(p[1]))
		require.NoError(t, err)
		require.NotEqual(t, a, b, "%s vs %s", p[0], p[1])
	}
}

func TestCanonicalJSONErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `{`, `{"a"}`, `[1,]`, `01x`, `"abc`, `"\x"`, `1 2`, `{"a":1,}`, "\"a\x01\"", `-`, `1.`, `1e`} {
		_, err := CanonicalJSON([]byte(in))
		require.Error(t, err, "%q", in)
	}
}

func TestArgsKey(t *testing.T) {
	t.Parallel()
	require.Equal(t, "{}", ArgsKey(nil))
	require.Equal(t, "null", ArgsKey(json.RawMessage("null")))
	require.Equal(t, ArgsKey([]byte(`{}`)), ArgsKey(nil))
	require.Equal(t, "!invalid:{oops", ArgsKey([]byte("{oops")))
}

func FuzzCanonicalJSON(f *testing.F) {
	f.Add(`{"b":[1,2.5,"x"],"a":{"c":null}}`)
	f.Add(`"\ud800\udc00\u0000"`)
	f.Add(`[[[[[[[]]]]]]]`)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := CanonicalJSON([]byte(s))
		if err != nil {
			return
		}
		// The canonical form is a fixed point: canonicalising it again
		// changes nothing (invalid UTF-8 escapes aside, which are not JSON).
		if json.Valid([]byte(got)) {
			again, err := CanonicalJSON([]byte(got))
			if err != nil || again != got {
				t.Fatalf("not a fixed point: %q -> %q -> %q (%v)", s, got, again, err)
			}
		}
	})
}

func TestSameArgs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[2]}`, `{"a":1,"b":[2]}`, true},
		{`{"a":1,"b":[2]}`, `{ "b" : [2], "a" : 1 }`, true},
		{`{"a":1}`, `{"a":1.0}`, false},
		{``, `{}`, true},
		{``, `null`, false},
		{`{oops`, `{oops`, true},
		{`{oops`, `{oops }`, false},
	} {
		require.Equal(t, tc.want, SameArgs([]byte(tc.a), []byte(tc.b)), "%s vs %s", tc.a, tc.b)
		require.Equal(t, tc.want, SameArgs([]byte(tc.b), []byte(tc.a)), "%s vs %s", tc.b, tc.a)
		require.Equal(t, tc.want, ArgsKey([]byte(tc.a)) == ArgsKey([]byte(tc.b)), "SameArgs agrees with ArgsKey")
	}
}
