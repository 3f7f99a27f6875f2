package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/shareddata"
	"github.com/triage-dev/triage/internal/triage"
)

// reading is one trace of ../shared/real-logs as a person read it: the
// primary label a careful reviewer gives it by DESIGN §7 ("" when the log
// cannot decide it, mostly because no outcome was recorded), the tool calls
// the log holds (counted from the raw file by another program, not by our
// decoders), and why.
type reading struct {
	label   string
	present int
	why     string
}

// realReadings are the lead's readings of the real logs, made from the
// raw files and SOURCES.md's outcomes before comparing with the rules.
// They are the measure of the rules on real logs; docs/REAL-LOGS.md is
// generated from them and the verdicts.
var realReadings = map[string]reading{
	"claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a#0":              {"", 12, "interactive /init session; no outcome recorded"},
	"claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7#0":              {"", 21, "interactive /orchestrator session; no outcome recorded"},
	"coverage-test-fix/c64cc478-3430-40fe-8e9c-4ee9986e9754#0":               {triage.PassContract, 13, "all six post-conditions pass, checked by the test's author"},
	"python-to-rust-port/c7d3d95c-57f0-4359-8f4b-926a9bef5a3f#0":             {triage.PassWeak, 39, "all seven post-conditions pass, but the only check is 'just check': cargo llvm-cov over tests the agent wrote, through the Justfile it rewrote (diff)"},
	"stop-hook-reflection-first-stop/cb88ae13-898d-4076-aeb5-bc37191c5d2e#0": {triage.PassContract, 4, "post-conditions pass"},
	"stop-hook-uncommitted-changes/e4743781-d0f5-4f75-b17c-6d22d30c5885#0":   {triage.PassContract, 2, "post-conditions pass: file modified, changes committed"},
	"localpush/019c8a4c-ed82-79a1-aa28-7738fc5ab61a#0":                       {"", 105, "redacted interactive session; no outcome; write_stdin polling got new output each time (no loop)"},
	"localpush/019c8a4d-8f45-7010-8b5d-7fad920aa6f9#0":                       {"", 118, "redacted interactive session; no outcome"},
	"localpush/019c8a53-a0dd-7130-bcd7-95445d84846a#0":                       {"", 144, "redacted interactive session; no outcome"},
	"localpush/019c8a59-e9dd-71f0-9ae3-4079fe9726a9#0":                       {"", 372, "redacted interactive session; no outcome; polling, not looping"},
	"localpush/019c8a70-dda7-7f33-98ea-f30553347322#0":                       {"", 1, "one call; no outcome"},
	"localpush/019c8bfe-ec25-79e0-97d7-bda6a9c575ff#0":                       {"", 5, "no outcome"},
	"gemini3pro/astropy__astropy-7606#0":                                     {triage.ScorerRed, 31, "a regression: test_compose_roundtrip[] (PASS_TO_PASS) breaks"},
	"gemini3pro/django__django-11276#0":                                      {triage.ScorerRed, 32, "runtests utils_tests.test_html failed three times, submitted anyway"},
	"gemini3pro/django__django-15127#0":                                      {triage.ScorerRed, 17, "fix in base.py; the FAIL_TO_PASS test still fails"},
	"gemini3pro/django__django-16429#0":                                      {triage.PassContract, 20, "resolved"},
	"gemini3pro/django__django-16560#0":                                      {triage.ScorerRed, 145, "thrashing: 145 sed edits breaking their own syntax, plus a PASS_TO_PASS regression"},
	"gemini3pro/django__django-17029#0":                                      {triage.PassContract, 19, "resolved"},
	"gemini3pro/pytest-dev__pytest-7205#0":                                   {triage.ScorerRed, 27, "its own tests pass; 9 of 10 FAIL_TO_PASS still fail"},
	"gemini3pro/scikit-learn__scikit-learn-26194#0":                          {triage.ScorerRed, 17, "both FAIL_TO_PASS tests still fail"},
	"live-gpt5mini/astropy__astropy-13033#0":                                 {triage.ScorerRed, 12, "FAIL_TO_PASS test still fails"},
	"live-gpt5mini/django__django-11119#0":                                   {triage.PassContract, 9, "resolved"},
	"live-gpt5mini/django__django-11276#0":                                   {triage.ScorerRed, 15, "edited after a red run and ran nothing after"},
	"live-gpt5mini/django__django-14631#0":                                   {triage.ScorerRed, 20, "submitted after its test run failed"},
	"live-gpt5mini/django__django-15127#0":                                   {triage.PassContract, 29, "resolved"},
	"live-gpt5mini/django__django-16429#0":                                   {triage.ScorerRed, 17, "fix committed early; git diff --cached submitted two scratch files: no fix submitted"},
	"live-gpt5mini/scikit-learn__scikit-learn-13135#0":                       {triage.ScorerRed, 17, "the diff holds only _discretization.py.bak and .bak2: no fix submitted"},
	"live-gpt5mini/scikit-learn__scikit-learn-15100#0":                       {triage.PassContract, 10, "resolved"},
	"live-gpt5mini/sympy__sympy-13877#0":                                     {triage.ScorerRed, 10, "git apply of an invented *** Begin Patch format (ASSUME_API, secondary); untested last edit"},
	"multi-swe-bench/ponylang__ponyc-4588#0":                                 {triage.Timeout, 48, "Agent reached maximum iteration (50)"},
	"multi-swe-bench/ponylang__ponyc-4593#0":                                 {"", 33, "no eval report"},
	"multi-swe-bench/ponylang__ponyc-4595#0":                                 {"", 22, "no eval report"},
	"openhands/basic#0":                                                      {"", 2, "replay fixture; no outcome"},
	"resolver/neubig__pr-viewer-1#0":                                         {"", 22, "resolver run; its success is an LLM's judgement, not a test"},
	"resolver/neubig__pr-viewer-5#0":                                         {"", 4, "resolver run; its success is an LLM's judgement, not a test"},
	"openhands/session-63b4315947a049e2b7a51249b3d4fcc3#0":                   {"", 3, "\"Flip a coin!\" session; no outcome"},
	"openhands/basic_gui_mode#0":                                             {"", 4, "replay fixture; no outcome"},
	"coder/django__django-11099#0":                                           {triage.PassContract, 6, "resolved (results.json, eval log)"},
	"coder/django__django-11848#0":                                           {triage.ScorerRed, 7, "edited and submitted with no run after"},
	"coder/django__django-15061#0":                                           {triage.ScorerRed, 7, "edited and submitted with no run after"},
	"coder/pytest-dev__pytest-5227#0":                                        {triage.PassContract, 5, "resolved"},
	"coder/sympy__sympy-13043#0":                                             {triage.ScorerRed, 6, "edited and submitted with no run after"},
	"coder/sympy__sympy-18621#0":                                             {triage.ScorerRed, 5, "only the reproducer ran; the diff is the harness's .coveragerc alone: no fix submitted"},
	"swe-smith/pandas-dev__pandas.95280573.pr_53652#0":                       {triage.PassContract, 37, "resolved"},
	"swe-smith/pandas-dev__pandas.95280573.pr_53856#0":                       {triage.ScorerRed, 17, "all 28 FAIL_TO_PASS tests fail"},
	"swe-smith/pydantic__pydantic.acb0f10f.pr_8316#0":                        {triage.PassContract, 22, "resolved"},
}

