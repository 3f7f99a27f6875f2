package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLabelsImportRejectsALongLineAlone: a labels file line over 16 MiB
// is rejected with its line and length, and the good rows before and
// after it land (bufio.Scanner ended the import with "token too long"
// and nothing was imported); a CRLF file reads as before.
func TestLabelsImportRejectsALongLineAlone(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, errOut := c.run("", "import", c.file("run-a.jsonl", `{"task_id":"T01","exit_code":1}`+"\n"))
	require.Equal(t, exitOK, code, errOut)
	row := func(who, at string) string {
		return `{"run_id":"run-a","task_id":"T01","seed":0,"reviewer":"` + who + `","kind":"human","primary":"TIMEOUT","secondary":[],"note":"","created_at":"2026-01-02T03:04:0` + at + `Z"}`
	}
	long := `{"note":"` + strings.Repeat("x", 17<<20) + `"}`
	f := c.file("l.jsonl", row("ann", "1")+"\r\n"+long+"\n"+row("bob", "2")+"\r\n"+long)
	code, out, errOut := c.run("", "labels", "import", f)
	require.Equal(t, exitRejected, code, errOut)
	require.Contains(t, errOut, f+":2: line of 17825803 bytes is longer than a label row may be (16 MiB)")
	require.Contains(t, errOut, f+":4: line of 17825803 bytes is longer")
	require.Equal(t, "2 label events imported, 0 already present, 2 rejected\n", out)
}
