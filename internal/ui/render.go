package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui/diffview"
)

// renderDoc draws the visible window of the current pane: only the
// rows on screen are sanitized, highlighted and styled, so a 20,000-line
// diff costs what a screenful does.
func (v *traceView) renderDoc(st *Styles) string {
	d := v.doc()
	if v.width <= 0 || v.height <= 0 {
		return ""
	}
	if d.len() == 0 {
		return st.App.Muted.Render(ansi.Truncate(d.empty, v.width, "…")) + strings.Repeat("\n", v.height-1)
	}
	return strings.Join(v.paneRows(st), "\n")
}

// lineStyle is the base style and fixed prefix of a document line.
func lineStyle(st *Styles, l *docLine, selected bool) (lipgloss.Style, string) {
	c := &st.Content
	var base lipgloss.Style
	prefix := ""
	switch l.kind {
	case lkMuted:
		base = st.App.Muted
	case lkSection:
		base = c.Section
	case lkRole:
		base = c.Role
	case lkTool:
		base = c.ToolName
	case lkFold:
		base = c.Fold
	case lkRepeat:
		base = c.Repeat
	case lkError:
		base = c.Fail
	case lkEvidence:
		prefix = "  "
		if selected {
			prefix = "▸ "
			base = c.Selected
		}
	}
	if selected && l.kind != lkEvidence {
		// A jump target: marked in the text too, for NO_COLOR terminals.
		prefix = "▶ " + prefix
		base = c.Selected
	}
	return base, prefix
}

// lineBytes is how much of a line's raw text is looked at to show
// columns [0, cols): a 10 MB single-line output costs what a screen
// does. Wrapping looks at up to diffview.MaxWrapBytes.
func lineBytes(raw string, cols int, wrap bool) (string, bool) {
	limit := cols*4 + 16
	if wrap {
		limit = diffview.MaxWrapBytes
	}
	if len(raw) <= limit {
		return raw, false
	}
	for limit > 0 && !utf8.RuneStart(raw[limit]) {
		limit--
	}
	return raw[:limit], true
}

// inertSpans is a line's text as spans of inert text: tool output's SGR
// colours become attributes (drawn in our palette), every other escape
// sequence, control and bidi override becomes a visible stand-in, a
// newline shows as "␤" and tabs expand across spans.
func inertSpans(l *docLine, raw string) []diffview.Span {
	spans := []diffview.Span{{Text: raw}}
	if l.sgr {
		spans = diffview.ParseSGR(raw)
	}
	col := 0
	for i := range spans {
		s := triage.Sanitize(spans[i].Text)
		if strings.ContainsAny(s, "\t\n") {
			s = expandTabsAt(strings.ReplaceAll(s, "\n", "␤"), col)
		}
		if len(spans) > 1 {
			col += ansi.StringWidth(s)
		}
		spans[i].Text = s
	}
	return spans
}

func plainOf(spans []diffview.Span) string {
	if len(spans) == 1 {
		return spans[0].Text
	}
	var b strings.Builder
	for _, sp := range spans {
		b.WriteString(sp.Text)
	}
	return b.String()
}

// docLineHeight is the lines a document line takes when wrapped.
func docLineHeight(l *docLine, width int, selected bool) int {
	_, prefix := lineStyle(&Styles{}, l, selected)
	avail := max(1, width-ansi.StringWidth(prefix))
	raw, cut := lineBytes(l.text, 0, true)
	plain := plainOf(inertSpans(l, raw))
	n := 1
	if ansi.StringWidth(plain) > avail {
		ind := hangIndent(plain, avail)
		n = strings.Count(ansi.Wrap(ansi.TruncateLeft(plain, ind, ""), avail-ind, ""), "\n") + 1
	}
	if cut {
		n++
	}
	return n
}

// hangIndent is how far a wrapped line's continuation lines are
// indented: as far as the line's own leading spaces, at most 8 and never
// more than half the width.
func hangIndent(plain string, avail int) int {
	n := len(plain) - len(strings.TrimLeft(plain, " "))
	return min(n, 8, avail/2)
}

