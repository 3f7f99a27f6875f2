package pack

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// Glob is a compiled allowlist or test glob in doublestar's syntax (`*`,
// `/**/`, `?`, `[class]`, `{alt,…}`, `\` escapes), matched in time
// proportional to len(pattern) × len(name) whatever the pattern. The
// doublestar matcher expands each brace group by recursion, so `{*,*}`
// 26 times before a `b` took 46 s on three traces (issue 17); Glob runs
// the pattern as a non-deterministic automaton instead, one pass over the
// name with a set of states, so alternatives share their work.
//
// It matches what doublestar.Match matches, with one deliberate
// difference: doublestar treats only a few literal tails ("*", "/**", …)
// as matching the empty rest of a name, so "a*{,}" does not match "a"
// there; here any tail that can match nothing does.
type Glob struct {
	pattern string
	// prefix is the pattern's literal start (LiteralPrefix): a name
	// without it is refused before the automaton is built.
	prefix string
	toks   []gtok
}

type gkind uint8

const (
	gLit   gkind = iota // one rune
	gAny                // ?
	gClass              // [...]
	gStar               // * (or ** that is not a whole path component)
	gDStar              // **, special when it starts a path component
	gOpen               // {
	gComma              // , inside {}: jump past the group's }
	gClose              // }
	gEnd
)

type gtok struct {
	kind   gkind
	r      rune
	neg    bool
	ranges [][2]rune
	alts   []int // gOpen: the first token of each alternative
	next   int   // gComma: the token after the group's }
}

// CompileGlob compiles pattern, which must be valid in doublestar's
// syntax.
func CompileGlob(pattern string) (*Glob, error) {
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("%q is not a valid glob", pattern)
	}
	// A token per rune at most, and the end: one allocation, not the
	// doublings append makes (a profile of 10,000 tasks of 1,000 globs
	// spent most of its time there, issue 27).
	g := &Glob{pattern: pattern, prefix: LiteralPrefix(pattern), toks: make([]gtok, 0, utf8.RuneCountInString(pattern)+1)}
	var open []int // indices of the gOpen tokens not yet closed
	var commas [][]int
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch c {
		case '\\':
			r, n := utf8.DecodeRuneInString(pattern[i+1:])
			g.toks = append(g.toks, gtok{kind: gLit, r: r})
			i += 1 + n
		case '?':
			g.toks = append(g.toks, gtok{kind: gAny})
			i++
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				g.toks = append(g.toks, gtok{kind: gDStar})
				i += 2
			} else {
				g.toks = append(g.toks, gtok{kind: gStar})
				i++
			}
		case '[':
			t, n, err := parseClass(pattern[i:])
			if err != nil {
				return nil, fmt.Errorf("%q: %w", pattern, err)
			}
			g.toks = append(g.toks, t)
			i += n
		case '{':
			open = append(open, len(g.toks))
			commas = append(commas, nil)
			g.toks = append(g.toks, gtok{kind: gOpen, alts: []int{len(g.toks) + 1}})
			i++
		case ',':
			if len(open) == 0 {
				g.toks = append(g.toks, gtok{kind: gLit, r: ','})
				i++
				continue
			}
			d := len(open) - 1
			commas[d] = append(commas[d], len(g.toks))
			g.toks = append(g.toks, gtok{kind: gComma})
			g.toks[open[d]].alts = append(g.toks[open[d]].alts, len(g.toks))
			i++
		case '}':
			if len(open) == 0 {
				return nil, fmt.Errorf("%q: } without {", pattern)
			}
			d := len(open) - 1
			close := len(g.toks)
			g.toks = append(g.toks, gtok{kind: gClose})
			for _, k := range commas[d] {
				g.toks[k].next = close + 1
			}
			open, commas = open[:d], commas[:d]
			i++
		default:
			r, n := utf8.DecodeRuneInString(pattern[i:])
			g.toks = append(g.toks, gtok{kind: gLit, r: r})
			i += n
		}
	}
	if len(open) > 0 {
		return nil, fmt.Errorf("%q: { without }", pattern)
	}
	g.toks = append(g.toks, gtok{kind: gEnd})
	return g, nil
}

// parseClass reads a [...] class as doublestar does: an optional ! or ^,
// then runes, escaped runes and lo-hi ranges up to the closing ].
func parseClass(s string) (gtok, int, error) {
	t := gtok{kind: gClass}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		t.neg = true
		i++
	}
	last, haveLast := rune(0), false
	for i < len(s) && s[i] != ']' {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if haveLast && r == '-' && i < len(s) && s[i] != ']' {
			if s[i] == '\\' {
				i++
			}
			hi, n := utf8.DecodeRuneInString(s[i:])
			i += n
			t.ranges = append(t.ranges[:len(t.ranges)-1], [2]rune{last, hi})
			haveLast = false
			continue
		}
		if r == '\\' && i < len(s) {
			r, n = utf8.DecodeRuneInString(s[i:])
			i += n
		}
		t.ranges = append(t.ranges, [2]rune{r, r})
		last, haveLast = r, true
	}
	if i >= len(s) {
		return t, 0, errors.New("class does not end")
	}
	return t, i + 1, nil
}

