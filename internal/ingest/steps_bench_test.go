package ingest

import (
	"testing"

	"github.com/triage-dev/triage/internal/triage"
)

// BenchmarkReadStepsRealLogs reads the steps of the real logs with the
// most bytes and the most calls (issue 26: `triage steps` on the largest
// real log in under 100 ms; this is the reading alone, without the
// process start and the store).
func BenchmarkReadStepsRealLogs(b *testing.B) {
	for _, c := range []struct{ name, path string }{
		{"pandas-53652-2MB", "swe-agent/swe-smith/trajectories/pandas-dev__pandas.95280573.pr_53652/pandas-dev__pandas.95280573.pr_53652.traj"},
		{"django-16560-145calls", "mini-swe-agent/gemini3pro/trajs/django__django-16560/django__django-16560.traj.json"},
		{"aider-1134-sessions", "aider/chat-history.md"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var trs []*triage.Trace
			for _, r := range decodeReal(b, realLog(b, c.path)) {
				if r.Trace != nil {
					trs = append(trs, r.Trace)
				}
			}
			b.ResetTimer()
			for range b.N {
				for _, tr := range trs {
					_ = triage.ReadActivity(tr)
				}
			}
		})
	}
}
