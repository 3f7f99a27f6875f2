package termtest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLeakCatchesEveryPayload(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, in string }{
		{"esc", "a\x1b[2Jb"}, {"osc", "\x1b]0;x\x07"}, {"bel", "x\x07"}, {"bs", "x\x08"}, {"cr", "a\rb"},
		{"del", "\x7f"}, {"c1 rune", "\u009b"}, {"nel", "\u0085"}, {"raw c1", "a\x9bb"}, {"raw osc", "\x9d"},
		{"rlo", "\u202e"}, {"isolate", "\u2066"}, {"sgr", "\x1b[31mred"},
	} {
		i, what := Leak(tt.in)
		require.GreaterOrEqual(t, i, 0, tt.name)
		require.NotEmpty(t, what, tt.name)
	}
	i, _ := Leak(Hostile)
	require.Equal(t, len("<ESC"), i, "the payload leaks at its first escape")
}

func TestRequireInertPassesOurOwnStyling(t *testing.T) {
	t.Parallel()
	// Our own colours, tabs and line breaks, box drawing (whose UTF-8
	// holds 0x9D and 0x9B continuation bytes) and the visible stand-ins
	// pass; an SGR sequence is a leak to Leak, not to RequireInert.
	ok := "\x1b[1;38;5;12mbold\x1b[0m\n\t╝╛ ␛[2J <U+009B> <0x9B>"
	RequireInert(t, "ok", ok)
	i, _ := Leak(ok)
	require.Zero(t, i)

	ft := &fakeT{TB: t}
	RequireInert(ft, "hostile", "x"+Hostile)
	require.True(t, ft.failed, "RequireInert fails on the payload")
}

// fakeT records a failure instead of failing the test, to show that
// RequireInert can fail.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
