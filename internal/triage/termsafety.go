package triage

import (
	"io"
	"unicode/utf8"
)

// EscapeJSONText rewrites the characters encoding/json leaves raw but a
// terminal acts on, in a JSON document, as \uXXXX escapes: DEL, the C1
// controls U+0080–U+009F (U+009B is an 8-bit CSI, U+009D an OSC) and the
// bidi embedding, override and isolate characters. JSON output is read on
// terminals (triage traces --json | less, jq), so trace text in it must be
// as inert as in the text output; unlike Sanitize this loses nothing, the
// decoded strings are unchanged. Outside strings these characters are not
// valid JSON, so rewriting them wherever they appear is safe.
//
// b must be whole: a rune split across two calls is not recognised. When
// nothing needs escaping, b itself is returned.
func EscapeJSONText(b []byte) []byte {
	i := firstJSONUnsafe(b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i >= 0 {
		r, size := utf8.DecodeRune(b[i:])
		out = append(out, b[:i]...)
		out = append(out, '\\', 'u', lowerHex[(r>>12)&0xf], lowerHex[(r>>8)&0xf], lowerHex[(r>>4)&0xf], lowerHex[r&0xf])
		b = b[i+size:]
		i = firstJSONUnsafe(b)
	}
	return append(out, b...)
}

// lowerHex writes escapes the way encoding/json does (\u001b).
const lowerHex = "0123456789abcdef"

// firstJSONUnsafe is the offset of the first rune EscapeJSONText
// rewrites, or -1.
func firstJSONUnsafe(b []byte) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError && unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// InertJSON wraps w so that every JSON document written through it gets
// EscapeJSONText. Give it to json.NewEncoder, which writes each encoded
// value whole in one call.
func InertJSON(w io.Writer) io.Writer { return inertJSONWriter{w} }

type inertJSONWriter struct{ w io.Writer }

func (j inertJSONWriter) Write(p []byte) (int, error) {
	q := EscapeJSONText(p)
	if _, err := j.w.Write(q); err != nil {
		return 0, err
	}
	return len(p), nil
}
