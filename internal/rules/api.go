package rules

import (
	"encoding/json"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// calledIdent is one identifier the agent used against an API: a path
// (with its method when known) or an operationId.
type calledIdent struct {
	method string // upper case, or "" when unknown
	path   string // as called, query and fragment removed
	opID   string
}

func (id calledIdent) ident() string {
	switch {
	case id.opID != "":
		return id.opID
	case id.method != "":
		return id.method + " " + id.path
	}
	return id.path
}

// apiMatcher answers "is this in the frozen spec" for one task. Built once
// per task by Compile.
type apiMatcher struct {
	templates []pathTemplate
	// methods[i] are the methods the spec defines on templates[i].
	methods [][]string
	opIDs   map[string]bool
	// firstSegs are the spec paths' first literal segments: a quoted
	// string starting with one of them looks like an API path.
	firstSegs map[string]bool
}

// pathTemplate is an OpenAPI path split into segments.
type pathTemplate struct {
	raw  string
	segs []string
}

func newAPIMatcher(s *triage.APISurface) *apiMatcher {
	m := &apiMatcher{opIDs: map[string]bool{}, firstSegs: map[string]bool{}}
	index := map[string]int{}
	addPath := func(p string) int {
		p = normPath(p)
		if i, ok := index[p]; ok {
			return i
		}
		index[p] = len(m.templates)
		segs := splitPath(p)
		m.templates = append(m.templates, pathTemplate{raw: p, segs: segs})
		m.methods = append(m.methods, nil)
		if len(segs) > 0 && !strings.ContainsAny(segs[0], "{}") {
			m.firstSegs[segs[0]] = true
		}
		return len(m.templates) - 1
	}
	for _, p := range s.Paths {
		addPath(p)
	}
	for _, op := range s.Operations {
		if op.OperationID != "" {
			m.opIDs[op.OperationID] = true
		}
		if op.Path == "" {
			continue
		}
		i := addPath(op.Path)
		if op.Method != "" {
			m.methods[i] = append(m.methods[i], strings.ToUpper(op.Method))
		}
	}
	return m
}

// check reports whether id is invented, with the evidence message.
func (m *apiMatcher) check(id calledIdent) (string, bool) {
	if id.opID != "" {
		if m.opIDs[id.opID] {
			return "", false
		}
		return "operationId " + id.opID + " is not in the frozen spec", true
	}
	if id.path == "" {
		return "", false
	}
	prefix := strings.HasSuffix(id.path, "/") && id.path != "/"
	segs := splitPath(normPath(id.path))
	matched := false
	methodOK := id.method == ""
	methodKnown := false
	for i, t := range m.templates {
		if !matchTemplate(t.segs, segs, prefix) {
			continue
		}
		matched = true
		if len(m.methods[i]) > 0 {
			methodKnown = true
		}
		for _, meth := range m.methods[i] {
			if meth == id.method {
				methodOK = true
			}
		}
	}
	switch {
	case !matched:
		return "path " + id.path + " is not in the frozen spec", true
	case !methodOK && methodKnown:
		return "method " + id.method + " is not defined for " + id.path + " in the frozen spec", true
	}
	return "", false
}

// normPath drops a query or fragment and a trailing slash.
func normPath(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
		if p == "" {
			p = "/"
		}
	}
	return p
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// matchTemplate matches called segments against a template's. A called
// segment that is itself a placeholder ({id}, ${id}, :id, %s) matches any
// segment; with prefix set (a literal ending in "/", the start of a
// concatenation) the called segments need only match a leading part.
func matchTemplate(tmpl, called []string, prefix bool) bool {
	if len(called) > len(tmpl) || (!prefix && len(called) != len(tmpl)) {
		return false
	}
	for i, c := range called {
		if isPlaceholder(c) {
			continue
		}
		if !matchSegment(tmpl[i], c) {
			return false
		}
	}
	return true
}

func isPlaceholder(seg string) bool {
	return strings.ContainsAny(seg, "{}%") || strings.HasPrefix(seg, ":") || strings.HasPrefix(seg, "<")
}

// matchSegment matches one concrete segment against a template segment
// in which each {name} stands for one or more characters.
func matchSegment(tmpl, s string) bool {
	if !strings.Contains(tmpl, "{") {
		return tmpl == s
	}
	// Split the template into literals around its variables.
	var lits []string
	rest := tmpl
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			lits = append(lits, rest)
			break
		}
		close := strings.IndexByte(rest[open:], '}')
		if close < 0 {
			lits = append(lits, rest)
			break
		}
		lits = append(lits, rest[:open])
		rest = rest[open+close+1:]
	}
	if len(lits) == 1 {
		return lits[0] == s
	}
	first, last := lits[0], lits[len(lits)-1]
	if !strings.HasPrefix(s, first) {
		return false
	}
	s = s[len(first):]
	// Each variable takes at least one character; literals in between are
	// matched leftmost, which is enough for one-or-more wildcards.
	for _, lit := range lits[1 : len(lits)-1] {
		if len(s) < 1 {
			return false
		}
		i := strings.Index(s[1:], lit)
		if i < 0 {
			return false
		}
		s = s[1+i+len(lit):]
	}
	return len(s) >= 1+len(last) && strings.HasSuffix(s, last)
}

