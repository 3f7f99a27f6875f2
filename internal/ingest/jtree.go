package ingest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The harness decoders read whole documents with encoding/json, whose
// scanner looks at every byte three times (the stream's readValue, the
// value's decode, the skip over fields we drop) at about 50 MB per
// CPU-second. jtree is their fast path: one strict pass over a document in
// memory builds a flat tree of byte ranges, and the decoders read what
// they need from it. It accepts only what encoding/json accepts and reads
// values the way encoding/json would decode them into the decoders' own
// structs; wherever that would take more than a plain reading (a key
// matched only by case folding, a duplicate key, a value of another type,
// nesting deeper than jtreeMaxDepth), the tree says so (jdoc.bad) and the
// decoder reads the file again with encoding/json, so errors, positions and
// every corner of behaviour stay encoding/json's.

// jkind is the kind of a jtree node.
type jkind uint8

const (
	jNull jkind = iota + 1
	jFalse
	jTrue
	jNumber
	jString
	jArray
	jObject
)

// jtreeMaxDepth bounds nesting; deeper documents go to encoding/json (its
// own limit is 10,000).
const jtreeMaxDepth = 512

// jnode is one value of a document: data[start:end] are its bytes (a
// string's include its quotes), next is the index of the node after its
// subtree. An object's children alternate key and value.
type jnode struct {
	start, end int32
	next       int32
	kind       jkind
	// plain says a string holds no escape and no byte above 0x7f, so its
	// text is its bytes.
	plain bool
}

// jdoc is a parsed document.
type jdoc struct {
	data  []byte
	nodes []jnode
	stack []int32
	// bad is set when a reading met something the fast path leaves to
	// encoding/json; the caller then decodes the document the slow way.
	bad bool
}

var jdocPool = sync.Pool{New: func() any { return new(jdoc) }}

// getJdoc takes a jdoc from the pool; putJdoc gives it back.
func getJdoc() *jdoc { return jdocPool.Get().(*jdoc) }

func putJdoc(d *jdoc) {
	d.data = nil
	d.bad = false
	if cap(d.nodes) > 1<<20 {
		d.nodes = nil
	}
	jdocPool.Put(d)
}

// parse reads one JSON value from b[i:] (leading whitespace skipped) and
// returns the index after it; the root is node 0. ok is false when the
// value is not valid JSON or is nested too deep.
func (d *jdoc) parse(b []byte, i int) (end int, ok bool) {
	d.data = b
	d.nodes = d.nodes[:0]
	d.stack = d.stack[:0]
	d.bad = false
	if len(b) > 1<<31-1 {
		return 0, false
	}
	i = skipSpace(b, i)
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return i, false
		}
		c := b[i]
		n := int32(len(d.nodes))
		switch c {
		case '"':
			e, plain, ok := jscanString(b, i+1)
			if !ok {
				return i, false
			}
			d.nodes = append(d.nodes, jnode{start: int32(i), end: int32(e), next: n + 1, kind: jString, plain: plain})
			i = e
		case '{', '[':
			if len(d.stack) >= jtreeMaxDepth {
				return i, false
			}
			k := jArray
			if c == '{' {
				k = jObject
			}
			d.nodes = append(d.nodes, jnode{start: int32(i), kind: k})
			d.stack = append(d.stack, n)
			i = skipSpace(b, i+1)
			if i < len(b) && (c == '{' && b[i] == '}' || c == '[' && b[i] == ']') {
				d.stack = d.stack[:len(d.stack)-1]
				d.nodes[n].end = int32(i + 1)
				d.nodes[n].next = n + 1
				i++
				break
			}
			if c == '{' {
				var ok bool
				if i, ok = d.key(b, i); !ok {
					return i, false
				}
			}
			continue
		case 't':
			if !hasWord(b, i, "true") {
				return i, false
			}
			d.nodes = append(d.nodes, jnode{start: int32(i), end: int32(i + 4), next: n + 1, kind: jTrue})
			i += 4
		case 'f':
			if !hasWord(b, i, "false") {
				return i, false
			}
			d.nodes = append(d.nodes, jnode{start: int32(i), end: int32(i + 5), next: n + 1, kind: jFalse})
			i += 5
		case 'n':
			if !hasWord(b, i, "null") {
				return i, false
			}
			d.nodes = append(d.nodes, jnode{start: int32(i), end: int32(i + 4), next: n + 1, kind: jNull})
			i += 4
		default:
			e, ok := scanNumber(b, i)
			if !ok {
				return i, false
			}
			d.nodes = append(d.nodes, jnode{start: int32(i), end: int32(e), next: n + 1, kind: jNumber})
			i = e
		}
		// A value ended before b[i]: close containers until one goes on.
		for {
			i = skipSpace(b, i)
			if len(d.stack) == 0 {
				return i, true
			}
			if i >= len(b) {
				return i, false
			}
			top := d.stack[len(d.stack)-1]
			obj := d.nodes[top].kind == jObject
			c := b[i]
			if c == ',' {
				i = skipSpace(b, i+1)
				if obj {
					var ok bool
					if i, ok = d.key(b, i); !ok {
						return i, false
					}
				}
				break
			}
			if obj && c == '}' || !obj && c == ']' {
				d.stack = d.stack[:len(d.stack)-1]
				d.nodes[top].end = int32(i + 1)
				d.nodes[top].next = int32(len(d.nodes))
				i++
				continue
			}
			return i, false
		}
	}
}

