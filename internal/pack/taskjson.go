package pack

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/triage-dev/triage/internal/triage"
)

// TaskKeys are the keys task.json may hold (DESIGN §3), in document order.
var TaskKeys = []string{"spec", "allowlist", "withheld", "hidden_tests", "sentinels", "ask_tools"}

// readSettings reads task.json, if any, into t. Every key is checked on
// its own, so one bad key does not hide the others.
func (l *taskLoader) readSettings(t *triage.Task) {
	data, err := l.read(TaskFile)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		l.add(LevelError, TaskFile, "", "%v", err)
		return
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	// One json.Unmarshal into raw values is the read of a well-formed
	// file; only a file it refuses goes through the decoder that says
	// what is wrong. Decoding into any, then a token walk for duplicate
	// keys, was most of a task's read: 20,000 reads of tasks of 1,000
	// globs were 60 % of a rules run (issue 27).
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		l.settingsProblem(data, err)
		return
	}
	for _, d := range duplicateKeys(data) {
		l.add(LevelError, TaskFile, d.key, "appears twice (lines %d and %d): the second would silently replace the first", d.first, d.again)
	}
	var unknown []string
	for k := range m {
		if !known(k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		l.add(LevelError, TaskFile, k, "unknown key (known keys: %s)", strings.Join(TaskKeys, ", "))
	}
	t.Spec = l.paths(m, "spec")
	t.Allowlist = l.globs(m, "allowlist")
	t.Withheld = l.paths(m, "withheld")
	t.HiddenTests = l.paths(m, "hidden_tests")
	t.Sentinels = l.nonEmpty(m, "sentinels")
	t.AskTools = l.nonEmpty(m, "ask_tools")
}

// settingsProblem says why task.json is not a JSON object (err is
// json.Unmarshal's; the decoder names the place).
func (l *taskLoader) settingsProblem(data []byte, err error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		l.add(LevelError, TaskFile, "", "not valid JSON: %s", jsonErr(data, err))
		return
	}
	if _, err := dec.Token(); err == nil {
		l.add(LevelError, TaskFile, "", "not valid JSON: data after the top-level object")
		return
	}
	if _, ok := doc.(map[string]any); !ok {
		l.add(LevelError, TaskFile, "", "want a JSON object, got %s", typeName(doc))
		return
	}
	// An object the decoder reads whole but Unmarshal refuses: bytes
	// after it that are no JSON token ("{} x").
	l.add(LevelError, TaskFile, "", "not valid JSON: %v", err)
}

func known(k string) bool {
	for _, x := range TaskKeys {
		if k == x {
			return true
		}
	}
	return false
}

// stringList returns key's value as a list of strings, or reports why not.
func (l *taskLoader) stringList(m map[string]json.RawMessage, key string) ([]string, bool) {
	raw, ok := m[key]
	if !ok {
		return nil, false
	}
	var out []string
	if err := json.Unmarshal(raw, &out); err == nil && out != nil {
		return out, true
	}
	// Not a list of strings (null, another type, a list holding one):
	// the value read as it is names what it holds.
	var v any
	_ = json.Unmarshal(raw, &v)
	list, ok := v.([]any)
	if !ok {
		l.add(LevelError, TaskFile, key, "want a list of strings, got %s", typeName(v))
		return nil, false
	}
	for i, x := range list {
		if _, ok := x.(string); !ok {
			l.add(LevelError, TaskFile, key, "want a list of strings, got %s at index %d", typeName(x), i)
			return nil, false
		}
	}
	l.add(LevelError, TaskFile, key, "want a list of strings")
	return nil, false
}

// paths reads a list of file paths relative to the task directory.
func (l *taskLoader) paths(m map[string]json.RawMessage, key string) []string {
	list, ok := l.stringList(m, key)
	if !ok {
		return nil
	}
	out := list[:0]
	for _, p := range list {
		clean := path.Clean(strings.TrimPrefix(p, "./"))
		if p == "" || strings.HasPrefix(p, "/") || !fs.ValidPath(clean) || clean == "." {
			l.add(LevelError, TaskFile, key, "%q: want a path inside the task directory, relative, without ..", p)
			continue
		}
		out = append(out, clean)
	}
	return out
}

// globs reads the allowlist: doublestar globs over the agent's workspace.
func (l *taskLoader) globs(m map[string]json.RawMessage, key string) []string {
	list, ok := l.stringList(m, key)
	if !ok {
		return nil
	}
	out := list[:0]
	for _, g := range list {
		if g == "" || !doublestar.ValidatePattern(g) {
			l.add(LevelError, TaskFile, key, "%q is not a valid glob", g)
			continue
		}
		if why := Absurd(g); why != "" {
			l.add(LevelWarning, TaskFile, key, "%q is not a sensible glob: %s; it still matches, in linear time, but check it says what you mean", g, why)
		}
		out = append(out, g)
	}
	return out
}

// nonEmpty reads a list of strings that must not be empty: an empty
// sentinel would match every trace.
func (l *taskLoader) nonEmpty(m map[string]json.RawMessage, key string) []string {
	list, ok := l.stringList(m, key)
	if !ok {
		return nil
	}
	out := list[:0]
	for i, s := range list {
		if strings.TrimSpace(s) == "" {
			l.add(LevelError, TaskFile, key, "empty string at index %d", i)
			continue
		}
		out = append(out, s)
	}
	return out
}

// dupKey is a top-level key of task.json written twice, with both lines.
type dupKey struct {
	key          string
	first, again int
}

// duplicateKeys finds top-level keys that occur more than once. JSON
// decoders keep the last value, so {"sentinels": [...], "sentinels": []}
// would silently drop the guard probes; task.json is hand-written, so this
// is a mistake worth naming. data must already be known to be valid JSON.
func duplicateKeys(data []byte) []dupKey {
	// A scan of the top level only, skipping each value without decoding
	// it (a json.Decoder token walk copied every value: a sixth of a
	// task's read).
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil
	}
	var seen map[string]int
	var out []dupKey
	line, counted := 1, 0
	for i++; ; {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != '"' {
			return out
		}
		end := skipString(data, i)
		var k string
		if end < 0 || json.Unmarshal(data[i:end], &k) != nil {
			return out
		}
		line += bytes.Count(data[counted:end], []byte("\n"))
		counted = end
		if first, dup := seen[k]; dup {
			out = append(out, dupKey{key: k, first: first, again: line})
		} else {
			if seen == nil {
				seen = map[string]int{}
			}
			seen[k] = line
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return out
		}
		if i = skipValue(data, skipSpace(data, i+1)); i < 0 {
			return out
		}
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ',' {
			return out
		}
		i++
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at data[i]
// (a '"'), or -1 when it does not end.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the JSON value at data[i], or -1. The
// data is known to be valid JSON, so brackets only need counting.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				if i = skipString(data, i); i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for i < len(data) && !strings.ContainsRune(",}] \t\r\n", rune(data[i])) {
		i++
	}
	return i
}
