package ingest

import (
	"bytes"
	"encoding/json"
)

// headKey is one top-level key seen in a file's head, with the first byte
// of its value and, when the value ended inside the head, the value.
type headKey struct {
	Name  string
	Kind  byte
	Value json.RawMessage
}

// headObjectKeys lists the top-level keys of the JSON object starting at
// data, tolerating a head cut anywhere: detection sees only the first
// DetectBytes, and a trajectory's first value may be longer than that.
func headObjectKeys(data []byte) []headKey {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []headKey
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		name, ok := tok.(string)
		if !ok {
			return keys
		}
		k := headKey{Name: name}
		rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n:")
		if len(rest) > 0 {
			k.Kind = rest[0]
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return append(keys, k)
		}
		k.Value = raw
		keys = append(keys, k)
	}
	return keys
}

// keySet indexes head keys by name.
func keySet(keys []headKey) map[string]headKey {
	m := make(map[string]headKey, len(keys))
	for _, k := range keys {
		m[k.Name] = k
	}
	return m
}

// trimHead drops a UTF-8 BOM and leading white space.
func trimHead(head []byte) []byte {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	return bytes.TrimLeft(head, " \t\r\n")
}

// firstLines returns up to n complete (or head-cut) non-blank lines.
func firstLines(head []byte, n int) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(trimHead(head), []byte{'\n'}) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		out = append(out, l)
		if len(out) == n {
			break
		}
	}
	return out
}
