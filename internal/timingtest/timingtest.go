// Package timingtest holds the tests' speed budgets to what the code can
// do rather than to how busy the machine is. A budget test on a shared
// machine (CI's two cores, other builds beside it) fails on a round that
// a neighbour slowed; load only ever adds time, so the best of a few
// rounds is the code's own figure. Only tests import it.
package timingtest

import (
	"strings"
	"testing"
)

// Rounds is how many rounds a budget gets before it is called missed.
const Rounds = 3

// Within runs round up to Rounds times and passes at the first that
// returns "" (within its budget). A round that misses returns what it
// measured against what it was allowed; when every round misses, the
// test fails with all of them, so a real regression reads as one.
func Within(tb testing.TB, round func() (miss string)) {
	tb.Helper()
	var misses []string
	for range Rounds {
		m := round()
		if m == "" {
			return
		}
		misses = append(misses, m)
	}
	tb.Fatalf("over budget in all %d rounds:\n  %s", Rounds, strings.Join(misses, "\n  "))
}
