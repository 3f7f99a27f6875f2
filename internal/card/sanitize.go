package card

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// clean makes untrusted trace text safe to print on a terminal or in any
// document: control characters (ESC, CR, NUL, DEL, C1) and bidirectional
// overrides become visible \uXXXX escapes, and invalid UTF-8 becomes
// U+FFFD. Trace text is written by an agent under test, so a task ID may
// carry an escape sequence that would otherwise repaint the screen.
func clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isClean(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return false
		}
		i += size
	}
	return true
}

func unsafeRune(r rune) bool {
	if unicode.IsControl(r) {
		return true
	}
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0xfeff, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}
