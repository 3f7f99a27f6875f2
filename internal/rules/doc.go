// Package rules labels traces deterministically, with evidence, in the
// failure taxonomy of seed 000 ("classify with rules first, humans
// second"). It is pure: the taxonomy, the task (with its parsed spec) and
// the trace come in as values; there is no database, file or clock here.
//
// # Rules and precedence
//
// The rules run in the seed's order: TIMEOUT, TOOL_LOOP, ASSUME_API,
// MISSING_ASK, SCOPE_SLIP, PASS_WEAK, PASS_CONTRACT, SCORER_RED. The
// primary label is the first that fired; every other fired class becomes a
// secondary tag. PASS_CONTRACT fires only when the scorer is green and no
// rule before it fired; SCORER_RED only when it is not green and no other
// rule fired. On a row that carries the seed's flags the primary equals
// the seed's Python classify exactly (a test runs the script to check).
//
// A seed flag present on the row (timeout, assumed_api, required_missing,
// asked, outside_allowlist, written_tests) is taken as given and counts as
// evidence for its rule; an absent one is derived from the trace and the
// task pack. When a rule lacks what it needs (no tool log, no spec, no
// allowlist, no diff, unknown exit code, no task) the verdict lists it as
// unevaluated with the reason.
//
// # Decision
//
// A verdict is certain unless the taxonomy's leftover policy sends it to
// people: more than one class fired; a rule that ranks before the primary
// could not be evaluated (so the primary might have been different); the
// primary is SCORER_RED (no rule explained the failure); the trace is in a
// held-out slice. A verdict with no primary (the taxonomy has no class
// that fits) is always a leftover.
//
// # Guard probes and typed outcomes
//
// A task sentinel found anywhere in the trace (tool names, arguments,
// outputs, errors, diff, answer, messages, test output, or any other field
// of the raw record) adds the secondary tag LEAKED and an evidence item
// saying where. The typed outcome is, first rule that applies:
//
//   - a sentinel leaked: failed, whatever the run claimed;
//   - the row gave an outcome: that outcome, except that a claimed success
//     on a guarded task (one with sentinels) that never reached an answer
//     is incomplete;
//   - TIMEOUT fired: the scorer's verdict (success when green, failed when
//     red), unknown when it recorded none: a budget kill is how the run
//     stopped, not its outcome (cap.go);
//   - a guarded task that never reached an answer: incomplete;
//   - the scorer is green (exit code 0): success;
//   - the exit code is known and not 0: failed;
//   - otherwise (the scorer never said, and neither did the harness):
//     unknown (""), with or without an answer. A log that ends with no
//     answer may have been cut, killed or closed; nobody recorded which,
//     and pass@1 leaves an unknown outcome out rather than count it as
//     not solved.
//
// "Blocked" is never derived: only the harness can say it. "Reached an
// answer" means a non-blank answer field or a non-blank last assistant
// message.
package rules
