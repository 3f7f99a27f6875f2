package ingest

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/valyala/fastjson/fastfloat"
)

// scanText reads a string whose opening quote is before b[i] and returns
// the index of its closing quote and whether it holds escapes. It checks
// what the untrusted path checks: valid escapes, no control bytes and
// valid UTF-8 (bytes above 0x7f can only be in strings in valid JSON, so
// checking them here checks the whole row).
func scanText(b []byte, i int) (end int, esc, ok bool) {
	for {
		for i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			if m := special(w) | w&high; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			i += 8
		}
		for ; i < len(b); i++ {
			if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
				goto found
			}
		}
		return i, esc, false
	found:
		switch c := b[i]; {
		case c == '"':
			return i, esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return i, esc, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, esc, false
				}
				i += 6
			default:
				return i, esc, false
			}
		case c >= 0x80:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return i, esc, false
			}
			i += n
		default: // a control byte
			return i, esc, false
		}
	}
}

// skipJSON checks the JSON value at b[i] and returns the index after
// it, and whether whitespace lies between its tokens (then its compact
// form, which is what fastjson marshals, differs from its bytes).
func skipJSON(b []byte, i, depth int) (end int, ws, ok bool) {
	if i >= len(b) {
		return i, false, false
	}
	switch c := b[i]; c {
	case '"':
		end, _, ok := scanText(b, i+1)
		return end + 1, false, ok
	case '{', '[':
		if depth >= maxDirectDepth {
			return i, false, false
		}
		obj := c == '{'
		closing := byte(']')
		if obj {
			closing = '}'
		}
		j := skipSpace(b, i+1)
		ws = j != i+1
		if j < len(b) && b[j] == closing {
			return j + 1, ws, true
		}
		for {
			i = j
			if obj {
				if i >= len(b) || b[i] != '"' {
					return i, ws, false
				}
				e, _, ok := scanText(b, i+1)
				if !ok {
					return e, ws, false
				}
				i = skipSpace(b, e+1)
				ws = ws || i != e+1
				if i >= len(b) || b[i] != ':' {
					return i, ws, false
				}
				j = skipSpace(b, i+1)
				ws = ws || j != i+1
				i = j
			}
			var w bool
			if i, w, ok = skipJSON(b, i, depth+1); !ok {
				return i, ws, false
			}
			j = skipSpace(b, i)
			ws = ws || w || j != i
			if j >= len(b) {
				return j, ws, false
			}
			if b[j] == closing {
				return j + 1, ws, true
			}
			if b[j] != ',' {
				return j, ws, false
			}
			i = j + 1
			j = skipSpace(b, i)
			ws = ws || j != i
		}
	case 't':
		return i + 4, false, hasWord(b, i, "true")
	case 'f':
		return i + 5, false, hasWord(b, i, "false")
	case 'n':
		return i + 4, false, hasWord(b, i, "null")
	}
	end, ok = scanNumber(b, i)
	return end, false, ok
}

// appendCompact appends the checked JSON value v without the whitespace
// between its tokens, which is what fastjson's MarshalTo writes for a
// value it parsed and never unescaped: strings keep their bytes.
func appendCompact(dst, v []byte) []byte {
	for i := 0; i < len(v); {
		switch v[i] {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			end, _, _ := scanText(v, i+1)
			dst = append(dst, v[i:end+1]...)
			i = end + 1
		default:
			j := i + 1
			for j < len(v) && v[j] != '"' && v[j] != ' ' && v[j] != '\t' && v[j] != '\n' && v[j] != '\r' {
				j++
			}
			dst = append(dst, v[i:j]...)
			i = j
		}
	}
	return dst
}

// appendUnescaped appends the text of a checked string's content s the
// way fastjson's unescapeStringBestEffort reads it, quirks included: a
// lone surrogate escape stays as its six bytes, and a surrogate followed
// by any \u escape becomes one rune (U+FFFD when the pair is invalid).
func appendUnescaped(dst, s []byte) []byte {
	for {
		n := bytes.IndexByte(s, '\\')
		if n < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:n]...)
		ch := s[n+1]
		s = s[n+2:]
		switch ch {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			x := hex4(s)
			xs := s[:4]
			s = s[4:]
			if !utf16.IsSurrogate(x) {
				dst = utf8.AppendRune(dst, x)
				break
			}
			if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
				dst = append(dst, '\\', 'u')
				dst = append(dst, xs...)
				break
			}
			dst = utf8.AppendRune(dst, utf16.DecodeRune(x, hex4(s[2:])))
			s = s[6:]
		default: // '"', '\\', '/'
			dst = append(dst, ch)
		}
	}
}

