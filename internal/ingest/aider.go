package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unsafe"

	"github.com/triage-dev/triage/internal/triage"
)

// AiderFormat reads aider's chat history (.aider.chat.history.md), the
// Markdown transcript aider appends to as it runs (aider/io.py): each
// session opens with "# aider chat started at <time>" and is one trace.
// Within a session, "#### " lines are the user's input, "> " lines are
// aider's own output (a multi-line message quotes only its first line and
// ends with Markdown's two-space line break), and the rest is the model's
// reply, whose SEARCH/REPLACE blocks are its edits.
//
// Tool calls: the shell commands run (/run, /test, ! typed by the user,
// "Running <cmd>" for the model's suggested commands, the linter's "##
// Running: <cmd>"), and one "edit" call per SEARCH/REPLACE block, settled
// by aider's "Applied edit to <path>" or its SearchReplaceNoExactMatch
// report. The history records no exit codes, so none is set. The diff is
// built from the edits aider applied; the blocks carry no line numbers, so
// its hunks give true line counts from line 1. The file is read line by
// line; only the session being read is held. Raw is nil.
var AiderFormat = Format{Name: nameAider, Detect: detectAider, Decode: decodeAider,
	Wants: "Markdown that opens with \"" + aiderHeader + "\" (an aider " + aiderHistorySuffix + ")"}

const nameAider = "aider"

// aiderHeader opens a session.
const aiderHeader = "# aider chat started at "

// aiderHistorySuffix is the name aider gives its chat history.
const aiderHistorySuffix = ".aider.chat.history.md"

func detectAider(name string, head []byte) bool {
	l := strings.ToLower(strings.TrimSuffix(name, ".gz"))
	if strings.HasSuffix(l, aiderHistorySuffix) {
		return true
	}
	t := trimHead(head)
	if bytes.HasPrefix(t, []byte(aiderHeader)) {
		return true
	}
	// A history that starts mid-session (a file cut or edited) still has
	// a header in its head; only Markdown files are looked into.
	return strings.HasSuffix(l, ".md") && bytes.Contains(head, []byte("\n"+aiderHeader))
}

// aiderFileName says whether a file met in a directory walk is an aider
// history: by its name, or, for any other Markdown file, by a session
// header in its first bytes.
func aiderFileName(path string) bool {
	l := strings.ToLower(strings.TrimSuffix(filepath.Base(path), ".gz"))
	if strings.HasSuffix(l, aiderHistorySuffix) {
		return true
	}
	if !strings.HasSuffix(l, ".md") || strings.HasSuffix(strings.ToLower(path), ".gz") {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 4<<10)
	n, _ := f.Read(buf)
	return detectAider(path, buf[:n])
}

// aiderStem names a history file's sessions when they have no header.
func aiderStem(name string) string {
	base := filepath.Base(strings.TrimSuffix(name, ".gz"))
	for _, s := range []string{aiderHistorySuffix, ".md"} {
		base = strings.TrimSuffix(base, s)
	}
	return strings.TrimPrefix(base, ".")
}

func decodeAider(ctx context.Context, src Source, emit func(Record) error) error {
	d := &aiderDecoder{src: src, emit: emit, seen: map[string]int{}}
	data, ok, src := wholeFile(src)
	d.src = src
	var err error
	if ok && len(data) > 0 {
		// The lines are views of the history read whole (wholeFile's
		// buffer, never written again), not a string copied per line.
		doc := unsafe.String(&data[0], len(data))
		err = eachLineAt(ctx, data, func(n, start, end int, _ bool) error {
			return d.line(n, strings.TrimSuffix(doc[start:end], "\r"))
		})
	} else {
		err = eachLine(ctx, src, func(n int, line []byte, _ bool, lineErr error) error {
			if lineErr != nil {
				return emit(lineReject(src, n, line, "%v", lineErr))
			}
			return d.line(n, strings.TrimSuffix(string(line), "\r"))
		})
	}
	if err != nil {
		return err
	}
	if err := d.endSession(); err != nil {
		return err
	}
	// The benchmark's results are the outcome of the exercise's last
	// session: an earlier one in the same history was an attempt it
	// started again.
	if d.held != nil {
		if r := readAiderResults(src, src.Path); r != nil {
			if !d.placeRead {
				d.place, d.placeRead = aiderBenchmarkPlace(src.Path), true
			}
			applyAiderResults(d.held.Trace, r, src, d.place != nil)
		}
		rec := *d.held
		d.held = nil
		return emit(rec)
	}
	return nil
}