// docLineOverflows reports whether a line, scrolled xoff columns
// sideways, goes on past the right edge.
func docLineOverflows(l *docLine, width, xoff int, selected bool) bool {
	_, prefix := lineStyle(&Styles{}, l, selected)
	avail := max(1, width-ansi.StringWidth(prefix))
	raw, cut := lineBytes(l.text, xoff+avail+1, false)
	return cut || ansi.StringWidth(plainOf(inertSpans(l, raw))) > xoff+avail
}

// renderDocLine draws one document line as the screen lines it takes:
// without wrapping one line from column xoff, cut to the width with "…"
// when it goes on (→ reaches the rest); wrapping, as many as it needs.
// Search matches and evidence identifiers are highlighted segment by
// segment over the line's style and the output's own colours.
func renderDocLine(st *Styles, l *docLine, width int, query string, idents []string, selected bool, xoff int, wrap bool) []string {
	base, prefix := lineStyle(st, l, selected)
	pw := ansi.StringWidth(prefix)
	avail := max(0, width-pw)
	lead := prefix
	if prefix != "" {
		lead = st.Content.LineNo.Render(prefix)
	}
	if l.kind == lkEvidence || selected {
		lead = base.Render(prefix)
	}
	raw, cut := lineBytes(l.text, xoff+avail+1, wrap)
	spans := inertSpans(l, raw)
	var b strings.Builder
	hl := st.Content.Highlight.Inherit(base)
	for _, sp := range spans {
		s := base
		if sp.Attr != (diffview.Attr{}) {
			s = st.sgrStyle(base, sp.Attr)
		}
		b.WriteString(highlight(sp.Text, s, st.Content.Match, hl, query, idents))
	}
	text := b.String()
	if wrap {
		lines, ind := []string{text}, 0
		if ansi.StringWidth(text) > avail && avail > 0 {
			// Continuation lines hang under the text, not its indent.
			ind = hangIndent(plainOf(spans), avail)
			lines = strings.Split(ansi.Wrap(ansi.TruncateLeft(text, ind, ""), avail-ind, ""), "\n")
		}
		for i := range lines {
			if i == 0 {
				lines[i] = lead + strings.Repeat(" ", ind) + lines[i]
			} else {
				lines[i] = strings.Repeat(" ", pw+ind) + lines[i]
			}
		}
		if cut {
			lines = append(lines, strings.Repeat(" ", pw)+st.App.Muted.Render("… the line goes on: w, then → reads the rest"))
		}
		return lines
	}
	if xoff > 0 {
		text = ansi.TruncateLeft(text, xoff, "")
	}
	if cut || ansi.StringWidth(text) > avail {
		text = ansi.Truncate(text, max(0, avail-1), "") + st.App.Muted.Render("…")
	}
	return []string{lead + text}
}

// highlight styles text in segments: search matches, then evidence
// identifiers, over the line's base style. Each segment is styled on its
// own so no inner reset drops an outer colour.
func highlight(text string, base, match, ident lipgloss.Style, query string, idents []string) string {
	if query == "" && len(idents) == 0 {
		return base.Render(text)
	}
	marks := make([]byte, len(text))
	mark := func(needle string, fold bool, v byte) {
		if needle == "" {
			return
		}
		hay := text
		if fold {
			hay = strings.ToLower(text)
		}
		for from := 0; ; {
			i := strings.Index(hay[from:], needle)
			if i < 0 {
				return
			}
			for k := from + i; k < from+i+len(needle) && k < len(marks); k++ {
				marks[k] = v
			}
			from += i + len(needle)
		}
	}
	for _, id := range idents {
		mark(id, false, 1)
	}
	mark(query, strings.ToLower(query) == query, 2)
	var b strings.Builder
	start := 0
	for i := 1; i <= len(text); i++ {
		if i < len(text) && marks[i] == marks[start] {
			continue
		}
		seg := text[start:i]
		switch marks[start] {
		case 1:
			b.WriteString(ident.Render(seg))
		case 2:
			b.WriteString(match.Render(seg))
		default:
			b.WriteString(base.Render(seg))
		}
		start = i
	}
	return b.String()
}
