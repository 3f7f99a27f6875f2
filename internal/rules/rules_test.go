package rules

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

func ptr[T any](v T) *T { return &v }

// call builds a tool call from raw JSON args ("" for none).
func call(name, args string) triage.ToolCall {
	c := triage.ToolCall{Name: name}
	if args != "" {
		c.Args = json.RawMessage(args)
	}
	return c
}

// base is a green trace with a tool log, every seed flag false and no
// timeout: on its own it is PASS_CONTRACT.
func base() *triage.Trace {
	return &triage.Trace{
		RunID: "r1", TaskID: "T1", ExitCode: ptr(0), HasToolLog: true,
		ToolCalls: []triage.ToolCall{call("read", `{"path":"README.md"}`)},
		WallS:     ptr(41.0), Timeout: ptr(false), WrittenTests: ptr(false),
		Flags: triage.Flags{AssumedAPI: ptr(false), RequiredMissing: ptr(false), Asked: ptr(false), OutsideAllowlist: ptr(false)},
	}
}

// invoiceTask has a spec, an allowlist, hidden tests and no withheld input.
func invoiceTask() *triage.Task {
	return &triage.Task{
		ID: "T1", Spec: []string{"openapi.yaml"}, Allowlist: []string{"src/**", "tests/test_client.py"},
		HiddenTests: []string{"hidden/test_contract.py"},
		API: &triage.APISurface{
			Paths: []string{"/v1/invoices", "/v1/invoices/{invoice_id}", "/v1/customers/{id}/invoices"},
			Operations: []triage.Operation{
				{Method: "GET", Path: "/v1/invoices", OperationID: "listInvoices"},
				{Method: "POST", Path: "/v1/invoices", OperationID: "createInvoice"},
				{Method: "GET", Path: "/v1/invoices/{invoice_id}", OperationID: "getInvoice"},
				{Method: "GET", Path: "/v1/customers/{id}/invoices", OperationID: "customerInvoices"},
			},
		},
	}
}

// evidenceFor returns the evidence items of one rule.
func evidenceFor(v triage.Verdict, rule string) []triage.Evidence {
	var out []triage.Evidence
	for _, e := range v.Evidence {
		if e.Rule == rule {
			out = append(out, e)
		}
	}
	return out
}

func unevaluatedRules(v triage.Verdict) []string {
	var out []string
	for _, e := range v.Unevaluated {
		out = append(out, e.Rule)
	}
	return out
}