// aiderDecoder is the state of the line-by-line read.
type aiderDecoder struct {
	src  Source
	emit func(Record) error
	seen map[string]int // session ids so far, to keep repeats apart
	// dir is the history's directory made absolute, once.
	dir string

	s *aiderSession
	// cont is true while a quoted multi-line message runs on.
	cont bool
	// held is the last session ended, emitted when the next one ends or
	// the file does (the last one may take the benchmark's results).
	held *Record
	// sessions counts the sessions started.
	sessions int
	// place is where the history sits in aider's benchmark (nil: not
	// in it), read once per file.
	place     *aiderPlace
	placeRead bool
}

// aiderSession builds one trace.
type aiderSession struct {
	t     *triage.Trace
	line  int
	user  []string // "#### " lines not yet made a message
	reply []string // model reply lines not yet read
	// out is the call whose output the quoted lines are, or -1.
	out    int
	outBuf []string
	// edits are the edit calls not yet settled, by index.
	edits  []aiderEdit
	tokens triage.Tokens
	anyTok bool
	cost   *float64
	diff   strings.Builder
}

type aiderEdit struct {
	call           int
	path           string
	search, change []string
	settled        bool
}

// line takes one line of the history.
func (d *aiderDecoder) line(n int, l string) error {
	if rest, ok := strings.CutPrefix(l, aiderHeader); ok {
		if err := d.endSession(); err != nil {
			return err
		}
		d.startSession(n, strings.TrimSpace(rest))
		return nil
	}
	if d.s == nil {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "-*- ") {
			return nil // blank lines and an editor's mode line
		}
		// Content before any header: the end of a session whose header
		// is not in the file. Kept as a session of its own.
		d.startSession(n, "")
	}
	s := d.s
	if d.cont && (strings.HasPrefix(l, "#### ") || strings.HasPrefix(l, "> ") || l == ">") {
		d.cont = false // a quoted message that never closed its line
	}
	if d.cont {
		// The run-on lines of a quoted message end with the two-space
		// line break aider writes after every quoted message.
		d.quoted(strings.TrimSuffix(l, "  "))
		d.cont = !strings.HasSuffix(l, "  ")
		return nil
	}
	switch {
	case strings.HasPrefix(l, "#### "):
		s.flushReply(d)
		s.user = append(s.user, strings.TrimSuffix(strings.TrimPrefix(l, "#### "), "  "))
	case l == ">" || strings.HasPrefix(l, "> "):
		s.flushReply(d)
		s.flushUser()
		text := strings.TrimPrefix(strings.TrimPrefix(l, ">"), " ")
		d.cont = !strings.HasSuffix(l, "  ") && strings.TrimSpace(text) != ""
		d.quoted(strings.TrimSuffix(text, "  "))
	default:
		s.flushUser()
		s.reply = append(s.reply, l)
	}
	return nil
}