// looksLikeAPIPath says whether a path found in free text (a URL in a
// shell command, a literal in the diff) is meant as an API path: its
// first segment is a version (v1, v2.1), "api", or the first segment of a
// path in the spec. File paths such as /tmp/x or /etc/hosts are not.
func (m *apiMatcher) looksLikeAPIPath(p string) bool {
	segs := splitPath(normPath(p))
	if len(segs) == 0 {
		return false
	}
	s := segs[0]
	if s == "api" || m.firstSegs[s] {
		return true
	}
	if len(s) >= 2 && (s[0] == 'v' || s[0] == 'V') {
		for _, c := range s[1:] {
			if (c < '0' || c > '9') && c != '.' {
				return false
			}
		}
		return s[1] >= '0' && s[1] <= '9'
	}
	return false
}

// httpToolNames are tools whose calls are HTTP requests by their name.
var httpToolNames = []string{"http", "http_request", "fetch", "curl", "request", "api_call"}

// callIdents extracts what one tool call called: for HTTP-like calls
// (by name, or by args with url, or path and method) the URL's or path's
// path, the method and any operationId; for commands (args command, cmd or
// script, or a bare string) the URLs that curl, wget or httpie fetch.
func callIdents(c *triage.ToolCall, m *apiMatcher) []calledIdent {
	if len(c.Args) == 0 {
		return nil
	}
	var args any
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return nil
	}
	httpName := false
	for _, n := range httpToolNames {
		if strings.EqualFold(c.Name, n) {
			httpName = true
		}
	}
	var out []calledIdent
	switch a := args.(type) {
	case map[string]any:
		method := strings.ToUpper(strField(a, "method"))
		url := strField(a, "url")
		if url == "" {
			url = strField(a, "uri")
		}
		path := strField(a, "path")
		if path == "" {
			path = strField(a, "endpoint")
		}
		if url != "" {
			if p := urlPath(url); p != "" && (httpName || method != "" || m.looksLikeAPIPath(p)) {
				out = append(out, calledIdent{method: method, path: p})
			}
		} else if path != "" && (httpName || method != "") {
			out = append(out, calledIdent{method: method, path: urlPath(path)})
		}
		if httpName || url != "" || method != "" {
			for _, k := range []string{"operationId", "operation_id", "operation"} {
				if id := strField(a, k); id != "" {
					out = append(out, calledIdent{opID: id})
				}
			}
		}
		for _, k := range []string{"command", "cmd", "script"} {
			out = append(out, commandIdents(strField(a, k), m)...)
		}
	case string:
		out = append(out, commandIdents(a, m)...)
	}
	return out
}

