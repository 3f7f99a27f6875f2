// Package termtest is what the tests of several packages share to prove
// that trace text reaching a terminal is inert: the hostile payload and
// the check. Trace content is untrusted, and the review screen, the text
// commands and the sanitizer are each held to the same definition of
// "inert", kept here once. Only tests import it.
package termtest

import (
	"fmt"
	"regexp"
	"testing"
	"unicode/utf8"
)

// Hostile carries every terminal attack issue 8 names: a bare ESC, CSI
// (clear screen, colour), OSC (window title with BEL and with ST, the OSC
// 52 clipboard write, a hyperlink), DCS, APC, PM and SOS strings, the C1
// controls as runes (U+009B CSI, U+009D OSC, U+0085 NEL) and as raw bytes
// in invalid UTF-8, BEL, backspace and carriage-return overwrites, DEL,
// and the bidi overrides and isolates of Trojan Source.
const Hostile = "<ESC\x1b CSI\x1b[2J\x1b[31m OSC\x1b]0;pwn\x07\x1b]2;x\x1b\\ CLIP\x1b]52;c;ZXZpbA==\x07 " +
	"LINK\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\ DCS\x1bP1$qm\x1b\\ APC\x1b_apc\x1b\\ PM\x1b^pm\x1b\\ SOS\x1bXsos\x1b\\ " +
	"C1\u009b2J\u009d0;t\u0007\u0085 RAW\x9b2J\x9d0;t\x07 BEL\x07 BS abc\x08\x08\x08XYZ CR safe\rEVIL " +
	"BIDI\u202eevil\u202c \u2066iso\u2069 \u202a\u202b\u202d\u2067\u2068 DEL\x7f>"

// Leak returns the offset of the first character in s a terminal would
// act on, and what it is: a raw byte of invalid UTF-8, a C0 control
// other than newline and tab (ESC and BEL among them), DEL, a C1 control,
// or a bidi embedding, override or isolate. It returns -1 when s is
// inert.
func Leak(s string) (int, string) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return i, fmt.Sprintf("raw byte 0x%02X (invalid UTF-8)", s[i])
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f:
			return i, fmt.Sprintf("control 0x%02X", r)
		case r >= 0x80 && r <= 0x9f:
			return i, fmt.Sprintf("C1 control U+%04X", r)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return i, fmt.Sprintf("bidi control U+%04X", r)
		}
		i += size
	}
	return -1, ""
}

// sgr is the only escape sequence triage's own styling emits.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// RequireInert fails t when out, a rendered screen or a command's output,
// still leaks (Leak) once the SGR colour sequences of our own styling
// are removed. It reports the first leak of out and returns, so a test
// that checks many surfaces lists every one that leaks.
func RequireInert(t testing.TB, surface, out string) {
	t.Helper()
	s := sgr.ReplaceAllString(out, "")
	if i, what := Leak(s); i >= 0 {
		lo, hi := max(0, i-40), min(len(s), i+40)
		t.Errorf("%s: %s reaches the output raw at byte %d: …%q…", surface, what, i, s[lo:hi])
	}
}
