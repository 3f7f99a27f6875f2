package diffview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// DefaultFold is how many lines of a message, output or error show before
// the rest is folded away.
const DefaultFold = 10

// Timeline renders a trace's messages and tool calls: each call with its
// number, name, timing, arguments (one row per top-level key, values as
// compact JSON), output and error. Long texts are folded to K lines with a
// "… N more lines (enter to expand)" row; a run of identical calls (same
// name and arguments) is drawn once with "×N identical calls".
//
// A trace does not record how messages and calls interleave, so the order
// is: the messages before the first assistant message (system prompt,
// task), then the tool calls, then the remaining messages (the answer).
type Timeline struct {
	base
	msgs     []triage.Message
	calls    []triage.ToolCall
	fold     int
	expCalls map[int]bool
	expMsgs  map[int]bool
	group    bool

	texts, outs, errs []*block
	args              [][]string
	runLen            []int // for the first call of a run, its length
	runOf             []int // the first call of the run holding each call
	rows              []Row
	callRow, msgRow   []int
}

var _ Doc = (*Timeline)(nil)

// NewTimeline lays out messages and calls. Outputs are not split or
// measured here: only their lines are counted. Defaults: DefaultStyle,
// fold at DefaultFold lines, nothing expanded, repeats grouped, width 0.
func NewTimeline(msgs []triage.Message, calls []triage.ToolCall) *Timeline {
	t := &Timeline{base: newBase(), msgs: msgs, calls: calls, fold: DefaultFold, group: true}
	t.texts = make([]*block, len(msgs))
	for i, m := range msgs {
		t.texts[i] = newBlock(m.Content)
	}
	t.outs = make([]*block, len(calls))
	t.errs = make([]*block, len(calls))
	t.args = make([][]string, len(calls))
	for i, c := range calls {
		t.outs[i] = newBlock(c.Output)
		t.errs[i] = newBlock(c.Error)
		t.args[i] = argRows(c.Args)
	}
	t.layout()
	return t
}

// Width sets the width in cells; see SetWidth.
func (t *Timeline) Width(w int) *Timeline { t.SetWidth(w); return t }

// SetWidth sets the width in cells. Rows are truncated, never wrapped.
func (t *Timeline) SetWidth(w int) { t.width = max(0, w) }

// Style sets the style.
func (t *Timeline) Style(st Style) *Timeline { t.setStyle(st); return t }

// TabWidth sets the tab stop distance (1 to 16 columns).
func (t *Timeline) TabWidth(n int) *Timeline { t.setTabWidth(n); return t }

// Fold sets K, the lines shown of a long text before folding; 0 never
// folds.
func (t *Timeline) Fold(k int) *Timeline {
	t.fold = max(0, k)
	t.layout()
	return t
}

// Expanded sets which tool calls (by index) show their whole output and
// error. The map is copied.
func (t *Timeline) Expanded(calls map[int]bool) *Timeline {
	t.expCalls = copySet(calls)
	t.layout()
	return t
}

// ExpandedMessages sets which messages (by index) show in full.
func (t *Timeline) ExpandedMessages(msgs map[int]bool) *Timeline {
	t.expMsgs = copySet(msgs)
	t.layout()
	return t
}

// GroupRepeats turns grouping of identical consecutive calls on or off.
func (t *Timeline) GroupRepeats(on bool) *Timeline {
	t.group = on
	t.layout()
	return t
}

// Marks sets identifiers to draw in the Warn style; rows holding one get a
// "!" in the first column.
func (t *Timeline) Marks(idents []string) *Timeline { t.setIdents(idents); return t }

// Query highlights search hits; see SetQuery.
func (t *Timeline) Query(q string) *Timeline { t.SetQuery(q); return t }

// SetQuery highlights the case-insensitive hits of q in drawn rows.
func (t *Timeline) SetQuery(q string) { t.setQuery(q) }

// Len is the number of rows.
func (t *Timeline) Len() int { return len(t.rows) }

// At returns row i, or a zero Row when i is out of range. Enter on a row
// with Call ≥ 0 would toggle that call in the Expanded set.
func (t *Timeline) At(i int) Row {
	if i < 0 || i >= len(t.rows) {
		return Row{}
	}
	return t.rows[i]
}

// RowForCall returns the header row of call i (of its run, when grouped),
// or -1 when i is out of range.
func (t *Timeline) RowForCall(i int) int {
	if i < 0 || i >= len(t.callRow) {
		return -1
	}
	return t.callRow[i]
}

