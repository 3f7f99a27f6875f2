package rules

import (
	"bytes"

	"github.com/triage-dev/triage/internal/triage"
)

// maxAsIsDepth bounds the nesting canonicalAsIs follows; deeper values
// take the canonicaliser, which has its own (larger) bound.
const maxAsIsDepth = 16

// canonicalAsIs reports whether raw is already its own loop key, that is
// triage.ArgsKey(raw) == string(raw): no space, object keys in strictly
// increasing order, strings of printable ASCII without escapes, integers
// without a sign on zero, no floats. Most harnesses write arguments that
// way, and checking it is a scan without the canonicaliser's copying, so
// the loop detector compares such arguments as they stand. It may say
// false for a canonical value (a float, an escape); it never says true
// for one that is not, which FuzzCanonicalAsIs checks.
func canonicalAsIs(raw []byte) bool {
	end, ok := asIsValue(raw, 0, 0)
	return ok && end == len(raw)
}

// asIsValue checks the value at s[i:] and returns the index after it.
func asIsValue(s []byte, i, depth int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	switch c := s[i]; {
	case c == '"':
		return asIsString(s, i)
	case c == '{':
		return asIsObject(s, i, depth)
	case c == '[':
		return asIsArray(s, i, depth)
	case c == 't':
		return asIsLit(s, i, "true")
	case c == 'f':
		return asIsLit(s, i, "false")
	case c == 'n':
		return asIsLit(s, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return asIsInt(s, i)
	}
	return i, false
}

func asIsLit(s []byte, i int, word string) (int, bool) {
	if len(s)-i >= len(word) && string(s[i:i+len(word)]) == word {
		return i + len(word), true
	}
	return i, false
}

// asIsString accepts a string of printable ASCII other than quote and
// backslash, which the canonicaliser copies unchanged.
func asIsString(s []byte, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return j + 1, true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return j, false
		}
	}
	return len(s), false
}

// asIsInt accepts an integer literal in its canonical spelling: digits
// without a leading zero, a minus sign unless the value is zero, and no
// fraction or exponent (floats are re-spelled by the canonicaliser).
func asIsInt(s []byte, i int) (int, bool) {
	neg := s[i] == '-'
	if neg {
		i++
	}
	if i >= len(s) || s[i] < '0' || s[i] > '9' {
		return i, false
	}
	if s[i] == '0' {
		if neg {
			return i, false // -0 is spelled 0
		}
		i++
	} else {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
		return i, false
	}
	return i, true
}

// asIsObject accepts an object whose keys are in strictly increasing
// byte order (quotes included, as the canonicaliser compares them): then
// sorting keeps their order and no repeated key is dropped.
func asIsObject(s []byte, i, depth int) (int, bool) {
	if depth >= maxAsIsDepth {
		return i, false
	}
	i++ // {
	if i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	var prev []byte
	for {
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		ks := i
		var ok bool
		if i, ok = asIsString(s, i); !ok {
			return i, false
		}
		key := s[ks:i]
		if prev != nil && bytes.Compare(prev, key) >= 0 {
			return i, false
		}
		prev = key
		if i >= len(s) || s[i] != ':' {
			return i, false
		}
		if i, ok = asIsValue(s, i+1, depth+1); !ok {
			return i, false
		}
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func asIsArray(s []byte, i, depth int) (int, bool) {
	if depth >= maxAsIsDepth {
		return i, false
	}
	i++ // [
	if i < len(s) && s[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = asIsValue(s, i, depth+1); !ok {
			return i, false
		}
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ',':
			i++
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// loopKey returns the loop key of raw: raw itself when it is already
// canonical, otherwise triage.AppendArgsKey's key built in buffer slot
// of *keys, taken from the pool if *keys is nil.
func loopKey(keys **keyBuf, slot int, raw []byte) []byte {
	if canonicalAsIs(raw) {
		return raw
	}
	if *keys == nil {
		*keys = keyBufs.Get().(*keyBuf)
	}
	k := *keys
	k.b[slot] = triage.AppendArgsKey(k.b[slot][:0], raw)
	return k.b[slot]
}
