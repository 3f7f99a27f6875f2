package triage

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes untrusted trace text inert for a terminal while keeping
// it readable. Agents print whatever their tools print, and a trace can
// carry escape sequences that would clear a reviewer's screen, set the
// window title or write the clipboard (OSC 52), or bidi overrides that make
// code read differently from what it does (Trojan Source). Nothing of that
// may reach the terminal, yet a reviewer must still see that it was there.
//
// The convention, one visible stand-in per offending unit:
//
//   - C0 controls and DEL become their Unicode Control Pictures, one cell
//     each: ESC is "␛", so "\x1b[2J" reads "␛[2J" and an OSC title
//     "\x1b]0;hi\a" reads "␛]0;hi␇". Because the introducer itself is
//     replaced, every ESC-introduced sequence (CSI, OSC, DCS, APC, PM, SOS,
//     two-byte escapes) is inert as a whole, whatever its terminator.
//   - "\n" and "\t" are kept. "\r" is dropped when it ends a CRLF pair and
//     shown as "␍" otherwise, so a carriage return cannot overwrite a line.
//   - C1 controls (U+0080–U+009F, including the 8-bit CSI U+009B) and the
//     bidi embedding, override and isolate characters (U+202A–U+202E,
//     U+2066–U+2069) become "<U+009B>", "<U+202E>" and so on.
//   - Each byte of invalid UTF-8 becomes "<0xFF>" (a raw 8-bit C1 byte such
//     as 0x9B is invalid UTF-8 and is shown this way too).
//
// When nothing needs escaping, Sanitize returns s itself without
// allocating, so calling it on every rendered line is cheap.
func Sanitize(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || c == '\t':
				b.WriteByte(c)
			case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
				// The \r of a CRLF pair carries no meaning on screen.
			case c < 0x20:
				b.WriteRune(0x2400 + rune(c))
			case c == 0x7f:
				b.WriteRune('␡')
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeByteEscape(&b, c)
		case unsafeRune(r):
			writeRuneEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the byte offset of the first unit Sanitize must
// rewrite, or -1 when s is already safe.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports whether a valid non-ASCII rune must be escaped: the
// C1 controls and the bidi characters that reorder what follows them.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) ||
		(r >= 0x2066 && r <= 0x2069)
}

const hexDigits = "0123456789ABCDEF"

func writeByteEscape(b *strings.Builder, c byte) {
	b.WriteString("<0x")
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&0xf])
	b.WriteByte('>')
}

func writeRuneEscape(b *strings.Builder, r rune) {
	b.WriteString("<U+")
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>shift)&0xf])
	}
	b.WriteByte('>')
}