// RowForMessage returns the header row of message i, or -1.
func (t *Timeline) RowForMessage(i int) int {
	if i < 0 || i >= len(t.msgRow) {
		return -1
	}
	return t.msgRow[i]
}

// CallStarts returns the header rows of the drawn calls, ascending.
func (t *Timeline) CallStarts() []int {
	var s []int
	for i, r := range t.rows {
		if r.Kind == RowCall {
			s = append(s, i)
		}
	}
	return s
}

func copySet(m map[int]bool) map[int]bool {
	out := make(map[int]bool, len(m))
	for k, v := range m {
		if v {
			out[k] = true
		}
	}
	return out
}

// argRows renders a call's arguments: "key: value" per top-level key of
// an object, in the agent's order, with values as compact JSON; anything
// else as one row. Invalid JSON is shown as it is.
func argRows(raw json.RawMessage) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return nil
	}
	compact := func(v []byte) string {
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err != nil {
			return string(v)
		}
		return buf.String()
	}
	if raw[0] != '{' {
		return []string{"args: " + compact(raw)}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return []string{"args: " + string(raw)}
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		key, ok := k.(string)
		if err != nil || !ok {
			return []string{"args: " + string(raw)}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return []string{"args: " + string(raw)}
		}
		out = append(out, key+": "+compact(v))
	}
	return out
}

// sameCall reports whether calls a and b are identical for grouping.
func (t *Timeline) sameCall(a, b int) bool {
	ca, cb := &t.calls[a], &t.calls[b]
	if ca.Name != cb.Name {
		return false
	}
	if ca.ArgsKey != "" || cb.ArgsKey != "" {
		return ca.ArgsKey == cb.ArgsKey
	}
	return strings.Join(t.args[a], "\x00") == strings.Join(t.args[b], "\x00")
}

func (t *Timeline) layout() {
	t.rows = t.rows[:0]
	clear(t.cache)
	t.callRow = make([]int, len(t.calls))
	t.msgRow = make([]int, len(t.msgs))
	t.runLen = make([]int, len(t.calls))
	t.runOf = make([]int, len(t.calls))
	for i := 0; i < len(t.calls); {
		j := i + 1
		for t.group && j < len(t.calls) && t.sameCall(i, j) {
			j++
		}
		t.runLen[i] = j - i
		for k := i; k < j; k++ {
			t.runOf[k] = i
		}
		i = j
	}
	firstAssistant := len(t.msgs)
	for i, m := range t.msgs {
		if strings.EqualFold(m.Role, "assistant") {
			firstAssistant = i
			break
		}
	}
	for i := 0; i < firstAssistant; i++ {
		t.addMessage(i)
	}
	for i := range t.calls {
		if t.runOf[i] != i {
			t.callRow[i] = t.callRow[t.runOf[i]]
			continue
		}
		t.addCall(i)
	}
	for i := firstAssistant; i < len(t.msgs); i++ {
		t.addMessage(i)
	}
}

func (t *Timeline) add(r Row) { t.rows = append(t.rows, r) }

func (t *Timeline) addMessage(i int) {
	t.msgRow[i] = len(t.rows)
	t.add(Row{Kind: RowMessage, File: -1, Hunk: -1, Line: -1, Call: -1, Message: i})
	t.addBlock(RowText, t.texts[i], t.expMsgs[i], -1, i)
}

func (t *Timeline) addCall(i int) {
	t.callRow[i] = len(t.rows)
	t.add(Row{Kind: RowCall, File: -1, Hunk: -1, Line: -1, Call: i, Message: -1})
	for a := range t.args[i] {
		t.add(Row{Kind: RowArg, File: -1, Hunk: -1, Line: a, Call: i, Message: -1})
	}
	exp := false
	for k := i; k < i+t.runLen[i]; k++ {
		exp = exp || t.expCalls[k]
	}
	t.addBlock(RowOutput, t.outs[i], exp, i, -1)
	t.addBlock(RowError, t.errs[i], exp, i, -1)
}

// addBlock adds a text's rows, folded after t.fold lines unless expanded.
func (t *Timeline) addBlock(kind RowKind, b *block, expanded bool, call, msg int) {
	n := b.count()
	shown := n
	if !expanded && t.fold > 0 && n > t.fold {
		shown = t.fold
	}
	for l := 0; l < shown; l++ {
		t.add(Row{Kind: kind, File: -1, Hunk: -1, Line: l, Call: call, Message: msg})
	}
	if shown < n {
		t.add(Row{Kind: RowFold, File: -1, Hunk: -1, Line: shown, Call: call, Message: msg, Of: kind})
	}
}

