package ingest

import (
	"bytes"
	"io"
	"os"
	"unicode/utf8"
)

// A terminal capture (Terminal-Bench's sessions/agent.log and tests.log,
// a pane dump, an agent's console under agent/) is the bytes a terminal
// was sent: colours, cursor moves, title and clipboard sequences, carriage
// returns that redraw a line. Triage keeps what a reader would have seen,
// as text, and never the sequences: they would be replayed by whatever
// prints the trace later. The renderers sanitize again (triage.Sanitize);
// stripping here makes the stored text readable, not merely inert.

// maxCaptureText bounds the text kept of one capture: its last bytes,
// where a run ends (the budget kill, the last command, the test summary).
// A 2 GB capture is read through in this much memory (twice it, at most).
const maxCaptureText = 64 << 10

// ansiState is where the stripper is inside an escape sequence.
type ansiState uint8

const (
	ansiText    ansiState = iota
	ansiEsc               // after ESC
	ansiCSI               // ESC [ … final byte 0x40–0x7e
	ansiString            // OSC, DCS, APC, PM, SOS: until BEL or ESC \
	ansiStrEsc            // an ESC inside a string: a following \ ends it
	ansiCharset           // ESC ( X and the like: one more byte
	ansiCR                // after a carriage return
)

// ansiStripper removes escape sequences and control characters from a
// byte stream as it passes, across chunk boundaries. "\r\n" and a lone
// "\r" become "\n" (a redrawn line is shown as the lines it was), tabs and
// newlines are kept, other C0 controls and DEL are dropped; C1 controls
// written as UTF-8 are left to triage.Sanitize.
type ansiStripper struct {
	st  ansiState
	out []byte
}

// write strips p and appends the text to s.out.
func (s *ansiStripper) write(p []byte) {
	for i := 0; i < len(p); {
		if s.st == ansiText {
			// Printable runs are copied whole: a capture is mostly text,
			// and byte-at-a-time reading made a 2 GB capture take 21 s.
			j := i
			for j < len(p) && p[j] >= 0x20 && p[j] != 0x7f {
				j++
			}
			s.out = append(s.out, p[i:j]...)
			if i = j; i == len(p) {
				return
			}
		}
		c := p[i]
		i++
		switch s.st {
		case ansiCR:
			s.st = ansiText
			s.out = append(s.out, '\n')
			if c == '\n' {
				continue
			}
			s.text(c)
		case ansiText:
			s.text(c)
		case ansiEsc:
			switch {
			case c == '[':
				s.st = ansiCSI
			case c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X':
				s.st = ansiString
			case c == '(' || c == ')' || c == '*' || c == '+' || c == '#' || c == '%':
				s.st = ansiCharset
			case c == 0x1b:
				// ESC ESC: the first was alone.
			default:
				s.st = ansiText // a two-byte escape (ESC 7, ESC =, …)
			}
		case ansiCSI:
			if c >= 0x40 && c <= 0x7e {
				s.st = ansiText
			} else if c == 0x1b {
				s.st = ansiEsc
			}
		case ansiString:
			switch c {
			case 0x07:
				s.st = ansiText
			case 0x1b:
				s.st = ansiStrEsc
			}
		case ansiStrEsc:
			if c == '\\' {
				s.st = ansiText
			} else {
				s.st = ansiString
			}
		case ansiCharset:
			s.st = ansiText
		}
	}
}

func (s *ansiStripper) text(c byte) {
	switch {
	case c == 0x1b:
		s.st = ansiEsc
	case c == '\r':
		s.st = ansiCR
	case c == '\n' || c == '\t':
		s.out = append(s.out, c)
	case c < 0x20 || c == 0x7f:
		// Bell, backspace and the rest: nothing a reader saw.
	default:
		s.out = append(s.out, c)
	}
}

// stripTerminal returns s without terminal escape sequences and control
// characters, as a capture is stored (see ansiStripper).
func stripTerminal(s string) string {
	st := ansiStripper{out: make([]byte, 0, len(s))}
	st.write([]byte(s))
	if st.st == ansiCR {
		st.out = append(st.out, '\n')
	}
	return string(st.out)
}

// captureTail is the stripped text of a capture, its last limit bytes
// when it is longer, and how many bytes of text were left out before them.
type captureTail struct {
	Text    string
	Dropped int64
}

// readCaptureTail streams r through the stripper and keeps the last limit
// bytes of its text: memory stays under 3×limit plus a 64 KiB buffer
// whatever the capture's size.
func readCaptureTail(r io.Reader, limit int) (captureTail, error) {
	var out captureTail
	st := ansiStripper{out: make([]byte, 0, 2*limit+(64<<10))}
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		st.write(buf[:n])
		if len(st.out) > 2*limit {
			cut := len(st.out) - limit
			out.Dropped += int64(cut)
			st.out = st.out[:copy(st.out, st.out[cut:])]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, err
		}
	}
	if st.st == ansiCR {
		st.out = append(st.out, '\n')
	}
	text := st.out
	if len(text) > limit {
		cut := len(text) - limit
		out.Dropped += int64(cut)
		text = text[cut:]
	}
	if out.Dropped > 0 {
		// Start at a whole line when one starts near, else at a whole
		// character.
		if nl := bytes.IndexByte(text, '\n'); nl >= 0 && nl < 1<<10 {
			text = text[nl+1:]
			out.Dropped += int64(nl + 1)
		}
		for i := 0; len(text) > 0 && i < utf8.UTFMax && !utf8.RuneStart(text[0]); i++ {
			text = text[1:]
			out.Dropped++
		}
	}
	out.Text = string(text)
	return out, nil
}

// readCaptureFile is readCaptureTail of a file; an absent or empty file
// is no capture (ok false).
func readCaptureFile(p string, limit int) (captureTail, bool) {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return captureTail{}, false
	}
	f, err := os.Open(p)
	if err != nil {
		return captureTail{}, false
	}
	defer f.Close()
	c, err := readCaptureTail(f, limit)
	if err != nil && c.Text == "" {
		return captureTail{}, false
	}
	return c, true
}
