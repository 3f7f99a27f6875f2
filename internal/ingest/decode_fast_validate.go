package ingest

import (
	"encoding/binary"
	"math/bits"
)

// fastValidDepth is how deep validJSON follows nesting; deeper rows are
// left to fastjson.ValidateBytes, which has no limit of its own, so a
// deep row is judged exactly as before rather than rejected here.
const fastValidDepth = 64 * 8

// validJSON reports whether b is one JSON value (RFC 8259) with optional
// whitespace around it. It is a strict, single-pass check written to be
// fast on strings, which are most of a row's bytes: it looks at 8 bytes
// at a time for '"', '\\' and control bytes.
//
// It only ever answers "certainly valid": whatever it accepts,
// fastjson.ValidateBytes accepts too (FuzzValidJSON holds that), so a
// false answer means "ask fastjson", which also words the error. It does
// not check UTF-8; the decoder does that first.
func validJSON(b []byte) bool {
	// stack holds one bit per open container: 1 for an object.
	var stack [fastValidDepth / 64]uint64
	depth := 0
	key := false // the string at b[i] is an object's key
	i := skipSpace(b, 0)
	for {
		// A value, or a key when key is set, starts at b[i].
		if i >= len(b) {
			return false
		}
		c := b[i]
		if key && c != '"' {
			return false
		}
		switch {
		case c == '"':
			// Most strings are short and plain: look for their end here,
			// 8 bytes at a time, and leave escapes to scanString.
			i++
			for {
				if i+8 > len(b) {
					var ok bool
					if i, ok = scanString(b, i); !ok {
						return false
					}
					break
				}
				m := special(binary.LittleEndian.Uint64(b[i:]))
				if m == 0 {
					i += 8
					continue
				}
				i += bits.TrailingZeros64(m) >> 3
				if b[i] == '"' {
					i++
					break
				}
				var ok bool
				if i, ok = scanString(b, i); !ok {
					return false
				}
				break
			}
			if key {
				i = skipSpace(b, i)
				if i >= len(b) || b[i] != ':' {
					return false
				}
				i = skipSpace(b, i+1)
				key = false
				continue
			}
		case c == '{' || c == '[':
			if depth == fastValidDepth {
				return false
			}
			obj := c == '{'
			i = skipSpace(b, i+1)
			if i < len(b) && (obj && b[i] == '}' || !obj && b[i] == ']') {
				i++
				break
			}
			w, bit := depth>>6, uint64(1)<<(depth&63)
			if obj {
				stack[w] |= bit
			} else {
				stack[w] &^= bit
			}
			depth++
			key = obj
			continue
		case c == 't':
			if !hasWord(b, i, "true") {
				return false
			}
			i += 4
		case c == 'f':
			if !hasWord(b, i, "false") {
				return false
			}
			i += 5
		case c == 'n':
			if !hasWord(b, i, "null") {
				return false
			}
			i += 4
		default:
			var ok bool
			if i, ok = scanNumber(b, i); !ok {
				return false
			}
		}
		// A value ended before b[i]: close containers until one continues.
		for {
			i = skipSpace(b, i)
			if depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			d := depth - 1
			obj := stack[d>>6]&(1<<(d&63)) != 0
			c := b[i]
			if c == ',' {
				i = skipSpace(b, i+1)
				key = obj
				break
			}
			if obj && c == '}' || !obj && c == ']' {
				depth = d
				i++
				continue
			}
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ' ', '\n', '\t', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func hasWord(b []byte, i int, w string) bool {
	return len(b)-i >= len(w) && string(b[i:i+len(w)]) == w
}

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// special marks, in each byte's high bit, the bytes of w that are '"',
// '\\' or below 0x20. Borrows can mark a byte above a marked one wrongly,
// never one below, so the lowest mark is exact, and that is all we use.
// Flipping bit 1 maps '"' (0x22) to 0x20 and keeps control bytes below
// 0x20, so one "below 0x21" test finds both.
func special(w uint64) uint64 {
	q := w ^ (ones * 0x02)
	s := w ^ (ones * '\\')
	return ((q-ones*0x21)&^q | (s-ones)&^s) & high
}

// scanString reads the rest of a string whose opening quote is before
// b[i] (b[i] may be its first '\\' or control byte) and returns the
// index after its closing quote.
func scanString(b []byte, i int) (int, bool) {
	for {
		for i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			i += 8
		}
		for ; i < len(b); i++ {
			if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
				goto found
			}
		}
		return i, false
	found:
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default: // a control byte
			return i, false
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanNumber reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? from
// b[i]; what follows it is the caller's to judge.
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
