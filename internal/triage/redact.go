package triage

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Redaction kinds: the word inside a mask, so a reader knows what kind of
// text was there without seeing it.
const (
	RedactSentinel   = "sentinel"
	RedactAPIKey     = "api-key"
	RedactSecret     = "secret"
	RedactBearer     = "bearer"
	RedactPrivateKey = "private-key"
	RedactJWT        = "jwt"
)

// redactPrefix opens every mask. Nothing a detector matches can start
// with '[', which is what keeps redaction idempotent.
const redactPrefix = "[REDACTED:"

// Redactor masks task sentinels and common secret shapes in trace text,
// for output that leaves the reviewer's machine (a report, a card, an
// exported label file) or a screen that is shared. A nil *Redactor is the
// identity, so callers hold one and never branch on whether --redact was
// given. A Redactor is immutable and safe for concurrent use.
type Redactor struct {
	// sentinels holds each sentinel and its JSON-escaped spellings,
	// longest first, so a raw JSON line cannot hide one behind \u escapes
	// of the encoder.
	sentinels []string
}

// NewRedactor returns a Redactor that masks the given sentinels (empty
// ones are ignored) and every secret shape it knows.
func NewRedactor(sentinels []string) *Redactor {
	r := &Redactor{}
	return r.With(sentinels)
}

// With returns a Redactor that also masks these sentinels. The UI uses it
// to add a task's own sentinels when the task arrives with its trace. With
// on a nil Redactor returns nil: redaction stays off.
func (r *Redactor) With(sentinels []string) *Redactor {
	if r == nil {
		return nil
	}
	n := &Redactor{sentinels: slices.Clone(r.sentinels)}
	for _, s := range sentinels {
		if s == "" {
			continue
		}
		n.sentinels = append(n.sentinels, s)
		// The spellings a JSON encoder may have used for the same text:
		// Go's (HTML-safe) and Python's (ASCII-only).
		if b, err := json.Marshal(s); err == nil {
			n.sentinels = append(n.sentinels, string(b[1:len(b)-1]))
		}
		n.sentinels = append(n.sentinels, asciiJSON(s))
	}
	// Longest first; equal lengths by text, so that Compact, which drops
	// only neighbours, removes every repeated spelling.
	slices.SortFunc(n.sentinels, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	n.sentinels = slices.Compact(n.sentinels)
	return n
}

// Sentinels returns the sentinels r masks, with their escaped spellings.
func (r *Redactor) Sentinels() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.sentinels)
}

// maxPasses bounds the passes String makes to reach a fixed point.
// Masking can change what surrounds a secret (a word boundary appears
// next to a mask), so one pass may reveal a match the first did not see.
const maxPasses = 8

// String returns s with every sentinel and secret masked as
// "[REDACTED:kind]". It never fails: untrusted text of any shape, valid
// UTF-8 or not, gets an answer. When nothing matches, it returns s itself
// without allocating, and only a cheap substring pre-check runs before
// any regular expression.
func (r *Redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	for range maxPasses {
		out := r.pass(s)
		if out == s {
			break
		}
		s = out
	}
	return s
}

// Bytes is String for a byte slice (raw JSON, a record's bytes). It
// returns b itself when nothing matches.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || len(b) == 0 {
		return b
	}
	s := string(b)
	if out := r.String(s); out != s {
		return []byte(out)
	}
	return b
}

// span is one masked byte range of the input.
type span struct {
	start, end int
	kind       string
}

// pass masks what one scan finds: every detector reports spans over s,
// overlapping spans merge, and each merged span becomes one mask.
func (r *Redactor) pass(s string) string {
	var spans []span
	for _, sen := range r.sentinels {
		for i := 0; ; {
			j := strings.Index(s[i:], sen)
			if j < 0 {
				break
			}
			spans = append(spans, span{i + j, i + j + len(sen), RedactSentinel})
			i += j + len(sen)
		}
	}
	spans = appendDetected(s, spans)
	spans = appendPrivateKeys(s, spans)
	if len(spans) == 0 {
		return s
	}
	if strings.Contains(s, redactPrefix) {
		spans = dropInsideMasks(s, spans)
		if len(spans) == 0 {
			return s
		}
	}
	return mask(s, spans)
}

