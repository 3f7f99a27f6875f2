package triage

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// CanonicalJSON returns a canonical form of the JSON value in raw: object
// keys sorted (a repeated key keeps its last value), no insignificant
// space, strings re-escaped, numbers normalised. Two values get the same
// form exactly when Python's json.dumps(json.loads(raw), sort_keys=True)
// gives them the same text, which is what the seed article's loop detector
// compares: 1 and 1.0 stay different, 1.0 and 10e-1 do not, "\u0041" and
// "A" do not, NaN and Infinity are accepted as Python accepts them. The
// form is only meant for equality, not for display.
func CanonicalJSON(raw []byte) (string, error) {
	b, err := AppendCanonicalJSON(nil, raw)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// AppendCanonicalJSON appends the canonical form of raw to dst, so hot
// paths can reuse a buffer instead of allocating a string per value.
func AppendCanonicalJSON(dst, raw []byte) ([]byte, error) {
	p := parsers.Get().(*canonParser)
	defer p.release()
	p.s, p.i = raw, 0
	p.space()
	out, err := p.value(dst, 0)
	if err != nil {
		return dst, err
	}
	p.space()
	if p.i != len(p.s) {
		return dst, p.errorf("unexpected %q after the value", p.s[p.i])
	}
	return out, nil
}

// ArgsKey returns the canonical key of a tool call's arguments as the seed
// article's loop detector sees them: missing arguments count as {} while an
// explicit null stays null. Arguments that are not valid JSON keep their
// raw bytes behind a prefix no canonical form starts with, so they still
// compare equal only to themselves.
func ArgsKey(raw []byte) string {
	return string(appendArgsKey(nil, raw))
}

// AppendArgsKey appends ArgsKey(raw) to dst, for a caller that compares
// many calls and keeps each key once instead of building a string a call.
func AppendArgsKey(dst, raw []byte) []byte {
	return appendArgsKey(dst, raw)
}

func appendArgsKey(dst, raw []byte) []byte {
	if len(raw) == 0 {
		return append(dst, "{}"...)
	}
	out, err := AppendCanonicalJSON(dst, raw)
	if err != nil {
		out = append(append(dst[:0], "!invalid:"...), raw...)
	}
	return out
}

// SameArgs reports whether two tool calls' arguments are the same to the
// seed's loop detector (ArgsKey equal): byte-equal arguments are, and only
// arguments spelled differently are canonicalised, into pooled buffers, so
// a loop over many calls allocates nothing.
func SameArgs(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	buf := argsBufs.Get().(*argsBuf)
	defer argsBufs.Put(buf)
	buf.a = appendArgsKey(buf.a[:0], a)
	buf.b = appendArgsKey(buf.b[:0], b)
	return bytes.Equal(buf.a, buf.b)
}

type argsBuf struct{ a, b []byte }

var argsBufs = sync.Pool{New: func() any { return new(argsBuf) }}

// maxCanonDepth bounds nesting so hostile input cannot exhaust the stack.
const maxCanonDepth = 512

type canonParser struct {
	s []byte
	i int
	// arena holds the keys and values of the objects being parsed, and
	// mems their offsets in it; both are reused from call to call, so
	// canonicalising allocates nothing once they have grown.
	arena []byte
	mems  []member
}

// member is one key and value of an object, as offsets into the arena:
// the key is arena[ks:ke], the value arena[ke:ve].
type member struct{ ks, ke, ve int }

// parsers reuses parsers and their arenas across calls.
var parsers = sync.Pool{New: func() any { return new(canonParser) }}

// release returns p to the pool, unless hostile input grew it too large
// to keep.
func (p *canonParser) release() {
	p.s = nil
	if cap(p.arena) > 1<<16 || cap(p.mems) > 1<<12 {
		return
	}
	p.arena, p.mems = p.arena[:0], p.mems[:0]
	parsers.Put(p)
}

func (p *canonParser) errorf(format string, a ...any) error {
	return fmt.Errorf("canonical json: offset %d: %s", p.i, fmt.Sprintf(format, a...))
}

func (p *canonParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *canonParser) lit(word string) bool {
	if len(p.s)-p.i >= len(word) && string(p.s[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

func (p *canonParser) value(dst []byte, depth int) ([]byte, error) {
	if depth > maxCanonDepth {
		return dst, p.errorf("nesting deeper than %d", maxCanonDepth)
	}
	if p.i >= len(p.s) {
		return dst, p.errorf("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(dst, depth)
	case c == '[':
		return p.array(dst, depth)
	case c == '"':
		start := len(dst)
		dst, err := p.str(dst)
		if err != nil {
			return dst[:start], err
		}
		return dst, nil
	case p.lit("true"):
		return append(dst, "true"...), nil
	case p.lit("false"):
		return append(dst, "false"...), nil
	case p.lit("null"):
		return append(dst, "null"...), nil
	case p.lit("NaN"):
		return append(dst, "NaN"...), nil
	case p.lit("Infinity"):
		return append(dst, "Infinity"...), nil
	case p.lit("-Infinity"):
		return append(dst, "-Infinity"...), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(dst)
	default:
		return dst, p.errorf("unexpected %q", c)
	}
}

// object parses an object's members into the arena past its current end,
// sorts them by key and appends the canonical object to dst. Callers that
// parse into the arena pass the arena itself as dst and take the result
// back as the arena: the output is built at the arena's end and moved
// down to dst's end, which append does with memmove.
func (p *canonParser) object(dst []byte, depth int) ([]byte, error) {
	p.i++ // {
	base, mbase := len(p.arena), len(p.mems)
	defer func() { p.arena, p.mems = p.arena[:base], p.mems[:mbase] }()
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return append(dst, "{}"...), nil
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return dst, p.errorf("expected a string key")
		}
		ks := len(p.arena)
		var err error
		if p.arena, err = p.str(p.arena); err != nil {
			return dst, err
		}
		ke := len(p.arena)
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return dst, p.errorf("expected ':'")
		}
		p.i++
		p.space()
		if p.arena, err = p.value(p.arena, depth+1); err != nil {
			return dst, err
		}
		p.mems = append(p.mems, member{ks, ke, len(p.arena)})
		p.space()
		if p.i >= len(p.s) {
			return dst, p.errorf("unterminated object")
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] == '}' {
			p.i++
			break
		}
		return dst, p.errorf("expected ',' or '}'")
	}
	// Python's dict keeps the last value of a repeated key.
	mems, a := p.mems[mbase:], p.arena
	slices.SortStableFunc(mems, func(x, y member) int { return bytes.Compare(a[x.ks:x.ke], a[y.ks:y.ke]) })
	out := len(p.arena)
	p.arena = append(p.arena, '{')
	n := 0
	for i, m := range mems {
		if i+1 < len(mems) && bytes.Equal(p.arena[mems[i+1].ks:mems[i+1].ke], p.arena[m.ks:m.ke]) {
			continue
		}
		if n > 0 {
			p.arena = append(p.arena, ',')
		}
		p.arena = append(p.arena, p.arena[m.ks:m.ke]...)
		p.arena = append(p.arena, ':')
		p.arena = append(p.arena, p.arena[m.ke:m.ve]...)
		n++
	}
	p.arena = append(p.arena, '}')
	return append(dst, p.arena[out:]...), nil
}

// array builds the canonical array at the arena's end, like object, so
// that objects inside it find the arena as long as everything parsed so
// far, and appends the result to dst.
func (p *canonParser) array(dst []byte, depth int) ([]byte, error) {
	p.i++ // [
	out := len(p.arena)
	defer func() { p.arena = p.arena[:out] }()
	p.arena = append(p.arena, '[')
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return append(dst, "[]"...), nil
	}
	for n := 0; ; n++ {
		if n > 0 {
			p.arena = append(p.arena, ',')
		}
		p.space()
		var err error
		if p.arena, err = p.value(p.arena, depth+1); err != nil {
			return dst, err
		}
		p.space()
		if p.i >= len(p.s) {
			return dst, p.errorf("unterminated array")
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] == ']' {
			p.i++
			p.arena = append(p.arena, ']')
			return append(dst, p.arena[out:]...), nil
		}
		return dst, p.errorf("expected ',' or ']'")
	}
}

// str decodes a JSON string and appends its canonical quoted form:
// printable ASCII as is, everything else as \uXXXX (surrogate pairs for
// astral code points, lone surrogates kept, as Python keeps them), and
// invalid UTF-8 bytes as \xNN, which no valid form contains.
func (p *canonParser) str(dst []byte) ([]byte, error) {
	p.i++ // opening quote
	dst = append(dst, '"')
	for {
		if p.i >= len(p.s) {
			return dst, p.errorf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return append(dst, '"'), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return dst, p.errorf("unterminated escape")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				dst = appendCanonRune(dst, rune(e))
			case 'b':
				dst = appendCanonRune(dst, '\b')
			case 'f':
				dst = appendCanonRune(dst, '\f')
			case 'n':
				dst = appendCanonRune(dst, '\n')
			case 'r':
				dst = appendCanonRune(dst, '\r')
			case 't':
				dst = appendCanonRune(dst, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return dst, p.errorf("bad \\u escape")
				}
				if r >= 0xD800 && r < 0xDC00 && p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					lo, ok := p.hex4()
					if ok && lo >= 0xDC00 && lo < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					} else {
						p.i = save
					}
				}
				dst = appendCanonRune(dst, r)
			default:
				return dst, p.errorf("bad escape \\%c", e)
			}
		case c < 0x20:
			// Python's json.loads rejects raw control characters too.
			return dst, p.errorf("control character in string")
		case c < utf8.RuneSelf && c != 0x7f:
			// A run of printable ASCII other than quote and backslash, most
			// of any string, is copied as it stands.
			j := p.i + 1
			for j < len(p.s) && p.s[j] >= 0x20 && p.s[j] < 0x7f && p.s[j] != '"' && p.s[j] != '\\' {
				j++
			}
			dst = append(dst, p.s[p.i:j]...)
			p.i = j
		case c < utf8.RuneSelf:
			p.i++
			dst = appendCanonRune(dst, rune(c))
		default:
			r, size := utf8.DecodeRune(p.s[p.i:])
			if r == utf8.RuneError && size <= 1 {
				dst = append(dst, '\\', 'x', hexDigit(c>>4), hexDigit(c&15))
				p.i++
				continue
			}
			p.i += size
			dst = appendCanonRune(dst, r)
		}
	}
}

