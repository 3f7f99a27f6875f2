package main

import (
	"math/rand/v2"
	"strconv"
)

// Classes a row is generated to show, with its weight in the mix (in
// thousandths). The mix is one a struggling agent on an API-client suite
// might plausibly produce; it only has to exercise every rule.
var classes = []struct {
	name   string
	weight int
}{
	{"PASS_CONTRACT", 300},
	{"PASS_WEAK", 100},
	{"ASSUME_API", 150},
	{"TOOL_LOOP", 100},
	{"MISSING_ASK", 50},
	{"SCOPE_SLIP", 80},
	{"TIMEOUT", 70},
	{"SCORER_RED", 150},
}

// nTasks is how many task IDs rows cycle through by default; (task_id,
// seed) is unique per row.
const nTasks = 200

// shape is how rows spread over runs and tasks (issue 27: the cost of
// triage must grow with the rows, not with how they spread). Rows fill
// one run after another, as a nightly suite accumulates them; within a
// run they cycle through the tasks, seed after seed, so (run_id, task_id,
// seed) is unique per row.
type shape struct {
	// runs is how many runs the rows are split into (0: no run_id is
	// written, so the import names the run).
	runs int
	// tasks is how many task ids each run cycles through.
	tasks int
	// perRun is how many rows each run holds.
	perRun int
}

// newShape spreads n rows over runs runs (0: none named) of tasks tasks
// (0: the default 200).
func newShape(n, runs, tasks int) shape {
	if tasks <= 0 {
		tasks = nTasks
	}
	per := n
	if runs > 0 {
		per = (n + runs - 1) / runs
	}
	return shape{runs: runs, tasks: tasks, perRun: max(per, 1)}
}

var models = []string{"gpt-5.1", "sonnet-4-6", "gemini-3.1-pro"}

// Ordinary tool calls, as JSON objects. Their names and args are what a
// coding agent on an invoice-client task does.
var calls = []string{
	`{"name":"read_file","args":{"path":"src/client.py"}}`,
	`{"name":"read_file","args":{"path":"openapi.yaml"}}`,
	`{"name":"read_file","args":{"path":"README.md"}}`,
	`{"name":"list_dir","args":{"path":"src"}}`,
	`{"name":"grep","args":{"pattern":"invoice_id"}}`,
	`{"name":"bash","args":{"cmd":"pytest -q tests/test_client.py"}}`,
	`{"name":"bash","args":{"cmd":"python -m compileall -q src"}}`,
	`{"name":"edit_file","args":{"path":"src/client.py"}}`,
	`{"name":"write_file","args":{"path":"src/models.py"}}`,
	`{"name":"http","args":{"url":"/v1/invoices?status=open"}}`,
	`{"name":"http","args":{"url":"/v1/invoices/inv_102/pay"}}`,
	`{"name":"read_file","args":{"path":"src/errors.py"}}`,
}

// Class-specific evidence.
const (
	inventedCall = `{"name":"http","args":{"method":"GET","url":"/v2/invoices/search"}}`
	loopCall     = `{"name":"bash","args":{"cmd":"pytest -q -x tests/test_client.py"}}`
	testWrite    = `{"name":"write_file","args":{"path":"tests/test_client_mock.py"}}`
)

// generator makes rows from one random stream, so a seed fixes the file.
type generator struct {
	shape shape
	r     *rand.Rand
	cum   []int
	total int
}