func TestBaseIsCertainContractPass(t *testing.T) {
	t.Parallel()
	v := Classify(nil, Budgets{}, nil, base())
	require.Equal(t, triage.PassContract, v.Primary)
	require.Equal(t, []string{triage.PassContract}, v.Fired)
	require.Empty(t, v.Secondary)
	require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
	require.Empty(t, v.Unevaluated)
	require.Equal(t, triage.OutcomeSuccess, v.Outcome)
	require.Equal(t, RulesVersion, v.RulesVersion)
	require.Equal(t, DefaultTaxonomy().Version, v.TaxonomyVersion)
	require.Len(t, v.TaxonomyVersion, 64)
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mod    func(*triage.Trace)
		b      Budgets
		fires  bool
		idents []string
	}{
		{"flag", func(tr *triage.Trace) { tr.Timeout = ptr(true) }, Budgets{}, true, []string{"timeout"}},
		{"wall cap reached", func(tr *triage.Trace) { tr.WallS, tr.WallCap = ptr(180.0), ptr(180.0) }, Budgets{}, true, []string{"wall_cap"}},
		{"under wall cap", func(tr *triage.Trace) { tr.WallS, tr.WallCap = ptr(179.9), ptr(180.0) }, Budgets{}, false, nil},
		{"absent wall_s reads as 0", func(tr *triage.Trace) { tr.WallS, tr.WallCap = nil, ptr(0.0) }, Budgets{}, true, []string{"wall_cap"}},
		{"wall budget", func(tr *triage.Trace) { tr.Timeout = nil; tr.WallS = ptr(200.0) }, Budgets{WallS: ptr(180.0)}, true, []string{"wall_s"}},
		{"token budget", func(tr *triage.Trace) { tr.Timeout = nil; tr.Tokens = &triage.Tokens{Output: 4096} }, Budgets{MaxOutputTokens: ptr(int64(4096))}, true, []string{"max_output_tokens"}},
		{"tool budget", func(tr *triage.Trace) { tr.Timeout = nil }, Budgets{MaxToolCalls: ptr(int64(1))}, true, []string{"max_tool_calls"}},
		{"under budgets", func(tr *triage.Trace) { tr.Timeout = nil; tr.Tokens = &triage.Tokens{Output: 10} },
			Budgets{WallS: ptr(180.0), MaxOutputTokens: ptr(int64(4096)), MaxToolCalls: ptr(int64(12))}, false, nil},
		{"timeout flag false is the harness's word", func(tr *triage.Trace) { tr.WallS = ptr(500.0) }, Budgets{WallS: ptr(180.0)}, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tr := base()
			tr.ExitCode = ptr(1) // unresolved: a resolved run is PASS_* (TestCapCodebook)
			c.mod(tr)
			v := Classify(nil, c.b, nil, tr)
			ev := evidenceFor(v, triage.Timeout)
			if !c.fires {
				require.NotEqual(t, triage.Timeout, v.Primary)
				require.Empty(t, ev)
				return
			}
			require.Equal(t, triage.Timeout, v.Primary)
			require.Equal(t, triage.OutcomeFailed, v.Outcome, "the scorer's verdict; the cap is why it stopped")
			var idents []string
			for _, e := range ev {
				idents = append(idents, e.Ident)
				require.Equal(t, -1, e.ToolCall)
				require.NotEmpty(t, e.Message)
			}
			require.Equal(t, c.idents, idents)
		})
	}
}

