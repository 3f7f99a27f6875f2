package ingest

import (
	"github.com/triage-dev/triage/internal/triage"
	"math"
)

// The members of a tool call the decoder reads, as bits of a seen mask.
const (
	cName = 1 << iota
	cArgs
	cOutput
	cError
	cWallS
	cTS
	cExitCode
)

// callKey returns the bit of a tool-call member the decoder reads, or 0.
func callKey(k []byte) int {
	switch string(k) {
	case "name":
		return cName
	case "args":
		return cArgs
	case "output":
		return cOutput
	case "error":
		return cError
	case "wall_s":
		return cWallS
	case "ts":
		return cTS
	case "exit_code":
		return cExitCode
	}
	return 0
}

// directCalls reads tool_calls (not null) at b[i]. Calls are gathered on
// the stack and copied once into a slice of the exact length, as the
// tree decoder makes it.
func (d *rowDecoder) directCalls(b []byte, i int, t *triage.Trace) (int, bool) {
	if b[i] != '[' {
		return i, false
	}
	t.HasToolLog = true
	var stack [16]triage.ToolCall
	calls := stack[:0]
	var sc callScratch
	i, empty := openContainer(b, i, ']')
	d.totalCalls = 0
	for more, ok := !empty, true; more; {
		d.totalCalls++
		if d.maxCalls > 0 && d.trusted && len(calls) == d.maxCalls {
			// Past the cap a call is parsed, to find the next, into
			// scratch that is dropped (see DecodeStoredCalls).
			var drop triage.ToolCall
			var dropScratch callScratch
			if i, ok = d.directCall(b, i, &drop, &dropScratch); !ok {
				return i, false
			}
		} else {
			calls = append(calls, triage.ToolCall{})
			if i, ok = d.directCall(b, i, &calls[len(calls)-1], &sc); !ok {
				return i, false
			}
		}
		if i, more, ok = nextMember(b, i, ']'); !ok {
			return i, false
		}
	}
	t.ToolCalls = make([]triage.ToolCall, len(calls))
	copy(t.ToolCalls, calls)
	return i, true
}

// callScratch is shared by a row's tool calls. packed holds the compact
// form of arguments written with spaces (arguments written compactly view
// raw, as Trace.Raw does); walls holds their wall_s values, eight to an
// allocation. Neither is ever written where a call already points.
type callScratch struct {
	packed []byte
	walls  []float64
}

// directCall reads one tool call at b[i] into c.
func (d *rowDecoder) directCall(b []byte, i int, c *triage.ToolCall, sc *callScratch) (int, bool) {
	if b[i] != '{' {
		return i, false
	}
	i, empty := openContainer(b, i, '}')
	if empty {
		return i, false // no name
	}
	seen := 0
	for more := true; more; {
		ks, ke, ok := directKey(b, i)
		if !ok {
			return i, false
		}
		if i, ok = memberValue(b, ke); !ok {
			return i, false
		}
		k := callKey(b[ks:ke])
		if seen&k != 0 {
			return i, false
		}
		seen |= k
		switch k {
		case cName:
			if i, ok = d.directName(b, i, c); !ok {
				return i, false
			}
		case cArgs:
			if d.lite {
				i, _, ok = skipJSON(b, i, 4)
				break
			}
			start := i
			var ws bool
			if i, ws, ok = skipJSON(b, i, 4); !ok {
				return i, false
			}
			if !ws {
				c.Args = b[start:i:i]
			} else {
				n := len(sc.packed)
				sc.packed = appendCompact(sc.packed, b[start:i])
				c.Args = sc.packed[n:len(sc.packed):len(sc.packed)]
			}
		case cOutput:
			c.Output, i, ok = d.directText(b, i, 4)
		case cError:
			c.Error, i, ok = d.directText(b, i, 4)
		case cWallS:
			if b[i] == 'n' {
				i, ok = i+4, hasWord(b, i, "null")
				break
			}
			var f float64
			if f, i, ok = directFloat(b, i); ok {
				if len(sc.walls) == cap(sc.walls) {
					sc.walls = make([]float64, 0, 8)
				}
				sc.walls = append(sc.walls, f)
				c.WallS = &sc.walls[len(sc.walls)-1]
			}
		case cTS:
			switch b[i] {
			case 'n':
				i, ok = i+4, hasWord(b, i, "null")
			case '"':
				c.TS, i, ok = d.directString(b, i)
			default:
				c.TS, i, ok = compactString(b, i, 4)
			}
		case cExitCode:
			// A command's exit code is rare outside rows triage wrote
			// for harness logs: the tree decoder reads it.
			return i, false
		default:
			i, _, ok = skipJSON(b, i, 4)
		}
		if !ok {
			return i, false
		}
		if i, more, ok = nextMember(b, i, '}'); !ok {
			return i, false
		}
	}
	return i, seen&cName != 0
}

