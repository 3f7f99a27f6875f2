package diffview

import (
	"unicode"
	"unicode/utf8"
)

// indexFold returns the byte offset and byte length in s of the first
// case-insensitive occurrence of q, or (-1, 0). It neither allocates nor
// lower-cases s, because Search runs it over multi-megabyte tool output.
func indexFold(s, q string) (int, int) {
	if q == "" {
		return -1, 0
	}
	if isASCII(q) {
		first := lowerASCII(q[0])
		for i := 0; i+len(q) <= len(s); i++ {
			if lowerASCII(s[i]) == first && equalFoldASCII(s[i:i+len(q)], q) {
				return i, len(q)
			}
		}
		return -1, 0
	}
	for i := 0; i < len(s); {
		if n := prefixFold(s[i:], q); n > 0 {
			return i, n
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return -1, 0
}

// containsFold reports whether s contains q, ignoring case.
func containsFold(s, q string) bool {
	i, _ := indexFold(s, q)
	return i >= 0
}

// prefixFold returns how many bytes of s match q rune by rune, ignoring
// case, or 0 when s does not start with q.
func prefixFold(s, q string) int {
	n := 0
	for _, qr := range q {
		if n >= len(s) {
			return 0
		}
		sr, size := utf8.DecodeRuneInString(s[n:])
		if sr != qr && unicode.ToLower(sr) != unicode.ToLower(qr) {
			return 0
		}
		n += size
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(b); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}
