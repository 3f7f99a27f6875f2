package ui

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
	"github.com/charmbracelet/bubbles/key"
)

// KeyMap holds every binding of the app, grouped by where it fires. It is
// data, not code, so a config file can rebind any key (see LoadKeyMap).
type KeyMap struct {
	// Global bindings fire on every screen (when no text input has focus).
	Quit key.Binding
	Help key.Binding
	Back key.Binding
	// Mouse turns mouse capture on and off: on, a click picks a row or a
	// tab and the wheel scrolls; off, the terminal selects text.
	Mouse key.Binding
	// Switch opens the : switcher of screens, runs and slices (k9s).
	Switch key.Binding
	// Refresh reads the queue again, everyone's labels with it (another
	// reviewer on a shared store), keeping the cursor and the filter.
	Refresh key.Binding

	// Movement, shared by the queue and the trace view.
	Up       key.Binding
	Down     key.Binding
	Top      key.Binding
	Bottom   key.Binding
	HalfDown key.Binding
	HalfUp   key.Binding

	// Queue.
	Open   key.Binding
	Filter key.Binding
	Sort   key.Binding

	// Trace view.
	NextTrace key.Binding
	PrevTrace key.Binding
	NextTab   key.Binding
	PrevTab   key.Binding
	Search    key.Binding
	NextMatch key.Binding
	PrevMatch key.Binding
	NextFile  key.Binding
	PrevFile  key.Binding
	NextHunk  key.Binding
	PrevHunk  key.Binding
	Files     key.Binding
	NextCall  key.Binding
	PrevCall  key.Binding
	// NextFail and PrevFail go to the next or previous check that did not
	// pass: a test or run that failed, errored, never ran or timed out.
	NextFail key.Binding
	PrevFail key.Binding
	Fold     key.Binding
	FoldAll  key.Binding
	Jump     key.Binding
	// Wrap wraps long lines in every pane; without it Left and Right
	// scroll sideways.
	Wrap  key.Binding
	Left  key.Binding
	Right key.Binding

	// Labelling, in the queue and the trace view. Label[i] sets the
	// taxonomy's class i (0-based) as the primary. A taxonomy of more
	// than nine classes reaches the rest with MoreClasses, which opens
	// the class picker at class 10; there Digits type a class number
	// ("1" "2" is class 12).
	Label       [9]key.Binding
	MoreClasses key.Binding
	Digits      key.Binding
	Picker      key.Binding
	Tags        key.Binding
	Note        key.Binding
	Skip        key.Binding
	Undo        key.Binding
	Redo        key.Binding

	// Bulk decisions in the queue: mark one, mark a range, mark all shown,
	// and accept the rules' suggestion (for the marked, or the open trace).
	Mark    key.Binding
	Range   key.Binding
	MarkAll key.Binding
	Accept  key.Binding

	// Review by cluster: open the clusters screen, label a whole cluster
	// (the cursor's, or the open trace's), split the marked members off
	// the open cluster.
	Clusters     key.Binding
	LabelCluster key.Binding
	Split        key.Binding

	// Adjudication.
	Agreement key.Binding
	ShowAll   key.Binding

	// Pickers and forms. SwitchDown and SwitchUp move in the switcher's
	// list while its line takes every printable key.
	SwitchDown key.Binding
	SwitchUp   key.Binding
	Toggle     key.Binding
	Confirm    key.Binding
	Save       key.Binding
}