func (p *canonParser) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.s[p.i : p.i+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	p.i += 4
	return r, true
}

func hexDigit(b byte) byte { return "0123456789abcdef"[b&15] }

func appendCanonRune(dst []byte, r rune) []byte {
	switch {
	case r == '"' || r == '\\':
		return append(dst, '\\', byte(r))
	case r >= 0x20 && r < 0x7f:
		return append(dst, byte(r))
	case r > 0xFFFF:
		r -= 0x10000
		dst = appendU(dst, 0xD800+(r>>10))
		return appendU(dst, 0xDC00+(r&0x3FF))
	default:
		return appendU(dst, r)
	}
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigit(byte(r>>12)), hexDigit(byte(r>>8)), hexDigit(byte(r>>4)), hexDigit(byte(r)))
}

var errBadNumber = errors.New("bad number")

// number keeps Python's split between int and float literals: an integer
// stays its exact digits (Python ints are unbounded), a float becomes the
// shortest exponent form of its float64 value, which always contains 'e'
// so it never collides with an integer.
func (p *canonParser) number(dst []byte) ([]byte, error) {
	start := p.i
	isFloat := false
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := p.i
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else {
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
	}
	if p.i == digits {
		return dst, p.errorf("%v", errBadNumber)
	}
	intEnd := p.i
	if p.i < len(p.s) && p.s[p.i] == '.' {
		isFloat = true
		p.i++
		d := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if p.i == d {
			return dst, p.errorf("%v", errBadNumber)
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		isFloat = true
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		d := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if p.i == d {
			return dst, p.errorf("%v", errBadNumber)
		}
	}
	if !isFloat {
		ds := p.s[digits:intEnd]
		if p.s[start] == '-' && string(ds) != "0" {
			dst = append(dst, '-')
		}
		return append(dst, ds...), nil
	}
	f, err := strconv.ParseFloat(string(p.s[start:p.i]), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return dst, p.errorf("%v", errBadNumber)
	}
	switch {
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...), nil
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...), nil
	}
	return strconv.AppendFloat(dst, f, 'e', -1, 64), nil
}
