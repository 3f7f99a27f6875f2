package store

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireDecodesAsJSON: DecodeVerdictRest gives json.Unmarshal's value,
// or an error where it gives one.
func requireDecodesAsJSON(t *testing.T, body []byte) {
	t.Helper()
	var want VerdictRest
	wantErr := json.Unmarshal(body, &want)
	got, err := DecodeVerdictRest(body)
	if wantErr != nil {
		require.EqualError(t, err, wantErr.Error(), "%q", body)
		return
	}
	require.NoError(t, err, "%q", body)
	require.Equal(t, want, got, "%q", body)
}

// TestDecodeVerdictRestMatchesEncodingJSON: on what AppendVerdictRest
// and json.Marshal write, and on bytes the fast path must leave to
// json.Unmarshal.
func TestDecodeVerdictRestMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		v := randomVerdict(r)
		requireDecodesAsJSON(t, AppendVerdictRest(nil, v))
		b, err := json.Marshal(&VerdictRest{v.Fired, v.Evidence, v.Unevaluated})
		require.NoError(t, err)
		requireDecodesAsJSON(t, b)
	}
	for _, s := range []string{
		``, `{}`, `null`, `{"fired":null}`, `{"fired":[]}`, ` {"fired":["a"]}`, `{"fired":["a"]} `, `{"Fired":["a"]}`,
		`{"fired":["a"],"fired":["b"]}`, `{"evidence":[{"rule":"r","rule":"s"}]}`, `{"other":1}`,
		`{"evidence":[{"rule":"a","message":"m"}],"evidence":[{"rule":"b"}]}`,
		`{"evidence":[{"tool_call":1.5}]}`, `{"evidence":[{"tool_call":01}]}`, `{"evidence":[{"tool_call":-0}]}`,
		`{"evidence":[{"tool_call":99999999999999999999}]}`, `{"evidence":[{"tool_call":1e2}]}`, `{"evidence":[{"line":null}]}`,
		`{"evidence":[{"message":"\ud83d\ude80"}]}`, `{"evidence":[{"message":"\ud800"}]}`, `{"evidence":[{"message":"\u00e9\/\u2028"}]}`,
		`{"evidence":[{"message":"` + "\xff" + `"}]}`, `{"evidence":[{"message":"a` + "\n" + `"}]}`, `{"evidence":[{"message":"\x"}]}`,
		`{"evidence":[{"run_level":true,"ident":"i","file":"f"}]}`, `{"evidence":[{"run_level":1}]}`, `{"evidence":{}}`,
		`{"unevaluated":[{}],"evidence":[],"fired":[]}`, `{"evidence":[{"rule":"r"}`, `{"fired":["a",]}`, `{"fired":["a"]}x`,
	} {
		requireDecodesAsJSON(t, []byte(s))
	}
}

func FuzzDecodeVerdictRest(f *testing.F) {
	for _, s := range verdictJSONStrings {
		f.Add([]byte(`{"fired":["` + s + `"],"evidence":[{"rule":"a","message":"b","tool_call":-1}]}`))
	}
	f.Add([]byte(`{"evidence":[{"message":"\u00e9\ud83d\ude80","line":3,"run_level":true}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var want VerdictRest
		wantErr := json.Unmarshal(body, &want)
		got, err := DecodeVerdictRest(body)
		if (wantErr == nil) != (err == nil) {
			t.Fatalf("%q: json.Unmarshal %v, DecodeVerdictRest %v", body, wantErr, err)
		}
		if err == nil {
			require.Equal(t, want, got, "%q", body)
		}
	})
}

// BenchmarkDecodeVerdictRest reads 1,000 random stored verdicts' bodies
// with json.Unmarshal and with DecodeVerdictRest.
func BenchmarkDecodeVerdictRest(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	bodies := make([][]byte, 1000)
	for i := range bodies {
		bodies[i] = AppendVerdictRest(nil, randomVerdict(r))
	}
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			for _, body := range bodies {
				var rest VerdictRest
				if err := json.Unmarshal(body, &rest); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			for _, body := range bodies {
				if _, err := DecodeVerdictRest(body); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
