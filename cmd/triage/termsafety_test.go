package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/rules"
	"github.com/triage-dev/triage/internal/termtest"
	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui"
)

// hostileName is the payload for names: task IDs, runs, file names. It
// holds no '/' or '#' so that it still names a trace as RUN/TASK#SEED.
const hostileName = "\x1b]0;t\x07\u009b\x9b\u202e\x1b[2J\u0085"

// hostileTask is hostileName in valid UTF-8, for the task IDs that name
// a pack's directories: the task loader reads through io/fs, which refuses a
// path that is not UTF-8 (the dataset hash does not: internal/pack
// TestHashNonUTF8NamesMatchSeedPipeline).
const hostileTask = "\x1b]0;t\x07\u009b\u202e\x1b[2J\u0085"

// hostileText is the payload without its raw bytes, for trace rows: the
// JSONL decoder rightly rejects a row that is not UTF-8 (such rows are
// among the rejects).
var hostileText = strings.ReplaceAll(termtest.Hostile, "RAW\x9b2J\x9d0;t\x07 ", "")

// js encodes s as a JSON string the way a careless harness writes one:
// C0 controls escaped, everything else (C1 runes, bidi characters, raw
// invalid bytes) verbatim.
func js(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// hostileRow is one JSONL trace with the payload in every text field.
func hostileRow(run, task string, seed, exit int, sentinel string) string {
	h := js(hostileText)
	file := "src/ev" + hostileTask + ".py"
	diff := "diff --git a/" + file + " b/" + file + "\n--- a/" + file + "\n+++ b/" + file + "\n@@ -1,2 +1,3 @@ " + hostileText +
		"\n ctx " + hostileText + "\n-old " + hostileText + "\n+new " + hostileText + "\n+/v9/nowhere" + hostileTask + "\n" +
		"diff --git a/tests/t" + hostileTask + ".py b/tests/t" + hostileTask + ".py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/t" + hostileTask +
		".py\n@@ -0,0 +1 @@\n+def test_x(): " + hostileText + "\n"
	call := fmt.Sprintf(`{"name":%s,"args":{"path":%s,"url":%s},"output":%s,"error":%s,"ts":%s}`,
		js("read"+hostileTask), h, js("/v9/nowhere"+hostileTask), js(hostileText+"\n"+sentinel+"\n"+hostileText), h, h)
	return fmt.Sprintf(`{"run_id":%s,"task_id":%s,"seed":%d,"model":%s,"agent":%s,"prompt_id":%s,"exit_code":%d,`+
		`"tool_calls":[%s,%s,%s,{"name":"ask_user","args":%s}],"messages":[{"role":%s,"content":%s},{"role":"assistant","content":%s}],`+
		`"answer":%s,"diff":%s,"test_output":%s,"written_tests":true,"wall_s":3,"wall_cap":10,"tokens":{"input":1,"output":2},"cost_usd":0.1,"x_note":%s}`,
		js(run), js(task), seed, js("m"+hostileTask), h, js("p"+hostileTask), exit, call, call, call, h, js("user"+hostileTask), h, h, h,
		js(diff), js("tests/t.py::test_x FAILED "+hostileText+"\n"+hostileText), h)
}

// hostileFixture writes a pack, a taxonomy, traces and labels full of
// hostile text, with hostile file names, into c's directory.
type hostileFixture struct {
	pack, badPack, tax, traces, rejects, ratings string
	runA, runB, taskA                            string
}

func newHostileFixture(t *testing.T, c *cli) hostileFixture {
	t.Helper()
	f := hostileFixture{runA: "ra" + hostileTask, runB: "rb" + hostileTask, taskA: "T01" + hostileTask}
	sentinel := "sk-" + hostileTask + "SENTINEL"
	tasks := []string{f.taskA, "T02" + hostileTask}
	for _, task := range tasks {
		dir := "pack/tasks/" + task + "/"
		c.file(dir+"prompt.md", termtest.Hostile+"\n")
		c.file(dir+"openapi"+hostileTask+".yaml", "openapi: 3.0.3\ninfo: {title: "+strconv.QuoteToASCII(termtest.Hostile)+", version: '1'}\npaths:\n  "+
			strconv.QuoteToASCII("/v1/x"+hostileTask)+":\n    get: {operationId: "+strconv.QuoteToASCII("op"+hostileTask)+"}\n")
		c.file(dir+"task.json", fmt.Sprintf(`{"spec":[%s],"allowlist":[%s],"withheld":[%s],"hidden_tests":[%s],"sentinels":[%s],"ask_tools":[%s]}`,
			js("openapi"+hostileTask+".yaml"), js("src/**"+strings.ReplaceAll(hostileTask, "[", "")), js("secret"+hostileTask+".env"), js("hidden/t"+hostileTask+".py"), js(sentinel), js("ask_user")))
		c.file(dir+"src/"+hostileTask+".py", termtest.Hostile)
		c.file(dir+"hidden/t"+hostileTask+".py", termtest.Hostile)
	}
	f.pack = filepath.Join(c.dir, "pack", "tasks")
	c.file("badpack/tasks/T"+hostileName+"/prompt.md", termtest.Hostile)
	f.badPack = filepath.Join(c.dir, "badpack", "tasks")

	tax := rules.DefaultTaxonomy()
	tax.Name = termtest.Hostile
	for i := range tax.Classes {
		cl := &tax.Classes[i]
		cl.Name, cl.ApplyWhen, cl.DoNot, cl.DoThis = termtest.Hostile, termtest.Hostile, termtest.Hostile, termtest.Hostile
	}
	data, err := json.Marshal(tax)
	require.NoError(t, err)
	f.tax = c.file("tax.json", string(data))

	var rows strings.Builder
	for _, run := range []string{f.runA, f.runB} {
		for i, task := range tasks {
			for seed := range 3 {
				s := ""
				if seed == 1 {
					s = sentinel
				}
				rows.WriteString(hostileRow(run, task, seed, (i+seed)%2, s) + "\n")
			}
		}
	}
	f.traces = c.file("traces"+hostileName+".jsonl", rows.String())
	f.rejects = c.file("bad"+hostileTask+".jsonl", strings.Join([]string{
		`{"task_id":` + js("T"+hostileTask) + `,"exit_code":` + js(hostileText) + `}`,
		`not json ` + termtest.Hostile,
		`{"task_id":7,"model":` + js(hostileText) + `}`,
		`{"task_id":` + js("T"+hostileTask) + `,"tool_calls":[{"args":` + js(hostileText) + `}]}`,
		`{"task_id":` + js("T"+hostileTask) + `,"outcome":` + js(hostileText) + `}`,
		`{"task_id":` + js("T"+hostileTask) + `,"seed":` + js(hostileText) + `}`,
		`{"task_id":` + js("T"+hostileTask) + `,"tokens":` + js(hostileText) + `,` + js(hostileText) + `:1}`,
		`{"task_id":` + js("T"+hostileTask) + `,"x":"` + hostileText,
		`{"task_id":` + js("T"+hostileName) + "}\x1b[2J" + termtest.Hostile,
	}, "\n")+"\n")
	f.ratings = c.file("ratings"+hostileName+".csv", "unit,rater,label\n"+
		"u1"+hostileName+",a"+hostileName+",X"+hostileName+"\nu1"+hostileName+",b,Y\n"+
		"u2,a"+hostileName+",X"+hostileName+"\nu2,b,X"+hostileName+"\n")
	return f
}

// labelRows writes two reviewers' labels (hostile names, notes, one
// hostile class) on the given trace keys.
func labelRows(keys []string, slice string) string {
	var b strings.Builder
	for i, k := range keys {
		run, rest, _ := strings.Cut(k, "/")
		task, seed, _ := strings.Cut(rest, "#")
		for _, r := range []struct{ who, label string }{{"ann" + hostileTask, triage.ToolLoop}, {"bob" + hostileText, triage.AssumeAPI}} {
			label := r.label
			if i == 0 {
				label = triage.ScorerRed
			}
			fmt.Fprintf(&b, `{"run_id":%s,"task_id":%s,"seed":%s,"reviewer":%s,"kind":"human","primary":%s,"secondary":[%s],"note":%s,"slice":%s,"created_at":"2026-11-01T09:%02d:00Z"}`+"\n",
				js(run), js(task), seed, js(r.who), js(label), js("LEAKED"+hostileTask), js(hostileText), js(slice), i)
		}
	}
	return b.String()
}

// step is one command of the walk; json says its output is JSON (one
// document or JSON lines) whose strings must carry the payload escaped.
type step struct {
	args []string
	json bool
	ok   bool // the command must succeed, so the walk reaches its output
}

// TestTextCommandsKeepHostileTextInert imports hostile traces, packs,
// taxonomies, labels and ratings, then runs every text command in every
// output format and checks that nothing in its output or its messages
// can drive a terminal.
func TestTextCommandsKeepHostileTextInert(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	f := newHostileFixture(t, c)
	runStep := func(s step) (int, string) {
		t.Helper()
		args := append([]string{"--taxonomy", f.tax}, s.args...)
		code, out, errOut := c.run("", args...)
		name := surfaceName(s.args)
		termtest.RequireInert(t, name+" stdout", out)
		termtest.RequireInert(t, name+" stderr", errOut)
		if s.ok {
			require.Equal(t, exitOK, code, "%s: %s", name, triage.Sanitize(errOut))
		}
		if s.json && code == exitOK {
			requireJSONEscaped(t, name, out)
		}
		return code, out
	}
	for _, run := range []string{f.runA, f.runB} {
		runStep(step{ok: true, args: []string{"card", "init", "--run", run, "--pack", f.pack, "--dataset-id", "d" + hostileName,
			"--scorer", termtest.Hostile, "--wall-s", "10", "--max-output-tokens", "10", "--max-tool-calls", "2", "--image-digest", termtest.Hostile, "--prompt-id", termtest.Hostile, "--network=false"}})
	}
	code, _ := runStep(step{args: []string{"import", f.traces}})
	require.Equal(t, exitOK, code, "the hostile traces import")
	for _, s := range []step{
		{args: []string{"import", f.rejects}},
		{args: []string{"import", "--json", f.rejects}, json: true},
		{args: []string{"import", "--strict", f.rejects}},
		{args: []string{"import", filepath.Join(c.dir, "missing"+hostileName+".jsonl")}},
		{args: []string{"import", c.file("n"+hostileName+".txt", termtest.Hostile)}},
		{args: []string{"rejects"}, ok: true},
		{args: []string{"rejects", "--raw"}, ok: true},
		{args: []string{"rejects", "--json"}, json: true, ok: true},
		{args: []string{"rules", "run"}, ok: true},
	} {
		runStep(s)
	}
	_, out := runStep(step{args: []string{"slice", "create", "s1", "--size", "6", "--run", f.runA}})
	require.Contains(t, out, "slice s1")
	_, show := runStep(step{args: []string{"slice", "show", "s1"}, ok: true})
	keys := sliceKeys(t, c, "s1")
	require.Len(t, keys, 6)
	labels := c.file("labels"+hostileName+".jsonl", labelRows(keys, "s1"))
	code, _ = runStep(step{args: []string{"labels", "import", labels}})
	require.Contains(t, []int{exitOK, exitRejected}, code, "the hostile labels import (a hostile class may be refused)")
	cardA, cardB := filepath.Join(c.dir, "a"+hostileName+".json"), filepath.Join(c.dir, "b.json")
	for _, s := range []step{
		{args: []string{"slice", "list"}, ok: true},
		{args: []string{"slice", "show", "s1"}, ok: true},
		{args: []string{"slice", "show", "nope" + hostileName}},
		{args: []string{"traces"}, ok: true},
		{args: []string{"traces", "--json"}, json: true, ok: true},
		{args: []string{"traces", "--run", f.runB}, ok: true},
		{args: []string{"rules", "explain", keys[0]}, ok: true},
		{args: []string{"rules", "explain", "--json", keys[0]}, json: true, ok: true},
		{args: []string{"steps", keys[0]}, ok: true},
		{args: []string{"steps", "--json", keys[0]}, json: true, ok: true},
		{args: []string{"rules", "explain", f.runA + "/nope" + hostileName + "#0"}},
		{args: []string{"rules", "check"}, ok: true},
		{args: []string{"rules", "check", "--json"}, json: true, ok: true},
		{args: []string{"rules", "check", "--slice", "s1", "--fixtures", filepath.Join(c.dir, "fx")}},
		{args: []string{"agree", "s1"}, ok: true},
		{args: []string{"agree", "s1", "--json"}, json: true, ok: true},
		{args: []string{"agree", "--ratings", f.ratings}, ok: true},
		{args: []string{"agree", "--ratings", f.ratings, "--json"}, json: true, ok: true},
		{args: []string{"agree", "--ratings", c.file("bad.csv", "unit,rater,label\n"+termtest.Hostile+"\n")}},
		{args: []string{"labels", "export"}, json: true, ok: true},
		{args: []string{"labels", "export", "--slice", "s1", "--reviewer", "ann" + hostileTask}, json: true},
		{args: []string{"report"}, ok: true},
		{args: []string{"report", "--run", f.runA, "--width", "200"}},
		{args: []string{"report", "--format", "md"}, ok: true},
		{args: []string{"report", "--format", "html"}, ok: true},
		{args: []string{"report", "--json"}, json: true, ok: true},
		{args: []string{"card", "export", "--run", f.runA}},
		{args: []string{"card", "export", "--run", f.runA, "--allow-unresolved", "--allow-untrusted"}, json: true, ok: true},
		{args: []string{"card", "export", "--run", f.runA, "--allow-unresolved", "--allow-untrusted", "--out", cardA}, ok: true},
		{args: []string{"card", "export", "--run", f.runB, "--allow-unresolved", "--allow-untrusted", "--out", cardB}, ok: true},
		{args: []string{"card", "verify", cardA, "--pack", f.pack}, ok: true},
		{args: []string{"compare", cardA, cardB}, ok: true},
		{args: []string{"compare", "--json", cardA, cardB}, json: true, ok: true},
		{args: []string{"compare", f.runA, f.runB}, ok: true},
		{args: []string{"compare", "--json", f.runA, f.runB}, json: true, ok: true},
		{args: []string{"compare", f.runA, "nope" + hostileName}},
		{args: []string{"pack", "hash", f.pack}, ok: true},
		{args: []string{"pack", "check", f.pack}, ok: true},
		{args: []string{"pack", "check", filepath.Join(c.dir, "nopack"+hostileName)}},
		{args: []string{"pack", "check", f.badPack}},
		{args: []string{"pack", "hash", f.badPack}},
		{args: []string{"card", "init", "--run", "rc", "--pack", f.badPack}},
		{args: []string{"--taxonomy", c.file("t"+hostileName+".json", `{"classes":[{"code":`+js(termtest.Hostile)+`}]}`), "traces"}},
	} {
		runStep(s)
	}
	require.Contains(t, show, "␛", "the walk reached hostile text (shown as stand-ins)")
	requireReportScreenInert(t, &app{dbPath: c.db, taxonomyPath: f.tax, stdout: io.Discard, stderr: io.Discard})
}

// requireReportScreenInert draws the report screen (report --tui) from
// the store as showReportTUI does, root causes included, at two widths,
// with the cursor on every figure in turn (its title names what it
// opens), and checks each frame.
func requireReportScreenInert(t *testing.T, a *app) {
	t.Helper()
	in, notes, err := a.cardInputAlone(t.Context(), "", true)
	require.NoError(t, err)
	termtest.RequireInert(t, "report screen notes", notes)
	v := card.View(card.Report(in))
	require.NotEmpty(t, v.RootCauses, "the hostile failures have root causes")
	hostile := false
	for _, rc := range v.RootCauses {
		hostile = hostile || strings.ContainsAny(rc.Cause+strings.Join(rc.Traces, ""), "\x1b\u009b\u202e")
	}
	require.True(t, hostile, "a root cause or its traces carry the payload")
	for _, w := range []int{60, 160} {
		var m tea.Model = ui.NewReportView(v)
		m, _ = m.Update(tea.WindowSizeMsg{Width: w, Height: 300})
		termtest.RequireInert(t, fmt.Sprintf("report screen at width %d", w), m.View())
		for i := range 40 {
			m, _ = m.Update(tea.KeyMsg{Type: tea.KeyTab})
			termtest.RequireInert(t, fmt.Sprintf("report screen at width %d, figure %d", w, i), m.View())
		}
	}
}

// surfaceName names a command for a failure message, short and inert.
func surfaceName(args []string) string {
	r := []rune(triage.Sanitize(strings.Join(args, " ")))
	if len(r) > 90 {
		r = append(r[:90], '…')
	}
	return "triage " + string(r)
}

// sliceKeys lists a slice's trace keys from its --json-free listing.
func sliceKeys(t *testing.T, c *cli, slice string) []string {
	t.Helper()
	_, out, _ := c.run("", "traces", "--json")
	byID := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var row struct {
			Run  string `json:"run_id"`
			Task string `json:"task_id"`
			Seed int    `json:"seed"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &row))
		byID[triage.Sanitize(triage.TraceKey(row.Run, row.Task, row.Seed))] = triage.TraceKey(row.Run, row.Task, row.Seed)
	}
	_, show, _ := c.run("", "slice", "show", slice)
	var keys []string
	for line := range strings.SplitSeq(show, "\n") {
		if fs := strings.Fields(line); len(fs) > 0 {
			if k, ok := byID[fs[0]]; ok {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// requireJSONEscaped checks that out is JSON (a document or JSON lines)
// (requireInert has already checked that its text is escaped).
func requireJSONEscaped(t *testing.T, name, out string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	n := 0
	for dec.More() {
		var v any
		require.NoError(t, dec.Decode(&v), "%s: output is JSON", name)
		n++
	}
	require.Positive(t, n, "%s: some JSON", name)
}

func TestHostileFixtureNamesAreHostile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	f := newHostileFixture(t, c)
	entries, err := os.ReadDir(f.pack)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	require.Contains(t, entries[0].Name(), "\x1b]0;t\x07", "task directories carry the payload in their names")
	requireFails := func(in string) {
		t.Helper()
		ft := &fakeTB{}
		termtest.RequireInert(ft, "probe", in)
		require.True(t, ft.failed, "%q", in)
	}
	for _, in := range []string{termtest.Hostile, hostileName, "\x9b", "\u009d", "\u202e", "a\rb", "\x08"} {
		requireFails(in)
	}
	termtest.RequireInert(t, "sanitized", triage.Sanitize(termtest.Hostile))
}

// fakeTB records a failure instead of failing the test.
type fakeTB struct {
	testing.TB
	failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Errorf(string, ...any) { f.failed = true }
