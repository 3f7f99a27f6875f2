package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// closedStore is run g (gateRows) with the rules run, where ann and bob
// both labelled every looping trace (seed 2, TOOL_LOOP by the rules)
// SCOPE_SLIP, every timeout (seed 3) TIMEOUT as the rules did, and, when
// dissent, one looping trace TIMEOUT instead.
func closedStore(t *testing.T, dissent bool) *cli {
	t.Helper()
	c := newCLI(t)
	code, _, errOut := c.run("", "import", c.file("g.jsonl", gateRows()))
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	var b strings.Builder
	for task := range 10 {
		for _, seed := range []int{2, 3} {
			class := map[int]string{2: "SCOPE_SLIP", 3: "TIMEOUT"}[seed]
			if dissent && task == 0 && seed == 2 {
				class = "TIMEOUT"
			}
			for _, who := range []string{"ann", "bob"} {
				fmt.Fprintf(&b, `{"run_id":"g","task_id":"T%02d","seed":%d,"reviewer":%q,"kind":"human","primary":%q,"secondary":[],"note":"","created_at":"2026-11-01T09:%02d:00Z"}`+"\n",
					task, seed, who, class, task)
			}
		}
	}
	code, _, errOut = c.run("", "labels", "import", c.file("labels.jsonl", b.String()))
	require.Equal(t, exitOK, code, errOut)
	return c
}

func TestRulesCheckProposesClosedClusters(t *testing.T) {
	t.Parallel()
	c := closedStore(t, false)
	code, out, errOut := c.run("", "rules", "check", "--json")
	require.Equal(t, exitOK, code, errOut)
	var rep ruleCheckReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Candidates, 1, "the timeouts people agreed with the rules on are no candidate: %+v", rep.Candidates)
	cand := rep.Candidates[0]
	require.Equal(t, "SCOPE_SLIP", cand.Class)
	require.Equal(t, 10, cand.Settled)
	require.Equal(t, 10, cand.Size)
	require.InDelta(t, 1.0, cand.Precision, 1e-12)
	require.Equal(t, 10, cand.Fixes)
	require.Zero(t, cand.Breaks)
	require.Equal(t, []classCount{{Class: "TOOL_LOOP", N: 10}}, cand.RulesGave)
	require.NotNil(t, cand.Signature)
	require.True(t, cand.MayLabelUnattended, "precision 1 on the default --min-fired 10")

	code, out, errOut = c.run("", "rules", "check")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "Rule candidates from closed cases")
	require.Contains(t, out, "⇒ SCOPE_SLIP · precision 1.00 on 10 settled of 10 traces · fixes 10, breaks 0 · rules gave TOOL_LOOP 10 · may label unattended")
	code, out, errOut = c.run("", "rules", "check", "--min-fired", "11")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "keep people in the loop (10 settled traces labelled one by one, fewer than --min-fired 11)")

	// --min-cluster 0: no candidates, no bodies read.
	code, out, errOut = c.run("", "rules", "check", "--json", "--min-cluster", "0")
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, out, "rule_candidates")
	code, _, errOut = c.run("", "rules", "check", "--min-cluster", "-1")
	require.Equal(t, exitUsage, code, errOut)
}

func TestRulesCheckCandidatePrecisionCountsDissent(t *testing.T) {
	t.Parallel()
	c := closedStore(t, true)
	code, out, errOut := c.run("", "rules", "check", "--json")
	require.Equal(t, exitOK, code, errOut)
	var rep ruleCheckReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	var cand *ruleCandidate
	for i := range rep.Candidates {
		if rep.Candidates[i].Class == "SCOPE_SLIP" {
			cand = &rep.Candidates[i]
		}
	}
	require.NotNil(t, cand, "%+v", rep.Candidates)
	require.InDelta(t, 0.9, cand.Precision, 1e-12, "9 of the 10 settled loops were closed SCOPE_SLIP")
	require.Equal(t, 9, cand.Fixes)
}
