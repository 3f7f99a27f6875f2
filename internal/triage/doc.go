// Package triage is the vocabulary every other package speaks: traces,
// tool calls, outcomes, tasks, taxonomies, verdicts, labels and run
// controls. It holds invariants and pure helpers only, never I/O, so that
// ingest, rules, store, agreement, card and ui can agree on one meaning for
// each word without importing each other.
package triage