// directName reads a tool call's name, shared through d.name; it must be
// a non-empty string.
func (d *rowDecoder) directName(b []byte, i int, c *triage.ToolCall) (int, bool) {
	if b[i] != '"' {
		return i, false
	}
	end, esc, ok := scanText(b, i+1)
	if !ok || end == i+1 {
		return end, false
	}
	if esc {
		c.Name = d.name(appendUnescaped(nil, b[i+1:end]))
	} else {
		c.Name = d.name(b[i+1 : end])
	}
	return end + 1, true
}

// directMessages reads messages (not null) at b[i].
func (d *rowDecoder) directMessages(b []byte, i int, t *triage.Trace) (int, bool) {
	if b[i] != '[' {
		return i, false
	}
	var stack [8]triage.Message
	msgs := stack[:0]
	i, empty := openContainer(b, i, ']')
	for more, ok := !empty, true; more; {
		msgs = append(msgs, triage.Message{})
		if i, ok = d.directMessage(b, i, &msgs[len(msgs)-1]); !ok {
			return i, false
		}
		if i, more, ok = nextMember(b, i, ']'); !ok {
			return i, false
		}
	}
	t.Messages = make([]triage.Message, len(msgs))
	copy(t.Messages, msgs)
	return i, true
}

// directMessage reads one {role, content} message at b[i] into m.
func (d *rowDecoder) directMessage(b []byte, i int, m *triage.Message) (int, bool) {
	if b[i] != '{' {
		return i, false
	}
	i, empty := openContainer(b, i, '}')
	var role, content, at bool
	for more := !empty; more; {
		ks, ke, ok := directKey(b, i)
		if !ok {
			return i, false
		}
		if i, ok = memberValue(b, ke); !ok {
			return i, false
		}
		switch string(b[ks:ke]) {
		case "role":
			if role {
				return i, false
			}
			role = true
			m.Role, i, ok = d.directText(b, i, 4)
		case "content":
			if content {
				return i, false
			}
			content = true
			m.Content, i, ok = d.directText(b, i, 4)
		case "at":
			if at {
				return i, false
			}
			at = true
			if b[i] == 'n' {
				i, _, ok = skipJSON(b, i, 4)
				break
			}
			var n int64
			// Out of range or not an integer: the tree decoder words it.
			if n, i, ok = directInt(b, i); ok && (n < 0 || n > math.MaxInt32) {
				ok = false
			}
			if ok {
				v := int(n)
				m.At = &v
			}
		default:
			i, _, ok = skipJSON(b, i, 4)
		}
		if !ok {
			return i, false
		}
		if i, more, ok = nextMember(b, i, '}'); !ok {
			return i, false
		}
	}
	return i, true
}

// directTokens reads tokens (not null) at b[i]; like the tree decoder it
// counts an absent or null member as zero and rejects a negative one.
func directTokens(b []byte, i int, r *directRow) (int, bool) {
	if b[i] != '{' {
		return i, false
	}
	tok := &r.tok
	r.t.Tokens = tok
	i, empty := openContainer(b, i, '}')
	var seenIn, seenOut bool
	for more := !empty; more; {
		ks, ke, ok := directKey(b, i)
		if !ok {
			return i, false
		}
		if i, ok = memberValue(b, ke); !ok {
			return i, false
		}
		var dst *int64
		switch string(b[ks:ke]) {
		case "input":
			if seenIn {
				return i, false
			}
			seenIn, dst = true, &tok.Input
		case "output":
			if seenOut {
				return i, false
			}
			seenOut, dst = true, &tok.Output
		default:
			i, _, ok = skipJSON(b, i, 3)
		}
		if dst != nil {
			if b[i] == 'n' {
				i, ok = i+4, hasWord(b, i, "null")
			} else {
				*dst, i, ok = directInt(b, i)
				ok = ok && *dst >= 0
			}
		}
		if !ok {
			return i, false
		}
		if i, more, ok = nextMember(b, i, '}'); !ok {
			return i, false
		}
	}
	return i, true
}