// dropInsideMasks drops the spans that lie inside a mask already in s:
// a sentinel such as "ACT" is part of every mask's text, and masking it
// again would never end.
func dropInsideMasks(s string, spans []span) []span {
	var masks []span
	for i := 0; ; {
		j := strings.Index(s[i:], redactPrefix)
		if j < 0 {
			break
		}
		at := i + j
		i = at + len(redactPrefix)
		for _, k := range redactKinds {
			if strings.HasPrefix(s[i:], k) && strings.HasPrefix(s[i+len(k):], "]") {
				masks = append(masks, span{at, i + len(k) + 1, k})
				i += len(k) + 1
				break
			}
		}
	}
	if len(masks) == 0 {
		return spans
	}
	return slices.DeleteFunc(spans, func(sp span) bool {
		k, _ := slices.BinarySearchFunc(masks, sp.start, func(m span, start int) int {
			return cmp.Compare(m.start, start)
		})
		// The mask that could hold sp starts at or before sp.start.
		if k == len(masks) || masks[k].start > sp.start {
			k--
		}
		return k >= 0 && masks[k].start <= sp.start && sp.end <= masks[k].end
	})
}

// redactKinds are the kinds a mask can name.
var redactKinds = []string{RedactSentinel, RedactAPIKey, RedactSecret, RedactBearer, RedactPrivateKey, RedactJWT}

// mask replaces each span with its mask, merging overlapping and touching
// spans. A merged span is a sentinel when any part is (the most telling
// kind: the task's own canary leaked), else the kind of its first part.
func mask(s string, spans []span) string {
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		i++
		for i < len(spans) && spans[i].start <= cur.end {
			cur.end = max(cur.end, spans[i].end)
			if spans[i].kind == RedactSentinel {
				cur.kind = RedactSentinel
			}
			i++
		}
		b.WriteString(s[at:cur.start])
		b.WriteString(redactPrefix)
		b.WriteString(cur.kind)
		b.WriteByte(']')
		at = cur.end
	}
	b.WriteString(s[at:])
	return b.String()
}

// detector finds one secret shape. Each match starts at one of its
// triggers, which a plain substring search finds, so the regular
// expression only ever runs on a window after a trigger.
type detector struct {
	kind     string
	triggers []string // lower case when fold is set
	fold     bool     // match the triggers case-insensitively (ASCII)
	boundary bool     // the trigger must not follow a letter or digit
	re       *regexp.Regexp
	group    int // the submatch to mask; 0 masks the whole match
	// accept, when set, vets the masked text (e.g. "not all digits").
	accept func(string) bool
}

// window is how far after a trigger a detector first looks; a match that
// reaches the window's end is looked for again in a window twice as long.
const window = 512

// trigger is one literal that starts a detector's match.
type trigger struct {
	lit string
	det int // index into detectors
}

// triggersByByte maps a byte to the triggers that can start with it
// (both cases of a folded trigger's first letter), so one scan of the text
// finds every detector's candidates: a byte no trigger starts with costs
// one table look-up.
var triggersByByte = func() (t [256][]trigger) {
	if len(detectors) > maxDetectors {
		panic("triage: more detectors than maxDetectors")
	}
	for d := range detectors {
		for _, lit := range detectors[d].triggers {
			c := lit[0]
			t[c] = append(t[c], trigger{lit, d})
			if detectors[d].fold && c >= 'a' && c <= 'z' {
				t[c-'a'+'A'] = append(t[c-'a'+'A'], trigger{lit, d})
			}
		}
	}
	return t
}()

// maxDetectors sizes appendDetected's per-detector state on the stack.
const maxDetectors = 16