// hex4 reads four checked hex digits.
func hex4(s []byte) rune {
	var x rune
	for _, c := range s[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		x = x<<4 | rune(c)
	}
	return x
}

// directString reads the string at b[i] as the tree decoder's
// GetStringBytes would give it.
func (d *rowDecoder) directString(b []byte, i int) (string, int, bool) {
	if b[i] != '"' {
		return "", i, false
	}
	end, esc, ok := scanText(b, i+1)
	if !ok {
		return "", end, false
	}
	if !esc {
		return string(b[i+1 : end]), end + 1, true
	}
	u := appendUnescaped(make([]byte, 0, end-i-1), b[i+1:end])
	if len(u) == 0 {
		return "", end + 1, true
	}
	// u is never written again, so it can back the string.
	return unsafe.String(unsafe.SliceData(u), len(u)), end + 1, true
}

// directText reads a field the tree decoder reads with optText: text as
// text, any other value but null as its compact JSON, nothing in lite
// mode (where the value is still checked).
func (d *rowDecoder) directText(b []byte, i int, depth int) (string, int, bool) {
	switch {
	case b[i] == 'n':
		return "", i + 4, hasWord(b, i, "null")
	case d.lite:
		end, _, ok := skipJSON(b, i, depth)
		return "", end, ok
	case b[i] == '"':
		return d.directString(b, i)
	}
	return compactString(b, i, depth)
}

// compactString checks the value at b[i] and returns its compact JSON.
func compactString(b []byte, i, depth int) (string, int, bool) {
	end, ws, ok := skipJSON(b, i, depth)
	if !ok {
		return "", end, false
	}
	if !ws {
		return string(b[i:end]), end, true
	}
	c := appendCompact(make([]byte, 0, end-i), b[i:end])
	return unsafe.String(unsafe.SliceData(c), len(c)), end, true
}

// numberText checks the number at b[i] and returns its text, viewing b.
func numberText(b []byte, i int) (string, int, bool) {
	end, ok := scanNumber(b, i)
	if !ok || end <= i {
		return "", end, false
	}
	return unsafe.String(&b[i], end-i), end, true
}

// directInt reads an integral number as intValue does, with the same
// parsers, so that 3, 3.0 and 3e0 read alike and nothing else is taken.
func directInt(b []byte, i int) (int64, int, bool) {
	s, end, ok := numberText(b, i)
	if !ok {
		return 0, end, false
	}
	if n, err := fastfloat.ParseInt64(s); err == nil {
		return n, end, true
	}
	f, err := fastfloat.Parse(s)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, end, false
	}
	return int64(f), end, true
}

// directFloat reads a finite number with fastjson's own parser, so the
// value is bit for bit the tree decoder's.
func directFloat(b []byte, i int) (float64, int, bool) {
	s, end, ok := numberText(b, i)
	if !ok {
		return 0, end, false
	}
	f, err := fastfloat.Parse(s)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, end, false
	}
	return f, end, true
}

// memberValue steps from a key's closing quote at b[i] over the colon to
// the member's value, which must exist.
func memberValue(b []byte, i int) (int, bool) {
	i = skipSpace(b, i+1)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	i = skipSpace(b, i+1)
	return i, i < len(b)
}

// nextMember steps from the end of a value over ',' (more is true and i
// is at the next member) or over the container's closing byte.
func nextMember(b []byte, i int, closing byte) (next int, more, ok bool) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return i, false, false
	}
	switch b[i] {
	case ',':
		i = skipSpace(b, i+1)
		return i, true, i < len(b)
	case closing:
		return i + 1, false, true
	}
	return i, false, false
}

// openContainer steps over the '{' or '[' at b[i] and reports whether
// the container is empty (then next is after its closing byte).
func openContainer(b []byte, i int, closing byte) (next int, empty bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == closing {
		return i + 1, true
	}
	return i, false
}
