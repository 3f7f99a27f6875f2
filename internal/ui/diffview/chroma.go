package diffview

import (
	"embed"
	"path"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/charmbracelet/lipgloss"
)

// highlighter colours single lines with chroma, memoizing the chroma
// style and the lipgloss style of each token type. Lines are highlighted
// one at a time (a multi-line string or comment loses its colour after its
// first line); that is the price of drawing only what is visible.
type highlighter struct {
	style     *chroma.Style
	styleName string
	tok       map[tokKey]lipgloss.Style
}

// maxNameLen is the longest file name looked up for a lexer: no real one
// is longer, and glob matching grows with the name.
const maxNameLen = 255

type tokKey struct {
	tt     chroma.TokenType
	lineID int
}

func (h *highlighter) reset() {
	h.style, h.styleName = nil, ""
	clear(h.tok)
}

// lexerMemo holds lexer lookups for every renderer in the process. It
// is the package's one piece of shared state, on purpose: lexers.Match
// globs every pattern of every registered lexer and costs 1 to 10 ms a
// call, its answer for a name never changes, and a reviewer opens one
// trace after another. Entries are capped so hostile names cannot grow it.
var lexerMemo = struct {
	sync.Mutex
	m map[string]chroma.Lexer
}{m: make(map[string]chroma.Lexer)}

const maxLexerMemo = 1024

// lexer returns the lexer for a file path, or nil. Files are matched by
// extension (as "file.ext", so every file with one extension shares one
// lookup) and extensionless files (Makefile, Dockerfile) by name.
func (h *highlighter) lexer(p string) chroma.Lexer {
	base := path.Base(p)
	key := strings.ToLower(path.Ext(base))
	if key == "" || key == base {
		key = base
	} else {
		key = "file" + key
	}
	if len(key) > maxNameLen {
		return nil
	}
	lexerMemo.Lock()
	defer lexerMemo.Unlock()
	if l, ok := lexerMemo.m[key]; ok {
		return l
	}
	if len(lexerMemo.m) >= maxLexerMemo {
		return nil
	}
	l := lexers.Match(key)
	if l != nil {
		l = chroma.Coalesce(l)
	}
	lexerMemo.m[key] = l
	return l
}

// chromaStyles are the chroma styles Style.Chroma may name, copied from
// chroma (chromastyles/README.md): its styles package parses every style
// it has when the process starts, whatever the command.
//
//go:embed chromastyles/*.xml
var chromaStyles embed.FS

// styleMemo holds the styles parsed so far, by name.
var styleMemo = struct {
	sync.Mutex
	m map[string]*chroma.Style
}{m: map[string]*chroma.Style{}}

// chromaStyle returns the named style, parsed on first use; a name with
// no embedded style gets chroma's plain fallback, as the styles package
// gives.
func chromaStyle(name string) *chroma.Style {
	styleMemo.Lock()
	defer styleMemo.Unlock()
	if s, ok := styleMemo.m[name]; ok {
		return s
	}
	s := chroma.MustNewStyle("plain", chroma.StyleEntries{})
	if f, err := chromaStyles.Open("chromastyles/" + name + ".xml"); err == nil {
		if parsed, err := chroma.NewXMLStyle(f); err == nil {
			s = parsed
		}
		f.Close()
	}
	styleMemo.m[name] = s
	return s
}

// tokens splits text into chroma tokens for path, or returns nil when
// highlighting is off, no lexer matches, or the lexer fails.
func (h *highlighter) tokens(st Style, p, text string) []chroma.Token {
	if st.Chroma == "" || p == "" || text == "" {
		return nil
	}
	l := h.lexer(p)
	if l == nil {
		return nil
	}
	if h.style == nil || h.styleName != st.Chroma {
		h.style, h.styleName = chromaStyle(st.Chroma), st.Chroma
		clear(h.tok)
	}
	it, err := l.Tokenise(nil, text)
	if err != nil {
		return nil
	}
	var toks []chroma.Token
	n := 0
	for t := it(); t != chroma.EOF; t = it() {
		// Lexers may add a trailing newline; keep exactly text's bytes so
		// token offsets line up with it.
		if n+len(t.Value) > len(text) {
			t.Value = text[n:]
		}
		if t.Value == "" {
			continue
		}
		toks = append(toks, t)
		n += len(t.Value)
		if n >= len(text) {
			break
		}
	}
	return toks
}

// entry is what the chroma style says a token type looks like.
func (h *highlighter) entry(tt chroma.TokenType) chroma.StyleEntry {
	e := h.style.Get(tt)
	return chroma.StyleEntry{Colour: e.Colour, Bold: e.Bold, Italic: e.Italic}
}

// tokenStyle is the line style with the token's foreground (and bold or
// italic) laid over it, memoized per token type and line kind.
func (h *highlighter) tokenStyle(tt chroma.TokenType, line lipgloss.Style, lineID int) lipgloss.Style {
	k := tokKey{tt: tt, lineID: lineID}
	if s, ok := h.tok[k]; ok && lineID >= 0 {
		return s
	}
	s := line
	e := h.style.Get(tt)
	if e.Colour.IsSet() {
		s = s.Foreground(lipgloss.Color(e.Colour.String()))
	}
	if e.Bold == chroma.Yes {
		s = s.Bold(true)
	}
	if e.Italic == chroma.Yes {
		s = s.Italic(true)
	}
	if lineID >= 0 {
		if h.tok == nil {
			h.tok = make(map[tokKey]lipgloss.Style)
		}
		h.tok[k] = s
	}
	return s
}
