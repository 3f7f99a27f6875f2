package card

import (
	"bufio"
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// WriteJSON writes the report as indented JSON. It always carries
// primary_counts (every trace counted once by its current label, certain
// or not) and leftovers (count and RUN/TASK#SEED keys).
//
// The grid holds one cell per trace, 220 MB of JSON for a million traces,
// so the report is written a field at a time and the grid a task at a
// time instead of being marshalled whole; the bytes are exactly those of
// a json.Encoder with a two-space indent (a test holds them equal).
func WriteJSON(w io.Writer, r *ReportData) error {
	o := &jsonStream{w: bufio.NewWriterSize(triage.InertJSON(w), 64<<10)}
	grid := func(prefix string) error {
		fields := jsonFields(reflect.ValueOf(r.Grid))
		for i := range fields {
			if fields[i].name == "tasks" && r.Grid.Tasks != nil {
				fields[i].v = func(prefix string) error {
					return o.array(prefix, len(r.Grid.Tasks), func(i int) any { return &r.Grid.Tasks[i] })
				}
			}
		}
		return o.object(prefix, fields)
	}
	fields := jsonFields(reflect.ValueOf(*r))
	for i := range fields {
		if fields[i].name == "grid" {
			fields[i].v = grid
		}
	}
	err := o.object("", fields)
	if err == nil {
		err = o.w.WriteByte('\n')
	}
	if err == nil {
		err = o.w.Flush()
	}
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// jsonField is one member of an object being streamed: a value to
// marshal, or a func(prefix string) error that writes its own JSON.
type jsonField struct {
	name string
	v    any
}

// jsonFields lists a struct's exported fields under their JSON names,
// leaving out what omitempty omits. It handles the tags this package
// uses (a name, optionally ",omitempty").
func jsonFields(v reflect.Value) []jsonField {
	t := v.Type()
	out := make([]jsonField, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fv := v.Field(i)
		if opts == "omitempty" && emptyJSON(fv) {
			continue
		}
		out = append(out, jsonField{name: name, v: fv.Interface()})
	}
	return out
}

// emptyJSON is encoding/json's idea of empty for omitempty.
func emptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// jsonStream writes indented JSON piece by piece.
type jsonStream struct {
	w   *bufio.Writer
	buf bytes.Buffer
}

// streamMin is the length from which a slice is written an element at a
// time. Below it, marshalling it whole costs less than the calls.
const streamMin = 16

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// custom reports whether values of t marshal themselves, so that only
// encoding/json may write them.
func custom(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		pt.Implements(marshalerType) || pt.Implements(textMarshalerType)
}

// plainStruct reports whether a struct's JSON is exactly what jsonFields
// lists: no embedded fields and no tag options beyond omitempty.
func plainStruct(t reflect.Type) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return false
		}
		if _, opts, _ := strings.Cut(f.Tag.Get("json"), ","); opts != "" && opts != "omitempty" {
			return false
		}
	}
	return true
}

// bigSlice reports whether v holds a slice streamMin long or longer,
// itself or in one of its fields: what is worth writing in pieces.
func bigSlice(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return false
		}
		if v.Len() >= streamMin {
			return true
		}
		// A short slice of big ones: the heatmap's rows, one a model,
		// each a cell a task (100,000 of them, 18 MB marshalled whole).
		if k := v.Type().Elem().Kind(); k == reflect.Slice || k == reflect.Struct {
			for i := range v.Len() {
				if bigSlice(v.Index(i)) {
					return true
				}
			}
		}
		return false
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.Kind() == reflect.Slice && v.Type().Field(i).IsExported() && bigSlice(f) {
				return true
			}
		}
	}
	return false
}

// value writes v, a big slice an element at a time and a struct holding
// one a field at a time, so that no section of a report on a store of
// 100,000 tasks (the heatmap, the grid, a breakdown by 2,000 runs) is
// marshalled whole: those buffers were most of its peak memory.
func (o *jsonStream) value(prefix string, v any) error {
	if f, ok := v.(func(string) error); ok {
		return f(prefix)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() && !custom(rv.Type()) {
		rv = rv.Elem()
	}
	if rv.IsValid() && !custom(rv.Type()) && bigSlice(rv) {
		switch rv.Kind() {
		case reflect.Slice:
			return o.array(prefix, rv.Len(), func(i int) any { return rv.Index(i).Interface() })
		case reflect.Struct:
			if plainStruct(rv.Type()) {
				return o.object(prefix, jsonFields(rv))
			}
		}
	}
	o.buf.Reset()
	enc := json.NewEncoder(&o.buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := o.w.Write(bytes.TrimSuffix(o.buf.Bytes(), []byte("\n")))
	return err
}

func (o *jsonStream) object(prefix string, fields []jsonField) error {
	if len(fields) == 0 {
		_, err := o.w.WriteString("{}")
		return err
	}
	o.w.WriteString("{\n")
	for i, f := range fields {
		key, _ := json.Marshal(f.name)
		o.w.WriteString(prefix + "  ")
		o.w.Write(key)
		o.w.WriteString(": ")
		if err := o.value(prefix+"  ", f.v); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if i < len(fields)-1 {
			o.w.WriteByte(',')
		}
		o.w.WriteByte('\n')
	}
	_, err := o.w.WriteString(prefix + "}")
	return err
}

func (o *jsonStream) array(prefix string, n int, elem func(int) any) error {
	if n == 0 {
		_, err := o.w.WriteString("[]")
		return err
	}
	o.w.WriteString("[\n")
	for i := range n {
		o.w.WriteString(prefix + "  ")
		if err := o.value(prefix+"  ", elem(i)); err != nil {
			return err
		}
		if i < n-1 {
			o.w.WriteByte(',')
		}
		o.w.WriteByte('\n')
	}
	_, err := o.w.WriteString(prefix + "]")
	return err
}