// whyCase is a run of the open corpus whose "why" a careful reviewer
// checked step by step (issue 26): the evidence must hold each of want,
// none of notWant, and the root cause must hold cause. note says what the
// reviewer saw, with the step that shows it; it is printed in
// docs/REAL-LOGS.md beside the evidence the rules gave.
type whyCase struct {
	key           string
	want, notWant []string
	cause         string
	note          string
}

var whyCases = []whyCase{
	{key: "live-gpt5mini/sympy__sympy-13877#0",
		want:    []string{"git apply was fed an invented patch format (*** Begin Patch) at step 5", "the fix fell short: 1 of 1 FAIL_TO_PASS tests still fail: test_determinant"},
		notWant: []string{"nothing was run after the last edit"},
		cause:   "FAIL_TO_PASS tests still fail",
		note:    "step 5: git apply refuses an invented patch format (ASSUME_API, secondary: the agent switched to sed -i at step 8); step 9 ran an inline python check after that edit, so 'nothing was run after the last edit' (rules v4) was false; what remained broken is test_determinant"},
	{key: "live-gpt5mini/django__django-14631#0",
		want:    []string{"the fix fell short: 2 of 2 FAIL_TO_PASS tests still fail"},
		notWant: []string{"tests failed at step 13", "tests failed at step 12", "nothing was run after the last edit"},
		cause:   "FAIL_TO_PASS tests still fail",
		note:    "step 12: pytest: command not found (not run); step 13: the unittest run stopped in setUpClass on ImproperlyConfigured (an error, no test ran), which rules v4 called 'tests failed'; step 18 rewrote forms.py and checked it in the same script (ALL_TESTS_OK), so its own check passed and the scorer's tests still failed"},
	{key: "gemini3pro/django__django-11276#0",
		want:    []string{"submitted after the project's tests errored at step 27", "23 of 26 FAIL_TO_PASS tests still fail"},
		notWant: []string{"tests failed at step 27", "nothing was run after the last edit"},
		cause:   "FAIL_TO_PASS tests still fail",
		note:    "step 27: 15 passed and one UnicodeDecodeError, the locale error already there at step 21 after the agent reverted its change; the cause is in the diff (.replace('&#x27;', '&#39;') undoes the new escaping the FAIL_TO_PASS tests expect), which triage does not point at: it names the scorer's failing tests; step 30 only deletes the reproducers"},
	{key: "python-to-rust-port/c7d3d95c-57f0-4359-8f4b-926a9bef5a3f#0",
		want:  []string{"the scorer's check \"'just check' passes\" runs Justfile, which the agent modified"},
		cause: "PASS_WEAK",
		note:  "the post-conditions pass, but their only check is 'just check', a Justfile recipe the agent rewrote (step 25) that runs cargo llvm-cov over the tests the agent wrote (steps 7-17): PASS_WEAK, not PASS_CONTRACT"},
	{key: "live-gpt5mini/django__django-16429#0",
		want:  []string{"the tests never ran: bash: line 1: pytest: command not found (step 6)", "no fix was submitted"},
		cause: "no fix was submitted",
		note:  "step 5 committed the fix, so git diff --cached at step 17 submitted only the scratch settings and test files; step 6 could not start pytest and no test ran after"},
	{key: "gemini3pro/astropy__astropy-7606#0",
		want:    []string{"a regression: 1 existing test (PASS_TO_PASS) now fails"},
		notWant: []string{"nothing was run after the last edit"},
		cause:   "PASS_TO_PASS",
		note:    "the last change to the submitted file was checked by steps 19-27; step 28 only deletes the agent's scratch scripts"},
	{key: "swe-smith/pandas-dev__pandas.95280573.pr_53652#0",
		want:  []string{"AttributeError at step 30 on '_with_freq'", "corrected by step 32"},
		cause: "PASS_CONTRACT",
		note:  "step 29 wrote a call to Index._with_freq, which does not exist (step 30); step 31 replaced it and step 32 ran clean: ASSUME_API, secondary"},
	{key: "live-gpt5mini/django__django-11276#0",
		want:  []string{"ImportError at step 14 on 'lazy', which the agent's own command used"},
		cause: "FAIL_TO_PASS tests still fail",
		note:  "step 14's check script imports lazy from django.utils.safestring, where it is not; rules v4 said the agent wrote it at step 4 (which writes keep_lazy)"},
}

