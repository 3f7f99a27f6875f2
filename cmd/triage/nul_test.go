package main

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"
)

// nulTraces holds a NUL escape in a trace's task id, in its model, and in
// a tool call's output (bytes PostgreSQL keeps in a bytea, so that row is
// fine), between good rows.
const nulTraces = `{"task_id":"T01","exit_code":0}
{"task_id":"T\u00002","exit_code":0}
{"task_id":"T03","model":"m\u0000x","exit_code":1}
{"task_id":"T04","exit_code":1,"tool_calls":[{"name":"bash","args":{"cmd":"cat x\u0000"},"output":"a\u0000b"}]}
`

// nulLabels holds a NUL in a label's note and in its reviewer, between
// good rows.
const nulLabels = `{"run_id":"run-a","task_id":"T01","seed":0,"reviewer":"ann","kind":"human","primary":"TIMEOUT","secondary":[],"note":"ok","created_at":"2026-01-02T03:04:05Z"}
{"run_id":"run-a","task_id":"T01","seed":0,"reviewer":"ann","kind":"human","primary":"TIMEOUT","secondary":[],"note":"a\u0000b","created_at":"2026-01-02T03:04:06Z"}
{"run_id":"run-a","task_id":"T01","seed":0,"reviewer":"b\u0000b","kind":"human","primary":"TIMEOUT","secondary":[],"note":"","created_at":"2026-01-02T03:04:07Z"}
{"run_id":"run-a","task_id":"T04","seed":0,"reviewer":"bob","kind":"human","primary":"TIMEOUT","secondary":[],"note":"fine","created_at":"2026-01-02T03:04:08Z"}
`

// TestNULIsRejectedAlikeOnBothBackends: a NUL (U+0000) in a text field
// that the store keeps as text (a trace's task id or model, a label's
// note or reviewer) is rejected with its file and line on SQLite and on
// PostgreSQL alike, and the good rows of the same file land: PostgreSQL's
// text cannot hold it, and the whole write failed there (exit 1, no file
// named) while SQLite stored it. A NUL in a tool call's output is kept.
func TestNULIsRejectedAlikeOnBothBackends(t *testing.T) {
	t.Parallel()
	results := map[string][3]string{}
	for name, c := range map[string]*cli{"SQLite": newCLI(t), "PostgreSQL": pgCLI(t)} {
		f := c.file("run-a.jsonl", nulTraces)
		later := c.file("run-b.jsonl", `{"task_id":"T09","exit_code":0}`+"\n")
		code, out, errOut := c.run("", "import", f, later)
		require.Equal(t, exitRejected, code, "%s: %s", name, errOut)
		require.Contains(t, errOut, f+":2: task_id: ", name)
		require.Contains(t, errOut, "NUL", name)
		require.Contains(t, errOut, f+":3: model: ", name)
		require.Contains(t, out, "3 imported", name)
		l := c.file("labels.jsonl", nulLabels)
		code, lout, lerr := c.run("", "labels", "import", l)
		require.Equal(t, exitRejected, code, "%s: %s", name, lerr)
		require.Contains(t, lerr, l+":2: note: ", name)
		require.Contains(t, lerr, l+":3: reviewer: ", name)
		require.Contains(t, lout, "2 label events imported", name)
		code, _, errOut = c.run("", "rules", "run")
		require.Equal(t, exitOK, code, "%s: %s", name, errOut)
		_, traces, _ := c.run("", "traces", "--json")
		_, labels, _ := c.run("", "labels", "export")
		_, show, _ := c.run("", "show", "run-a/T04#0", "--json")
		require.Contains(t, show, `a\u0000b`, name)
		results[name] = [3]string{strings.ReplaceAll(traces, c.dir, ""), labels, show}
	}
	require.Equal(t, results["SQLite"], results["PostgreSQL"])
}

// TestStoreCopyNamesANULItCannotCopy: a SQLite store written before NULs
// were refused may hold one in a trace's task id or a label's note;
// `store copy` to PostgreSQL failed deep in its write ("invalid byte
// sequence … 0x00"), and now names the trace and field and leaves the
// target as it was.
func TestStoreCopyNamesANULItCannotCopy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, sql, want string }{
		{"task id", `UPDATE traces SET task_id = 'T' || char(0) || '2' WHERE task_id = 'T02'`, `T\x002#0" (id 2): task_id: holds a NUL`},
		{"note", `UPDATE label_events SET note = 'a' || char(0) WHERE note = 'x'`, `run-a/T01#0": note: holds a NUL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sq := newCLI(t)
			f := sq.file("run-a.jsonl", `{"task_id":"T01","exit_code":0}`+"\n"+`{"task_id":"T02","exit_code":1}`+"\n")
			code, _, errOut := sq.run("", "import", f)
			require.Equal(t, exitOK, code, errOut)
			l := sq.file("l.jsonl", `{"run_id":"run-a","task_id":"T01","seed":0,"reviewer":"ann","kind":"human","primary":"TIMEOUT","secondary":[],"note":"x","created_at":"2026-01-02T03:04:05Z"}`+"\n")
			code, _, errOut = sq.run("", "labels", "import", l)
			require.Equal(t, exitOK, code, errOut)
			db, err := sql.Open("sqlite", sq.db)
			require.NoError(t, err)
			res, err := db.Exec(tc.sql)
			require.NoError(t, err)
			n, _ := res.RowsAffected()
			require.EqualValues(t, 1, n)
			require.NoError(t, db.Close())
			pg := pgCLI(t)
			code, _, errOut = sq.run("", "store", "copy", "--from", sq.db, "--to", pg.db)
			require.Equal(t, exitError, code, errOut)
			require.Contains(t, errOut, tc.want)
			require.NotContains(t, errOut, "0x00")
		})
	}
}
