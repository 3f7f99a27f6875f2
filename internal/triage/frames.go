package triage

import (
	"regexp"
	"strconv"
	"strings"
)

// frameLine matches where a traceback or diagnostic points in the code:
// Python's  File "path", line N; Java's (File.java:N); Node's, Go's, Rust's
// and compilers' path:N[:M].
var frameLine = regexp.MustCompile(`File "([^"]+)", line (\d+)|\(([\w./-]+\.\w+):(\d+)\)|(?:^|[\s(])((?:\.{0,2}/)?[\w./-]+\.(?:py|go|rs|js|ts|tsx|jsx|java|scala|kt|rb|php|c|cc|cpp|h|hpp|cs|swift)):(\d+)`)

// LastFrameIn is the last place out points at (a traceback frame, a
// compiler's file:line) that is a file of the diff, named as the diff
// names it, with its line; "" when none is. It reads out's tail window.
func LastFrameIn(out string, diffPaths []string) (string, int) {
	if out == "" || len(diffPaths) == 0 {
		return "", 0
	}
	out = tailOf(out, outTail)
	file, line := "", 0
	for _, m := range frameLine.FindAllStringSubmatch(out, -1) {
		p, n := m[1], m[2]
		if p == "" {
			p, n = m[3], m[4]
		}
		if p == "" {
			p, n = m[5], m[6]
		}
		p = strings.TrimPrefix(p, "./")
		for _, d := range diffPaths {
			if d == p || strings.HasSuffix(p, "/"+d) {
				file = d
				line, _ = strconv.Atoi(n)
			}
		}
	}
	return file, line
}
