package timingtest

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records a failure instead of stopping.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
}

func TestWithinPassesAtTheFirstRoundInBudget(t *testing.T) {
	calls := 0
	r := &recorder{TB: t}
	within(r, func() string {
		calls++
		if calls < 2 {
			return "120 ms > 100 ms"
		}
		return ""
	}, true)
	if r.failed || calls != 2 {
		t.Fatalf("failed=%v after %d rounds, want a pass at round 2", r.failed, calls)
	}
}

func TestWithinFailsWhenEveryRoundMisses(t *testing.T) {
	calls := 0
	r := &recorder{TB: t}
	within(r, func() string {
		calls++
		return fmt.Sprintf("round %d: 120 ms > 100 ms", calls)
	}, true)
	if !r.failed || calls != Rounds {
		t.Fatalf("failed=%v after %d rounds, want a failure after %d", r.failed, calls, Rounds)
	}
	for i := 1; i <= Rounds; i++ {
		if want := fmt.Sprintf("round %d:", i); !strings.Contains(r.msg, want) {
			t.Fatalf("message %q does not list %q", r.msg, want)
		}
	}
}

// TestWithinOnlyLogsUnlessEnforced: a plain go test on a loaded machine
// never fails on time; the miss is logged, after one round.
func TestWithinOnlyLogsUnlessEnforced(t *testing.T) {
	calls := 0
	r := &recorder{TB: t}
	within(r, func() string {
		calls++
		return "5.6 s > 2 s"
	}, false)
	if r.failed || calls != 1 {
		t.Fatalf("failed=%v after %d rounds, want a logged miss after 1", r.failed, calls)
	}
}
