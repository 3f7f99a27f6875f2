package pack

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// TestTaskJSONBadInputMessages pins the task.json messages the bad-input
// corpus (testdata/bad) relies on: each names the problem and where it is.
func TestTaskJSONBadInputMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, taskJSON, want string }{
		{"duplicate key", "{\"sentinels\": [\"s\"],\n \"spec\": [],\n \"sentinels\": []}",
			`tasks/T01/task.json: key "sentinels": appears twice (lines 1 and 3): the second would silently replace the first`},
		{"empty", " \n", `tasks/T01/task.json: not valid JSON: empty file`},
		{"cut short", "{\"spec\": [\"a\",\n", `tasks/T01/task.json: not valid JSON: line 2, column 1: unexpected end of file (cut short?)`},
		{"cut short, no newline", `{"spec": ["a"`, `tasks/T01/task.json: not valid JSON: line 1, column 14: unexpected end of file (cut short?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{
				"tasks/T01/prompt.md": {Data: []byte("p")},
				"tasks/T01/task.json": {Data: []byte(tc.taskJSON)},
			}
			_, probs, err := LoadFS(fsys, ".")
			require.NoError(t, err)
			var got []string
			for _, p := range probs {
				got = append(got, p.String())
			}
			require.Contains(t, got, tc.want)
		})
	}
	require.Empty(t, duplicateKeys([]byte(`{"a": {"b": 1, "b": 2}, "c": 1}`)), "only top-level keys are task.json's")
	// The scan skips values whole: brackets and quotes inside strings,
	// escaped keys, numbers, literals and nesting.
	require.Equal(t, []dupKey{{key: "a", first: 1, again: 4}, {key: "b}", first: 2, again: 5}},
		duplicateKeys([]byte("{\"a\": [\"]}\\\"{\", {\"a\": [1, {}]}],\n \"b}\": -1.5e3, \"n\": null,\n \"x\": {\"a\": true},\n \"\\u0061\": false,\n \"b}\": \"\"}")))
}