// DefaultKeyMap returns the bindings people expect from lazygit, k9s and
// less: vi movement, H/L for the previous and next trace, digits to label.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, k, h string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, h))
	}
	km := KeyMap{
		Quit:         b([]string{"q", "ctrl+c"}, "q", "quit"),
		Help:         b([]string{"?"}, "?", "help"),
		Back:         b([]string{"esc"}, "esc", "back"),
		Mouse:        b([]string{"M"}, "M", "mouse on/off"),
		Switch:       b([]string{":"}, ":", "switch view"),
		Refresh:      b([]string{"ctrl+r"}, "ctrl+r", "read the queue again"),
		SwitchDown:   b([]string{"down", "tab", "ctrl+n"}, "↓/tab", "next entry"),
		SwitchUp:     b([]string{"up", "shift+tab", "ctrl+p"}, "↑/shift+tab", "prev entry"),
		Up:           b([]string{"k", "up"}, "k/↑", "up"),
		Down:         b([]string{"j", "down"}, "j/↓", "down"),
		Top:          b([]string{"g", "home"}, "g", "top"),
		Bottom:       b([]string{"G", "end"}, "G", "bottom"),
		HalfDown:     b([]string{"ctrl+d", "pgdown"}, "ctrl+d", "half page down"),
		HalfUp:       b([]string{"ctrl+u", "pgup"}, "ctrl+u", "half page up"),
		Open:         b([]string{"enter"}, "enter", "open trace"),
		Filter:       b([]string{"/"}, "/", "filter"),
		Sort:         b([]string{"o"}, "o", "sort"),
		NextTrace:    b([]string{"L", "l"}, "L/l", "next trace"),
		PrevTrace:    b([]string{"H", "h"}, "H/h", "prev trace"),
		NextTab:      b([]string{"tab"}, "tab", "next pane"),
		PrevTab:      b([]string{"shift+tab"}, "shift+tab", "prev pane"),
		Search:       b([]string{"/"}, "/", "search"),
		NextMatch:    b([]string{"n"}, "n", "next match"),
		PrevMatch:    b([]string{"N"}, "N", "prev match"),
		NextFile:     b([]string{"}"}, "}", "next file"),
		PrevFile:     b([]string{"{"}, "{", "prev file"),
		NextHunk:     b([]string{"]"}, "]", "next hunk"),
		PrevHunk:     b([]string{"["}, "[", "prev hunk"),
		Files:        b([]string{"F"}, "F", "file list"),
		NextCall:     b([]string{"]"}, "]", "next tool call"),
		PrevCall:     b([]string{"["}, "[", "prev tool call"),
		NextFail:     b([]string{"}"}, "}", "next failing check"),
		PrevFail:     b([]string{"{"}, "{", "prev failing check"),
		Fold:         b([]string{"z"}, "z", "fold/unfold this call"),
		FoldAll:      b([]string{"Z"}, "Z", "fold/unfold all"),
		Jump:         b([]string{"enter"}, "enter", "jump to evidence"),
		Wrap:         b([]string{"w"}, "w", "wrap lines"),
		Left:         b([]string{"left"}, "←", "scroll left"),
		Right:        b([]string{"right"}, "→", "scroll right"),
		Picker:       b([]string{"p"}, "p", "pick class"),
		MoreClasses:  b([]string{"0"}, "0", "classes 10 and up"),
		Digits:       b([]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, "0-9", "type a class number"),
		Tags:         b([]string{"t"}, "t", "tags"),
		Note:         b([]string{"c"}, "c", "note"),
		Skip:         b([]string{"s"}, "s", "skip"),
		Undo:         b([]string{"u"}, "u", "undo"),
		Redo:         b([]string{"U"}, "U", "redo"),
		Mark:         b([]string{" "}, "space", "mark"),
		Range:        b([]string{"v"}, "v", "mark a range"),
		MarkAll:      b([]string{"ctrl+a"}, "ctrl+a", "mark all shown"),
		Accept:       b([]string{"a"}, "a", "accept rules' suggestion"),
		Clusters:     b([]string{"C"}, "C", "clusters"),
		LabelCluster: b([]string{"K"}, "K", "label the whole cluster"),
		Split:        b([]string{"X"}, "X", "split the marked off the cluster"),
		Agreement:    b([]string{"A"}, "A", "agreement"),
		ShowAll:      b([]string{"a"}, "a", "all doubly-labelled"),
		Toggle:       b([]string{" ", "x"}, "space", "toggle"),
		Confirm:      b([]string{"enter"}, "enter", "confirm"),
		Save:         b([]string{"ctrl+s"}, "ctrl+s", "save"),
	}
	for i := range km.Label {
		d := fmt.Sprint(i + 1)
		km.Label[i] = b([]string{d}, d, "label")
	}
	return km
}

// bindings names every binding for config files. The names are part of
// the config contract: keep them stable.
func (km *KeyMap) bindings() map[string]*key.Binding {
	m := map[string]*key.Binding{
		"quit": &km.Quit, "help": &km.Help, "back": &km.Back, "mouse": &km.Mouse, "switch": &km.Switch, "refresh": &km.Refresh,
		"switch_down": &km.SwitchDown, "switch_up": &km.SwitchUp,
		"up": &km.Up, "down": &km.Down, "top": &km.Top, "bottom": &km.Bottom,
		"half_page_down": &km.HalfDown, "half_page_up": &km.HalfUp,
		"open": &km.Open, "filter": &km.Filter, "sort": &km.Sort,
		"next_trace": &km.NextTrace, "prev_trace": &km.PrevTrace,
		"next_pane": &km.NextTab, "prev_pane": &km.PrevTab,
		"search": &km.Search, "next_match": &km.NextMatch, "prev_match": &km.PrevMatch,
		"next_file": &km.NextFile, "prev_file": &km.PrevFile,
		"next_hunk": &km.NextHunk, "prev_hunk": &km.PrevHunk,
		"files": &km.Files, "next_call": &km.NextCall, "prev_call": &km.PrevCall, "next_failing": &km.NextFail, "prev_failing": &km.PrevFail,
		"fold": &km.Fold, "fold_all": &km.FoldAll, "jump": &km.Jump,
		"wrap": &km.Wrap, "scroll_left": &km.Left, "scroll_right": &km.Right,
		"picker": &km.Picker, "more_classes": &km.MoreClasses, "class_number": &km.Digits, "tags": &km.Tags, "note": &km.Note,
		"skip": &km.Skip, "undo": &km.Undo, "redo": &km.Redo,
		"mark": &km.Mark, "range": &km.Range, "mark_all": &km.MarkAll, "accept": &km.Accept,
		"clusters": &km.Clusters, "label_cluster": &km.LabelCluster, "split": &km.Split,
		"agreement": &km.Agreement, "toggle_all": &km.ShowAll,
		"toggle": &km.Toggle, "confirm": &km.Confirm, "save": &km.Save,
	}
	for i := range km.Label {
		m[fmt.Sprintf("label_%d", i+1)] = &km.Label[i]
	}
	return m
}