func TestToolLoop(t *testing.T) {
	t.Parallel()
	same := func(out string, args ...string) []triage.ToolCall {
		var cs []triage.ToolCall
		for _, a := range args {
			c := call("read", a)
			c.Output = out
			cs = append(cs, c)
		}
		return cs
	}
	t.Run("three in a row, key order ignored", func(t *testing.T) {
		t.Parallel()
		tr := base()
		tr.ToolCalls = append([]triage.ToolCall{call("grep", `{"q":"x"}`)},
			same("same", `{"path":"a","n":1}`, `{"n":1, "path":"a"}`, `{ "path": "a", "n": 1 }`)...)
		v := Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.ToolLoop, v.Primary)
		ev := evidenceFor(v, triage.ToolLoop)
		require.Len(t, ev, 1)
		require.Equal(t, 1, ev[0].ToolCall)
		require.Equal(t, "read", ev[0].Ident)
		require.Contains(t, ev[0].Message, "calls 1, 2, 3")
		require.Contains(t, ev[0].Message, "outputs identical: no new evidence")
		require.NotContains(t, v.Secondary, triage.PassContract, "PASS_CONTRACT is terminal: it never fires with another rule")
	})
	t.Run("a long loop elides the middle calls", func(t *testing.T) {
		t.Parallel()
		tr := base()
		tr.ToolCalls = same("same", `{}`, `{}`, `{}`, `{}`, `{}`, `{}`, `{}`, `{}`, `{}`, `{}`)
		v := Classify(nil, Budgets{}, nil, tr)
		require.Contains(t, evidenceFor(v, triage.ToolLoop)[0].Message, "10 times in a row with the same arguments (calls 0, 1, 2, …, 9);")
	})
	t.Run("repeats that got new output are not a loop", func(t *testing.T) {
		t.Parallel()
		// Polling a process (Codex's write_stdin until it finishes) repeats
		// the call and gets new output each time: no loop.
		tr := base()
		tr.ToolCalls = same("", `{"path":"a"}`, `{"path":"a"}`, `{"path":"a"}`)
		tr.ToolCalls[2].Output = "changed"
		v := Classify(nil, Budgets{}, nil, tr)
		require.NotEqual(t, triage.ToolLoop, v.Primary)
		require.NotContains(t, v.Fired, triage.ToolLoop)
		tr.ToolCalls[2].Output = ""
		tr.ToolCalls[1].Error = "boom"
		require.NotContains(t, Classify(nil, Budgets{}, nil, tr).Fired, triage.ToolLoop)
	})
	t.Run("key order and spacing do not matter", func(t *testing.T) {
		t.Parallel()
		tr := base()
		tr.ToolCalls = same("", `{"a":1,"b":2}`, `{"b":2,"a":1}`, `{ "a" : 1, "b" : 2 }`)
		require.Equal(t, triage.ToolLoop, Classify(nil, Budgets{}, nil, tr).Primary)
	})
	for name, calls := range map[string][]triage.ToolCall{
		"two only":            same("", `{"path":"a"}`, `{"path":"a"}`),
		"different args":      same("", `{"path":"a"}`, `{"path":"a"}`, `{"path":"b"}`),
		"1 is not 1.0":        same("", `{"n":1}`, `{"n":1.0}`, `{"n":1}`),
		"null is not missing": same("", "", "null", ""),
		"interrupted":         {call("read", `{}`), call("read", `{}`), call("bash", `{}`), call("read", `{}`)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := base()
			tr.ToolCalls = calls
			v := Classify(nil, Budgets{}, nil, tr)
			require.Equal(t, triage.PassContract, v.Primary)
			require.Empty(t, evidenceFor(v, triage.ToolLoop))
		})
	}
	t.Run("no tool log", func(t *testing.T) {
		t.Parallel()
		tr := base()
		tr.ToolCalls, tr.HasToolLog = nil, false
		v := Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.PassContract, v.Primary)
		require.Equal(t, []string{triage.ToolLoop}, unevaluatedRules(v))
		require.Equal(t, triage.DecisionLeftover, v.Decision)
		require.Contains(t, v.Reason, "could not evaluate TOOL_LOOP")
	})
	t.Run("loop length from the taxonomy", func(t *testing.T) {
		t.Parallel()
		tax := DefaultTaxonomy()
		tax.LoopN = 2
		tr := base()
		tr.ToolCalls = same("", `{"path":"a"}`, `{"path":"a"}`)
		require.Equal(t, triage.ToolLoop, Classify(tax, Budgets{}, nil, tr).Primary)
	})
}

