package triage

import (
	"strconv"
	"strings"
)

// FileStatus says what a diff did to a file.
type FileStatus string

// File statuses of a diff.
const (
	FileModified FileStatus = "modified"
	FileAdded    FileStatus = "added"
	FileDeleted  FileStatus = "deleted"
	FileRenamed  FileStatus = "renamed"
)

// LineKind is the kind of a diff line.
type LineKind byte

// Diff line kinds.
const (
	LineContext LineKind = ' '
	LineAdded   LineKind = '+'
	LineRemoved LineKind = '-'
)

// DiffLine is one line of a hunk with its old and new line numbers (0
// where the side has no line).
type DiffLine struct {
	Kind  LineKind
	Text  string
	OldNo int
	NewNo int
}

// Hunk is one @@ section of a file diff.
type Hunk struct {
	Header             string
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []DiffLine
}

// FileDiff is the change to one file.
type FileDiff struct {
	OldPath, NewPath string
	Status           FileStatus
	Binary           bool
	Hunks            []Hunk
}

// Path is the file's name after the change (before it, for deletions).
func (f *FileDiff) Path() string {
	if f.Status == FileDeleted || f.NewPath == "" {
		return f.OldPath
	}
	return f.NewPath
}

// Paths returns every path the change touches (both names of a rename).
func (f *FileDiff) Paths() []string {
	if f.Status == FileRenamed && f.OldPath != f.NewPath && f.OldPath != "" {
		return []string{f.OldPath, f.NewPath}
	}
	return []string{f.Path()}
}

// ParseDiff parses a unified diff, git-style or plain. It never fails:
// lines it cannot place are ignored, because a diff in a trace is
// untrusted input and a reviewer still wants to see what can be read.
func ParseDiff(s string) []FileDiff {
	var files []FileDiff
	var cur *FileDiff
	var hunk *Hunk
	oldNo, newNo := 0, 0
	oldLeft, newLeft := 0, 0
	startFile := func() *FileDiff {
		files = append(files, FileDiff{Status: FileModified})
		hunk = nil
		return &files[len(files)-1]
	}
	for len(s) > 0 {
		var line string
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			line, s = s, ""
		}
		line = strings.TrimSuffix(line, "\r")
		// Inside a hunk, body lines come first: a removed line may start
		// with "--" and must not be read as a header.
		if hunk != nil && (oldLeft > 0 || newLeft > 0) {
			if len(line) == 0 {
				line = " "
			}
			switch line[0] {
			case ' ':
				hunk.Lines = append(hunk.Lines, DiffLine{Kind: LineContext, Text: line[1:], OldNo: oldNo, NewNo: newNo})
				oldNo++
				newNo++
				oldLeft--
				newLeft--
				continue
			case '+':
				hunk.Lines = append(hunk.Lines, DiffLine{Kind: LineAdded, Text: line[1:], NewNo: newNo})
				newNo++
				newLeft--
				continue
			case '-':
				hunk.Lines = append(hunk.Lines, DiffLine{Kind: LineRemoved, Text: line[1:], OldNo: oldNo})
				oldNo++
				oldLeft--
				continue
			case '\\':
				continue
			}
			oldLeft, newLeft = 0, 0
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			cur = startFile()
			a, b := splitGitHeader(line[len("diff --git "):])
			cur.OldPath, cur.NewPath = a, b
		case strings.HasPrefix(line, "--- "):
			if cur == nil || hunk != nil || (cur.OldPath != "" && len(cur.Hunks) > 0) {
				cur = startFile()
			}
			p := diffPath(line[4:])
			if p == "" {
				cur.Status = FileAdded
			} else {
				cur.OldPath = p
			}
		case strings.HasPrefix(line, "+++ ") && cur != nil && hunk == nil:
			p := diffPath(line[4:])
			if p == "" {
				cur.Status = FileDeleted
			} else {
				cur.NewPath = p
			}
		case strings.HasPrefix(line, "new file mode") && cur != nil:
			cur.Status = FileAdded
		case strings.HasPrefix(line, "deleted file mode") && cur != nil:
			cur.Status = FileDeleted
		case strings.HasPrefix(line, "rename from ") && cur != nil:
			cur.Status = FileRenamed
			cur.OldPath = line[len("rename from "):]
		case strings.HasPrefix(line, "rename to ") && cur != nil:
			cur.Status = FileRenamed
			cur.NewPath = line[len("rename to "):]
		case strings.HasPrefix(line, "Binary files ") && cur != nil:
			cur.Binary = true
		case strings.HasPrefix(line, "@@") && cur != nil:
			h, ok := parseHunkHeader(line)
			if !ok {
				continue
			}
			cur.Hunks = append(cur.Hunks, h)
			hunk = &cur.Hunks[len(cur.Hunks)-1]
			oldNo, newNo = h.OldStart, h.NewStart
			oldLeft, newLeft = h.OldLines, h.NewLines
		}
	}
	for i := range files {
		f := &files[i]
		if f.Status == FileAdded && f.NewPath == "" {
			f.NewPath = f.OldPath
		}
		if f.Status == FileDeleted && f.OldPath == "" {
			f.OldPath = f.NewPath
		}
	}
	return files
}

// splitGitHeader splits "a/x b/y" into x and y. Paths with spaces are
// ambiguous in this header; the ---/+++ lines, when present, win.
func splitGitHeader(s string) (string, string) {
	if i := strings.Index(s, " b/"); i >= 0 {
		return strings.TrimPrefix(s[:i], "a/"), s[i+3:]
	}
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, s
}

func diffPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		return s[2:]
	}
	return s
}

func parseHunkHeader(line string) (Hunk, bool) {
	h := Hunk{Header: line}
	rest := strings.TrimPrefix(line, "@@")
	end := strings.Index(rest, "@@")
	if end < 0 {
		return h, false
	}
	fields := strings.Fields(rest[:end])
	if len(fields) < 2 {
		return h, false
	}
	var ok1, ok2 bool
	h.OldStart, h.OldLines, ok1 = parseRange(strings.TrimPrefix(fields[0], "-"))
	h.NewStart, h.NewLines, ok2 = parseRange(strings.TrimPrefix(fields[1], "+"))
	return h, ok1 && ok2
}

func parseRange(s string) (start, n int, ok bool) {
	n = 1
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	if has {
		n, err = strconv.Atoi(b)
		if err != nil || n < 0 {
			return 0, 0, false
		}
	}
	const maxLines = 1 << 24
	if n > maxLines {
		return 0, 0, false
	}
	return start, n, true
}