func newGenerator(seed uint64, sh shape) *generator {
	g := &generator{shape: sh, r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for _, c := range classes {
		g.total += c.weight
		g.cum = append(g.cum, g.total)
	}
	return g
}

func (g *generator) class() string {
	x := g.r.IntN(g.total)
	for i, c := range g.cum {
		if x < c {
			return classes[i].name
		}
	}
	return classes[len(classes)-1].name
}

// appendRow appends row i (with its newline) to dst.
func (g *generator) appendRow(dst []byte, i int) []byte {
	class := g.class()
	r := g.r
	sh := g.shape
	j := i
	if sh.runs > 0 {
		j = i % sh.perRun
		dst = append(dst, `{"run_id":"R`...)
		dst = appendPadded(dst, i/sh.perRun)
		dst = append(dst, `","task_id":"T`...)
	} else {
		dst = append(dst, `{"task_id":"T`...)
	}
	dst = appendPadded(dst, j%sh.tasks)
	dst = append(dst, `","seed":`...)
	dst = strconv.AppendInt(dst, int64(j/sh.tasks), 10)
	dst = append(dst, `,"model":"`...)
	dst = append(dst, models[r.IntN(len(models))]...)
	dst = append(dst, `","exit_code":`...)
	exit := 0
	if class == "SCORER_RED" || class == "ASSUME_API" || class == "MISSING_ASK" || class == "TIMEOUT" || class == "TOOL_LOOP" {
		exit = 1
		if r.IntN(4) == 0 {
			exit = 0 // an invented API or a loop can still end green
		}
	}
	dst = strconv.AppendInt(dst, int64(exit), 10)

	// Tool calls: 4 to 11 ordinary ones, with the class's evidence
	// spliced in; with the long timeout runs the mean is about eight.
	n := 4 + r.IntN(8)
	if class == "TIMEOUT" {
		n = 12 + r.IntN(3)
	}
	loopAt, evidenceAt := -1, -1
	if class == "TOOL_LOOP" {
		loopAt = r.IntN(n - 2)
	}
	if class == "ASSUME_API" || class == "PASS_WEAK" {
		evidenceAt = r.IntN(n)
	}
	dst = append(dst, `,"tool_calls":[`...)
	prev := -1
	for k := range n {
		if k > 0 {
			dst = append(dst, ',')
		}
		switch {
		case loopAt >= 0 && k >= loopAt && k < loopAt+3:
			dst = append(dst, loopCall...)
		case k == evidenceAt && class == "ASSUME_API":
			dst = append(dst, inventedCall...)
		case k == evidenceAt && class == "PASS_WEAK":
			dst = append(dst, testWrite...)
		case k == n-1 && class == "SCOPE_SLIP":
			dst = append(dst, `{"name":"write_file","args":{"path":"setup.cfg"}}`...)
		default:
			// Never the previous call again: three equal calls in a
			// row would be a loop the class did not ask for.
			j := r.IntN(len(calls))
			if j == prev {
				j = (j + 1 + r.IntN(len(calls)-1)) % len(calls)
			}
			prev = j
			dst = append(dst, calls[j]...)
			continue
		}
		prev = -1
	}
	dst = append(dst, ']')

	dst = append(dst, `,"written_tests":`...)
	dst = strconv.AppendBool(dst, class == "PASS_WEAK")
	wallCap := 180
	wall := 20 + r.IntN(140)
	timeout := false
	if class == "TIMEOUT" {
		wall = wallCap + r.IntN(20)
		timeout = r.IntN(2) == 0
	}
	dst = append(dst, `,"wall_s":`...)
	dst = strconv.AppendInt(dst, int64(wall), 10)
	dst = append(dst, '.')
	dst = strconv.AppendInt(dst, int64(r.IntN(10)), 10)
	dst = append(dst, `,"wall_cap":180`...)
	if timeout {
		dst = append(dst, `,"timeout":true`...)
	}
	in, out := 8000+r.IntN(40000), 300+r.IntN(3500)
	dst = append(dst, `,"tokens":{"input":`...)
	dst = strconv.AppendInt(dst, int64(in), 10)
	dst = append(dst, `,"output":`...)
	dst = strconv.AppendInt(dst, int64(out), 10)
	dst = append(dst, `},"cost_usd":0.0`...)
	dst = appendPadded(dst, (in/1000+out/100)%1000)

	// The seed's flags: always where only a flag can show the class
	// without the pack, and on a fifth of the other rows.
	if class == "MISSING_ASK" || class == "SCOPE_SLIP" || r.IntN(5) == 0 {
		dst = append(dst, `,"assumed_api":`...)
		dst = strconv.AppendBool(dst, class == "ASSUME_API")
		dst = append(dst, `,"required_missing":`...)
		dst = strconv.AppendBool(dst, class == "MISSING_ASK")
		dst = append(dst, `,"asked":false,"outside_allowlist":`...)
		dst = strconv.AppendBool(dst, class == "SCOPE_SLIP")
	}
	return append(dst, "}\n"...)
}

// appendPadded appends v as at least three digits.
func appendPadded(dst []byte, v int) []byte {
	if v < 100 {
		dst = append(dst, '0')
	}
	if v < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(v), 10)
}
