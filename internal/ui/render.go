package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// renderDoc draws the visible window of a document: only height lines
// from offset are sanitized, highlighted and styled, so a 20,000-line diff
// costs what a screenful does.
func renderDoc(st *Styles, d *doc, offset, width, height int, query string, idents []string, sel int) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	var b strings.Builder
	if d.view != nil && d.view.Len() > 0 {
		rows := d.view.Lines(offset, height)
		for i, r := range rows {
			if i > 0 {
				b.WriteByte('\n')
			}
			if offset+i == sel {
				// A jump target: a marker over the first cells.
				r = st.Content.Selected.Render("▶ ") + ansi.Cut(r, 2, width)
			}
			b.WriteString(r)
		}
		b.WriteString(strings.Repeat("\n", max(0, height-len(rows))))
		return b.String()
	}
	if d.len() == 0 {
		b.WriteString(st.App.Muted.Render(ansi.Truncate(d.empty, width, "…")))
		b.WriteString(strings.Repeat("\n", height-1))
		return b.String()
	}
	end := min(len(d.lines), offset+height)
	for i := offset; i < end; i++ {
		if i > offset {
			b.WriteByte('\n')
		}
		b.WriteString(renderDocLine(st, &d.lines[i], width, query, idents, i == sel))
	}
	b.WriteString(strings.Repeat("\n", height-(end-offset)))
	return b.String()
}

// renderDocLine draws one line: the sanitized text cut to the width, with
// search matches and evidence identifiers highlighted segment by segment.
func renderDocLine(st *Styles, l *docLine, width int, query string, idents []string, selected bool) string {
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
	avail := max(0, width-ansi.StringWidth(prefix))
	text := ansi.Truncate(sanitizeLine(l.text), avail, "…")
	out := st.Content.LineNo.Render(prefix)
	if l.kind == lkEvidence || selected {
		out = base.Render(prefix)
	}
	return out + highlight(text, base, c.Match, c.Highlight.Inherit(base), query, idents)
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
