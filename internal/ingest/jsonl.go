package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/triage-dev/triage/internal/triage"
)

// rowDecoder turns one JSONL row into a trace. It is not safe for
// concurrent use: each pipeline worker owns one, reusing its parser.
type rowDecoder struct {
	p fastjson.Parser
	// lite decodes only what the store indexes (identity, outcome, costs,
	// tool call names) while still type-checking every field: import keeps
	// the row verbatim, so building every output string would be waste.
	lite bool
	// trusted skips validation and hashing for rows the store already
	// accepted once.
	trusted bool
	// names shares tool names, which repeat call after call; it stops
	// growing at maxNames so hostile input cannot make it large.
	names map[string]string
	// maxCalls, when positive, bounds the tool calls built (trusted rows
	// only); totalCalls counts every call of the row decoded last.
	maxCalls, totalCalls int
}

const maxNames = 512

// name returns b as a string, shared with earlier calls of the same name.
func (d *rowDecoder) name(b []byte) string {
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.names == nil {
		d.names = map[string]string{}
	}
	if len(d.names) < maxNames {
		d.names[s] = s
	}
	return s
}

// fieldName names a field for an error message, built only when a row is
// bad: formatting "tool_calls[3].output" for every call of every good row
// was a tenth of import's CPU time. It is passed by value, never boxed.
type fieldName struct {
	array string // "" for a top-level field
	i     int
	key   string
}

func plain(key string) fieldName { return fieldName{key: key} }

func (f fieldName) String() string {
	if f.array == "" {
		return f.key
	}
	s := f.array + "[" + strconv.Itoa(f.i) + "]"
	if f.key != "" {
		s += "." + f.key
	}
	return s
}

// elem is an element of an array field, e.g. tool_calls[3].
type elem struct {
	array string
	i     int
}

func (e elem) String() string { return fieldName{array: e.array, i: e.i}.String() }

// key names a member of the element, e.g. tool_calls[3].name.
func (e elem) key(k string) fieldName { return fieldName{array: e.array, i: e.i, key: k} }

// fieldError is a row problem pinned to a field, so the message reads
// "exit_code: want an integer, got string".
type fieldError struct {
	field, msg string
}

func (e *fieldError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return e.field + ": " + e.msg
}

func ferr(field, format string, a ...any) *fieldError {
	return &fieldError{field: field, msg: fmt.Sprintf(format, a...)}
}

// DecodeRow decodes one row of our JSONL trace format. defaultRun fills
// run_id when the row has none. The returned trace's Raw aliases raw.
func DecodeRow(raw []byte, defaultRun string) (*triage.Trace, error) {
	d := decoders.Get().(*rowDecoder)
	defer decoders.Put(d)
	d.lite, d.trusted = false, false
	return d.decode(raw, defaultRun)
}

// DecodeStored decodes a row the store accepted at import: it skips the
// strict validation and the content hash, which the store already keeps.
func DecodeStored(raw []byte, run string) (*triage.Trace, error) {
	return DecodeStoredCalls(raw, run, 0)
}

// DecodeStoredCalls is DecodeStored keeping at most maxCalls tool calls
// (all when maxCalls <= 0): the later calls are parsed past but never
// built, and the trace's ReadCut says how many there were. Rows are read
// so for the commands that read traces (rules, clusters, explain, the
// review screen): one trace of a million calls took 0.75 to 2.4 GB there.
// The first calls are the ones kept so that a kept call's index is its
// index in the stored row (steps and evidence point at calls by index).
func DecodeStoredCalls(raw []byte, run string, maxCalls int) (*triage.Trace, error) {
	d := decoders.Get().(*rowDecoder)
	defer decoders.Put(d)
	d.lite, d.trusted = false, true
	d.maxCalls, d.totalCalls = maxCalls, 0
	defer func() { d.maxCalls, d.totalCalls = 0, 0 }()
	t, err := d.decode(raw, run)
	if err == nil && maxCalls > 0 && d.totalCalls > len(t.ToolCalls) {
		t.ReadCut = &triage.ReadCut{Kept: len(t.ToolCalls), Total: d.totalCalls}
	}
	return t, err
}

// decoders reuses parsers: a fastjson.Parser keeps its value cache, which
// is most of the cost of a fresh one.
var decoders = sync.Pool{New: func() any { return new(rowDecoder) }}