func (t *gtok) classMatch(r rune) bool {
	in := false
	for _, rg := range t.ranges {
		if rg[0] <= r && r <= rg[1] {
			in = true
			break
		}
	}
	return in != t.neg
}

// String returns the pattern.
func (g *Glob) String() string { return g.pattern }

// LiteralPrefix returns the start of pattern that a matching name must
// repeat byte for byte: everything before its first `*`, `?`, `[`, `{`,
// `\` or non-ASCII byte (a rune the matcher decodes, so an invalid byte
// is not compared as itself). CouldMatch says what it rules out. It costs
// no allocation, so a task's allowlist can be sorted out by prefix before
// any glob of it is compiled.
func LiteralPrefix(pattern string) string {
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '*', c == '?', c == '[', c == '{', c == '\\', c >= utf8.RuneSelf:
			return pattern[:i]
		}
	}
	return pattern
}

// CouldMatch reports whether a glob whose LiteralPrefix is prefix can
// match name at all: name starts with prefix, or is prefix without its
// final `/` ("a/**" matches the directory "a"). When it says false, Match
// says false; when it says true, only Match can tell.
func CouldMatch(prefix, name string) bool {
	if strings.HasPrefix(name, prefix) {
		return true
	}
	return len(prefix) > 0 && prefix[len(prefix)-1] == '/' && name == prefix[:len(prefix)-1]
}

// ValidGlob reports whether CompileGlob accepts pattern, without
// compiling it (no allocation).
func ValidGlob(pattern string) bool { return doublestar.ValidatePattern(pattern) }

// State kinds of the automaton. A state is (kind, token, segment start):
// at stAt the next token to match is tok; stStar loops a star whose
// continuation is tok; stDS and stDSMid are inside `**/` (at a directory
// boundary, and inside a directory name); stAll is a trailing `**`.
const (
	stAt = iota
	stStar
	stDS
	stDSMid
	stAll
	nKinds
)

// matcher is one run's state sets.
type matcher struct {
	g         *Glob
	cur, next []int
	inNext    []bool
	seen      []bool // closure visits of (token, sof) this step
}

func (m *matcher) id(kind, tok int, sof bool) int {
	s := 0
	if sof {
		s = 1
	}
	return (kind*len(m.g.toks)+tok)*2 + s
}

func (m *matcher) add(kind, tok int, sof bool) {
	id := m.id(kind, tok, sof)
	if !m.inNext[id] {
		m.inNext[id] = true
		m.next = append(m.next, id)
	}
}

// closure adds the states reachable from token k without reading a rune.
func (m *matcher) closure(k int, sof bool) {
	s := 0
	if sof {
		s = 1
	}
	if m.seen[k*2+s] {
		return
	}
	m.seen[k*2+s] = true
	t := &m.g.toks[k]
	switch t.kind {
	case gOpen:
		for _, a := range t.alts {
			m.closure(a, sof)
		}
	case gComma:
		m.closure(t.next, sof)
	case gClose:
		m.closure(k+1, sof)
	case gStar:
		m.star(k + 1)
	case gDStar:
		if !sof {
			m.star(k + 1)
			return
		}
		m.afterDStar(k + 1)
	default:
		m.add(stAt, k, sof)
	}
}

// star enters a star loop whose continuation is token k.
func (m *matcher) star(k int) {
	m.add(stStar, k, false)
	m.closure(k, false)
}

// afterDStar resolves a `**` that starts a path component by what follows
// it: a `/` makes it `**/` (any number of directories), the end of the
// pattern makes it match everything, and anything else makes it a plain
// star, as doublestar reads it. The end of an alternative leads on past
// its group (doublestar has expanded the group by then); a group that
// opens right after the `**` does not (doublestar sees the "{").
func (m *matcher) afterDStar(k int) {
	var walk func(k int)
	visited := map[int]bool{}
	walk = func(k int) {
		if visited[k] {
			return
		}
		visited[k] = true
		t := &m.g.toks[k]
		switch {
		case t.kind == gComma:
			walk(t.next)
		case t.kind == gClose:
			walk(k + 1)
		case t.kind == gLit && t.r == '/':
			m.add(stDS, k+1, true)
			m.closure(k+1, true)
		case t.kind == gEnd:
			m.add(stAll, 0, false)
		default:
			m.add(stStar, k, false)
			m.closure(k, false)
		}
	}
	walk(k)
}