func (d *aiderDecoder) startSession(n int, started string) {
	t := newHarnessTrace(nameAider, d.src)
	id := strings.ReplaceAll(started, " ", "T")
	if id == "" {
		id = nameOr(aiderStem(fileName(d.src)), "aider")
	}
	d.seen[id]++
	if k := d.seen[id]; k > 1 {
		id += "-" + strconv.Itoa(k)
	}
	t.TaskID = id
	t.RunID = runFromDirCached(d.src, id, &d.dir)
	if !d.placeRead {
		d.place, d.placeRead = aiderBenchmarkPlace(d.src.Path), true
	}
	if pl := d.place; pl != nil {
		// An exercise of aider's benchmark, with or without its results:
		// each session of its history is an attempt at it, in file order
		// (a restarted run appends a session; the last one is scored).
		t.TaskID, t.Seed = pl.task, d.sessions
		if d.src.Opts.RunID == "" {
			t.RunID = pl.run
		}
	}
	d.sessions++
	d.s = &aiderSession{t: t, line: n, out: -1}
	d.cont = false
}

// endSession emits the session being read.
func (d *aiderDecoder) endSession() error {
	s := d.s
	if s == nil {
		return nil
	}
	d.s = nil
	s.flushReply(d)
	s.flushUser()
	s.flushOutput()
	// A session with nothing but its header (aider started and quit) is
	// still a session: a trace with no calls.
	t := s.t
	if s.anyTok {
		t.Tokens = &s.tokens
	}
	t.CostUSD = s.cost
	if s.diff.Len() > 0 {
		t.Diff = ptr(s.diff.String())
	}
	prev := d.held
	d.held = &Record{Line: s.line, Trace: t}
	if prev != nil {
		return d.emit(*prev)
	}
	return nil
}

// flushUser turns the pending "#### " lines into a message or a command.
func (s *aiderSession) flushUser() {
	if len(s.user) == 0 {
		return
	}
	text := strings.Join(s.user, "\n")
	s.user = s.user[:0]
	s.flushOutput()
	t := s.t
	name, cmd := aiderUserCommand(text)
	if name == "" {
		addMessage(t, "user", text)
		return
	}
	s.out = len(t.ToolCalls)
	t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: name, Args: commandArgs(cmd)})
}

// aiderUserCommand reads the user's shell commands: "/run cmd" (or "!cmd")
// and "/test cmd" run a command, "/lint" the linter. Other input is a
// message (other slash commands are the user steering aider, not tools).
func aiderUserCommand(text string) (name, cmd string) {
	if c, ok := strings.CutPrefix(text, "!"); ok && strings.TrimSpace(c) != "" {
		return "run", strings.TrimSpace(c)
	}
	for _, p := range []string{"/run ", "/test ", "/lint"} {
		if c, ok := strings.CutPrefix(text, p); ok {
			return strings.Trim(p, "/ "), strings.TrimSpace(c)
		}
	}
	return "", ""
}

// flushOutput closes the output of the call being answered.
func (s *aiderSession) flushOutput() {
	if s.out >= 0 && len(s.outBuf) > 0 {
		s.t.ToolCalls[s.out].Output = strings.TrimSpace(strings.Join(s.outBuf, "\n"))
	}
	s.out, s.outBuf = -1, s.outBuf[:0]
}

var (
	aiderApplied = regexp.MustCompile(`^Applied edit to (.+)$`)
	aiderNoMatch = regexp.MustCompile(`^## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in (.+)$`)
	aiderDryRun  = regexp.MustCompile(`^Did not apply edit to (.+?) \(--dry-run\)$`)
	aiderTokens  = regexp.MustCompile(`^Tokens: (.+?)\. Cost: .*\$([0-9.]+) session\.?$`)
	aiderModel   = regexp.MustCompile(`^(?:Main model|Models|Model): (\S+)`)
)

