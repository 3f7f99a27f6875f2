package ui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSanitizeLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello", "hello"},
		{"csi clear screen", "a\x1b[2Jb", "a␛[2Jb"},
		{"osc window title", "\x1b]0;pwned\x07", "␛]0;pwned␇"},
		{"osc 52 clipboard", "\x1b]52;c;ZXZpbA==\x1b\\", "␛]52;c;ZXZpbA==␛\\"},
		{"c1 csi", "x\u009b31m", "x<U+009B>31m"},
		{"bidi override", "a\u202eb", "a<U+202E>b"},
		{"tab expands", "a\tb", "a   b"},
		{"newline is visible", "a\nb", "a␤b"},
		{"invalid utf8", "a\xffb", "a<0xFF>b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := sanitizeLine(tt.in)
			require.Equal(t, tt.want, got)
			require.NotContains(t, got, "\x1b")
		})
	}
}

func TestSanitizeLineCutsLongLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", maxLineBytes) // 2 bytes each: the cut falls mid-rune
	got := sanitizeLine(long)
	require.LessOrEqual(t, len(got), maxLineBytes+len("…"))
	require.True(t, strings.HasSuffix(got, "…"))
	require.NotContains(t, got, "<0x")
}