func (m *matcher) swap() {
	m.cur, m.next = m.next, m.cur[:0]
	clear(m.inNext)
	clear(m.seen)
}

// Match reports whether name matches the whole pattern.
func (g *Glob) Match(name string) bool {
	return CouldMatch(g.prefix, name) && g.run(name)
}

// run is Match without the prefix check: the automaton itself.
func (g *Glob) run(name string) bool {
	n := len(g.toks)
	m := &matcher{g: g, inNext: make([]bool, nKinds*n*2), seen: make([]bool, n*2)}
	m.closure(0, true)
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		i += size
		m.swap()
		for _, id := range m.cur {
			kind, k := (id/2)/n, (id/2)%n
			switch kind {
			case stAt:
				t := &g.toks[k]
				switch t.kind {
				case gLit:
					if t.r == r {
						m.closure(k+1, r == '/')
					}
				case gAny:
					if r != '/' {
						m.closure(k+1, false)
					}
				case gClass:
					if t.classMatch(r) {
						m.closure(k+1, false)
					}
				}
			case stStar:
				if r != '/' {
					m.star(k)
				}
			case stDS, stDSMid:
				if r == '/' {
					m.add(stDS, k, true)
					m.closure(k, true)
				} else {
					m.add(stDSMid, k, false)
				}
			case stAll:
				m.add(stAll, 0, false)
			}
		}
		if len(m.next) == 0 {
			return false
		}
	}
	for _, id := range m.next {
		kind, k := (id/2)/n, (id/2)%n
		switch {
		case kind == stAll:
			return true
		case kind == stAt && g.toks[k].kind == gEnd:
			return true
		case kind == stAt && g.toks[k].kind == gLit && g.toks[k].r == '/' && g.trailingDStar(k+1):
			// "a/**" and "a/**/" match "a": it may be a directory.
			return true
		}
	}
	return false
}

// trailingDStar reports whether some path from token k through the braces
// is `**`, or `**/`, then the end of the pattern.
func (g *Glob) trailingDStar(k int) bool {
	var reach func(k int, want func(int) bool) bool
	reach = func(k int, want func(int) bool) bool {
		t := &g.toks[k]
		switch t.kind {
		case gOpen:
			for _, a := range t.alts {
				if reach(a, want) {
					return true
				}
			}
			return false
		case gComma:
			return reach(t.next, want)
		case gClose:
			return reach(k+1, want)
		}
		return want(k)
	}
	isEnd := func(k int) bool { return g.toks[k].kind == gEnd }
	return reach(k, func(k int) bool {
		if g.toks[k].kind != gDStar {
			return false
		}
		return reach(k+1, func(j int) bool {
			if isEnd(j) {
				return true
			}
			return g.toks[j].kind == gLit && g.toks[j].r == '/' && reach(j+1, isEnd)
		})
	})
}

// maxExpansions is how many plain patterns a glob's braces may stand for
// before pack check calls it absurd: no allowlist means a thousand.
const maxExpansions = 1024

// maxGlobLen bounds a sensible glob's length.
const maxGlobLen = 512

// Absurd says why a valid glob is not what anyone means (braces that
// stand for more than maxExpansions patterns, a pattern longer than
// maxGlobLen bytes), or "" when it is sensible. Glob matches such
// patterns in linear time anyway; pack check warns about them.
func Absurd(pattern string) string {
	if len(pattern) > maxGlobLen {
		return fmt.Sprintf("%d bytes long (more than %d)", len(pattern), maxGlobLen)
	}
	if n := expansions(pattern); n > maxExpansions {
		return fmt.Sprintf("its braces stand for more than %d patterns", maxExpansions)
	}
	if strings.Count(pattern, "**") > 8 {
		return fmt.Sprintf("%d ** in one pattern", strings.Count(pattern, "**"))
	}
	return ""
}

// expansions counts the plain patterns a pattern's braces stand for,
// saturating past maxExpansions.
func expansions(p string) int {
	// Each group multiplies; alternatives add. A stack of (sum of
	// finished alternatives, product of the current one).
	type frame struct{ sum, prod int }
	stack := []frame{{0, 1}}
	sat := func(n int) int { return min(n, maxExpansions+1) }
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			for i++; i < len(p) && p[i] != ']'; i++ {
				if p[i] == '\\' {
					i++
				}
			}
		case '{':
			stack = append(stack, frame{0, 1})
		case ',':
			if len(stack) > 1 {
				top := &stack[len(stack)-1]
				top.sum, top.prod = sat(top.sum+top.prod), 1
			}
		case '}':
			if len(stack) > 1 {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				n := sat(top.sum + top.prod)
				stack[len(stack)-1].prod = sat(stack[len(stack)-1].prod * n)
			}
		}
	}
	return stack[0].prod
}