// inspectReadings: Inspect QA samples carry their score (C or I) and no
// tool calls; a sample scored C passed, I failed with no other class
// possible. The 2025-02-11 popularity log holds no scores.
func inspectReading(key string, exit *int) (reading, bool) {
	run, _, _ := strings.Cut(key, "/")
	switch run {
	case "2BnNsHEspZ94qvnbpxq9wJ", "7KyCuAQSqp76qKQZEKmG6M", "9zsQGSCUfJL6aZdSHP6PQc", "K9HWL8yxF2M3E5WoBZk6ZL":
		if exit == nil {
			return reading{}, false
		}
		if *exit == 0 {
			return reading{triage.PassContract, 0, "scored C"}, true
		}
		return reading{triage.ScorerRed, 0, "scored I: a wrong answer"}, true
	case "nnS4q9qsuCrCzsBcQLnBLA":
		return reading{"", 0, "an Inspect log written for `inspect score` tests: no scores"}, true
	}
	return reading{}, false
}

// realRow is one line of docs/REAL-LOGS.md.
type realRow struct {
	file, format, key, calls, fields, outcome, verdict, decision, reading, agree string
}

// TestRealLogs imports ../shared/real-logs as a user would (one folder),
// runs the rules, and measures the verdicts against realReadings: the
// share of the runs a reading could decide that the rules decided, and
// the share of decided runs that carry the reading's label. It keeps
// docs/REAL-LOGS.md's table current: TRIAGE_WRITE_REAL_LOGS=1 rewrites it.
func TestRealLogs(t *testing.T) {
	t.Parallel()
	dir := shareddata.Dir(t, "real-logs")
	c := newCLI(t)
	code, out, errOut := c.run("", "import", "--json", dir)
	require.Contains(t, []int{exitOK, exitRejected}, code, errOut)
	var sum struct {
		Imported int `json:"imported"`
		Skipped  []struct {
			Path, Reason string
		} `json:"skipped_files"`
		Warnings []string `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &sum))
	for _, s := range sum.Skipped {
		// Results files and docs are skipped with a reason, never tried.
		require.NotEmpty(t, s.Reason, s.Path)
	}
	code, _, errOut = c.run("", "rules", "run")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut = c.run("", "traces", "--json")
	require.Equal(t, exitOK, code, errOut)

	var rows []realRow
	decidable, decided, right := 0, 0, 0
	// scored counts the readings of Inspect answer-only samples, which
	// follow the sample's score: the doc gives the figures without them too.
	var scored struct{ decidable, decided, right int }
	var wrong []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var tr traceRow
		require.NoError(t, json.Unmarshal(sc.Bytes(), &tr))
		key := triage.TraceKey(tr.RunID, tr.TaskID, tr.Seed)
		rd, ok := realReadings[key]
		byScore := false
		if !ok {
			rd, ok = inspectReading(key, tr.ExitCode)
			byScore = ok && rd.label != ""
		}
		if !ok {
			rd = reading{"", -1, "(no reading yet)"}
		}
		seen[key] = true
		row := realRow{key: key, format: tr.Format, decision: tr.Decision, reading: dash(rd.label)}
		row.file, _ = filepath.Rel(dir, tr.SourceFile)
		row.calls = fmt.Sprint(tr.NToolCalls)
		if rd.present >= 0 {
			row.calls = fmt.Sprintf("%d of %d", tr.NToolCalls, rd.present)
		}
		row.fields = realFields(t, c, key)
		row.outcome = "unknown"
		if tr.ExitCode != nil {
			row.outcome = map[bool]string{true: "resolved", false: "not resolved"}[*tr.ExitCode == 0]
		}
		row.verdict = dash(tr.Primary)
		if len(tr.Secondary) > 0 {
			row.verdict += " +" + strings.Join(tr.Secondary, ",")
		}
		if rd.why != "" {
			row.reading += ": " + rd.why
		}
		if rd.label != "" {
			decidable++
			if byScore {
				scored.decidable++
			}
			if tr.Decision == string(triage.DecisionCertain) {
				decided++
				if byScore {
					scored.decided++
				}
				if tr.Primary == rd.label {
					right++
					if byScore {
						scored.right++
					}
					row.agree = "yes"
				} else {
					row.agree = "NO"
					wrong = append(wrong, key+": "+tr.Primary+" (reading "+rd.label+")")
				}
			} else {
				row.agree = "to people"
			}
		} else if tr.Decision == string(triage.DecisionCertain) {
			row.agree = "decided (no reading)"
		}
		rows = append(rows, row)
	}
	for k := range realReadings {
		require.True(t, seen[k], "a trace read by hand is no longer imported: %s", k)
	}
	require.Positive(t, decidable)
	decidedShare := float64(decided) / float64(decidable)
	precision := float64(right) / float64(max(decided, 1))
	t.Logf("real logs: %d traces; the readings decide %d; the rules decided %d of those (%.0f%%), %d with the reading's label (%.0f%%)",
		len(rows), decidable, decided, 100*decidedShare, right, 100*precision)
	require.Empty(t, wrong, "decided against the reading")
	require.GreaterOrEqual(t, decidedShare, 0.70, "the rules must decide 70%% of what a reading can")
	require.GreaterOrEqual(t, precision, 0.90)

	headline := fmt.Sprintf("**%d traces. The readings decide %d; the rules decided %d of them (%.0f %%), and %d of those carry the reading's label (%.0f %%). "+
		"%d of the decidable runs are Inspect answer-only samples whose reading follows their score; without them the readings decide %d, the rules decided %d (%.0f %%), %d with the reading's label.**",
		len(rows), decidable, decided, 100*decidedShare, right, 100*precision,
		scored.decidable, decidable-scored.decidable, decided-scored.decided, 100*float64(decided-scored.decided)/float64(max(decidable-scored.decidable, 1)), right-scored.right)
	doc := renderRealLogs(rows, headline, sum.Skipped, sum.Warnings) + checkWhyCases(t, c) + checkAnnotatedSteps(t, c)
	path := filepath.Join(shareddata.Root(t), "docs", "REAL-LOGS.md")
	if os.Getenv("TRIAGE_WRITE_REAL_LOGS") == "1" {
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		return
	}
	have, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, doc, string(have), "docs/REAL-LOGS.md is stale: regenerate it with TRIAGE_WRITE_REAL_LOGS=1 go test ./cmd/triage -run TestRealLogs")
}

// checkWhyCases holds each whyCase's evidence and root cause to the
// reviewer's, and renders them for docs/REAL-LOGS.md.
func checkWhyCases(t *testing.T, c *cli) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("\n## The why, run by run\n\nRuns whose evidence a reviewer checked step by step against `triage steps` and the raw log " +
		"(issue 26). The test fails when an evidence line the reviewer needs is missing, when one the log contradicts comes back, or when the " +
		"root cause names something else.\n")
	for _, w := range whyCases {
		code, out, errOut := c.run("", "rules", "explain", "--json", w.key)
		require.Equal(t, exitOK, code, errOut)
		var ex struct {
			Verdict triage.Verdict `json:"verdict"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &ex), out)
		v := ex.Verdict
		var ev []string
		for _, e := range v.Evidence {
			ev = append(ev, e.Rule+": "+e.Message)
		}
		all := strings.Join(ev, "\n")
		for _, x := range w.want {
			require.Contains(t, all, x, "%s: evidence", w.key)
		}
		for _, x := range w.notWant {
			require.NotContains(t, all, x, "%s: evidence the log contradicts", w.key)
		}
		cause := triage.RootCause(&v)
		require.Contains(t, cause, w.cause, "%s: root cause", w.key)
		verdict := v.Primary
		if len(v.Secondary) > 0 {
			verdict += " +" + strings.Join(v.Secondary, ",")
		}
		fmt.Fprintf(&b, "\n### %s\n\n%s, %s. Reviewer: %s.\n\n", w.key, verdict, v.Decision, w.note)
		for _, e := range ev {
			if strings.Contains(e, "no other class fits") {
				continue
			}
			fmt.Fprintf(&b, "- %s\n", strings.ReplaceAll(e, "\n", " "))
		}
		fmt.Fprintf(&b, "- root cause: %s\n", cause)
	}
	return b.String()
}

