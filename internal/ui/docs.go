package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui/diffview"
)

// lineKind says how a document line is drawn.
type lineKind uint8

const (
	lkText lineKind = iota
	lkMuted
	lkSection
	lkRole
	lkTool
	lkFold
	lkRepeat
	lkError
	lkEvidence
)

// docLine is one line of a tab's document. text is raw trace text: it is
// sanitized only when drawn, and only if visible.
type docLine struct {
	kind lineKind
	text string
	tool int // timeline: tool call index; else -1
	// sgr marks tool output, whose colour sequences are drawn in our
	// palette (diffview.ParseSGR) instead of shown as inert text.
	sgr bool
}

// doc is one tab's content with the anchors navigation needs.
type doc struct {
	lines []docLine
	files []int       // line index of each file header
	hunks []int       // line index of each hunk header
	tools map[int]int // tool call index → line of its header
	calls []int       // line of each tool call group's header, ascending
	// failing are the headers of the calls whose check failed, errored,
	// did not run or timed out (DESIGN §8), ascending: } and { for them.
	failing []int
	// steps is the trace's reading, a step a tool call (nil: not read).
	steps []triage.Step
	evs   []int  // line index of each selectable evidence line
	empty string // shown when lines is empty
	// view, when set, is a diffview renderer that owns the rows (syntax
	// colours, caching); lines is then empty and anchors are its rows.
	view diffview.Doc
	diff *diffview.Diff
}

// len is the number of rows, whoever renders them.
func (d *doc) len() int {
	if d.view != nil {
		return d.view.Len()
	}
	return len(d.lines)
}

// buildDiffView lays out the diff with the diffview renderer: files and
// hunks become anchors, evidence identifiers and files are marked.
func buildDiffView(tr *triage.Trace, st diffview.Style, idents, paths []string, width int) doc {
	d := doc{empty: "No diff recorded."}
	if tr.Diff == nil || *tr.Diff == "" {
		return d
	}
	files := triage.ParseDiff(*tr.Diff)
	if len(files) == 0 {
		d.add(lkMuted, "The diff could not be parsed; raw text follows.")
		d.addBlock(lkText, *tr.Diff, true, -1)
		return d
	}
	dv := diffview.New(files).Style(st).TabWidth(tabWidth).Marks(idents, paths).Width(width)
	d.view, d.diff = dv, dv
	d.files, d.hunks = dv.FileStarts(), dv.HunkStarts()
	return d
}

// buildTestsView shows the scorer's output with the diffview renderer,
// which classes failing and passing lines.
func buildTestsView(tr *triage.Trace, st diffview.Style, idents []string, width int) doc {
	d := doc{empty: "No test output recorded."}
	if tr.TestOutput == nil || *tr.TestOutput == "" {
		return d
	}
	d.view = diffview.NewTestOutput(*tr.TestOutput).Style(st).TabWidth(tabWidth).Marks(idents).Width(width)
	return d
}

func (d *doc) add(k lineKind, text string) {
	d.lines = append(d.lines, docLine{kind: k, text: text, tool: -1})
}

// blockCache keeps the lines of tool calls' unfolded outputs across
// rebuilds of the timeline: folding one call (z) rebuilds the document,
// and splitting a 10 MB output again would cost tens of milliseconds.
type blockCache map[blockKey][]docLine

type blockKey struct {
	tool int
	kind lineKind
}

// minCachedBlock is the fewest lines an unfolded output needs to be
// cached: shorter ones split in no time.
const minCachedBlock = 256

// addCachedBlock is addBlock through the cache, for a tool call's whole
// output.
func (d *doc) addCachedBlock(c blockCache, k lineKind, s string, unfolded bool, tool int) {
	if c == nil || !unfolded || tool < 0 {
		d.addBlock(k, s, unfolded, tool)
		return
	}
	key := blockKey{tool, k}
	if lines, ok := c[key]; ok {
		d.lines = append(d.lines, lines...)
		return
	}
	from := len(d.lines)
	d.addBlock(k, s, unfolded, tool)
	if n := len(d.lines) - from; n >= minCachedBlock {
		// A copy: the document's own array is reused by the next build.
		c[key] = slices.Clone(d.lines[from:])
	}
}