func TestMissingAsk(t *testing.T) {
	t.Parallel()
	withheld := func() *triage.Task {
		task := invoiceTask()
		task.Withheld = []string{"openapi.yaml"}
		return task
	}
	derive := func(mod func(*triage.Trace)) *triage.Trace {
		tr := base()
		tr.RequiredMissing, tr.Asked = nil, nil
		mod(tr)
		return tr
	}
	cases := []struct {
		name  string
		task  *triage.Task
		tr    *triage.Trace
		fires bool
	}{
		{"withheld, never asked", withheld(), derive(func(tr *triage.Trace) { tr.Answer = ptr("Done. I used the usual /v1 layout.") }), true},
		{"ask tool", withheld(), derive(func(tr *triage.Trace) { tr.ToolCalls = append(tr.ToolCalls, call("ask_user", `{"q":"spec?"}`)) }), false},
		{"ask tool, any case", withheld(), derive(func(tr *triage.Trace) { tr.ToolCalls = append(tr.ToolCalls, call("Ask_User", "")) }), false},
		{"question in the answer", withheld(), derive(func(tr *triage.Trace) { tr.Answer = ptr("The spec is missing.\nCould you send openapi.yaml?\n") }), false},
		{"ask phrase", withheld(), derive(func(tr *triage.Trace) { tr.Answer = ptr("Please provide the OpenAPI file so I can continue.") }), false},
		{"question in last assistant message", withheld(), derive(func(tr *triage.Trace) {
			tr.Messages = []triage.Message{{Role: "user", Content: "go"}, {Role: "assistant", Content: "Where is the spec? **"}}
		}), false},
		{"question only inside code", withheld(), derive(func(tr *triage.Trace) { tr.Answer = ptr("Done.\n```\nx = a ? b : c?\n```\n") }), true},
		{"nothing withheld", invoiceTask(), derive(func(*triage.Trace) {}), false},
		{"flags: missing, not asked", nil, func() *triage.Trace { tr := base(); tr.RequiredMissing = ptr(true); return tr }(), true},
		{"flags: missing, asked", nil, func() *triage.Trace { tr := base(); tr.RequiredMissing, tr.Asked = ptr(true), ptr(true); return tr }(), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := Classify(nil, Budgets{}, c.task, c.tr)
			ev := evidenceFor(v, triage.MissingAsk)
			if !c.fires {
				require.Empty(t, ev)
				require.NotContains(t, v.Fired, triage.MissingAsk)
				return
			}
			require.Equal(t, triage.MissingAsk, v.Primary)
			require.Len(t, ev, 1)
			if c.task != nil {
				require.Equal(t, "openapi.yaml", ev[0].Ident)
				require.Contains(t, ev[0].Message, "ask_user")
			}
		})
	}
	t.Run("custom ask tools", func(t *testing.T) {
		t.Parallel()
		task := withheld()
		task.AskTools = []string{"request_input"}
		tr := derive(func(tr *triage.Trace) { tr.ToolCalls = append(tr.ToolCalls, call("ask_user", "")) })
		require.Equal(t, triage.MissingAsk, Classify(nil, Budgets{}, task, tr).Primary)
		tr.ToolCalls = append(tr.ToolCalls, call("request_input", ""))
		require.NotEqual(t, triage.MissingAsk, Classify(nil, Budgets{}, task, tr).Primary)
	})
	t.Run("no task, no flag", func(t *testing.T) {
		t.Parallel()
		v := Classify(nil, Budgets{}, nil, derive(func(*triage.Trace) {}))
		require.Contains(t, unevaluatedRules(v), triage.MissingAsk)
	})
}

func TestScopeSlip(t *testing.T) {
	t.Parallel()
	diff := "diff --git a/src/client.py b/src/client.py\n--- a/src/client.py\n+++ b/src/client.py\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/docs/notes.md b/docs/notes.md\nnew file mode 100644\n--- /dev/null\n+++ b/docs/notes.md\n@@ -0,0 +1 @@\n+x\n" +
		"diff --git a/src/old.py b/lib/new.py\nsimilarity index 100%\nrename from src/old.py\nrename to lib/new.py\n"
	tr := base()
	tr.OutsideAllowlist = nil
	tr.Diff = &diff
	v := Classify(nil, Budgets{}, invoiceTask(), tr)
	require.Equal(t, triage.ScopeSlip, v.Primary)
	ev := evidenceFor(v, triage.ScopeSlip)
	require.Len(t, ev, 2)
	require.Equal(t, "docs/notes.md", ev[0].File)
	require.Equal(t, "docs/notes.md", ev[0].Ident)
	require.Contains(t, ev[0].Message, "added")
	require.Equal(t, "lib/new.py", ev[1].Ident, "both names of a rename are checked; src/old.py is allowed")

	inside := "--- a/src/client.py\n+++ b/src/client.py\n@@ -1 +1 @@\n-a\n+b\n"
	tr2 := base()
	tr2.OutsideAllowlist = nil
	tr2.Diff = &inside
	v = Classify(nil, Budgets{}, invoiceTask(), tr2)
	require.Empty(t, evidenceFor(v, triage.ScopeSlip))
	require.NotContains(t, unevaluatedRules(v), triage.ScopeSlip)

	noAllow := invoiceTask()
	noAllow.Allowlist = nil
	require.Contains(t, unevaluatedRules(Classify(nil, Budgets{}, noAllow, tr2)), triage.ScopeSlip)
	tr2.Diff = nil
	v = Classify(nil, Budgets{}, invoiceTask(), tr2)
	require.Contains(t, unevaluatedRules(v), triage.ScopeSlip)
	require.Equal(t, triage.DecisionLeftover, v.Decision)

	flagged := base()
	flagged.OutsideAllowlist = ptr(true)
	v = Classify(nil, Budgets{}, nil, flagged)
	require.Equal(t, triage.ScopeSlip, v.Primary)
	require.Equal(t, "outside_allowlist", evidenceFor(v, triage.ScopeSlip)[0].Ident)
}

