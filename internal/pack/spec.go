package pack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/triage-dev/triage/internal/triage"
)

// httpMethods are the operation keys of an OpenAPI path item, in the order
// operations are listed for one path.
var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// ParseSpec reads an OpenAPI 3 or Swagger 2 document, YAML or JSON, into
// the API surface an agent may call: every (method, path template,
// operationId) and the path templates.
//
// Operations keep the paths as the spec writes them. Paths also lists each
// template behind the spec's path prefix (Swagger basePath, or the path of
// an OpenAPI 3 server URL), because that is what an agent's HTTP call
// shows: a spec with basePath "/v1" and path "/invoices" allows both
// "/invoices" and "/v1/invoices". Output is sorted, so the same spec always
// gives the same surface.
func ParseSpec(data []byte) (*triage.APISurface, error) {
	doc, err := decodeSpec(data)
	if err != nil {
		return nil, err
	}
	var prefixes []string
	switch {
	case doc["openapi"] != nil:
		v, _ := doc["openapi"].(string)
		if !strings.HasPrefix(v, "3.") {
			return nil, fmt.Errorf("openapi: version %v is not 3.x", doc["openapi"])
		}
		servers, _ := doc["servers"].([]any)
		for _, s := range servers {
			m, _ := asMap(s)
			if u, ok := m["url"].(string); ok {
				prefixes = append(prefixes, urlPath(u))
			}
		}
	case doc["swagger"] != nil:
		if v := fmt.Sprint(doc["swagger"]); v != "2.0" && v != "2" {
			return nil, fmt.Errorf("swagger: version %s is not 2.0", v)
		}
		if bp, ok := doc["basePath"].(string); ok {
			prefixes = append(prefixes, urlPath(bp))
		}
	default:
		return nil, errors.New(`not an OpenAPI 3 or Swagger 2 document (no "openapi" or "swagger" key)`)
	}
	rawPaths, ok := doc["paths"]
	if !ok || rawPaths == nil {
		return nil, errors.New(`no "paths": the spec declares no API surface`)
	}
	paths, ok := asMap(rawPaths)
	if !ok {
		return nil, fmt.Errorf(`"paths": want a mapping, got %s`, typeName(rawPaths))
	}
	api := &triage.APISurface{}
	seen := map[string]bool{}
	addPath := func(p string) {
		if !seen[p] {
			seen[p] = true
			api.Paths = append(api.Paths, p)
		}
	}
	for tmpl, rawItem := range paths {
		if !strings.HasPrefix(tmpl, "/") {
			return nil, fmt.Errorf("paths: %q does not start with /", tmpl)
		}
		addPath(tmpl)
		for _, pre := range prefixes {
			if pre != "" {
				addPath(pre + tmpl)
			}
		}
		item, ok := asMap(rawItem)
		if !ok {
			if rawItem == nil {
				continue
			}
			return nil, fmt.Errorf("paths[%q]: want a mapping, got %s", tmpl, typeName(rawItem))
		}
		for key, rawOp := range item {
			method := strings.ToLower(key)
			if !isMethod(method) {
				continue
			}
			op, _ := asMap(rawOp)
			id := ""
			if v, ok := op["operationId"]; ok {
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("paths[%q].%s.operationId: want a string, got %s", tmpl, key, typeName(v))
				}
				id = s
			}
			api.Operations = append(api.Operations, triage.Operation{
				Method: strings.ToUpper(method), Path: tmpl, OperationID: id,
			})
		}
	}
	sort.Strings(api.Paths)
	sort.Slice(api.Operations, func(i, j int) bool {
		a, b := api.Operations[i], api.Operations[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return methodRank(a.Method) < methodRank(b.Method)
	})
	return api, nil
}

// decodeSpec decodes JSON with encoding/json (its errors name the offset)
// and anything else as YAML.
func decodeSpec(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("empty file")
	}
	var v any
	if trimmed[0] == '{' {
		if err := json.Unmarshal(trimmed, &v); err != nil {
			return nil, fmt.Errorf("not valid JSON: %s", jsonErr(trimmed, err))
		}
	} else if err := unmarshalYAML(data, &v); err != nil {
		return nil, fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	m, ok := asMap(v)
	if !ok {
		return nil, fmt.Errorf("want a mapping at the top, got %s", typeName(v))
	}
	return m, nil
}

// unmarshalYAML decodes YAML, turning a decoder panic into an error: a
// pack is untrusted input and must never crash the process.
func unmarshalYAML(data []byte, v *any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoder failed: %v", r)
		}
	}()
	return yaml.Unmarshal(data, v)
}

// asMap returns v as a string-keyed map; YAML gives map[any]any when some
// key is not a string.
func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[fmt.Sprint(k)] = x
		}
		return out, true
	}
	return nil, false
}

// urlPath returns the path of a server URL or basePath without its
// trailing slash: "https://api.test/v1/" gives "/v1".
func urlPath(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		j := strings.IndexByte(u, '/')
		if j < 0 {
			return ""
		}
		u = u[j:]
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	u = strings.TrimRight(u, "/")
	if u != "" && !strings.HasPrefix(u, "/") {
		u = "/" + u
	}
	return u
}

func isMethod(m string) bool { return methodRank(strings.ToUpper(m)) < len(httpMethods) }

func methodRank(upper string) int {
	for i, m := range httpMethods {
		if strings.EqualFold(m, upper) {
			return i
		}
	}
	return len(httpMethods)
}

// typeName names a decoded JSON or YAML value the way people say it.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, float32, int, int64, uint64, json.Number:
		return "number"
	case []any:
		return "list"
	case map[string]any, map[any]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// jsonErr adds the line and column to a JSON syntax error.
func jsonErr(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 && int(se.Offset) <= len(data) {
		before := data[:se.Offset]
		line := bytes.Count(before, []byte("\n")) + 1
		col := int(se.Offset) - bytes.LastIndexByte(before, '\n') - 1
		return fmt.Sprintf("line %d, column %d: %s", line, col, se.Error())
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Error()
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		if len(bytes.TrimSpace(data)) == 0 {
			return "empty file"
		}
		// A document cut short: the end of the file is where it broke.
		line := bytes.Count(data, []byte("\n")) + 1
		col := len(data) - bytes.LastIndexByte(data, '\n')
		return fmt.Sprintf("line %d, column %d: unexpected end of file (cut short?)", line, col)
	}
	return err.Error()
}