// checkAnnotatedSteps measures `triage steps` against the hand-annotated
// real steps of testdata/steps (DESIGN §8): the share whose kind, and whose
// result, the reader gives as the reviewer did. Issue 26 asks 90 % and
// 85 %; the test holds the figures reached so they cannot slip back.
func checkAnnotatedSteps(t *testing.T, c *cli) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("\n## Steps read against people\n\nEvery tool call of 37 runs, read blind by two reviewers from the decoded calls and DESIGN §8 " +
		"(testdata/steps; its README says how). Set b was held out: measured before its misses were looked at, the reader gave its kind " +
		"on 95.4 % of its steps and its result on 96.3 %; it has been tuned on both sets since, so the figures below are not held-out ones.\n\n" +
		"| set | steps | kind right | result right |\n|---|---|---|---|\n")
	cache := map[string][]stepJSON{}
	var after strings.Builder
	for _, set := range []struct {
		name string
		min  [2]float64
	}{{"real-steps-a.tsv", [2]float64{0.97, 0.95}}, {"real-steps-b.tsv", [2]float64{0.97, 0.95}}} {
		f, err := os.ReadFile(filepath.Join(shareddata.Root(t), "testdata", "steps", set.name))
		require.NoError(t, err)
		n, kinds, results := 0, 0, 0
		var misses []string
		for i, line := range strings.Split(strings.TrimSpace(string(f)), "\n") {
			if i == 0 {
				continue // header
			}
			col := strings.Split(line, "\t")
			require.GreaterOrEqual(t, len(col), 4, "%s line %d", set.name, i+1)
			steps, ok := cache[col[0]]
			if !ok {
				code, out, errOut := c.run("", "steps", "--json", col[0])
				require.Equal(t, exitOK, code, errOut)
				require.NoError(t, json.Unmarshal([]byte(out), &steps))
				cache[col[0]] = steps
			}
			var idx int
			_, err := fmt.Sscan(col[1], &idx)
			require.NoError(t, err)
			require.Less(t, idx, len(steps), "%s line %d: %s has %d steps", set.name, i+1, col[0], len(steps))
			st := steps[idx]
			n++
			if st.Kind == col[2] {
				kinds++
			} else {
				misses = append(misses, fmt.Sprintf("%s step %d: kind %s, reviewer %s", col[0], idx+1, st.Kind, col[2]))
			}
			if st.Result == col[3] {
				results++
			} else {
				misses = append(misses, fmt.Sprintf("%s step %d: result %s, reviewer %s", col[0], idx+1, st.Result, col[3]))
			}
		}
		kr, rr := float64(kinds)/float64(n), float64(results)/float64(n)
		t.Logf("%s: %d steps, kind %.1f%%, result %.1f%%", set.name, n, 100*kr, 100*rr)
		require.GreaterOrEqual(t, kr, set.min[0], "%s: kinds; misses:\n%s", set.name, strings.Join(misses, "\n"))
		require.GreaterOrEqual(t, rr, set.min[1], "%s: results; misses:\n%s", set.name, strings.Join(misses, "\n"))
		fmt.Fprintf(&b, "| %s | %d | %d (%.1f %%) | %d (%.1f %%) |\n", set.name, n, kinds, 100*kr, results, 100*rr)
		if len(misses) > 0 {
			fmt.Fprintf(&after, "\nWhere %s and the reader differ:\n\n", set.name)
			for _, x := range misses {
				fmt.Fprintf(&after, "- %s\n", x)
			}
		}
	}
	return b.String() + after.String()
}

