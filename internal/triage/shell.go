package triage

import "strings"

// shellCmd is one simple command of a shell line, as the step reader
// needs it: its words with quotes removed, where its output went, the
// body of a heredoc it reads, and how it joins the next command.
type shellCmd struct {
	argv []string
	// out are the files > and >> write (not /dev/*, not fd duplications).
	out []string
	// heredoc is the body of a << heredoc or the word of a <<< string.
	heredoc string
	// hasHeredoc is set even when the body is empty.
	hasHeredoc bool
	// op joins this command to the next: "&&", "||", ";", "|", "&", or ""
	// after the last.
	op string
	// piped: this command reads the previous one's output (a later stage
	// of a pipeline).
	piped bool
}

// maxShellParse bounds the bytes of one command line the parser reads: a
// command of megabytes (a heredoc holding a whole file) is read this far,
// and what follows is not classified.
const maxShellParse = 256 << 10

// parseShell splits a shell command line into simple commands. It knows
// quotes, backslashes, $(…) and backticks (kept inside the word), comments,
// the operators && || ; | & and newlines, subshell parentheses and braces,
// redirections and heredocs. ok is false when the line does not parse (an
// unclosed quote or heredoc): the caller reads such a step as "other".
func parseShell(s string) (cmds []shellCmd, ok bool) {
	if len(s) > maxShellParse {
		s = s[:maxShellParse]
	}
	p := shellParser{s: s}
	return p.parse()
}

type shellParser struct {
	s    string
	i    int
	cmds []shellCmd
	cur  shellCmd
	// pending heredocs of the current line: their commands' indexes in
	// cmds (or -1 for cur) and delimiters, read at the next newline.
	pending []pendingHeredoc
	word    strings.Builder
	inWord  bool
	// redir is the redirection the next word is the target of.
	redir   string
	bad     bool
	pipeNxt bool
}

type pendingHeredoc struct {
	cmd   int // index in cmds; -1: the command being read
	delim string
	strip bool // <<-: leading tabs are stripped
}

func (p *shellParser) parse() ([]shellCmd, bool) {
	for p.i < len(p.s) && !p.bad {
		c := p.s[p.i]
		switch {
		case c == '\'':
			j := strings.IndexByte(p.s[p.i+1:], '\'')
			if j < 0 {
				p.bad = true
				break
			}
			p.word.WriteString(p.s[p.i+1 : p.i+1+j])
			p.inWord = true
			p.i += j + 2
		case c == '"':
			p.doubleQuoted()
		case c == '\\':
			if p.i+1 < len(p.s) {
				if p.s[p.i+1] != '\n' {
					p.word.WriteByte(p.s[p.i+1])
					p.inWord = true
				}
				p.i += 2
			} else {
				p.i++
			}
		case c == '$' && p.i+1 < len(p.s) && p.s[p.i+1] == '(':
			p.substitution('(', ')', 2)
		case c == '`':
			p.substitution('`', '`', 1)
		case c == '#' && !p.inWord:
			// A comment runs to the end of the line.
			j := strings.IndexByte(p.s[p.i:], '\n')
			if j < 0 {
				p.i = len(p.s)
			} else {
				p.i += j
			}
		case c == ' ' || c == '\t' || c == '\r':
			p.endWord()
			p.i++
		case c == '\n':
			p.endWord()
			p.endCmd(";")
			p.i++
			p.readHeredocs()
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			p.operator(c)
		case c == '>' || c == '<':
			p.redirection(c)
		default:
			p.word.WriteByte(c)
			p.inWord = true
			p.i++
		}
	}
	if p.bad || p.redir == "<<" {
		return nil, false
	}
	p.endWord()
	p.endCmd("")
	// A heredoc opened on the last line has no body: "python - <<EOF"
	// with the script cut off by the harness still runs python.
	p.pending = nil
	if n := len(p.cmds); n > 0 && p.cmds[n-1].op == ";" {
		p.cmds[n-1].op = "" // a line break or ; ends the last command
	}
	return p.cmds, true
}

func (p *shellParser) doubleQuoted() {
	p.inWord = true
	j := p.i + 1
	for j < len(p.s) {
		switch p.s[j] {
		case '\\':
			if j+1 < len(p.s) && strings.IndexByte("\"\\$`\n", p.s[j+1]) >= 0 {
				if p.s[j+1] != '\n' {
					p.word.WriteByte(p.s[j+1])
				}
				j += 2
				continue
			}
			p.word.WriteByte('\\')
			j++
		case '"':
			p.i = j + 1
			return
		default:
			p.word.WriteByte(p.s[j])
			j++
		}
	}
	p.bad = true
}

// substitution keeps $(…) or `…` as part of the word, balanced.
func (p *shellParser) substitution(open, close byte, skip int) {
	depth := 1
	j := p.i + skip
	for j < len(p.s) && depth > 0 {
		switch c := p.s[j]; {
		case c == '\\':
			j++
		case c == close:
			depth--
		case c == open && open != close:
			depth++
		case c == '\'' && open != '`':
			if k := strings.IndexByte(p.s[j+1:], '\''); k >= 0 {
				j += k + 1
			}
		}
		j++
	}
	if depth > 0 {
		p.bad = true
		return
	}
	p.word.WriteString(p.s[p.i:j])
	p.inWord = true
	p.i = j
}