func TestPassWeakContractScorerRed(t *testing.T) {
	t.Parallel()
	testDiff := "--- /dev/null\n+++ b/tests/test_client.py\n@@ -0,0 +1 @@\n+def test(): assert True\n"
	srcDiff := "--- a/src/client.py\n+++ b/src/client.py\n@@ -1 +1 @@\n-a\n+b\n"
	cases := []struct {
		name    string
		task    *triage.Task
		mod     func(*triage.Trace)
		primary string
		ident   string
	}{
		{"written_tests flag", nil, func(tr *triage.Trace) { tr.WrittenTests = ptr(true) }, triage.PassWeak, "written_tests"},
		{"test file in diff", invoiceTask(), func(tr *triage.Trace) { tr.WrittenTests = nil; tr.Diff = &testDiff }, triage.PassWeak, "tests/test_client.py"},
		{"no hidden test", &triage.Task{ID: "T1"}, func(*triage.Trace) {}, triage.PassWeak, "hidden_tests"},
		{"contract pass", invoiceTask(), func(tr *triage.Trace) { tr.WrittenTests = nil; tr.Diff = &srcDiff }, triage.PassContract, ""},
		{"red with written tests", nil, func(tr *triage.Trace) { tr.ExitCode = ptr(1); tr.WrittenTests = ptr(true) }, triage.ScorerRed, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tr := base()
			c.mod(tr)
			v := Classify(nil, Budgets{}, c.task, tr)
			require.Equal(t, c.primary, v.Primary)
			ev := evidenceFor(v, c.primary)
			require.NotEmpty(t, ev)
			if c.ident != "" {
				require.Equal(t, c.ident, ev[0].Ident)
			}
			if c.primary != triage.PassWeak {
				require.Empty(t, evidenceFor(v, triage.PassWeak))
			}
		})
	}
	t.Run("scorer red is a leftover", func(t *testing.T) {
		t.Parallel()
		tr := base()
		tr.ExitCode = ptr(2)
		v := Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.ScorerRed, v.Primary)
		require.Equal(t, triage.OutcomeFailed, v.Outcome)
		require.Equal(t, triage.DecisionLeftover, v.Decision)
		require.Equal(t, "SCORER_RED: no rule explained the failure", v.Reason)
		require.Contains(t, evidenceFor(v, triage.ScorerRed)[0].Message, "exit code 2")
	})
	t.Run("unknown exit code", func(t *testing.T) {
		t.Parallel()
		tr := base()
		tr.ExitCode = nil
		v := Classify(nil, Budgets{}, nil, tr)
		// DESIGN §7: an unknown outcome is no PASS_* and no SCORER_RED; only
		// the classes the log alone can show may decide it.
		require.Empty(t, v.Primary)
		require.Equal(t, triage.DecisionLeftover, v.Decision)
		require.Equal(t, []string{triage.PassWeak, triage.PassContract, triage.ScorerRed}, unevaluatedRules(v))
		require.Equal(t, unknownOutcomeReason, v.Reason)
		// No answer either, but nobody recorded how the run ended: its
		// outcome stays unknown, not incomplete (which pass@1 would count
		// as not solved).
		require.Equal(t, triage.OutcomeUnknown, v.Outcome)
		// A class the log shows still decides it.
		tr.ToolCalls = []triage.ToolCall{call("read", `{"path":"a"}`), call("read", `{"path":"a"}`), call("read", `{"path":"a"}`)}
		v = Classify(nil, Budgets{}, nil, tr)
		require.Equal(t, triage.ToolLoop, v.Primary)
		require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
	})
	t.Run("green without flag or diff cannot rule out PASS_WEAK", func(t *testing.T) {
		t.Parallel()
		tr := base()
		tr.WrittenTests = nil
		tr.ToolCalls = append(tr.ToolCalls, call("write", `{"path":"src/x.py"}`))
		v := Classify(nil, Budgets{}, invoiceTask(), tr)
		require.Equal(t, triage.PassContract, v.Primary)
		require.Contains(t, unevaluatedRules(v), triage.PassWeak)
		require.Equal(t, triage.DecisionLeftover, v.Decision)
	})
	t.Run("a tool log with no edit rules PASS_WEAK out", func(t *testing.T) {
		t.Parallel()
		tr := base() // one read, nothing written
		tr.WrittenTests = nil
		v := Classify(nil, Budgets{}, invoiceTask(), tr)
		require.Equal(t, triage.PassContract, v.Primary)
		require.NotContains(t, unevaluatedRules(v), triage.PassWeak)
		require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)
	})
}

