package ui

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tabWidth is how many columns a tab stop spans in trace text.
const tabWidth = 4

// maxLineBytes bounds how much of one line is ever sanitized for display:
// a 10 MB single-line tool output must not be processed on each frame.
const maxLineBytes = 4096

// sanitizeLine makes one line of untrusted trace text inert and measurable:
// C0 and C1 controls, DEL, bidi overrides and invalid UTF-8 become visible
// escapes (an ESC shows as \x1b), so no escape sequence reaches the
// terminal, and tabs expand to spaces so widths are right. It expects text
// without newlines (the caller splits lines) and cuts very long lines.
//
// It stays unexported until triage.Sanitize lands; then this becomes a
// thin wrapper that adds tab expansion.
func sanitizeLine(s string) string {
	cut := false
	if len(s) > maxLineBytes {
		s, cut = s[:maxLineBytes], true
	}
	if isPlain(s) {
		if cut {
			return s + "…"
		}
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	col := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			if cut && len(s)-i < utf8.UTFMax {
				i = len(s) // a rune split by the cut, not bad input
				continue
			}
			fmt.Fprintf(&b, `\x%02x`, s[i])
			col += 4
		case r == '\t':
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
			col += 4
		case r >= 0x80 && r < 0xa0, isBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
			col += 6
		default:
			b.WriteRune(r)
			col++ // Tab stops after wide runes are approximate; fine for logs.
		}
		i += size
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII, the common case that needs
// no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// isBidi reports the Unicode bidi controls that can reorder what a
// reviewer sees (the "Trojan Source" characters).
func isBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