// quoted takes one line of aider's own output.
func (d *aiderDecoder) quoted(text string) {
	s := d.s
	t := s.t
	trim := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(trim, "Running ") && !strings.HasPrefix(trim, "Running: "):
		// The model's suggested command, confirmed by the user.
		s.flushOutput()
		s.out = len(t.ToolCalls)
		t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: "run", Args: commandArgs(strings.TrimPrefix(trim, "Running "))})
		return
	case strings.HasPrefix(trim, "## Running: "):
		// The linter aider ran after an edit; it reports only failures.
		s.flushOutput()
		s.out = len(t.ToolCalls)
		t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: "lint", Args: commandArgs(strings.TrimPrefix(trim, "## Running: ")), Error: "lint errors"})
		return
	}
	// Cheap prefix tests first: most quoted lines are plain output.
	if len(trim) < 6 || !strings.Contains("ADT#M", trim[:1]) {
		if s.out >= 0 {
			s.outBuf = append(s.outBuf, text)
		}
		return
	}
	// Each pattern is anchored on a literal prefix, tested first.
	if m := matchAfter(aiderApplied, trim, "Applied edit to "); m != nil {
		s.settle(m[1], "", "Applied edit to "+m[1])
		return
	}
	if m := matchAfter(aiderNoMatch, trim, "## SearchReplaceNoExactMatch: "); m != nil {
		s.settleOne(m[1], "SearchReplaceNoExactMatch: the SEARCH block did not match "+m[1])
		return
	}
	if m := matchAfter(aiderDryRun, trim, "Did not apply edit to "); m != nil {
		s.settle(m[1], "not applied (--dry-run)", "")
		return
	}
	if m := matchAfter(aiderTokens, trim, "Tokens: "); m != nil {
		s.addTokens(m[1])
		if c, err := strconv.ParseFloat(m[2], 64); err == nil {
			s.cost = &c
		}
		return
	}
	if m := matchAfter(aiderModel, trim, "M"); m != nil && t.Model == "" {
		t.Model = m[1]
		return
	}
	if s.out >= 0 {
		s.outBuf = append(s.outBuf, text)
	}
}

// matchAfter is re.FindStringSubmatch(s) for a pattern that starts with
// the literal prefix, skipped when s does not start with it.
func matchAfter(re *regexp.Regexp, s, prefix string) []string {
	if !strings.HasPrefix(s, prefix) {
		return nil
	}
	return re.FindStringSubmatch(s)
}

// settle marks every unsettled edit of path as applied (errText "") or
// failed; an applied edit goes into the diff.
func (s *aiderSession) settle(path, errText, output string) {
	for i := range s.edits {
		e := &s.edits[i]
		if e.settled || e.path != path {
			continue
		}
		e.settled = true
		c := &s.t.ToolCalls[e.call]
		if c.Error != "" {
			continue
		}
		if errText != "" {
			c.Error = errText
			continue
		}
		c.Output = output
		writeAiderEdit(&s.diff, e)
	}
}

// settleOne fails the first unsettled edit of path.
func (s *aiderSession) settleOne(path, errText string) {
	for i := range s.edits {
		e := &s.edits[i]
		if !e.settled && e.path == path && s.t.ToolCalls[e.call].Error == "" {
			s.t.ToolCalls[e.call].Error = errText
			e.settled = true
			return
		}
	}
}

// addTokens reads "26,200 sent, 9,474 cached, 680 received" (k and M
// abbreviations included); cached and cache-write tokens count as input.
func (s *aiderSession) addTokens(spec string) {
	for _, part := range strings.Split(spec, ", ") {
		num, what, ok := strings.Cut(strings.TrimSpace(part), " ")
		if !ok {
			continue
		}
		v, ok := aiderCount(num)
		if !ok {
			continue
		}
		switch what {
		case "sent", "cached", "cache write", "cache hit":
			s.tokens.Input += v
		case "received":
			s.tokens.Output += v
		default:
			continue
		}
		s.anyTok = true
	}
}

func aiderCount(s string) (int64, bool) {
	s = strings.ReplaceAll(s, ",", "")
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1e3, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, strings.TrimSuffix(s, "M")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return int64(f*mult + 0.5), true
}

