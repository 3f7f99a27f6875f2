package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// asIsCases are arguments canonicalAsIs must accept (their loop key is
// their own text) or refuse (the canonicaliser would change them, or it
// is not worth checking, as with floats and escapes).
var asIsCases = []struct {
	raw  string
	asIs bool
}{
	{`{"path":"src/client.py"}`, true},
	{`{}`, true},
	{`[]`, true},
	{`{"a":1,"b":[true,false,null,-3,0],"c":{"d":"x y"}}`, true},
	{`"plain"`, true},
	{`12345678901234567890123`, true},
	{``, false},                        // missing arguments are {}
	{`{"path": "x"}`, false},           // space
	{` {"a":1}`, false},                // leading space
	{`{"a":1} `, false},                // trailing space
	{`{"b":1,"a":2}`, false},           // keys out of order
	{`{"a":1,"a":2}`, false},           // repeated key: the last one wins
	{`{"ab":1,"a":2}`, false},          // "a" sorts before "ab"
	{`{"a":1.0}`, false},               // floats are re-spelled
	{`{"a":1e3}`, false},               // so are exponents
	{`{"a":-0}`, false},                // -0 is 0
	{`{"a":01}`, false},                // not JSON
	{`{"a":"\u0041"}`, false},          // escapes are decoded
	{`{"a":"\"q\""}`, false},           // even canonical ones are not checked
	{"{\"a\":\"\x7f\"}", false},        // DEL is escaped
	{"{\"a\":\"caf\xc3\xa9\"}", false}, // non-ASCII is escaped
	{`{"a":NaN}`, false},               // accepted by Python, not checked
	{`{"a":1,}`, false},                // trailing comma
	{`{"a"}`, false},                   // no value
	{`[1,2`, false},                    // unterminated
	{`nul`, false},                     // cut literal
	{`{"a":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}`, false}, // deeper than checked
}

func TestCanonicalAsIs(t *testing.T) {
	t.Parallel()
	for _, tc := range asIsCases {
		require.Equal(t, tc.asIs, canonicalAsIs([]byte(tc.raw)), "%q", tc.raw)
		if tc.asIs {
			require.Equal(t, tc.raw, triage.ArgsKey([]byte(tc.raw)), "%q is its own key", tc.raw)
		}
	}
}

// TestLoopKeyBuffers checks loopKey against triage.ArgsKey on both paths
// and that a key built in one slot survives building one in the other.
func TestLoopKeyBuffers(t *testing.T) {
	t.Parallel()
	var keys *keyBuf
	defer func() { keys.release() }()
	for i, tc := range asIsCases {
		prev := asIsCases[(i+len(asIsCases)-1)%len(asIsCases)].raw
		a := loopKey(&keys, 0, []byte(prev))
		b := loopKey(&keys, 1, []byte(tc.raw))
		require.Equal(t, triage.ArgsKey([]byte(prev)), string(a), "%q", prev)
		require.Equal(t, triage.ArgsKey([]byte(tc.raw)), string(b), "%q", tc.raw)
	}
	require.NotNil(t, keys, "keys that need canonicalising take pooled buffers")
}

// FuzzCanonicalAsIs: canonicalAsIs never accepts arguments whose loop
// key differs from their text, and never panics.
func FuzzCanonicalAsIs(f *testing.F) {
	for _, tc := range asIsCases {
		f.Add([]byte(tc.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if canonicalAsIs(raw) {
			require.Equal(t, string(raw), triage.ArgsKey(raw))
		}
	})
}