// realFields names the fields a decoder found in a trace, from `show`.
func realFields(t *testing.T, c *cli, key string) string {
	code, out, errOut := c.run("", "show", "--json", key)
	require.Equal(t, exitOK, code, errOut)
	var tr triage.Trace
	require.NoError(t, json.Unmarshal([]byte(out), &tr))
	var f []string
	exits := 0
	for _, call := range tr.ToolCalls {
		if call.ExitCode != nil {
			exits++
		}
	}
	if exits > 0 {
		f = append(f, fmt.Sprintf("exit codes %d", exits))
	}
	if tr.Diff != nil {
		f = append(f, "diff")
	}
	if tr.TestOutput != nil {
		f = append(f, "test output")
	}
	if tr.Scorer != nil {
		f = append(f, "scorer report")
	}
	if tr.StopReason != "" {
		f = append(f, "stop "+tr.StopReason)
	}
	if tr.Tokens != nil {
		f = append(f, "tokens")
	}
	if tr.CostUSD != nil {
		f = append(f, "cost")
	}
	if tr.WallS != nil {
		f = append(f, "wall")
	}
	if tr.Model != "" {
		f = append(f, "model")
	}
	return strings.Join(f, ", ")
}

func renderRealLogs(rows []realRow, headline string, skipped []struct{ Path, Reason string }, warnings []string) string {
	var b strings.Builder
	b.WriteString(`# The rules on real logs

Measured on the real harness logs of ` + "`../shared/real-logs/`" + ` (other people's runs; provenance and
outcomes in its SOURCES.md), imported as a user would, as one folder with no task pack and no
` + "`--results`" + `. Regenerate this file with:

` + "```sh" + `
TRIAGE_WRITE_REAL_LOGS=1 go test ./cmd/triage -run TestRealLogs
` + "```" + `

The test fails when the table is stale, when a decided verdict disagrees with the reading, or when
the rules decide under 70 % of what a reading can, or under 90 % of decided runs carry the reading's
label. The readings are the lead's, one reader (not two blind ones), made from the raw files and
SOURCES.md's outcomes; they live in ` + "`cmd/triage/reallogs_test.go`" + `. A reading of "-" means the log
cannot decide the run (DESIGN §7: with no outcome only TIMEOUT … SCOPE_SLIP can be decided from the log,
and none shows). "calls" is the tool calls triage extracted of those the raw file holds, counted by a
separate script.

`)
	b.WriteString(headline + "\n\n")
	b.WriteString("| file | format | trace | calls | fields found | outcome | verdict | decision | reading | agree |\n|---|---|---|---|---|---|---|---|---|---|\n")
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].file != rows[j].file {
			return rows[i].file < rows[j].file
		}
		return rows[i].key < rows[j].key
	})
	cell := strings.NewReplacer("|", `\|`, "\n", " ")
	rows = collapseBigFiles(rows)
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cell.Replace(r.file), r.format, cell.Replace(r.key),
			r.calls, cell.Replace(r.fields), r.outcome, cell.Replace(r.verdict), r.decision, cell.Replace(r.reading), r.agree)
	}
	if len(skipped) > 0 {
		b.WriteString("\n## Files the import skipped, with its reasons\n\n")
		for _, s := range skipped {
			fmt.Fprintf(&b, "- `%s`: %s\n", strings.TrimPrefix(s.Path, realLogsPrefix(s.Path)), s.Reason)
		}
	}
	if len(warnings) > 0 {
		b.WriteString("\n## Warnings\n\n")
		for _, w := range warnings {
			fmt.Fprintf(&b, "- %s\n", strings.TrimPrefix(w, realLogsPrefix(w)))
		}
	}
	return b.String()
}