func (d *rowDecoder) decode(raw []byte, defaultRun string) (*triage.Trace, error) {
	// The direct pass decodes a well-formed row in one go; for anything
	// else it defers to the tree decoder, which words every error.
	if t := d.directTrace(raw, defaultRun); t != nil {
		return t, nil
	}
	return d.decodeTree(raw, defaultRun)
}

// decodeTree decodes a row through a fastjson tree: the decoder of every
// row the direct pass is not sure of, and the reference it is tested on.
func (d *rowDecoder) decodeTree(raw []byte, defaultRun string) (*triage.Trace, error) {
	if !d.trusted {
		if i := bytes.IndexByte(raw, 0); i >= 0 {
			return nil, fmt.Errorf("NUL byte at column %d", i+1)
		}
		if !utf8.Valid(raw) {
			return nil, fmt.Errorf("invalid UTF-8 at column %d", invalidUTF8At(raw)+1)
		}
		// validJSON is much faster on strings; when it is unsure,
		// fastjson decides, and words the error as it always has.
		if !validJSON(raw) {
			if err := fastjson.ValidateBytes(raw); err != nil {
				return nil, syntaxError(raw, err)
			}
		}
	}
	v, err := d.p.ParseBytes(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if v.Type() != fastjson.TypeObject {
		return nil, fmt.Errorf("want a JSON object, got %s", typeName(v))
	}
	t := &triage.Trace{Source: "jsonl", Raw: raw}
	e := d.fill(t, v, defaultRun, false)
	if e == errDupKeys {
		// Only a stored row gets here (an untrusted one is rejected
		// naming the key): it was imported before duplicates were
		// refused, and reads back as it did then. The fast pass
		// unescaped keys in place, which changes what Get finds, so the
		// row is parsed afresh for the old way.
		if v, err = d.p.ParseBytes(raw); err != nil {
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		t = &triage.Trace{Source: "jsonl", Raw: raw}
		e = d.fill(t, v, defaultRun, true)
	}
	if e != nil {
		return nil, e
	}
	if !d.trusted {
		sum := sha256.Sum256(raw)
		t.ContentHash = hex.EncodeToString(sum[:])
	}
	return t, nil
}

// fill reads the row's fields. Unless slow is set it files the known
// keys in one pass first and returns errDupKeys if one repeats; slow
// looks each up with Get, as the decoder always did.
func (d *rowDecoder) fill(t *triage.Trace, v *fastjson.Value, defaultRun string, slow bool) error {
	var err error
	var f topFields
	if o, _ := v.Object(); slow {
		f.obj = o
	} else if dup := f.collectTop(o); dup >= 0 {
		if d.trusted {
			return errDupKeys
		}
		return dupKeyError(plain(topKeys[dup]))
	}
	tv := f.get(kTaskID)
	switch {
	case tv == nil:
		return ferr("task_id", "missing (every row needs a string task_id)")
	case tv.Type() != fastjson.TypeString:
		return ferr("task_id", "want a string, got %s", typeName(tv))
	}
	t.TaskID = string(tv.GetStringBytes())
	if t.TaskID == "" {
		return ferr("task_id", "empty")
	}
	if t.RunID, err = optString(f.get(kRunID), "run_id"); err != nil {
		return err
	}
	if t.RunID == "" {
		// The default comes from --run or the file's name, which need not
		// be UTF-8; the stored row, exports and labels carry it as JSON,
		// so it is made valid here once rather than changed on the way out.
		t.RunID = strings.ToValidUTF8(defaultRun, "\uFFFD")
	}
	if s := f.get(kSeed); s != nil && s.Type() != fastjson.TypeNull {
		n, err := intValue("seed", s)
		if err != nil {
			return err
		}
		if n < 0 || n > math.MaxInt32 {
			return ferr("seed", "%d is out of range (0 to %d)", n, math.MaxInt32)
		}
		t.Seed = int(n)
	}
	for _, x := range []struct {
		key int
		dst *string
	}{{kModel, &t.Model}, {kAgent, &t.Agent}, {kPromptID, &t.PromptID}} {
		if *x.dst, err = optString(f.get(x.key), topKeys[x.key]); err != nil {
			return err
		}
	}
	if ev := f.get(kExitCode); ev != nil && ev.Type() != fastjson.TypeNull {
		n, err := intValue("exit_code", ev)
		if err != nil {
			return err
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return ferr("exit_code", "%d is out of range", n)
		}
		c := int(n)
		t.ExitCode = &c
	}
	oc, err := optString(f.get(kOutcome), "outcome")
	if err != nil {
		return err
	}
	t.Outcome = triage.Outcome(oc)
	if t.Outcome != triage.OutcomeUnknown && !t.Outcome.Valid() {
		return ferr("outcome", "%q is not one of success, incomplete, failed, blocked", oc)
	}
	if err := d.toolCalls(t, f.get(kToolCalls)); err != nil {
		return err
	}
	if err := d.messages(t, f.get(kMessages)); err != nil {
		return err
	}
	for _, x := range []struct {
		key int
		dst **string
	}{{kAnswer, &t.Answer}, {kDiff, &t.Diff}, {kTestOutput, &t.TestOutput}} {
		if *x.dst, err = d.optStringPtr(f.get(x.key), topKeys[x.key]); err != nil {
			return err
		}
	}
	for _, x := range []struct {
		key int
		dst **bool
	}{
		{kWrittenTests, &t.WrittenTests}, {kTimeout, &t.Timeout},
		{kAssumedAPI, &t.AssumedAPI}, {kRequiredMissing, &t.RequiredMissing},
		{kAsked, &t.Asked}, {kOutsideAllowlist, &t.OutsideAllowlist},
	} {
		if *x.dst, err = optBool(f.get(x.key), topKeys[x.key]); err != nil {
			return err
		}
	}
	for _, x := range []struct {
		key int
		dst **float64
	}{{kWallS, &t.WallS}, {kWallCap, &t.WallCap}, {kCostUSD, &t.CostUSD}} {
		if *x.dst, err = optNumber(f.get(x.key), topKeys[x.key]); err != nil {
			return err
		}
	}
	if t.StopReason, err = optString(f.get(kStopReason), "stop_reason"); err != nil {
		return err
	}
	if sv := f.get(kScorer); sv != nil && sv.Type() != fastjson.TypeNull && !d.lite {
		if sv.Type() != fastjson.TypeObject {
			return ferr("scorer_report", "want an object, got %s", typeName(sv))
		}
		var rep triage.ScorerReport
		if err := json.Unmarshal(sv.MarshalTo(nil), &rep); err != nil {
			return ferr("scorer_report", "%s", triage.DescribeJSONError(nil, err))
		}
		t.Scorer = &rep
	}
	if tk := f.get(kTokens); tk != nil && tk.Type() != fastjson.TypeNull {
		if tk.Type() != fastjson.TypeObject {
			return ferr("tokens", "want an object {input, output}, got %s", typeName(tk))
		}
		if err := d.dupMember(tk, elem{}, tokensMember); err != nil {
			return err
		}
		var tok triage.Tokens
		for _, f := range []struct {
			name, field string
			dst         *int64
		}{{"input", "tokens.input", &tok.Input}, {"output", "tokens.output", &tok.Output}} {
			x := tk.Get(f.name)
			if x == nil || x.Type() == fastjson.TypeNull {
				continue
			}
			n, err := intValue(f.field, x)
			if err != nil {
				return err
			}
			if n < 0 {
				return ferr(f.field, "%d is negative", n)
			}
			*f.dst = n
		}
		t.Tokens = &tok
	}
	return nil
}

// The members of nested objects the decoder reads, as bits; 0 for a
// member it does not read.
func callMember(k []byte) int { return callKey(k) }

func messageMember(k []byte) int {
	switch string(k) {
	case "role":
		return 1
	case "content":
		return 2
	case "at":
		return 4
	}
	return 0
}

func tokensMember(k []byte) int {
	switch string(k) {
	case "input":
		return 1
	case "output":
		return 2
	}
	return 0
}

// dupMember rejects an object of the row naming a member the decoder
// reads twice (after unescaping): readers disagree on which value counts
// (Go's and fastjson's the first, Python's the last), so the row's
// meaning is not one thing. Stored rows, accepted before, are not
// checked. at names the object ("tool_calls[3]", or the zero elem for
// tokens).
func (d *rowDecoder) dupMember(v *fastjson.Value, at elem, member func([]byte) int) error {
	if d.trusted {
		return nil
	}
	o, _ := v.Object()
	seen, dup := 0, ""
	o.Visit(func(k []byte, _ *fastjson.Value) {
		if b := member(k); b != 0 && dup == "" {
			if seen&b != 0 {
				dup = string(k)
			}
			seen |= b
		}
	})
	if dup == "" {
		return nil
	}
	if at.array == "" {
		return dupKeyError(plain("tokens." + dup))
	}
	return dupKeyError(at.key(dup))
}

// dupKeyError is the reject of a row that names key twice.
func dupKeyError(key fieldName) error {
	return ferr(key.String(), "duplicate key: the object names it twice, and JSON readers disagree on which value counts")
}

func (d *rowDecoder) toolCalls(t *triage.Trace, tc *fastjson.Value) error {
	if tc == nil || tc.Type() == fastjson.TypeNull {
		return nil
	}
	if tc.Type() != fastjson.TypeArray {
		return ferr("tool_calls", "want an array, got %s", typeName(tc))
	}
	t.HasToolLog = true
	arr, _ := tc.Array()
	d.totalCalls = len(arr)
	if d.maxCalls > 0 && d.trusted && len(arr) > d.maxCalls {
		// A stored row is known good: the calls past the cap are not
		// read (see DecodeStoredCalls).
		arr = arr[:d.maxCalls]
	}
	t.ToolCalls = make([]triage.ToolCall, len(arr))
	// Every call's args are marshalled into one buffer: growing a fresh
	// slice per call was half of the decoder's allocations. A call's
	// slice is capped, so nothing appended later can reach into it.
	var args []byte
	if !d.lite {
		args = make([]byte, 0, 64*len(arr))
	}
	for i, c := range arr {
		field := elem{"tool_calls", i}
		if c.Type() != fastjson.TypeObject {
			return ferr(field.String(), "want an object, got %s", typeName(c))
		}
		call := &t.ToolCalls[i]
		if err := d.dupMember(c, field, callMember); err != nil {
			return err
		}
		f := newLookup(c)
		nv := f.get("name")
		switch {
		case nv == nil || nv.Type() == fastjson.TypeNull:
			return ferr(field.key("name").String(), "missing (every tool call needs a name)")
		case nv.Type() != fastjson.TypeString:
			return ferr(field.key("name").String(), "want a string, got %s", typeName(nv))
		}
		call.Name = d.name(nv.GetStringBytes())
		if call.Name == "" {
			return ferr(field.key("name").String(), "empty")
		}
		// Args stay raw: the rules compare bytes first and canonicalise
		// only calls that differ in spelling (the seed compares
		// json.dumps(call.get("args", {}), sort_keys=True)).
		if a := f.get("args"); a != nil && !d.lite {
			start := len(args)
			args = a.MarshalTo(args)
			call.Args = args[start:len(args):len(args)]
		}
		var err error
		if call.Output, err = d.optText(f.get("output"), field.key("output")); err != nil {
			return err
		}
		if call.Error, err = d.optText(f.get("error"), field.key("error")); err != nil {
			return err
		}
		if call.WallS, err = optNumberField(f.get("wall_s"), field.key("wall_s")); err != nil {
			return err
		}
		if ec := f.get("exit_code"); ec != nil && ec.Type() != fastjson.TypeNull {
			n, err := intValue(field.key("exit_code").String(), ec)
			if err != nil {
				return err
			}
			if n < math.MinInt32 || n > math.MaxInt32 {
				return ferr(field.key("exit_code").String(), "%d is out of range", n)
			}
			call.ExitCode = ptr(int(n))
		}
		if ts := f.get("ts"); ts != nil && ts.Type() != fastjson.TypeNull {
			if ts.Type() == fastjson.TypeString {
				call.TS = string(ts.GetStringBytes())
			} else {
				call.TS = string(ts.MarshalTo(nil))
			}
		}
	}
	return nil
}

func (d *rowDecoder) messages(t *triage.Trace, mv *fastjson.Value) error {
	if mv == nil || mv.Type() == fastjson.TypeNull {
		return nil
	}
	if mv.Type() != fastjson.TypeArray {
		return ferr("messages", "want an array, got %s", typeName(mv))
	}
	arr, _ := mv.Array()
	t.Messages = make([]triage.Message, len(arr))
	for i, m := range arr {
		field := elem{"messages", i}
		if m.Type() != fastjson.TypeObject {
			return ferr(field.String(), "want an object {role, content}, got %s", typeName(m))
		}
		if err := d.dupMember(m, field, messageMember); err != nil {
			return err
		}
		var err error
		if t.Messages[i].Role, err = d.optText(m.Get("role"), field.key("role")); err != nil {
			return err
		}
		if t.Messages[i].Content, err = d.optText(m.Get("content"), field.key("content")); err != nil {
			return err
		}
		if at := m.Get("at"); at != nil && at.Type() != fastjson.TypeNull {
			n, err := intValue(field.key("at").String(), at)
			if err != nil {
				return err
			}
			if n < 0 || n > math.MaxInt32 {
				return ferr(field.key("at").String(), "%d is out of range", n)
			}
			v := int(n)
			t.Messages[i].At = &v
		}
	}
	return nil
}

// optText reads a field that should be text. Harnesses put structured
// values (content blocks, objects) where text is expected; those are kept
// as their JSON rather than rejected, because a reviewer can still read them.
func (d *rowDecoder) optText(x *fastjson.Value, field fieldName) (string, error) {
	if x == nil || x.Type() == fastjson.TypeNull {
		return "", nil
	}
	if d.lite {
		return "", nil
	}
	switch x.Type() {
	case fastjson.TypeString:
		return string(x.GetStringBytes()), nil
	case fastjson.TypeObject, fastjson.TypeArray, fastjson.TypeNumber, fastjson.TypeTrue, fastjson.TypeFalse:
		return string(x.MarshalTo(nil)), nil
	}
	return "", ferr(field.String(), "want a string, got %s", typeName(x))
}

func optString(x *fastjson.Value, key string) (string, error) {
	if x == nil || x.Type() == fastjson.TypeNull {
		return "", nil
	}
	if x.Type() != fastjson.TypeString {
		return "", ferr(key, "want a string, got %s", typeName(x))
	}
	return string(x.GetStringBytes()), nil
}

func (d *rowDecoder) optStringPtr(x *fastjson.Value, key string) (*string, error) {
	if x == nil || x.Type() == fastjson.TypeNull {
		return nil, nil
	}
	if x.Type() != fastjson.TypeString {
		return nil, ferr(key, "want a string, got %s", typeName(x))
	}
	if d.lite {
		return new(string), nil
	}
	s := string(x.GetStringBytes())
	return &s, nil
}

func optBool(x *fastjson.Value, key string) (*bool, error) {
	if x == nil || x.Type() == fastjson.TypeNull {
		return nil, nil
	}
	var b bool
	switch x.Type() {
	case fastjson.TypeTrue:
		b = true
	case fastjson.TypeFalse:
	default:
		return nil, ferr(key, "want true or false, got %s", typeName(x))
	}
	return &b, nil
}

func optNumber(x *fastjson.Value, key string) (*float64, error) {
	return optNumberField(x, plain(key))
}

func optNumberField(x *fastjson.Value, field fieldName) (*float64, error) {
	if x == nil || x.Type() == fastjson.TypeNull {
		return nil, nil
	}
	if x.Type() != fastjson.TypeNumber {
		return nil, ferr(field.String(), "want a number, got %s", typeName(x))
	}
	f, err := x.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, ferr(field.String(), "not a finite number: %s", x.MarshalTo(nil))
	}
	return &f, nil
}

// intValue accepts integral JSON numbers (3 and 3.0 alike, as Python
// compares them equal) and rejects everything else with the field named.
func intValue(field string, x *fastjson.Value) (int64, error) {
	if x.Type() != fastjson.TypeNumber {
		return 0, ferr(field, "want an integer, got %s", typeName(x))
	}
	if n, err := x.Int64(); err == nil {
		return n, nil
	}
	f, err := x.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, ferr(field, "want an integer, got %s", x.MarshalTo(nil))
	}
	return int64(f), nil
}

func typeName(x *fastjson.Value) string {
	switch x.Type() {
	case fastjson.TypeString:
		s := x.GetStringBytes()
		if len(s) > 20 {
			return fmt.Sprintf("string %q…", s[:20])
		}
		return fmt.Sprintf("string %q", s)
	case fastjson.TypeNumber:
		return "number " + string(x.MarshalTo(nil))
	case fastjson.TypeTrue, fastjson.TypeFalse:
		return "boolean " + x.Type().String()
	case fastjson.TypeObject:
		return "an object"
	case fastjson.TypeArray:
		return "an array"
	case fastjson.TypeNull:
		return "null"
	}
	return x.Type().String()
}

// syntaxError explains invalid JSON the way encoding/json does, with a
// column, which reads better than the fast validator's message. It runs
// only on bad lines.
func syntaxError(raw []byte, fallback error) error {
	var v any
	err := json.Unmarshal(raw, &v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at column %d: %s", se.Offset, se.Error())
	case err != nil:
		return fmt.Errorf("invalid JSON: %s", err.Error())
	}
	return fmt.Errorf("invalid JSON: %v", fallback)
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