// key reads an object's key and its colon at b[i] and returns the index
// of the value.
func (d *jdoc) key(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	e, plain, ok := jscanString(b, i+1)
	if !ok {
		return i, false
	}
	n := int32(len(d.nodes))
	d.nodes = append(d.nodes, jnode{start: int32(i), end: int32(e), next: n + 1, kind: jString, plain: plain})
	i = skipSpace(b, e)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

// jscanString reads a string whose opening quote is before b[i] and
// returns the index after its closing quote, and whether it is plain. It
// checks what encoding/json's scanner checks (escapes, no control bytes),
// and like it not UTF-8.
func jscanString(b []byte, i int) (end int, plain, ok bool) {
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
	return i, false, false
found:
	switch c := b[i]; {
	case c == '"':
		return i + 1, true, true
	case c < 0x20:
		return i, false, false
	}
	e, ok := scanString(b, i)
	return e, false, ok
}

// first is the index of container v's first child, or -1 when it is
// empty.
func (d *jdoc) first(v int32) int32 {
	if v+1 >= d.nodes[v].next {
		return -1
	}
	return v + 1
}

// after is the index of the sibling after node c inside container v, or
// -1 at its end.
func (d *jdoc) after(v, c int32) int32 {
	n := d.nodes[c].next
	if n >= d.nodes[v].next {
		return -1
	}
	return n
}

// raw is node v's bytes, as encoding/json hands a json.RawMessage (a view
// of the document: copy what outlives it).
func (d *jdoc) raw(v int32) json.RawMessage {
	n := &d.nodes[v]
	return d.data[n.start:n.end:n.end]
}

// text is string node v's text, read as encoding/json unquotes it
// (invalid UTF-8 and lone surrogates become U+FFFD).
func (d *jdoc) text(v int32) string {
	n := &d.nodes[v]
	s := d.data[n.start+1 : n.end-1]
	if n.plain {
		return string(s)
	}
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s)
	}
	return string(jUnquote(s))
}

