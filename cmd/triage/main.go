// Command triage tells a team why its coding agents fail: it imports agent
// traces into a local SQLite store, labels them with deterministic rules,
// walks reviewers through what the rules cannot decide, measures whether
// reviewers agree, and publishes benchmark cards and failure-mix reports.
//
// This package is the only place that parses flags, reads config and wires
// the internal packages together (DESIGN §1).
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
)

func main() {
	// Import and the rules allocate many short-lived values; collecting
	// less often buys a fifth of their time. The soft memory limit keeps
	// the resident set bounded whatever the input size.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(128 << 20)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
