package triage

import (
	"regexp"
	"strings"
)

// RuntimeError is an error a command's output reports, in any language:
// its type (an exception class such as KeyError or cv2.error, a compiler
// error code such as E0425 or TS2339, "compile error", "panic", "command
// not found"), its message, and the identifier it names when the message
// quotes one (the attribute, name, module, flag or path that does not
// exist).
type RuntimeError struct {
	Type    string
	Message string
	Ident   string
}

// maxRuntimeErrors bounds the errors kept of one output: the first and
// the last ones (what the agent hit, and what was still broken).
const maxRuntimeErrors = 8

// Windows of an output the reader scans: its head (where a shell says a
// command was not found) and its tail (where runners print summaries and
// tracebacks end). An output of 100 MB is read in these 320 KiB, so a
// step costs bounded time and memory whatever its size.
const (
	outHead = 64 << 10
	outTail = 256 << 10
)

// outputWindow is the part of out the reader scans: all of it when it is
// small, else its head and tail joined by a line break.
func outputWindow(out string) string {
	if len(out) <= outHead+outTail {
		return out
	}
	return out[:outHead] + "\n" + out[len(out)-outTail:]
}

var (
	// pyExcLine is an exception line: an optional module path, a class
	// name, and a message. Bare names are accepted only after a traceback
	// (KeyError alone). pytest prefixes lines with "E   ".
	pyExcLine = regexp.MustCompile(`^(?:E\s+)?((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*)(?::\s?(.*))?$`)
	// excName: a class name that is an error, not a warning or a log line.
	excName = regexp.MustCompile(`^(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure|Fault)|StopIteration|StopAsyncIteration|GeneratorExit|error|Error|panic)$`)
	// Compiler and runtime diagnostics of other languages.
	rustErr    = regexp.MustCompile(`^error\[(E\d{4})\]: (.+)$`)
	tsErr      = regexp.MustCompile(`^(\S+?)(?:\((\d+),(\d+)\)|:(\d+):(\d+)) ?[:-] ?error (TS\d+): (.+)$`)
	ccErr      = regexp.MustCompile(`^(\S+?\.(?:c|h|cc|cpp|cxx|hpp|hh|m|mm|go|java|scala|kt|kts|swift|cs|zig|nim|hs|rs)):(\d+)(?::(\d+))?:? (?:(?:fatal )?error:|e:)? ?(.+)$`)
	javaExc    = regexp.MustCompile(`^(?:Exception in thread "[^"]*" |Caused by: |\[error\] |\[ERROR\] )?((?:[a-z_][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Failure))(?::\s?(.*))?$`)
	sbtErr     = regexp.MustCompile(`^\[error\] (\S+\.(?:scala|java|sbt)):(\d+):(?:(\d+):)? (.+)$`)
	mvnErr     = regexp.MustCompile(`^\[ERROR\] (\S+\.(?:java|kt|scala)):\[(\d+),(\d+)\] (.+)$`)
	kotlinErr  = regexp.MustCompile(`^e: (?:file://)?(\S+\.kts?):(?: \()?(\d+)[:,] ?(\d+)\)?:? (.+)$`)
	rustPanic  = regexp.MustCompile(`^thread '([^']*)' panicked at (.+)$`)
	goPanic    = regexp.MustCompile(`^(panic|fatal error): (.+)$`)
	rubyErr    = regexp.MustCompile(`^\S+:\d+:in [` + "`" + `'][^']*': (.+) \(([A-Z]\w*(?:::\w+)*)\)$`)
	phpErr     = regexp.MustCompile(`^(?:PHP )?(Fatal error|Parse error): +(.+)$`)
	shNotFound = regexp.MustCompile(`^(?:(?:/\S+/)?(?:ba|z|da)?sh: (?:line \d+: |\d+: )?)?(\S+): (?:command )?not found$`)
	zshNF      = regexp.MustCompile(`^zsh: command not found: (\S+)$`)
	shDenied   = regexp.MustCompile(`^(?:(?:/\S+/)?(?:ba|z|da)?sh: (?:line \d+: |\d+: )?)?(\S+): Permission denied$`)
	noSuchFile = regexp.MustCompile(`^(?:\S+: )?(?:cannot (?:access|open|stat) )?'?([^':]+?)'?: No such file or directory$`)
	pyNoFile   = regexp.MustCompile(`can't open file '([^']+)': \[Errno 2\] No such file or directory`)
	genericErr = regexp.MustCompile(`^(?:error|fatal|ERROR|FATAL): (.+)$`)
	nodeCode   = regexp.MustCompile(`code: '(ERR_[A-Z_]+|MODULE_NOT_FOUND)'`)
)