// flushReply makes the model's reply a message and its SEARCH/REPLACE
// blocks edit calls.
func (s *aiderSession) flushReply(d *aiderDecoder) {
	if len(s.reply) == 0 {
		return
	}
	lines := s.reply
	// The lines' array is the next reply's once this one is read: no
	// edit keeps it (search and change are copies).
	defer func() { s.reply = lines[:0] }()
	s.reply = nil
	s.flushOutput()
	t := s.t
	if text := strings.TrimSpace(strings.Join(lines, "\n")); text != "" {
		addMessage(t, "assistant", text)
	}
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "<<<<<<< SEARCH" {
			continue
		}
		path := aiderBlockPath(lines[:i])
		j := i + 1
		var search, change []string
		for ; j < len(lines) && strings.TrimRight(lines[j], " ") != "======="; j++ {
			search = append(search, lines[j])
		}
		k := j + 1
		for ; k < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[k]), ">>>>>>> REPLACE"); k++ {
			change = append(change, lines[k])
		}
		if j >= len(lines) || k >= len(lines) {
			break // a block cut off: not an edit aider could apply
		}
		args := editArgs(path, strings.Join(search, "\n"), strings.Join(change, "\n"))
		s.edits = append(s.edits, aiderEdit{call: len(t.ToolCalls), path: path, search: search, change: change})
		t.ToolCalls = append(t.ToolCalls, triage.ToolCall{Name: "edit", Args: args})
		i = k
	}
}

// aiderBlockPath is the file a SEARCH block edits: the line above it,
// skipping an opening fence.
func aiderBlockPath(before []string) string {
	for i := len(before) - 1; i >= 0 && i >= len(before)-3; i-- {
		l := strings.TrimSpace(before[i])
		if l == "" || strings.HasPrefix(l, "```") {
			continue
		}
		return strings.Trim(l, "`*: ")
	}
	return ""
}

// writeAiderEdit appends one applied SEARCH/REPLACE block as a git-style
// section; an empty SEARCH creates the file.
func writeAiderEdit(w *strings.Builder, e *aiderEdit) {
	path := diffPath(e.path, "")
	if len(e.search) == 0 {
		writeNewFile(w, path, strings.Join(e.change, "\n")+"\n")
		return
	}
	w.WriteString("diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" + path + "\n")
	// Lines the block keeps at its start and end are context.
	pre := 0
	for pre < len(e.search) && pre < len(e.change) && e.search[pre] == e.change[pre] {
		pre++
	}
	suf := 0
	for suf < len(e.search)-pre && suf < len(e.change)-pre && e.search[len(e.search)-1-suf] == e.change[len(e.change)-1-suf] {
		suf++
	}
	w.WriteString("@@ -" + hunkRange(1, len(e.search)) + " +" + hunkRange(min(1, len(e.change)), len(e.change)) + " @@\n")
	for _, l := range e.search[:pre] {
		writeDiffLine(w, ' ', l)
	}
	for _, l := range e.search[pre : len(e.search)-suf] {
		writeDiffLine(w, '-', l)
	}
	for _, l := range e.change[pre : len(e.change)-suf] {
		writeDiffLine(w, '+', l)
	}
	for _, l := range e.search[len(e.search)-suf:] {
		writeDiffLine(w, ' ', l)
	}
}

// writeDiffLine writes one diff line: its mark, l and a newline.
func writeDiffLine(w *strings.Builder, mark byte, l string) {
	w.WriteByte(mark)
	w.WriteString(l)
	w.WriteByte('\n')
}

// editArgs is what json.Marshal writes for map[string]string{"path",
// "search", "replace"} (keys sorted), without the map and the reflection.
func editArgs(path, search, replace string) json.RawMessage {
	b := append(make([]byte, 0, len(path)+len(search)+len(replace)+48), `{"path":`...)
	b = triage.AppendJSONString(b, path)
	b = append(b, `,"replace":`...)
	b = triage.AppendJSONString(b, replace)
	b = append(b, `,"search":`...)
	b = triage.AppendJSONString(b, search)
	return append(b, '}')
}
