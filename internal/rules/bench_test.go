package rules

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/triage"
)

// BenchmarkClassifySeedRows classifies seed-format rows held in memory on
// one goroutine and reports rows/s (the issue asks for at least 1e6): rows
// shaped like the seed's example, every flag present, 1 to 12 tool calls
// with an occasional loop, the card's 180 s cap, a mix of classes.
func BenchmarkClassifySeedRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	raw := genRealisticRows(rng, 4096)
	traces := make([]*triage.Trace, len(raw))
	for i, r := range raw {
		traces[i] = traceFromSeedRow(b, r)
	}
	comp := Compile(DefaultTaxonomy(), nil)
	benchRows(b, comp, traces)
}

// BenchmarkClassifySeedRowsLarge is the same over 65,536 rows (about
// 60 MB of decoded traces), where memory, not the rules, sets the pace.
func BenchmarkClassifySeedRowsLarge(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	raw := genRealisticRows(rng, 65536)
	traces := make([]*triage.Trace, len(raw))
	for i, r := range raw {
		traces[i] = traceFromSeedRow(b, r)
	}
	comp := Compile(DefaultTaxonomy(), nil)
	benchRows(b, comp, traces)
}

// BenchmarkClassifyEdgeRows is the same over the equivalence test's
// adversarial rows: absent and null fields, caps of 0, many loops.
func BenchmarkClassifyEdgeRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	raw := genSeedRows(rng, 4096)
	traces := make([]*triage.Trace, len(raw))
	for i, r := range raw {
		traces[i] = traceFromSeedRow(b, r)
	}
	comp := Compile(DefaultTaxonomy(), nil)
	benchRows(b, comp, traces)
}

// benchRows classifies traces round-robin and reports rows per wall
// second and per CPU second of this process: on a shared, loaded machine
// the second is the one that measures the code rather than the neighbours.
func benchRows(b *testing.B, comp *Compiled, traces []*triage.Trace) {
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		_ = comp.Classify(Budgets{}, traces[i%len(traces)])
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	if cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "rows/cpu-s")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// genRealisticRows makes rows like the seed's example row.
func genRealisticRows(rng *rand.Rand, n int) [][]byte {
	tools := []string{"read", "grep", "edit", "bash", "write"}
	files := []string{"README.md", "src/client.py", "openapi.yaml", "tests/test_client.py", "src/models.py"}
	rows := make([][]byte, n)
	for i := range rows {
		var calls []string
		for k := 1 + rng.IntN(12); k > 0; k-- {
			c := `{"name":"` + tools[rng.IntN(len(tools))] + `","args":{"path":"` + files[rng.IntN(len(files))] + `"}}`
			calls = append(calls, c)
			if rng.IntN(20) == 0 {
				calls = append(calls, c, c)
			}
		}
		exit := "1"
		if rng.IntN(2) == 0 {
			exit = "0"
		}
		b := func(p int) string {
			if rng.IntN(p) == 0 {
				return "true"
			}
			return "false"
		}
		row := `{"task_id":"T` + strconv.Itoa(i%10) + `","exit_code":` + exit + `,"tool_calls":[` + strings.Join(calls, ",") +
			`],"written_tests":` + b(4) + `,"wall_s":` + strconv.Itoa(5+rng.IntN(200)) + `,"wall_cap":180,"timeout":false` +
			`,"assumed_api":` + b(6) + `,"required_missing":` + b(5) + `,"asked":` + b(2) + `,"outside_allowlist":` + b(8) + `}`
		rows[i] = []byte(row)
	}
	return rows
}

// BenchmarkClassifyWithSentinels is BenchmarkClassifySeedRows with a task
// that carries three sentinels, none of which leak: the guard probe then
// searches every text of every trace, which is its common case.
func BenchmarkClassifyWithSentinels(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	raw := genRealisticRows(rng, 4096)
	traces := make([]*triage.Trace, len(raw))
	for i, r := range raw {
		traces[i] = traceFromSeedRow(b, r)
		traces[i].Messages = []triage.Message{{Role: "user", Content: "fix the client"}, {Role: "assistant", Content: "done"}}
	}
	task := &triage.Task{ID: "T0", Sentinels: []string{"sk-canary-7f3a", "CANARY-b81c", "hidden-test-0042"}}
	comp := Compile(DefaultTaxonomy(), task)
	benchRows(b, comp, traces)
}