func (t *Timeline) blockOf(r Row) *block {
	kind := r.Kind
	if kind == RowFold {
		kind = r.Of
	}
	switch kind {
	case RowText:
		return t.texts[r.Message]
	case RowOutput:
		return t.outs[r.Call]
	case RowError:
		return t.errs[r.Call]
	}
	return nil
}

// rowText is what Search matches: the stored text of the row, and for a
// fold row all the text folded under it, so a hit in hidden output lands
// on the fold that hides it.
func (t *Timeline) rowText(r Row) string {
	switch r.Kind {
	case RowMessage:
		return t.msgs[r.Message].Role
	case RowCall:
		return t.calls[r.Call].Name
	case RowArg:
		return t.args[r.Call][r.Line]
	case RowFold:
		return t.blockOf(r).from(r.Line)
	}
	return t.blockOf(r).line(r.Line)
}

// Search returns the rows whose text contains query, ignoring case.
// Folded text is searched too and reported at its fold row.
func (t *Timeline) Search(query string) []int {
	if query == "" {
		return nil
	}
	var hits []int
	for i, r := range t.rows {
		if containsFold(t.rowText(r), query) {
			hits = append(hits, i)
		}
	}
	return hits
}

// Lines draws rows [from, from+n), each exactly the width in cells.
func (t *Timeline) Lines(from, n int) []string {
	return t.lines(from, n, len(t.rows), t.hashRow, t.draw)
}

// RenderRange draws rows [from, from+n) joined with newlines.
func (t *Timeline) RenderRange(from, n int) string { return strings.Join(t.Lines(from, n), "\n") }

func (t *Timeline) hashRow(h *maphash.Hash, i int) {
	// Inputs never change during a Timeline's life, so a row's identity
	// (kind and indices) determines its content; only a fold row's hidden
	// count and a call header's run length vary with the options.
	r := t.rows[i]
	extra := 0
	switch r.Kind {
	case RowFold:
		extra = t.blockOf(r).count()
	case RowCall:
		extra = t.runLen[r.Call]
	}
	fmt.Fprintf(h, "%d/%d/%d/%d/%d/%d", r.Kind, r.Call, r.Message, r.Line, r.Of, extra)
}

func (t *Timeline) draw(i int) string {
	r := t.rows[i]
	switch r.Kind {
	case RowMessage:
		return t.segments(t.st.Context, seg{" " + t.msgs[r.Message].Role, t.st.Role},
			seg{fmt.Sprintf("  %d %s", t.texts[r.Message].count(), plural(t.texts[r.Message].count(), "line")), t.st.Muted})
	case RowCall:
		return t.drawCall(r.Call)
	case RowFold:
		hidden := t.blockOf(r).count() - r.Line
		return t.segments(t.st.Context, seg{fmt.Sprintf("    … %d more %s (enter to expand)", hidden, plural(hidden, "line")), t.st.Muted})
	}
	text := t.rowText(r)
	st := t.st.Context
	switch r.Kind {
	case RowArg:
		st = t.st.Muted
	case RowError:
		st = t.st.Error
		if r.Line == 0 {
			text = "error: " + text
		}
	}
	mark := " "
	if t.hasIdent(triage.Sanitize(text)) {
		mark = "!"
	}
	gutter := "   "
	if r.Kind == RowOutput || r.Kind == RowError {
		gutter = " │ "
	}
	// Every content row starts with a 4-cell prefix: the mark column,
	// then indentation or the output rule.
	pre := overlayStyle(t.st.Warn, t.st.Context).Render(mark) + t.st.Muted.Render(gutter)
	avail := t.width - 4
	if avail < 1 {
		return t.segments(t.st.Context, seg{mark + gutter, t.st.Muted})
	}
	fitted, cut := t.fit(text, avail)
	return pre + t.paint(fitted, cut, avail, st, -1, "")
}

func (t *Timeline) drawCall(i int) string {
	c := &t.calls[i]
	segs := []seg{{fmt.Sprintf(" #%d %s", i+1, c.Name), t.st.Call}}
	if c.WallS != nil {
		segs = append(segs, seg{"  " + strconv.FormatFloat(*c.WallS, 'f', 2, 64) + "s", t.st.Muted})
	}
	if n := t.runLen[i]; n > 1 {
		segs = append(segs, seg{fmt.Sprintf("  ×%d identical calls (#%d–#%d)", n, i+1, i+n), t.st.Warn})
	}
	if c.Error != "" {
		segs = append(segs, seg{"  error", t.st.Error})
	}
	if c.TS != "" {
		segs = append(segs, seg{"  " + c.TS, t.st.Muted})
	}
	return t.segments(t.st.Context, segs...)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