func TestDecisionPolicy(t *testing.T) {
	t.Parallel()
	two := base()
	two.Timeout = ptr(true)
	two.AssumedAPI = ptr(true)
	v := Classify(nil, Budgets{}, nil, two)
	require.Equal(t, triage.Timeout, v.Primary)
	require.Equal(t, []string{triage.Timeout, triage.AssumeAPI}, v.Fired)
	require.Equal(t, []string{triage.AssumeAPI}, v.Secondary)
	require.Equal(t, triage.DecisionLeftover, v.Decision)
	require.Equal(t, "more than one class fired", v.Reason)

	// An unevaluated rule ranking after the primary cannot change it.
	late := base()
	late.ExitCode = ptr(1) // unresolved, so TIMEOUT is the primary (cap.go)
	late.Timeout = ptr(true)
	late.OutsideAllowlist = nil
	v = Classify(nil, Budgets{}, nil, late)
	require.Contains(t, unevaluatedRules(v), triage.ScopeSlip)
	require.Equal(t, triage.DecisionCertain, v.Decision, v.Reason)

	v = Classify(nil, Budgets{}, nil, base(), HeldOut)
	require.Equal(t, triage.DecisionLeftover, v.Decision)
	require.Equal(t, "in a held-out slice", v.Reason)

	lax := DefaultTaxonomy()
	lax.Leftover = triage.LeftoverPolicy{}
	lax.Version = Version(lax)
	v = Classify(lax, Budgets{}, nil, two, HeldOut)
	require.Equal(t, triage.DecisionCertain, v.Decision)
	require.Equal(t, lax.Version, v.TaxonomyVersion)
	require.NotEqual(t, DefaultTaxonomy().Version, lax.Version)
}

func TestCustomTaxonomyClasses(t *testing.T) {
	t.Parallel()
	tax := DefaultTaxonomy()
	tax.Classes = []triage.Class{{Code: triage.PassContract}, {Code: triage.Timeout}, {Code: "HUMAN_ONLY"}}
	tr := base()
	tr.OutsideAllowlist = ptr(true)
	v := Classify(tax, Budgets{}, nil, tr)
	require.Equal(t, triage.PassContract, v.Primary, "SCOPE_SLIP is not in this taxonomy")
	require.NotContains(t, v.Fired, triage.ScopeSlip)

	tr.ExitCode = ptr(1)
	v = Classify(tax, Budgets{}, nil, tr)
	require.Empty(t, v.Primary)
	require.Equal(t, triage.DecisionLeftover, v.Decision)
	require.Contains(t, v.Reason, "no class of the taxonomy fits")
}

func TestNilTrace(t *testing.T) {
	t.Parallel()
	v := Classify(nil, Budgets{}, nil, nil)
	require.Equal(t, triage.DecisionLeftover, v.Decision)
	require.Equal(t, RulesVersion, v.RulesVersion)
}