func strField(a map[string]any, k string) string {
	s, _ := a[k].(string)
	return s
}

// commandIdents finds the URLs a shell command fetches with curl, wget or
// httpie, with curl's -X/--request method.
func commandIdents(cmd string, m *apiMatcher) []calledIdent {
	if cmd == "" || !containsFetcher(cmd) {
		return nil
	}
	method := ""
	fields := strings.Fields(cmd)
	for i, f := range fields {
		if (f == "-X" || f == "--request") && i+1 < len(fields) {
			method = strings.ToUpper(strings.Trim(fields[i+1], `"'`))
		} else if v, ok := strings.CutPrefix(f, "-X"); ok && v != "" && !strings.HasPrefix(v, "-") {
			method = strings.ToUpper(strings.Trim(v, `"'`))
		}
	}
	var out []calledIdent
	for _, u := range findURLs(cmd) {
		if p := urlPath(u); p != "" && m.looksLikeAPIPath(p) {
			out = append(out, calledIdent{method: method, path: p})
		}
	}
	return out
}

func containsFetcher(cmd string) bool {
	for _, f := range strings.Fields(cmd) {
		f = strings.TrimLeft(f, "(;&|`$")
		if i := strings.LastIndexByte(f, '/'); i >= 0 {
			f = f[i+1:]
		}
		switch f {
		case "curl", "wget", "http", "https", "httpie", "xh":
			return true
		}
	}
	return false
}

// findURLs returns every http:// or https:// URL in s, cut at the first
// space, quote or bracket.
func findURLs(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "http")
		if i < 0 {
			return out
		}
		rest := s[i:]
		var n int
		switch {
		case strings.HasPrefix(rest, "http://"):
			n = len("http://")
		case strings.HasPrefix(rest, "https://"):
			n = len("https://")
		default:
			s = rest[len("http"):]
			continue
		}
		end := strings.IndexAny(rest[n:], " \t\r\n\"'`<>()[]{}\\|;,")
		if end < 0 {
			end = len(rest) - n
		}
		out = append(out, strings.TrimRight(rest[:n+end], ".:!"))
		s = rest[n+end:]
	}
}

// urlPath returns the path of a URL ("https://h/v1/x?y" gives "/v1/x"),
// or of a path-like string ("v1/x" gives "/v1/x"; "host.tld/v1" gives
// "/v1").
func urlPath(u string) string {
	u = strings.TrimSpace(u)
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		j := strings.IndexByte(u, '/')
		if j < 0 {
			return ""
		}
		u = u[j:]
	} else if !strings.HasPrefix(u, "/") {
		first, _, _ := strings.Cut(u, "/")
		if strings.Contains(first, ".") && strings.Contains(u, "/") {
			u = u[strings.IndexByte(u, '/'):]
		} else {
			u = "/" + u
		}
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return u
}

// diffLiterals finds API path literals in one added diff line: quoted
// strings ('…', "…" or `…`) holding a path starting with "/" or a URL,
// that look like an API path.
func diffLiterals(line string, m *apiMatcher) []string {
	var out []string
	for i := 0; i < len(line); i++ {
		q := line[i]
		if q != '"' && q != '\'' && q != '`' {
			continue
		}
		end := strings.IndexByte(line[i+1:], q)
		if end < 0 {
			break
		}
		lit := line[i+1 : i+1+end]
		i += end + 1
		if lit == "" || strings.ContainsAny(lit, " \t") {
			continue
		}
		var p string
		switch {
		case strings.HasPrefix(lit, "/"):
			p = lit
		case strings.HasPrefix(lit, "http://") || strings.HasPrefix(lit, "https://"):
			p = urlPath(lit)
		default:
			continue
		}
		if p != "" && m.looksLikeAPIPath(p) {
			out = append(out, p)
		}
	}
	return out
}
