package store

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/triage-dev/triage/internal/triage"
)

// DecodeVerdictRest reads a stored VerdictRest as json.Unmarshal would.
// Reading every verdict's evidence with json.Unmarshal was most of the
// time `traces` and `report` spent on root causes (docs/PERFORMANCE.md),
// so the bytes AppendVerdictRest and json.Marshal write (no whitespace,
// the keys in order or not, the escapes they use) are scanned here
// without reflection; anything else (whitespace, other escapes, keys in
// another case, numbers out of range, bad input) goes to json.Unmarshal,
// which gives the same value or the same error as before
// (FuzzDecodeVerdictRest holds the two to it).
func DecodeVerdictRest(body []byte) (VerdictRest, error) {
	d := restDecoder{b: body}
	if rest, ok := d.rest(); ok && d.i == len(body) {
		return rest, nil
	}
	var rest VerdictRest
	err := json.Unmarshal(body, &rest)
	return rest, err
}

// restDecoder scans one VerdictRest; every method reports false at the
// first byte it does not expect, and the caller falls back.
type restDecoder struct {
	b []byte
	i int
}

func (d *restDecoder) lit(s string) bool {
	if len(d.b)-d.i < len(s) || string(d.b[d.i:d.i+len(s)]) != s {
		return false
	}
	d.i += len(s)
	return true
}

func (d *restDecoder) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// object calls field for each key of an object, which must read the
// key's value. A key given twice falls back: json.Unmarshal decodes the
// second value over the first, keeping what the second leaves out.
func (d *restDecoder) object(field func(key []byte) bool) bool {
	if !d.lit("{") {
		return false
	}
	if d.lit("}") {
		return true
	}
	var seen [8][]byte
	n := 0
	for {
		key, ok := d.key()
		if !ok || !d.lit(":") || n == len(seen) {
			return false
		}
		for _, k := range seen[:n] {
			if string(k) == string(key) {
				return false
			}
		}
		seen[n], n = key, n+1
		if !field(key) {
			return false
		}
		if d.lit("}") {
			return true
		}
		if !d.lit(",") {
			return false
		}
	}
}

func (d *restDecoder) rest() (VerdictRest, bool) {
	var r VerdictRest
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "fired":
			var ok bool
			r.Fired, ok = d.strings()
			return ok
		case "evidence":
			var ok bool
			r.Evidence, ok = d.evidence()
			return ok
		case "unevaluated":
			var ok bool
			r.Unevaluated, ok = d.evidence()
			return ok
		}
		return false
	})
	return r, ok
}

// strings reads a list of strings or null (nil), as json.Unmarshal sets
// a nil slice from null.
func (d *restDecoder) strings() ([]string, bool) {
	if d.lit("null") {
		return nil, true
	}
	if !d.lit("[") {
		return nil, false
	}
	out := []string{}
	if d.lit("]") {
		return out, true
	}
	for {
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		out = append(out, s)
		if d.lit("]") {
			return out, true
		}
		if !d.lit(",") {
			return nil, false
		}
	}
}

func (d *restDecoder) evidence() ([]triage.Evidence, bool) {
	if d.lit("null") {
		return nil, true
	}
	if !d.lit("[") {
		return nil, false
	}
	out := []triage.Evidence{}
	if d.lit("]") {
		return out, true
	}
	for {
		var e triage.Evidence
		ok := d.object(func(key []byte) bool {
			var ok bool
			switch string(key) {
			case "rule":
				e.Rule, ok = d.str()
			case "message":
				e.Message, ok = d.str()
			case "tool_call":
				e.ToolCall, ok = d.int()
			case "file":
				e.File, ok = d.str()
			case "line":
				e.Line, ok = d.int()
			case "ident":
				e.Ident, ok = d.str()
			case "run_level":
				e.RunLevel, ok = d.bool()
			}
			return ok
		})
		if !ok {
			return nil, false
		}
		out = append(out, e)
		if d.lit("]") {
			return out, true
		}
		if !d.lit(",") {
			return nil, false
		}
	}
}

func (d *restDecoder) int() (int, bool) {
	j := d.i
	if d.peek() == '-' {
		d.i++
	}
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	// JSON numbers have no leading zeros; a fraction or an exponent is
	// json.Unmarshal's to refuse for an int.
	if d.i == start || d.b[start] == '0' && d.i-start > 1 || d.peek() == '.' || d.peek() == 'e' || d.peek() == 'E' {
		return 0, false
	}
	n, err := strconv.Atoi(string(d.b[j:d.i]))
	return n, err == nil
}

func (d *restDecoder) bool() (bool, bool) {
	switch {
	case d.lit("true"):
		return true, true
	case d.lit("false"):
		return false, true
	}
	return false, false
}

// key reads an object's key, without copying it: the keys this decoder
// knows hold no escapes, so one that does falls back.
func (d *restDecoder) key() ([]byte, bool) {
	if !d.lit(`"`) {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			return d.b[start : d.i-1], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
		d.i++
	}
	return nil, false
}

// str reads a string holding valid UTF-8 and only the escapes encoding/json
// writes: \" \\ \n \r \t \b \f, and \u for a control character, <, >,
// &, U+2028, U+2029 or U+FFFD (any \u outside the surrogates decodes
// the same; those, which json.Unmarshal pairs or replaces, fall back).
func (d *restDecoder) str() (string, bool) {
	if !d.lit(`"`) {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if !utf8.Valid(s) {
				return "", false
			}
			return string(s), true
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", false
		}
		d.i++
	}
	return "", false
}

// escaped finishes a string from its first backslash.
func (d *restDecoder) escaped(start int) (string, bool) {
	buf := append([]byte(nil), d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			if !utf8.Valid(buf) {
				return "", false
			}
			return string(buf), true
		case c < 0x20:
			return "", false
		case c != '\\':
			buf = append(buf, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", false
		}
		d.i += 2
		switch d.b[d.i-1] {
		case '"', '\\', '/':
			buf = append(buf, d.b[d.i-1])
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'u':
			if d.i+4 > len(d.b) {
				return "", false
			}
			r, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 16)
			if err != nil || r >= 0xd800 && r < 0xe000 {
				return "", false
			}
			d.i += 4
			buf = utf8.AppendRune(buf, rune(r))
		default:
			return "", false
		}
	}
	return "", false
}