// appendDetected scans s once and appends every detector's matches.
func appendDetected(s string, spans []span) []span {
	// next[d] is where detector d may match again: matches of one
	// detector never overlap.
	var next [maxDetectors]int
	for i := 0; i < len(s); i++ {
		ts := triggersByByte[s[i]]
		if ts == nil {
			continue
		}
		for _, t := range ts {
			d := &detectors[t.det]
			if i < next[t.det] || !hasPrefix(s[i:], t.lit, d.fold) {
				continue
			}
			if d.boundary && i > 0 && isAlnum(s[i-1]) {
				continue
			}
			loc := d.match(s[i:])
			if loc == nil {
				continue
			}
			start, end := i+loc[2*d.group], i+loc[2*d.group+1]
			if loc[2*d.group] < 0 || start == end || (d.accept != nil && !d.accept(s[start:end])) {
				continue
			}
			spans = append(spans, span{start, end, d.kind})
			next[t.det] = i + loc[1]
		}
	}
	return spans
}

// hasPrefix reports whether s starts with lit, ignoring ASCII case when
// fold is set (lit is then lower case).
func hasPrefix(s, lit string, fold bool) bool {
	if len(s) < len(lit) {
		return false
	}
	if !fold {
		return s[:len(lit)] == lit
	}
	for k := 0; k < len(lit); k++ {
		c := s[k]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[k] {
			return false
		}
	}
	return true
}

// match runs the anchored expression on growing windows of s until the
// match ends inside the window or the window is all of s.
func (d *detector) match(s string) []int {
	for n := window; ; n *= 2 {
		w := s[:min(n, len(s))]
		loc := d.re.FindStringSubmatchIndex(w)
		if loc == nil || loc[1] < len(w) || len(w) == len(s) {
			return loc
		}
	}
}

// tokenChars is what API keys and tokens are spelled with.
const tokenChars = `[A-Za-z0-9_-]`

// detectors are the secret shapes String masks besides private key
// blocks, which need a search of their own (they span lines).
var detectors = []detector{
	{kind: RedactAPIKey, triggers: []string{"sk-"}, boundary: true,
		re: regexp.MustCompile(`^sk-` + tokenChars + `{20,}`)},
	{kind: RedactAPIKey, triggers: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"}, boundary: true,
		re: regexp.MustCompile(`^[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`)},
	{kind: RedactAPIKey, triggers: []string{"AKIA", "ASIA"}, boundary: true,
		re: regexp.MustCompile(`^A[KS]IA[0-9A-Z]{16}`)},
	{kind: RedactAPIKey, triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, boundary: true,
		re: regexp.MustCompile(`^gh[pousr]_[A-Za-z0-9]{20,}`)},
	{kind: RedactAPIKey, triggers: []string{"github_pat_"}, boundary: true,
		re: regexp.MustCompile(`^github_pat_[A-Za-z0-9_]{20,}`)},
	{kind: RedactAPIKey, triggers: []string{"xoxb-", "xoxp-", "xoxa-", "xoxs-", "xoxr-"}, boundary: true,
		re: regexp.MustCompile(`^xox[bpasr]-[A-Za-z0-9-]{10,}`)},
	{kind: RedactAPIKey, triggers: []string{"AIza"}, boundary: true,
		re: regexp.MustCompile(`^AIza[0-9A-Za-z_-]{30,}`)},
	{kind: RedactAPIKey, triggers: []string{"hf_"}, boundary: true,
		re: regexp.MustCompile(`^hf_[A-Za-z0-9]{30,}`)},
	{kind: RedactJWT, triggers: []string{"eyJ"}, boundary: true,
		re: regexp.MustCompile(`^eyJ` + tokenChars + `{5,}\.eyJ` + tokenChars + `{5,}\.` + tokenChars + `*`)},
	// "Authorization: Bearer abc…": the token is masked, the scheme kept.
	// A token spelled only with letters is a word ("bearer tokens").
	{kind: RedactBearer, triggers: []string{"bearer", "basic"}, fold: true, boundary: true,
		re: regexp.MustCompile(`^(?i:bearer|basic)[ \t]+([A-Za-z0-9._~+/=-]{8,})`), group: 1, accept: hasNonLetter},
	// Generic assignments: api_key=…, "token": "…", PASSWORD: …, also
	// inside JSON that is itself a JSON string (\"token\": \"…\"). Only the
	// value is masked.
	{kind: RedactSecret, triggers: []string{"api_key", "api-key", "apikey", "secret", "token", "password", "passwd"}, fold: true,
		re: regexp.MustCompile(`^(?i:api[_-]?key|secret(?:[_-]?(?:access[_-]?)?key)?|token|passw(?:or)?d)` +
			`(?:\\?["'])?[ \t]*[:=][ \t]*(?:\\?["'])?([^\s"'\\,;\[][^\s"'\\,;]{7,})`), group: 1, accept: notAllDigits},
}