// addBlock adds a multi-line text, folded after foldAt lines unless
// unfolded. It never splits more of a 10 MB output than it shows. A tool
// call's output (tool >= 0) keeps its colours.
func (d *doc) addBlock(k lineKind, s string, unfolded bool, tool int) {
	const foldAt = 8
	s = strings.TrimRight(s, "\n")
	n := 0
	for len(s) > 0 && (unfolded || n < foldAt) {
		line, rest, _ := strings.Cut(s, "\n")
		d.lines = append(d.lines, docLine{kind: k, text: "  " + line, tool: tool, sgr: tool >= 0})
		s, n = rest, n+1
	}
	if len(s) > 0 {
		more := strings.Count(s, "\n") + 1
		hint := "z unfolds this call, Z all"
		if tool < 0 {
			hint = "Z unfolds all"
		}
		d.lines = append(d.lines, docLine{kind: lkFold, text: fmt.Sprintf("  … %d more lines (%s)", more, hint), tool: tool})
	}
}

// allFolded is the fold rule of buildTimeline's callers that fold every
// output.
func allFolded(int) bool { return false }

// buildTimeline lays out the messages, the tool calls (consecutive
// identical calls grouped and marked) and the answer. unfolded says, per
// tool call (-1 for the messages and the answer), whether its output is
// shown whole. cache, when set, keeps unfolded outputs' lines for the
// next build; buf, when big enough, is reused for the lines (a rebuild
// then allocates nothing the size of a 10 MB output).
func buildTimeline(tr *triage.Trace, steps []triage.Step, unfolded func(tool int) bool, cache blockCache, buf ...[]docLine) doc {
	d := doc{tools: map[int]int{}, empty: "No messages, tool calls or answer recorded.", steps: steps}
	// Size the lines once for the cached outputs: growing a 240,000-line
	// document by appends copies it over and over.
	n := 64 + 4*len(tr.ToolCalls)
	for i := range tr.ToolCalls {
		if unfolded(i) {
			n += len(cache[blockKey{i, lkText}]) + len(cache[blockKey{i, lkError}])
		}
	}
	if len(buf) > 0 && cap(buf[0]) >= n {
		d.lines = buf[0][:0]
	} else {
		d.lines = make([]docLine, 0, n)
	}
	if interleaved(tr) {
		d.addRun(tr, unfolded, cache)
	} else {
		d.addMessagesThenCalls(tr, unfolded, cache)
	}
	if tr.Answer != nil {
		d.add(lkSection, "Answer")
		d.addBlock(lkText, *tr.Answer, unfolded(-1), -1)
	}
	return d
}

// interleaved reports whether a trace's messages say where they came
// among its tool calls (triage.Message.At, set by every format on
// import): the timeline can then show the run in the order it happened.
func interleaved(tr *triage.Trace) bool {
	if len(tr.ToolCalls) == 0 {
		return false
	}
	for i := range tr.Messages {
		if tr.Messages[i].At != nil {
			return true
		}
	}
	return false
}

// addRun lays out the messages and tool calls in the order they happened:
// before each call (or group of repeated calls) the messages that came
// before it, then the rest after the last call. A message without a place
// (a row written by hand) keeps the place of the one before it.
func (d *doc) addRun(tr *triage.Trace, unfolded func(tool int) bool, cache blockCache) {
	d.add(lkSection, fmt.Sprintf("Run: %d messages and %d tool calls, in the order they happened", len(tr.Messages), len(tr.ToolCalls)))
	next, place := 0, 0
	upTo := func(call int) {
		for ; next < len(tr.Messages); next++ {
			msg := &tr.Messages[next]
			if msg.At != nil {
				place = max(place, *msg.At)
			}
			if place > call {
				return
			}
			d.addMessage(msg, unfolded)
		}
	}
	for i := 0; i < len(tr.ToolCalls); {
		upTo(i)
		i = d.addCallGroup(tr, i, unfolded, cache)
	}
	upTo(1 << 30)
}

