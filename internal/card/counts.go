package card

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

// Count is one named count in an ordered count map.
type Count = reportview.Count

// Counts is a JSON object of counts whose key order is meaningful (the
// taxonomy's class order), which a Go map cannot keep.
type Counts []Count

// Get returns the count for key, and whether key is present.
func (c Counts) Get(key string) (int, bool) {
	for _, e := range c {
		if e.Key == key {
			return e.N, true
		}
	}
	return 0, false
}

// Sum is the total of all counts.
func (c Counts) Sum() int {
	s := 0
	for _, e := range c {
		s += e.N
	}
	return s
}

// Keys returns the keys in order.
func (c Counts) Keys() []string {
	out := make([]string, len(c))
	for i, e := range c {
		out[i] = e.Key
	}
	return out
}

// MarshalJSON implements json.Marshaler, writing keys in slice order.
func (c Counts) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(e.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		fmt.Fprintf(&b, ":%d", e.N)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler, keeping the file's key order.
// Counts must be non-negative integers and keys unique.
func (c *Counts) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*c = nil
		return nil
	}
	var out Counts
	// A set, not out.Get: a card file is untrusted, and a linear look-up
	// per key made 100,000 keys take 48 s.
	seen := map[string]bool{}
	err := walkObject(data, func(key string, raw json.RawMessage) error {
		var n int
		if err := json.Unmarshal(raw, &n); err != nil || n < 0 {
			return fmt.Errorf("count %q: %s is not a non-negative integer", key, clip(string(raw), 40))
		}
		if seen[key] {
			return fmt.Errorf("count %q appears twice", key)
		}
		seen[key] = true
		out = append(out, Count{Key: key, N: n})
		return nil
	})
	if err != nil {
		return err
	}
	*c = out
	return nil
}

// walkObject calls fn for each member of a JSON object, in file order.
func walkObject(data []byte, fn func(key string, raw json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return errors.New(triage.DescribeJSONError(data, err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		got := fmt.Sprint(tok)
		switch tok {
		case json.Delim('['):
			got = "an array"
		case nil:
			got = "null"
		}
		return fmt.Errorf("want a JSON object, got %s", got)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("want an object key, got %v", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%s: %s", key, triage.DescribeJSONError(data, err))
		}
		if err := fn(key, raw); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the object")
	}
	return nil
}

// objectKeys returns an object's keys in file order with their raw values.
func objectKeys(data []byte) ([]string, map[string]json.RawMessage, error) {
	var keys []string
	vals := map[string]json.RawMessage{}
	err := walkObject(data, func(key string, raw json.RawMessage) error {
		if _, dup := vals[key]; dup {
			return fmt.Errorf("key %q appears twice", key)
		}
		keys = append(keys, key)
		vals[key] = raw
		return nil
	})
	return keys, vals, err
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
