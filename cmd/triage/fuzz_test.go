package main

import (
	"testing"

	"github.com/triage-dev/triage/internal/ingest"
	"github.com/triage-dev/triage/internal/rules"
	"github.com/triage-dev/triage/internal/sample"
	"github.com/triage-dev/triage/internal/triage"
)

// FuzzDecodeClassify runs arbitrary rows through what import and the
// rules do to them, against the sample pack's tasks (specs, allowlists,
// sentinels, withheld inputs): nothing may panic, and every verdict names
// a primary from the taxonomy or says why it cannot.
func FuzzDecodeClassify(f *testing.F) {
	pk, _, err := loadSamplePack()
	if err != nil {
		f.Fatal(err)
	}
	tax := rules.DefaultTaxonomy()
	tax.Version = rules.Version(tax)
	for _, line := range splitLines(sample.Traces()) {
		f.Add(line)
	}
	f.Add(`{"task_id":"T06","tool_calls":[{"name":"http","args":{"url":"/v2/x?y=sk-eval-SENTINEL-DONOTLEAK"}}],"exit_code":0}`)
	f.Fuzz(func(t *testing.T, row string) {
		tr, err := ingest.DecodeRow([]byte(row), "r")
		if err != nil {
			return
		}
		for _, task := range []*triage.Task{nil, pk.Task(tr.TaskID), pk.Task("T01"), pk.Task("T06")} {
			v := rules.Classify(tax, rules.Budgets{}, task, tr)
			if v.Primary == "" && v.Decision != triage.DecisionLeftover {
				t.Fatalf("no primary but decision %q", v.Decision)
			}
			if v.Primary != "" && !tax.Has(v.Primary) {
				t.Fatalf("primary %q is not in the taxonomy", v.Primary)
			}
		}
	})
}

func splitLines(b []byte) []string {
	var out []string
	start := 0
	for i, c := range b {
		if c == '\n' {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	return out
}
