package triage

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEscapeJSONText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{`{"a":"plain ✓ ╝"}`, `{"a":"plain ✓ ╝"}`},
		{"{\"a\":\"\u009b2J\u009d0;x\"}", `{"a":"\u009b2J\u009d0;x"}`},
		{"[\"\u202eevil\u202c\u2066\u2069\u0085\x7f\"]", `["\u202eevil\u202c\u2066\u2069\u0085\u007f"]`},
		{"\"\xff\u009b\"", "\"\xff\\u009b\""},
	} {
		got := EscapeJSONText([]byte(tt.in))
		require.Equal(t, tt.want, string(got), "%q", tt.in)
		if json.Valid([]byte(tt.in)) {
			var a, b any
			require.NoError(t, json.Unmarshal([]byte(tt.in), &a))
			require.NoError(t, json.Unmarshal(got, &b))
			require.Equal(t, a, b, "escaping loses nothing")
		}
	}
	in := []byte(`{"a":"safe"}`)
	require.Same(t, &in[0], &EscapeJSONText(in)[0], "safe text is returned as is")

	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(InertJSON(&buf)).Encode(map[string]string{"k": "\x1b]0;t\x07\u009b\u202e"}))
	require.Equal(t, `{"k":"\u001b]0;t\u0007\u009b\u202e"}`+"\n", buf.String())
}