func (p *shellParser) operator(c byte) {
	p.endWord()
	two := p.i+1 < len(p.s) && p.s[p.i+1] == c
	switch c {
	case '(', ')':
		// A subshell or a function body: its commands are read as any.
		p.endCmd(";")
		p.i++
	case ';':
		p.endCmd(";")
		p.i++
		if two { // ;; in a case
			p.i++
		}
	case '&':
		if p.i+1 < len(p.s) && p.s[p.i+1] == '>' {
			// &> and &>>: both streams to a file.
			p.i++
			p.redirection('>')
			return
		}
		if two {
			p.endCmd("&&")
			p.i += 2
			return
		}
		p.endCmd("&")
		p.i++
	case '|':
		if two {
			p.endCmd("||")
			p.i += 2
			return
		}
		if p.i+1 < len(p.s) && p.s[p.i+1] == '&' {
			p.i++ // |& pipes stderr too
		}
		p.endCmd("|")
		p.pipeNxt = true
		p.i++
	}
}

func (p *shellParser) redirection(c byte) {
	// A redirection's fd number was read as the word so far ("2>").
	if p.inWord && isDigits(p.word.String()) {
		p.word.Reset()
		p.inWord = false
	}
	p.endWord()
	j := p.i + 1
	switch {
	case c == '<' && strings.HasPrefix(p.s[j:], "<<"):
		p.redir = "<<<"
		j += 2
	case c == '<' && strings.HasPrefix(p.s[j:], "<-"):
		p.redir = "<<-"
		j += 2
	case c == '<' && strings.HasPrefix(p.s[j:], "<"):
		p.redir = "<<"
		j++
	case c == '>' && strings.HasPrefix(p.s[j:], ">"):
		p.redir = ">"
		j++
	case c == '>' && strings.HasPrefix(p.s[j:], "&"):
		// >&2: a duplication, no file.
		j++
		for j < len(p.s) && (p.s[j] >= '0' && p.s[j] <= '9' || p.s[j] == '-') {
			j++
		}
		p.i = j
		return
	case c == '>' && strings.HasPrefix(p.s[j:], "|"):
		p.redir = ">"
		j++
	default:
		p.redir = string(c)
	}
	p.i = j
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (p *shellParser) endWord() {
	if !p.inWord {
		return
	}
	w := p.word.String()
	p.word.Reset()
	p.inWord = false
	switch r := p.redir; r {
	case "":
		if len(p.cur.argv) < maxArgv {
			p.cur.argv = append(p.cur.argv, w)
		}
	case ">":
		if !strings.HasPrefix(w, "/dev/") {
			p.cur.out = append(p.cur.out, w)
		}
	case "<<", "<<-":
		p.cur.hasHeredoc = true
		p.pending = append(p.pending, pendingHeredoc{cmd: -1, delim: w, strip: r == "<<-"})
	case "<<<":
		p.cur.hasHeredoc = true
		p.cur.heredoc = w
	}
	p.redir = ""
}

// maxArgv bounds the words kept of one command.
const maxArgv = 256

func (p *shellParser) endCmd(op string) {
	if p.redir != "" && p.redir != "<" {
		// A redirection with no target: "cmd >" does not parse.
		if p.redir == ">" || p.redir == "<<" || p.redir == "<<-" {
			p.bad = true
			return
		}
	}
	p.redir = ""
	empty := len(p.cur.argv) == 0 && len(p.cur.out) == 0 && !p.cur.hasHeredoc
	if empty {
		// "a && \n b": keep the stronger joint on the command before.
		if n := len(p.cmds); n > 0 && op != ";" && op != "" {
			p.cmds[n-1].op = op
		}
		if op == "|" {
			p.pipeNxt = true
		}
		return
	}
	p.cur.op = op
	p.cur.piped = p.pipeNxt
	p.pipeNxt = false
	idx := len(p.cmds)
	for k := range p.pending {
		if p.pending[k].cmd < 0 {
			p.pending[k].cmd = idx
		}
	}
	p.cmds = append(p.cmds, p.cur)
	p.cur = shellCmd{}
}

// readHeredocs reads the bodies of the heredocs opened on the line that
// just ended, in order.
func (p *shellParser) readHeredocs() {
	for len(p.pending) > 0 {
		h := p.pending[0]
		p.pending = p.pending[1:]
		start := p.i
		found := false
		for p.i <= len(p.s) {
			j := strings.IndexByte(p.s[p.i:], '\n')
			end := len(p.s)
			if j >= 0 {
				end = p.i + j
			}
			line := p.s[p.i:end]
			if h.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if strings.TrimRight(line, " \r") == h.delim {
				if h.cmd >= 0 && h.cmd < len(p.cmds) {
					p.cmds[h.cmd].heredoc = p.s[start:p.i]
				}
				p.i = end
				if p.i < len(p.s) {
					p.i++
				}
				found = true
				break
			}
			if j < 0 {
				break
			}
			p.i = end + 1
		}
		if !found {
			// The body runs to the end of the text: harnesses often drop
			// the closing word when they record the command.
			if h.cmd >= 0 && h.cmd < len(p.cmds) {
				p.cmds[h.cmd].heredoc = p.s[start:]
			}
			p.i = len(p.s)
		}
	}
}