// identPatterns find the identifier an error names.
var identPatterns = []*regexp.Regexp{
	regexp.MustCompile(`has no attribute '([^']+)'`),
	regexp.MustCompile(`cannot import name '([^']+)'`),
	regexp.MustCompile(`No module named '([^']+)'`),
	regexp.MustCompile(`No module named ([\w.]+)`),
	regexp.MustCompile(`name '([^']+)' is not defined`),
	regexp.MustCompile(`unexpected keyword argument '([^']+)'`),
	regexp.MustCompile(`^'([^']+)'$`), // KeyError: 'X'
	regexp.MustCompile(`unrecognized arguments?: (\S+)`),
	regexp.MustCompile(`no such option: (\S+)`),
	regexp.MustCompile(`unknown (?:option|flag|argument|shorthand flag)[: ]+'?(-[\w-]+)`),
	regexp.MustCompile(`flag provided but not defined: (-[\w-]+)`),
	regexp.MustCompile(`unexpected argument '([^']+)'`),
	regexp.MustCompile("cannot find (?:value|function|type|struct|module|macro|trait|crate|method|associated item) `([^`]+)`"),
	regexp.MustCompile("no (?:method|field|function|associated item) named `([^`]+)`"),
	regexp.MustCompile(`undefined: (\w+)`),
	regexp.MustCompile(`\w+\.(\w+) undefined \(type`),
	regexp.MustCompile(`Property '([^']+)' does not exist`),
	regexp.MustCompile(`Cannot find (?:name|module) '([^']+)'`),
	regexp.MustCompile(`(\w[\w.]*) is not a function`),
	regexp.MustCompile(`(\w+) is not defined`),
	regexp.MustCompile(`Cannot find module '([^']+)'`),
	regexp.MustCompile(`'(\w+)' undeclared`),
	regexp.MustCompile("undefined reference to [`']([^'`]+)'"),
	regexp.MustCompile(`not found: (?:value|type|object|method) (\w+)`),
	regexp.MustCompile(`value (\w+) is not a member of`),
	regexp.MustCompile(`Unresolved reference:? '?(\w+)`),
	regexp.MustCompile("undefined method [`']([^'`]+)'"),
	regexp.MustCompile(`Call to undefined (?:function|method) ([\w:\\]+)`),
	regexp.MustCompile(`symbol:\s+(?:method|variable|class) (\w+)`),
	regexp.MustCompile(`No such file or directory: '([^']+)'`),
}

// hasErrorWord: the words an exception class or a diagnostic holds.
func hasErrorWord(l string) bool {
	return strings.Contains(l, "rror") || strings.Contains(l, "xception") || strings.Contains(l, "Exit") ||
		strings.Contains(l, "Interrupt") || strings.Contains(l, "Iteration") || strings.Contains(l, "Failure") ||
		strings.Contains(l, "Fault") || strings.Contains(l, "panic")
}

func identOf(msg string) string {
	for _, re := range identPatterns {
		if m := re.FindStringSubmatch(msg); m != nil {
			return m[1]
		}
	}
	return ""
}

// errorMarkers are substrings an output must hold for stepErrors to find
// anything: most outputs hold none, and are not scanned line by line.
var errorMarkers = [...]string{"rror", "xception", "Traceback", "panic", "not found", "Permission denied", "No such file", "FAIL", "fatal", "Fault", "Exit", "Interrupt", "StopIteration", "e: ", "undefined", ".go:", "cannot find", "Is a directory"}

func mayHaveErrors(out string) bool {
	for _, m := range errorMarkers {
		if strings.Contains(out, m) {
			return true
		}
	}
	return false
}

