package triage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// DescribeJSONError turns an encoding/json error into a message for the
// person who wrote the file: a type mismatch names the field path and both
// types ("seed: want an integer, got string") instead of Go's struct and
// type names, a syntax error and a document cut short say where, and no
// input at all says "empty". data is the document that failed, used only
// to turn byte offsets into a line and column; nil leaves positions out
// (a type error still names its field). Every input reader shares it so
// the same mistake reads the same whatever file it is in.
func DescribeJSONError(data []byte, err error) string {
	if err == nil {
		return ""
	}
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		msg := fmt.Sprintf("want %s, got %s", jsonKind(te.Type), jsonValueName(te.Value))
		if te.Field != "" {
			msg = te.Field + ": " + msg
		}
		return msg + position(data, te.Offset, " (", ")")
	case data != nil && len(bytes.TrimSpace(data)) == 0:
		return "empty input: want a JSON document"
	case errors.As(err, &se):
		if se.Error() == "unexpected end of JSON input" {
			return "truncated: unexpected end of JSON" + position(data, se.Offset, " at ", "")
		}
		return "invalid JSON" + position(data, se.Offset, " at ", "") + ": " + se.Error()
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated: unexpected end of JSON" + position(data, int64(len(data)), " at ", "")
	case errors.Is(err, io.EOF):
		return "empty input: want a JSON document"
	}
	return err.Error()
}

// position renders a byte offset of data as "line L, column C" (or only
// "column C" on a one-line document), between before and after; it is
// empty when there is no data to count in.
func position(data []byte, off int64, before, after string) string {
	if data == nil || off < 0 {
		return ""
	}
	off = min(off, int64(len(data)))
	head := data[:off]
	line := bytes.Count(head, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(head, '\n') + 1)
	if col == 0 {
		col = 1
	}
	if line == 1 && !bytes.Contains(bytes.TrimRight(data, "\n"), []byte("\n")) {
		return fmt.Sprintf("%scolumn %d%s", before, col, after)
	}
	return fmt.Sprintf("%sline %d, column %d%s", before, line, col, after)
}

// jsonKind names what a Go destination type accepts, in JSON words.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() == "time" && t.Name() == "Time" {
		return "a timestamp string (RFC 3339)"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// jsonValueName is the JSON type encoding/json reports ("number",
// "string", "array", "object", "bool" or "number 1.5") with an article.
func jsonValueName(v string) string {
	switch v {
	case "array", "object":
		return "an " + v
	case "bool":
		return "true or false"
	case "":
		return "another type"
	}
	return v
}