// addMessagesThenCalls is the layout of a trace whose messages have no
// place among the calls: every message, then every call.
func (d *doc) addMessagesThenCalls(tr *triage.Trace, unfolded func(tool int) bool, cache blockCache) {
	if len(tr.Messages) > 0 {
		d.add(lkSection, fmt.Sprintf("Messages (%d)", len(tr.Messages)))
		for i := range tr.Messages {
			d.addMessage(&tr.Messages[i], unfolded)
		}
	}
	switch {
	case len(tr.ToolCalls) > 0:
		d.add(lkSection, fmt.Sprintf("Tool calls (%d)", len(tr.ToolCalls)))
	case !tr.HasToolLog:
		d.add(lkMuted, "No tool log recorded.")
	}
	for i := 0; i < len(tr.ToolCalls); {
		i = d.addCallGroup(tr, i, unfolded, cache)
	}
}

// addMessage is one message: its role, then its text, folded.
func (d *doc) addMessage(msg *triage.Message, unfolded func(tool int) bool) {
	d.add(lkRole, "▌ "+msg.Role)
	d.addBlock(lkText, msg.Content, unfolded(-1), -1)
}

// addCallGroup lays out tool call i and the identical calls that repeat
// it right after (one header, marked), and returns the index of the next
// call. Each call's row is its header (lkTool, tool = its index): the
// place a step's kind and result marks go.
func (d *doc) addCallGroup(tr *triage.Trace, i int, unfolded func(tool int) bool, cache blockCache) int {
	c := &tr.ToolCalls[i]
	j := i + 1
	for j < len(tr.ToolCalls) && sameCall(c, &tr.ToolCalls[j]) {
		j++
	}
	d.tools[i] = len(d.lines)
	d.calls = append(d.calls, len(d.lines))
	hdr := fmt.Sprintf("#%d %s %s", i+1, c.Name, compactArgs(c.Args))
	if i < len(d.steps) {
		// The step's kind and result lead the row, as triage steps prints
		// them: what the call did and how it ended, before its arguments.
		st := &d.steps[i]
		hdr = fmt.Sprintf("#%d %s · %s  %s %s", i+1, st.Kind, st.Result, c.Name, compactArgs(c.Args))
		if failingCheck(st) {
			d.failing = append(d.failing, len(d.lines))
		}
	}
	if c.WallS != nil {
		hdr += fmt.Sprintf("  (%.1fs)", *c.WallS)
	}
	d.lines = append(d.lines, docLine{kind: lkTool, text: hdr, tool: i})
	if j-i > 1 {
		d.lines = append(d.lines, docLine{kind: lkRepeat, text: fmt.Sprintf("  ↻ repeated ×%d with the same arguments (#%d–#%d)", j-i, i+1, j), tool: i})
		for k := i + 1; k < j; k++ {
			d.tools[k] = len(d.lines) - 1
		}
	}
	if c.Error != "" {
		d.addCachedBlock(cache, lkError, "error: "+c.Error, unfolded(i), i)
	}
	if c.Output != "" {
		d.addCachedBlock(cache, lkText, c.Output, unfolded(i), i)
	}
	return j
}

// failingCheck: a check that did not pass (a test or run that failed,
// errored, never ran or was killed), or a build that errored.
func failingCheck(st *triage.Step) bool {
	switch st.Kind {
	case triage.StepTest, triage.StepRun, triage.StepBuild:
		switch st.Result {
		case triage.ResultFailed, triage.ResultError, triage.ResultNotRun, triage.ResultTimeout:
			return true
		}
	}
	return false
}

// sameCall reports whether two calls repeat each other: same tool, same
// arguments as the rules' loop detector sees them, same output.
func sameCall(a, b *triage.ToolCall) bool {
	return a.Name == b.Name && a.Output == b.Output && a.Error == b.Error && triage.SameArgs(a.Args, b.Args)
}

// compactArgs is a call's arguments on one line, as JSON with the HTML
// escapes Go's encoder writes (\u0026, \u003c, \u003e) read back, so a
// command shows "cd /repo && cat <<EOF", not "\u0026\u0026 … \u003c\u003c".
func compactArgs(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return unescapeHTML(b.Bytes())
	}
	return string(raw)
}

