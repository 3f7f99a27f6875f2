package triage

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/termtest"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "def f():\n\treturn 1", "def f():\n\treturn 1"},
		{"unicode kept", "héllo 世界 🎉 ğ", "héllo 世界 🎉 ğ"},
		{"csi clear", "a\x1b[2Jb", "a␛[2Jb"},
		{"sgr colour", "\x1b[31mred\x1b[0m", "␛[31mred␛[0m"},
		{"osc title bel", "\x1b]0;pwned\x07x", "␛]0;pwned␇x"},
		{"osc 52 clipboard st", "\x1b]52;c;ZXZpbA==\x1b\\", "␛]52;c;ZXZpbA==␛\\"},
		{"dcs", "\x1bPq#0\x1b\\", "␛Pq#0␛\\"},
		{"apc pm sos", "\x1b_x\x1b\\\x1b^y\x1b\\\x1bXz\x1b\\", "␛_x␛\\␛^y␛\\␛Xz␛\\"},
		{"two byte escape", "\x1bc\x1b7\x1b8", "␛c␛7␛8"},
		{"c1 csi as rune", "a\u009b2Jb", "a<U+009B>2Jb"},
		{"c1 osc as rune", "\u009d0;t\u009c", "<U+009D>0;t<U+009C>"},
		{"raw 8-bit csi byte", "a\x9b2J", "a<0x9B>2J"},
		{"invalid utf8", "\xff\xfe ok", "<0xFF><0xFE> ok"},
		{"truncated rune", "x\xe4\xb8", "x<0xE4><0xB8>"},
		{"crlf dropped", "a\r\nb\r\n", "a\nb\n"},
		{"lone cr shown", "100%\rdone", "100%␍done"},
		{"nul bell backspace", "\x00\x07\x08", "␀␇␈"},
		{"del", "a\x7fb", "a␡b"},
		{"trojan source rlo", "access = \u202euser\u2066admin\u2069", "access = <U+202E>user<U+2066>admin<U+2069>"},
		{"bidi embeddings", "\u202a\u202b\u202c\u202d", "<U+202A><U+202B><U+202C><U+202D>"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Sanitize(tt.in)
			require.Equal(t, tt.want, got)
			requireInert(t, got)
			// Sanitizing twice changes nothing: the output is already safe.
			require.Equal(t, got, Sanitize(got))
		})
	}
}

func TestSanitizeFastPathDoesNotAllocate(t *testing.T) {
	in := strings.Repeat("func main() {\n\tfmt.Println(\"héllo 世界\")\n}\n", 50)
	allocs := testing.AllocsPerRun(100, func() {
		if Sanitize(in) != in {
			t.Fatal("safe text changed")
		}
	})
	require.Zero(t, allocs)
}

// requireInert fails when s holds anything a terminal would act on
// (termtest.Leak), SGR colour included: Sanitize lets none through.
func requireInert(t testing.TB, s string) {
	t.Helper()
	if i, what := termtest.Leak(s); i >= 0 {
		t.Fatalf("%s at byte %d of %q", what, i, s)
	}
}

func FuzzSanitize(f *testing.F) {
	f.Add("\x1b]52;c;ZXZpbA==\x07")
	f.Add("\x1b[2J\x9b31m\u009b\r\n\r")
	f.Add("\u202e\u2066x\xff\xc0\x80")
	f.Add("plain text\twith tab\n")
	f.Fuzz(func(t *testing.T, s string) {
		got := Sanitize(s)
		requireInert(t, got)
		require.Equal(t, got, Sanitize(got))
		if firstUnsafe(s) < 0 {
			require.Equal(t, s, got)
		}
	})
}

func BenchmarkSanitize(b *testing.B) {
	clean := strings.Repeat("def handler(event):\n\treturn {'ok': True}  # 世界\n", 200)
	hostile := strings.Repeat("\x1b[31mred\x1b[0m \x1b]0;t\x07 \u202e ok\r\n", 200)
	b.Run("clean", func(b *testing.B) {
		b.SetBytes(int64(len(clean)))
		b.ReportAllocs()
		for b.Loop() {
			_ = Sanitize(clean)
		}
	})
	b.Run("hostile", func(b *testing.B) {
		b.SetBytes(int64(len(hostile)))
		b.ReportAllocs()
		for b.Loop() {
			_ = Sanitize(hostile)
		}
	})
}