// realLogsPrefix is the machine's path up to real-logs/, which the doc
// leaves out (no machine path belongs in the project).
func realLogsPrefix(s string) string {
	if i := strings.Index(s, "real-logs/"); i >= 0 {
		return s[:i+len("real-logs/")]
	}
	return ""
}

// collapseBigFiles puts a file that holds many traces none of which a
// reading decides (aider's 4 MB history of a thousand sessions) on one
// summary line, so the table stays readable.
func collapseBigFiles(rows []realRow) []realRow {
	const big = 12
	byFile := map[string][]realRow{}
	for _, r := range rows {
		byFile[r.file] = append(byFile[r.file], r)
	}
	var out []realRow
	done := map[string]bool{}
	for _, r := range rows {
		group := byFile[r.file]
		if len(group) <= big {
			out = append(out, r)
			continue
		}
		if done[r.file] {
			continue
		}
		done[r.file] = true
		calls, verdicts, decisions := 0, map[string]int{}, map[string]int{}
		for _, g := range group {
			n := 0
			fmt.Sscan(g.calls, &n)
			calls += n
			verdicts[g.verdict]++
			decisions[g.decision]++
		}
		out = append(out, realRow{file: r.file, format: r.format, key: fmt.Sprintf("%d traces", len(group)), calls: fmt.Sprint(calls),
			fields: "(per trace: see triage show)", outcome: "unknown", verdict: countsLine(verdicts), decision: countsLine(decisions),
			reading: "-: no outcome recorded in any session", agree: ""})
	}
	return out
}

func countsLine(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
