package ingest

import (
	"math"
	"strconv"

	"github.com/triage-dev/triage/internal/triage"
)

// appendRow appends what EncodeRow's json.Marshal writes for t, written
// field by field rather than through reflection (the row of every
// imported trace is encoded, and json.Marshal was a fifth of an import's
// CPU). ok is false for a trace json.Marshal refuses (a NaN or infinite
// float, arguments that are not valid JSON): EncodeRow then asks
// json.Marshal, which words the error. TestAppendRowFields fails when
// triage.Trace gains a field this does not write.
func appendRow(dst []byte, t *triage.Trace) (_ []byte, ok bool) {
	return appendRowPlaces(dst, t, nil)
}

// appendRowPlaces is appendRow that also records, when places is set,
// where in the row each message's ,"at":N member is (start and end
// offsets), for the content hash that leaves them out.
func appendRowPlaces(dst []byte, t *triage.Trace, places *[][2]int) (_ []byte, ok bool) {
	b := append(dst, `{"run_id":`...)
	b = triage.AppendJSONString(b, t.RunID)
	b = append(b, `,"task_id":`...)
	b = triage.AppendJSONString(b, t.TaskID)
	b = append(b, `,"seed":`...)
	b = strconv.AppendInt(b, int64(t.Seed), 10)
	b = appendOptString(b, `,"model":`, t.Model)
	b = appendOptString(b, `,"agent":`, t.Agent)
	b = appendOptString(b, `,"prompt_id":`, t.PromptID)
	if t.ExitCode != nil {
		b = append(b, `,"exit_code":`...)
		b = strconv.AppendInt(b, int64(*t.ExitCode), 10)
	}
	b = appendOptString(b, `,"outcome":`, string(t.Outcome))
	// With a tool log, the calls are EncodeRow's outer field: written
	// last, and an empty log as [].
	if !t.HasToolLog && len(t.ToolCalls) > 0 {
		if b, ok = appendToolCalls(append(b, `,"tool_calls":`...), t.ToolCalls); !ok {
			return dst, false
		}
	}
	if len(t.Messages) > 0 {
		b = append(b, `,"messages":[`...)
		for i, m := range t.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"role":`...)
			b = triage.AppendJSONString(b, m.Role)
			b = append(b, `,"content":`...)
			b = triage.AppendJSONString(b, m.Content)
			if m.At != nil {
				from := len(b)
				b = append(b, `,"at":`...)
				b = strconv.AppendInt(b, int64(*m.At), 10)
				if places != nil {
					*places = append(*places, [2]int{from, len(b)})
				}
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendOptStringPtr(b, `,"answer":`, t.Answer)
	b = appendOptStringPtr(b, `,"diff":`, t.Diff)
	b = appendOptStringPtr(b, `,"test_output":`, t.TestOutput)
	b = appendOptBool(b, `,"written_tests":`, t.WrittenTests)
	if b, ok = appendOptFloat(b, `,"wall_s":`, t.WallS); !ok {
		return dst, false
	}
	if b, ok = appendOptFloat(b, `,"wall_cap":`, t.WallCap); !ok {
		return dst, false
	}
	b = appendOptBool(b, `,"timeout":`, t.Timeout)
	if t.Tokens != nil {
		b = append(b, `,"tokens":{"input":`...)
		b = strconv.AppendInt(b, t.Tokens.Input, 10)
		b = append(b, `,"output":`...)
		b = strconv.AppendInt(b, t.Tokens.Output, 10)
		b = append(b, '}')
	}
	if b, ok = appendOptFloat(b, `,"cost_usd":`, t.CostUSD); !ok {
		return dst, false
	}
	b = appendOptBool(b, `,"assumed_api":`, t.AssumedAPI)
	b = appendOptBool(b, `,"required_missing":`, t.RequiredMissing)
	b = appendOptBool(b, `,"asked":`, t.Asked)
	b = appendOptBool(b, `,"outside_allowlist":`, t.OutsideAllowlist)
	b = appendOptString(b, `,"stop_reason":`, t.StopReason)
	if s := t.Scorer; s != nil {
		b = append(b, `,"scorer_report":{`...)
		n := len(b)
		b = appendOptString(b, `,"source":`, s.Source)
		b = appendOptBool(b, `,"patch_applied":`, s.PatchApplied)
		if s.NoPatch {
			b = append(b, `,"no_patch":true`...)
		}
		if s.HarnessTests {
			b = append(b, `,"harness_tests":true`...)
		}
		b = appendTestResults(append(b, `,"fail_to_pass":`...), s.FailToPass)
		b = appendTestResults(append(b, `,"pass_to_pass":`...), s.PassToPass)
		// The first field written carries no comma.
		b = append(b[:n], b[n+1:]...)
		b = append(b, '}')
	}
	if t.HasToolLog {
		if b, ok = appendToolCalls(append(b, `,"tool_calls":`...), t.ToolCalls); !ok {
			return dst, false
		}
	}
	return append(b, '}'), true
}

func appendToolCalls(b []byte, calls []triage.ToolCall) ([]byte, bool) {
	b = append(b, '[')
	for i := range calls {
		c := &calls[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = triage.AppendJSONString(b, c.Name)
		if len(c.Args) > 0 {
			var ok bool
			if b, ok = appendCompactJSON(append(b, `,"args":`...), c.Args); !ok {
				return b, false
			}
		}
		b = appendOptString(b, `,"output":`, c.Output)
		b = appendOptString(b, `,"error":`, c.Error)
		var ok bool
		if b, ok = appendOptFloat(b, `,"wall_s":`, c.WallS); !ok {
			return b, false
		}
		b = appendOptString(b, `,"ts":`, c.TS)
		if c.ExitCode != nil {
			b = append(b, `,"exit_code":`...)
			b = strconv.AppendInt(b, int64(*c.ExitCode), 10)
		}
		b = append(b, '}')
	}
	return append(b, ']'), true
}

func appendTestResults(b []byte, r triage.TestResults) []byte {
	b = append(b, '{')
	n := len(b)
	for _, l := range []struct {
		key   string
		names []string
	}{{`,"passed":[`, r.Passed}, {`,"failed":[`, r.Failed}} {
		if len(l.names) == 0 {
			continue
		}
		b = append(b, l.key...)
		for i, s := range l.names {
			if i > 0 {
				b = append(b, ',')
			}
			b = triage.AppendJSONString(b, s)
		}
		b = append(b, ']')
	}
	if len(b) > n {
		b = append(b[:n], b[n+1:]...)
	}
	return append(b, '}')
}

func appendOptString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return triage.AppendJSONString(append(b, key...), s)
}

func appendOptStringPtr(b []byte, key string, s *string) []byte {
	if s == nil {
		return b
	}
	return triage.AppendJSONString(append(b, key...), *s)
}

func appendOptBool(b []byte, key string, v *bool) []byte {
	if v == nil {
		return b
	}
	return strconv.AppendBool(append(b, key...), *v)
}

// appendOptFloat writes a float as encoding/json does (ES6 style: %f,
// or %e outside [1e-6, 1e21) with the exponent unpadded).
func appendOptFloat(b []byte, key string, p *float64) ([]byte, bool) {
	if p == nil {
		return b, true
	}
	f := *p
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	b = append(b, key...)
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// appendCompactJSON is what json.Marshal writes for a json.RawMessage:
// the value compacted (whitespace between tokens dropped) with <, >, &,
// U+2028 and U+2029 escaped, bytes otherwise as they are. ok is false
// when raw is not one valid JSON value (json.Marshal fails then).
func appendCompactJSON(b, raw []byte) ([]byte, bool) {
	// validJSON accepts only what encoding/json's scanner accepts (strict
	// RFC 8259, UTF-8 unchecked as there); what it leaves (deep nesting
	// too) goes to json.Marshal.
	if !validJSON(raw) {
		return b, false
	}
	inString := false
	start := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !compactMark[c] {
			continue
		}
		if !inString {
			switch c {
			case ' ', '\t', '\n', '\r':
				b = append(b, raw[start:i]...)
				start = i + 1
			case '"':
				inString = true
			}
			continue
		}
		switch {
		case c == '\\':
			i++ // the escaped byte is never one of the below
		case c == '"':
			inString = false
		case c == '<' || c == '>' || c == '&':
			b = append(b, raw[start:i]...)
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			b = append(b, raw[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
			start = i + 3
			i += 2
		}
	}
	return append(b, raw[start:]...), true
}

// compactMark marks the bytes appendCompactJSON looks at: whitespace,
// quotes and escapes, and those it escapes.
var compactMark = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\r\"\\<>&\xe2") {
		t[c] = true
	}
	return t
}()