// stepErrors finds the errors out reports, in any language (see
// RuntimeError), in the order they appear; at most maxRuntimeErrors.
func stepErrors(out string) []RuntimeError {
	if out == "" || !mayHaveErrors(out) {
		return nil
	}
	out = outputWindow(out)
	var errs []RuntimeError
	var generic []RuntimeError
	add := func(typ, msg string) {
		if typ == "Error" {
			// "Error: AttributeError: x": a wrapper's prefix.
			if m := pyExcLine.FindStringSubmatch(msg); m != nil && m[2] != "" && excName.MatchString(m[1]) && m[1] != "Error" && m[1] != "error" {
				typ, msg = m[1], m[2]
			}
		}
		msg = clipLine(msg)
		e := RuntimeError{Type: ClipIdent(typ), Message: msg, Ident: ClipIdent(identOf(msg))}
		if n := len(errs); n > 0 && errs[n-1].Type == e.Type && errs[n-1].Message == e.Message {
			return
		}
		errs = append(errs, e)
	}
	inTraceback := false
	sawFrame := false
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimRight(line, " \r\t")
		if line == "" {
			continue
		}
		if !inTraceback && strings.IndexByte(line, ':') < 0 && !strings.HasSuffix(line, "not found") && !strings.Contains(line, "panicked") {
			// Every diagnostic outside a traceback's frames has a colon
			// ("Type: message", "file:line: error", "sh: x: not found").
			continue
		}
		if strings.HasPrefix(line, "Traceback (most recent call last)") {
			inTraceback, sawFrame = true, false
			continue
		}
		if inTraceback {
			if line[0] == ' ' || line[0] == '\t' {
				sawFrame = true
				continue
			}
			if strings.HasPrefix(line, "During handling") || strings.HasPrefix(line, "The above exception") {
				continue
			}
			// The first line at column 0 after the frames is the exception.
			if m := pyExcLine.FindStringSubmatch(line); m != nil && sawFrame {
				add(m[1], m[2])
				inTraceback = false
				continue
			}
			inTraceback = false
		}
		stripped := line
		if strings.HasPrefix(stripped, "E  ") {
			stripped = strings.TrimLeft(stripped[1:], " ")
		}
		if m := rustErr.FindStringSubmatch(stripped); m != nil {
			add(m[1], m[2])
			continue
		}
		if strings.Contains(stripped, " error TS") {
			if m := tsErr.FindStringSubmatch(stripped); m != nil {
				add(m[6], m[1]+": "+m[7])
				continue
			}
		}
		if strings.HasPrefix(stripped, "[error]") {
			if m := sbtErr.FindStringSubmatch(stripped); m != nil {
				add("compile error", shortPath(m[1])+":"+m[2]+": "+m[4])
				continue
			}
		}
		if strings.HasPrefix(stripped, "[ERROR]") {
			if m := mvnErr.FindStringSubmatch(stripped); m != nil {
				add("compile error", shortPath(m[1])+":"+m[2]+": "+m[4])
				continue
			}
		}
		if strings.HasPrefix(stripped, "e: ") {
			if m := kotlinErr.FindStringSubmatch(stripped); m != nil {
				add("compile error", shortPath(m[1])+":"+m[2]+": "+m[4])
				continue
			}
		}
		if strings.Contains(stripped, "error") || strings.Contains(stripped, "e: ") {
			if m := ccErr.FindStringSubmatch(stripped); m != nil && (strings.Contains(stripped, "error") || strings.HasSuffix(m[1], ".go")) {
				add("compile error", shortPath(m[1])+":"+m[2]+": "+m[4])
				continue
			}
		}
		if strings.HasSuffix(stripped, ".go") || strings.Contains(stripped, ".go:") {
			// Go compiler lines carry no "error:" word: ./x.go:12:5: undefined: foo.
			if m := ccErr.FindStringSubmatch(stripped); m != nil && strings.HasSuffix(m[1], ".go") && m[3] != "" {
				add("compile error", shortPath(m[1])+":"+m[2]+": "+m[4])
				continue
			}
		}
		if strings.Contains(stripped, "panicked at") {
			if m := rustPanic.FindStringSubmatch(stripped); m != nil {
				add("panic", m[2])
				continue
			}
		}
		if strings.HasPrefix(stripped, "panic: ") || strings.HasPrefix(stripped, "fatal error: ") {
			if m := goPanic.FindStringSubmatch(stripped); m != nil {
				add(m[1], m[2])
				continue
			}
		}
		if strings.Contains(stripped, "not found") {
			if m := zshNF.FindStringSubmatch(stripped); m != nil {
				add("command not found", stripped)
				errs[len(errs)-1].Ident = ClipIdent(m[1])
				continue
			}
			if m := shNotFound.FindStringSubmatch(stripped); m != nil && !strings.Contains(m[1], "'") {
				add("command not found", stripped)
				errs[len(errs)-1].Ident = ClipIdent(m[1])
				continue
			}
		}
		if strings.HasSuffix(stripped, "Permission denied") {
			if m := shDenied.FindStringSubmatch(stripped); m != nil {
				add("permission denied", stripped)
				errs[len(errs)-1].Ident = ClipIdent(m[1])
				continue
			}
		}
		if strings.Contains(stripped, "can't open file") {
			if m := pyNoFile.FindStringSubmatch(stripped); m != nil {
				add("no such file", stripped)
				errs[len(errs)-1].Ident = ClipIdent(m[1])
				continue
			}
		}
		if strings.HasSuffix(stripped, ": Is a directory") {
			add("is a directory", stripped)
			continue
		}
		if strings.HasSuffix(stripped, "No such file or directory") && !strings.Contains(stripped, "Errno") {
			if m := noSuchFile.FindStringSubmatch(stripped); m != nil {
				add("no such file", stripped)
				errs[len(errs)-1].Ident = ClipIdent(m[1])
				continue
			}
		}
		if strings.Contains(stripped, ") ") || strings.HasSuffix(stripped, ")") {
			if m := rubyErr.FindStringSubmatch(stripped); m != nil {
				add(m[2], m[1])
				continue
			}
		}
		if strings.Contains(stripped, "error:") && (strings.HasPrefix(stripped, "PHP") || strings.HasPrefix(stripped, "Fatal") || strings.HasPrefix(stripped, "Parse")) {
			if m := phpErr.FindStringSubmatch(stripped); m != nil {
				add(m[1], m[2])
				continue
			}
		}
		if strings.Contains(stripped, "code: '") && len(errs) > 0 && errs[len(errs)-1].Type == "Error" {
			if m := nodeCode.FindStringSubmatch(stripped); m != nil {
				errs[len(errs)-1].Type = "Error " + m[1]
			}
		}
		if !hasErrorWord(stripped) {
			continue
		}
		if m := javaExc.FindStringSubmatch(stripped); m != nil {
			add(m[1], m[2])
			continue
		}
		// A Python, Node or other exception line outside a traceback:
		// "TypeError: x is not a function", "E   KeyError: 'X'". Only with a
		// message, and only error classes: warnings are not errors.
		if c := strings.IndexByte(stripped, ':'); c > 0 && c < 120 && stripped[0] != ' ' {
			if m := pyExcLine.FindStringSubmatch(stripped); m != nil && m[2] != "" && m[1] != "error" && excName.MatchString(m[1]) {
				add(m[1], m[2])
				continue
			}
		}
		if strings.HasPrefix(stripped, "error:") || strings.HasPrefix(stripped, "fatal:") || strings.HasPrefix(stripped, "ERROR:") || strings.HasPrefix(stripped, "FATAL:") {
			if m := genericErr.FindStringSubmatch(stripped); m != nil && len(generic) < maxRuntimeErrors {
				typ := strings.ToLower(stripped[:strings.IndexByte(stripped, ':')])
				generic = append(generic, RuntimeError{Type: typ, Message: clipLine(m[1]), Ident: ClipIdent(identOf(m[1]))})
			}
		}
	}
	if len(errs) == 0 {
		// "error: could not compile", "fatal: not a git repository": kept
		// only when nothing more specific was said.
		errs = generic
	}
	if len(errs) > maxRuntimeErrors {
		// The first ones (what went wrong first) and the last ones (what
		// was still wrong at the end).
		keep := append(errs[:2:2], errs[len(errs)-(maxRuntimeErrors-2):]...)
		errs = keep
	}
	return errs
}

// shortPath is a diagnostic's file without the absolute prefix
// (/testbed/src/x.rs → src/x.rs is not knowable; the base keeps it short).
func shortPath(p string) string {
	p = strings.TrimPrefix(p, "./")
	if strings.Count(p, "/") > 3 {
		parts := strings.Split(p, "/")
		return strings.Join(parts[len(parts)-3:], "/")
	}
	return p
}

// ClipIdent bounds an identifier or id copied from a trace (200 bytes,
// cut on a rune boundary and marked), so a hostile trace with a
// megabyte-long name still gives a readable step and verdict.
func ClipIdent(s string) string {
	const maxIdent = 200
	if len(s) <= maxIdent {
		return s
	}
	cut := maxIdent
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
