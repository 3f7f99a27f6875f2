package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// pickerAction is what a key in a picker decided; the root performs it.
type pickerAction int

const (
	pickNone pickerAction = iota
	pickCancel
	pickChoose
)

// picker chooses one class (single) or a set of tags (multi) for a trace.
type picker struct {
	title   string
	items   []string
	descs   []string
	multi   bool
	checked []bool
	cursor  int
	offset  int
	traceID int64
	// number is the class number typed so far, in a picker of more
	// classes than there are digit keys.
	number int
	// empty is what the picker says with no items ("" for the tags
	// picker's word).
	empty string
}

func newPicker(title string, items, descs []string, multi bool, checked []string, traceID int64) picker {
	p := picker{title: title, items: items, descs: descs, multi: multi, checked: make([]bool, len(items)), traceID: traceID}
	for i, it := range items {
		for _, c := range checked {
			if c == it {
				p.checked[i] = true
				if !multi {
					p.cursor = i
				}
			}
		}
	}
	return p
}

// handle applies one key and returns the decision.
func (p *picker) handle(msg tea.KeyMsg, km *KeyMap) pickerAction {
	if !key.Matches(msg, km.Digits) {
		p.number = 0
	}
	switch {
	case key.Matches(msg, km.Back):
		return pickCancel
	case key.Matches(msg, km.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(msg, km.Down):
		p.cursor = min(len(p.items)-1, p.cursor+1)
	case key.Matches(msg, km.Top):
		p.cursor = 0
	case key.Matches(msg, km.Bottom):
		p.cursor = len(p.items) - 1
	case p.multi && key.Matches(msg, km.Toggle):
		if p.cursor < len(p.checked) {
			p.checked[p.cursor] = !p.checked[p.cursor]
		}
	case key.Matches(msg, km.Confirm):
		return pickChoose
	}
	return pickNone
}

// typeDigit adds a typed digit to the class number and puts the cursor
// on that class. It reports whether the number is complete: no class
// number starts with it and one more digit (with 12 classes, "3" is
// complete at once and "1" waits for "2" or enter).
func (p *picker) typeDigit(d int) bool {
	n := p.number*10 + d
	if n == 0 || n > len(p.items) {
		// Not a class number: start over from this digit.
		p.number = 0
		if d == 0 || d > len(p.items) {
			return false
		}
		n = d
	}
	p.number = n
	p.cursor = n - 1
	if n*10 > len(p.items) {
		p.number = 0
		return true
	}
	return false
}

// chosen is the class under the cursor (single) or the checked tags.
func (p *picker) chosen() []string {
	if !p.multi {
		if p.cursor < len(p.items) {
			return []string{p.items[p.cursor]}
		}
		return nil
	}
	out := []string{}
	for i, c := range p.checked {
		if c {
			out = append(out, p.items[i])
		}
	}
	return out
}

// view draws the picker's rows in a window of height lines.
func (p *picker) view(st *Styles, width, height int) string {
	if height <= 0 {
		return ""
	}
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+height {
		p.offset = p.cursor - height + 1
	}
	var rows []string
	if len(p.items) == 0 {
		empty := p.empty
		if empty == "" {
			empty = "The taxonomy defines no tags."
		}
		rows = append(rows, st.App.Muted.Render(ansi.Truncate(sanitizeLine(empty), width, "…")))
	}
	for i := p.offset; i < min(len(p.items), p.offset+height); i++ {
		mark := "  "
		if i == p.cursor {
			mark = "▸ "
		}
		box := ""
		if p.multi {
			box = "[ ] "
			if p.checked[i] {
				box = "[x] "
			}
		}
		num := ""
		if !p.multi {
			num = fmt.Sprintf("%2d ", i+1)
		}
		text := num + box + sanitizeLine(p.items[i])
		if i < len(p.descs) && p.descs[i] != "" {
			text += "  " + sanitizeLine(p.descs[i])
		}
		text = ansi.Truncate(mark+text, width, "…")
		switch {
		case i == p.cursor:
			text = st.Picker.Cursor.Render(text)
		case p.multi && p.checked[i]:
			text = st.Picker.Checked.Render(text)
		}
		rows = append(rows, text)
	}
	return strings.Join(rows, "\n")
}