// LoadKeyMap reads key overrides from a TOML config file's [keys] table,
// e.g. `next_trace = ["L", "l"]`, on top of DefaultKeyMap. An unknown
// name or an empty key list is an error, so a typo never silently leaves
// a default in place.
func LoadKeyMap(data []byte) (KeyMap, error) {
	var cfg struct {
		Keys map[string][]string `toml:"keys"`
	}
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		return DefaultKeyMap(), fmt.Errorf("key config: %w", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return DefaultKeyMap(), fmt.Errorf("key config: unknown key %q (bindings go in a [keys] table)", und[0].String())
	}
	return KeyMapFrom(cfg.Keys)
}

// KeyMapFrom is DefaultKeyMap with the bindings of a config's [keys]
// table (binding name → keys) replaced, checked as LoadKeyMap checks a
// file: unknown names, empty lists, control characters and conflicts
// are errors.
func KeyMapFrom(table map[string][]string) (KeyMap, error) {
	km := DefaultKeyMap()
	named := km.bindings()
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		keys := table[n]
		b, ok := named[n]
		if !ok {
			valid := make([]string, 0, len(named))
			for v := range named {
				valid = append(valid, v)
			}
			slices.Sort(valid)
			return km, fmt.Errorf("key config: unknown binding %q (valid: %s)", n, strings.Join(valid, ", "))
		}
		keys = slices.DeleteFunc(slices.Clone(keys), func(s string) bool { return s == "" })
		if len(keys) == 0 {
			return km, fmt.Errorf("key config: binding %q has no keys", n)
		}
		for _, k := range keys {
			// Key names are words like "ctrl+c" or a printable character;
			// a control character could not be typed, and would reach the
			// terminal raw from the help line.
			if strings.IndexFunc(k, isControlRune) >= 0 {
				return km, fmt.Errorf("key config: [keys] %s: %q is not a key name: it holds a control character", n, k)
			}
		}
		b.SetKeys(keys...)
		b.SetHelp(displayKeys(keys), b.Help().Desc)
	}
	if err := checkConflicts(named, names); err != nil {
		return km, err
	}
	return km, nil
}

// bindingGroup sorts bindings by where they fire. Pickers and forms get
// keys before any screen does, and the adjudication-only bindings have
// their own screen, so bindings of different groups may share a key;
// conflicts are only looked for inside a group.
func bindingGroup(name string) int {
	switch name {
	case "toggle", "confirm", "save", "class_number", "switch_down", "switch_up":
		return 1
	case "agreement", "toggle_all":
		return 2
	}
	return 0
}

// checkConflicts refuses a config that gives one key to two bindings that
// can fire at the same moment: which one wins would depend on routing
// order, so one of them would silently never fire. Pairs that share a key
// by default (filter and search on "/", open and jump on enter) live on
// different screens and stay allowed; only a pair involving a binding the
// config changed is checked.
func checkConflicts(named map[string]*key.Binding, changed []string) error {
	defaults := DefaultKeyMap()
	def := defaults.bindings()
	shareByDefault := func(a, b, k string) bool {
		return slices.Contains(def[a].Keys(), k) && slices.Contains(def[b].Keys(), k)
	}
	others := make([]string, 0, len(named))
	for n := range named {
		others = append(others, n)
	}
	slices.Sort(others)
	for _, a := range changed {
		for _, k := range named[a].Keys() {
			for _, b := range others {
				if a == b || bindingGroup(a) != bindingGroup(b) || !slices.Contains(named[b].Keys(), k) || shareByDefault(a, b, k) {
					continue
				}
				return fmt.Errorf("key config: [keys] %s: %q is also bound to %s; give one of them another key", a, k, b)
			}
		}
	}
	return nil
}

// displayKeys is how help shows a rebound key list.
func displayKeys(keys []string) string {
	if len(keys) > 2 {
		keys = keys[:2]
	}
	return strings.ReplaceAll(strings.Join(keys, "/"), " ", "space")
}

// isControlRune reports C0 and C1 controls, DEL and the bidi controls.
func isControlRune(r rune) bool {
	return unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}
