package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A trace whose key is stored with other content is rejected like a bad
// line: counted, listed with its reason, filed with its bytes, never
// overwriting the stored one.
func TestImportConflictIsFiledAsAReject(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	first := c.file("a/run-a.jsonl", `{"task_id":"T01","exit_code":0}`+"\n")
	code, out, errOut := c.run("", "import", first)
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "1 imported, 0 duplicates, 0 rejected\n", out)

	changed := `{"task_id":"T01","exit_code":1}`
	second := c.file("b/run-a.jsonl", changed+"\n"+`{"task_id":"T02","exit_code":0}`+"\n")
	code, out, _ = c.run("", "import", "--json", second)
	require.Equal(t, exitRejected, code)
	var sum importSummary
	require.NoError(t, json.Unmarshal([]byte(out), &sum))
	reason := "run-a/T01#0 is already stored with different content; import it under another --run"
	require.Equal(t, importSummary{Imported: 1, Rejected: 1, Rejects: []importReject{{File: second, Line: 1, Reason: reason}}}, sum)

	code, out, errOut = c.run("", "rejects", "--json")
	require.Equal(t, exitOK, code, errOut)
	var rej struct{ File, Reason, Raw string }
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out)), &rej), out)
	require.Equal(t, second, rej.File)
	require.Equal(t, reason, rej.Reason)
	require.Equal(t, changed, rej.Raw, "the conflicting line is kept with its bytes")

	code, out, errOut = c.run("", "traces", "--json")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, `"task_id":"T01","seed":0,"model":"","agent":"","prompt_id":"","outcome":"","exit_code":0,`, "the stored trace is not overwritten")
}
