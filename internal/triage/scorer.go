package triage

// ScorerReport is what a benchmark's scorer recorded for one run, beyond
// its exit code: the hidden tests it ran and how each ended. Its presence
// says the benchmark's own tests scored the run (a SWE-bench harness
// report or results list), even when it names no test. Rules read it
// to tell a regression (an existing test broken) from a fix that fell
// short, and to know which tests the scorer ran when judging PASS_WEAK.
type ScorerReport struct {
	// Source names the file the verdict came from, for evidence.
	Source string `json:"source,omitempty"`
	// PatchApplied is false when the submitted patch did not apply.
	PatchApplied *bool `json:"patch_applied,omitempty"`
	// NoPatch is true when the harness recorded that nothing was submitted.
	NoPatch bool `json:"no_patch,omitempty"`
	// HarnessTests is true when the harness itself ran the scorer's tests
	// after each of the agent's tries and fed the failures back (aider's
	// benchmark): the agent had no runs of its own to make, so what it
	// ran after its last edit says nothing about why it failed.
	HarnessTests bool `json:"harness_tests,omitempty"`
	// FailToPass are the tests the fix had to make pass; PassToPass the
	// existing tests it had to keep passing (SWE-bench's names).
	FailToPass TestResults `json:"fail_to_pass"`
	PassToPass TestResults `json:"pass_to_pass"`
}

// TestResults splits a set of test ids by result.
type TestResults struct {
	Passed []string `json:"passed,omitempty"`
	Failed []string `json:"failed,omitempty"`
}

// Ran reports whether the scorer recorded any test of the set.
func (r TestResults) Ran() bool { return len(r.Passed)+len(r.Failed) > 0 }