// unescapeHTML replaces the \u0026, \u003c and \u003e escapes of JSON
// text with &, < and >; an escaped backslash before a "u" is left alone.
func unescapeHTML(b []byte) string {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) {
			switch string(b[i+2 : i+6]) {
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			case "003c", "003C":
				out, i = append(out, '<'), i+5
				continue
			case "003e", "003E":
				out, i = append(out, '>'), i+5
				continue
			}
		}
		// Any other escape is copied whole, so "\\u0026" stays text.
		out = append(out, b[i], b[i+1])
		i++
	}
	return string(out)
}

// buildRaw pretty-prints the stored row; text that is not JSON is shown
// as it is (inert).
func buildRaw(tr *triage.Trace) doc {
	d := doc{empty: "No raw row stored."}
	raw := tr.Raw
	if len(raw) == 0 {
		raw, _ = json.Marshal(tr)
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") == nil {
		raw = b.Bytes()
	}
	for _, l := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		d.add(lkText, l)
	}
	return d
}

// buildEvidence shows the verdict and each evidence item (selectable),
// the task's frame and other reviewers' labels. In blind mode the verdict
// and others are nil and only the task is shown.
func buildEvidence(v *triage.Verdict, tctx TraceContext, others []triage.LabelEvent, blind bool) doc {
	d := doc{}
	switch {
	case blind:
		d.add(lkMuted, "Blind review: the rules' verdict and other reviewers' labels are hidden.")
	case v == nil:
		d.add(lkMuted, "The rules have not labelled this trace.")
	default:
		d.add(lkSection, "Verdict")
		line := fmt.Sprintf("%s (%s)", v.Primary, v.Decision)
		if v.Reason != "" {
			line += " — " + v.Reason
		}
		d.add(lkText, line)
		if len(v.Secondary) > 0 {
			d.add(lkText, "tags: "+strings.Join(v.Secondary, ", "))
		}
		if len(v.Fired) > 0 {
			d.add(lkText, "fired: "+strings.Join(v.Fired, ", "))
		}
		if len(v.Evidence) > 0 {
			d.add(lkSection, fmt.Sprintf("Evidence (%d) — enter jumps", len(v.Evidence)))
		}
		for _, e := range v.Evidence {
			d.evs = append(d.evs, len(d.lines))
			d.lines = append(d.lines, docLine{kind: lkEvidence, text: evidenceText(e), tool: -1})
		}
		if len(v.Unevaluated) > 0 {
			d.add(lkSection, "Not evaluated")
			for _, e := range v.Unevaluated {
				d.add(lkMuted, evidenceText(e))
			}
		}
	}
	if t := tctx.Task; t != nil {
		d.add(lkSection, "Task "+t.ID)
		for _, f := range []struct {
			name string
			v    []string
		}{{"spec", t.Spec}, {"allowlist", t.Allowlist}, {"withheld", t.Withheld}, {"hidden tests", t.HiddenTests}, {"ask tools", t.AskTools}} {
			if len(f.v) > 0 {
				d.add(lkText, f.name+": "+strings.Join(f.v, ", "))
			}
		}
	}
	if !blind && len(others) > 0 {
		d.add(lkSection, "Other labels")
		for _, e := range others {
			line := fmt.Sprintf("%s %s: %s", e.CreatedAt.Format("2006-01-02 15:04"), e.Actor, e.Primary)
			if len(e.Secondary) > 0 {
				line += " [" + strings.Join(e.Secondary, ", ") + "]"
			}
			if e.Note != "" {
				line += " — " + e.Note
			}
			d.add(lkText, line)
		}
	}
	return d
}

func evidenceText(e triage.Evidence) string {
	s := fmt.Sprintf("[%s] %s", e.Rule, e.Message)
	if e.ToolCall >= 0 {
		s += fmt.Sprintf("  → tool call #%d", e.ToolCall+1)
	}
	if e.File != "" {
		s += "  → " + e.File
		if e.Line > 0 {
			s += fmt.Sprintf(":%d", e.Line)
		}
	}
	return s
}