// appendPrivateKeys finds PEM private key blocks, BEGIN to END across
// lines (real or JSON-escaped). A block cut off before its END line is
// masked as far as its base64 body runs.
func appendPrivateKeys(s string, spans []span) []span {
	const begin, end = "-----BEGIN ", "-----END "
	for i := 0; ; {
		j := strings.Index(s[i:], begin)
		if j < 0 {
			return spans
		}
		at := i + j
		i = at + len(begin)
		hdr := privateKeyLabel(s[i:])
		if hdr < 0 {
			continue
		}
		body := i + hdr
		stop := -1
		for k := body; ; {
			e := strings.Index(s[k:], end)
			if e < 0 {
				break
			}
			k += e + len(end)
			if n := privateKeyLabel(s[k:]); n >= 0 {
				stop = k + n
				break
			}
		}
		if stop < 0 {
			stop = body
			for stop < len(s) && isPEMBody(s[stop]) {
				stop++
			}
		}
		spans = append(spans, span{at, stop, RedactPrivateKey})
		i = stop
	}
}

// privateKeyLabel matches "[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----" at the
// start of s and returns its length, or -1.
func privateKeyLabel(s string) int {
	const label = "PRIVATE KEY"
	n := 0
	for n < len(s) && n < 64 && (isUpperOrDigit(s[n]) || s[n] == ' ') {
		if strings.HasPrefix(s[n:], label) {
			rest := s[n+len(label):]
			k := n + len(label)
			if strings.HasPrefix(rest, " BLOCK") {
				rest, k = rest[len(" BLOCK"):], k+len(" BLOCK")
			}
			if strings.HasPrefix(rest, "-----") {
				return k + len("-----")
			}
			return -1
		}
		n++
	}
	return -1
}

// isPEMBody reports whether c can be part of a PEM body: base64, line
// breaks (also as the "\n" a JSON string spells), and the Proc-Type and
// DEK-Info headers of an encrypted key.
func isPEMBody(c byte) bool {
	return isAlnum(c) || strings.IndexByte("+/=\r\n\t \\:,-", c) >= 0
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isUpperOrDigit(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

func hasNonLetter(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) >= 0
}

func notAllDigits(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) >= 0
}

// asciiJSON spells s as a JSON string body the way Python's json.dumps
// does by default: non-ASCII as \uXXXX escapes (surrogate pairs above
// U+FFFF).
func asciiJSON(s string) string {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return s
	}
	b := strings.TrimSuffix(buf.String(), "\n")
	body := b[1 : len(b)-1]
	var out strings.Builder
	for _, r := range body {
		switch {
		case r < 0x80:
			out.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			writeU(&out, 0xd800+(r>>10))
			writeU(&out, 0xdc00+(r&0x3ff))
		default:
			writeU(&out, r)
		}
	}
	return out.String()
}

func writeU(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hex[(r>>shift)&0xf])
	}
}