// jUnquote is encoding/json's unquoteBytes for the content of a string
// the scanner accepted.
func jUnquote(s []byte) []byte {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := jGetu4(s[r-1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					if rr1 := jGetu4(s[r:]); rr1 >= 0 {
						if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
							r += 6
							b = utf8.AppendRune(b, dec)
							continue
						}
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // '"', '\\', '/'
				b = append(b, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b
}

// jGetu4 is encoding/json's getu4: the rune of a \uXXXX escape at the
// start of s, or -1.
func jGetu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// jfields is a struct's JSON field names, for reading an object's keys
// the way encoding/json matches them to the struct.
type jfields []string

// fields calls fn with the field index and value node of each key of
// object v that names one of fs exactly. A key encoding/json would match
// only by folding case, or a field named twice, sets d.bad (encoding/json
// would merge or overwrite; the slow path does that).
func (d *jdoc) fields(v int32, fs jfields, fn func(f int, val int32)) {
	var seen uint64
	for k := d.first(v); k >= 0; {
		val := d.nodes[k].next
		f := d.field(k, fs)
		switch {
		case f == -2:
			d.bad = true
			return
		case f >= 0:
			if seen&(1<<f) != 0 {
				d.bad = true
				return
			}
			seen |= 1 << f
			fn(f, val)
			if d.bad {
				return
			}
		}
		k = d.after(v, val)
	}
}

// field is the index of the field key node k names exactly, -1 for
// none, -2 for one it names only by folding case.
func (d *jdoc) field(k int32, fs jfields) int {
	n := &d.nodes[k]
	var key []byte
	if n.plain {
		key = d.data[n.start+1 : n.end-1]
	} else {
		key = []byte(d.text(k))
	}
	for i, f := range fs {
		if string(key) == f {
			return i
		}
	}
	for _, f := range fs {
		if jfoldEqual(key, f) {
			return -2
		}
	}
	return -1
}

// jfoldEqual is encoding/json's foldName(key) == foldName(name).
func jfoldEqual(key []byte, name string) bool {
	ascii := true
	for _, c := range key {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return len(key) == len(name) && bytes.EqualFold(key, []byte(name))
	}
	return bytes.Equal(jfoldName(key), jfoldName([]byte(name)))
}

// jfoldName is encoding/json's appendFoldedName.
func jfoldName(in []byte) []byte {
	var out []byte
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}

// The readers below decode node v into a fresh (zero) Go value as
// encoding/json would; a value it would refuse sets d.bad.

// str reads a string field: null leaves it "".
func (d *jdoc) str(v int32) string {
	switch d.nodes[v].kind {
	case jString:
		return d.text(v)
	case jNull:
		return ""
	}
	d.bad = true
	return ""
}

// strPtr reads a *string field: null is nil.
func (d *jdoc) strPtr(v int32) *string {
	switch d.nodes[v].kind {
	case jString:
		s := d.text(v)
		return &s
	case jNull:
		return nil
	}
	d.bad = true
	return nil
}

// boolean reads a bool field: null leaves it false.
func (d *jdoc) boolean(v int32) bool {
	switch d.nodes[v].kind {
	case jTrue:
		return true
	case jFalse, jNull:
		return false
	}
	d.bad = true
	return false
}

// boolPtr reads a *bool field.
func (d *jdoc) boolPtr(v int32) *bool {
	switch d.nodes[v].kind {
	case jTrue:
		return ptr(true)
	case jFalse:
		return ptr(false)
	case jNull:
		return nil
	}
	d.bad = true
	return nil
}

// num is number node v's text, or "" (and d.bad) for another kind.
func (d *jdoc) num(v int32) (string, bool) {
	n := &d.nodes[v]
	switch n.kind {
	case jNumber:
		return string(d.data[n.start:n.end]), true
	case jNull:
		return "", false
	}
	d.bad = true
	return "", false
}

// f64Ptr reads a *float64 field.
func (d *jdoc) f64Ptr(v int32) *float64 {
	s, ok := d.num(v)
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		d.bad = true
		return nil
	}
	return &f
}

// i64 reads an int64 field: null leaves it 0.
func (d *jdoc) i64(v int32) int64 {
	s, ok := d.num(v)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		d.bad = true
		return 0
	}
	return n
}

// i64Ptr reads a *int64 field.
func (d *jdoc) i64Ptr(v int32) *int64 {
	if d.nodes[v].kind == jNull {
		return nil
	}
	n := d.i64(v)
	if d.bad {
		return nil
	}
	return &n
}

// intPtr reads a *int field (int is 64 bits wide here).
func (d *jdoc) intPtr(v int32) *int {
	if d.nodes[v].kind == jNull {
		return nil
	}
	n := d.i64(v)
	if d.bad || int64(int(n)) != n {
		d.bad = true
		return nil
	}
	return ptr(int(n))
}

// object says whether node v decodes into a struct: an object (true), or
// null, which leaves the struct as it is (false). Any other kind sets
// d.bad.
func (d *jdoc) object(v int32) bool {
	switch d.nodes[v].kind {
	case jObject:
		return true
	case jNull:
		return false
	}
	d.bad = true
	return false
}

// contentText is contentText(d.raw(v)) without decoding v again.
func (d *jdoc) contentText(v int32) string {
	switch d.nodes[v].kind {
	case jNull:
		return ""
	case jString:
		return d.text(v)
	case jArray:
		var parts []string
		for c := d.first(v); c >= 0; c = d.after(v, c) {
			if t := d.blockText(c); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	case jObject:
		if t := d.blockText(v); t != "" {
			return t
		}
	}
	return string(d.raw(v))
}

var blockFields = jfields{"type", "text", "content"}

// blockText is blockText(d.raw(v)): a block encoding/json cannot decode
// into {type, text, content} gives "".
func (d *jdoc) blockText(v int32) string {
	switch d.nodes[v].kind {
	case jString:
		return d.text(v)
	case jObject:
	default:
		return ""
	}
	var text *string
	content := int32(-1)
	mismatch := false
	d.fields(v, blockFields, func(f int, val int32) {
		k := d.nodes[val].kind
		switch f {
		case 0:
			mismatch = mismatch || k != jString && k != jNull
		case 1:
			switch k {
			case jString:
				s := d.text(val)
				text = &s
			case jNull:
			default:
				mismatch = true
			}
		case 2:
			content = val
		}
	})
	if d.bad || mismatch {
		return ""
	}
	if text != nil {
		return *text
	}
	if content >= 0 {
		return d.contentText(content)
	}
	return ""
}
