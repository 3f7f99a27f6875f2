package store

import (
	"strconv"

	"github.com/triage-dev/triage/internal/triage"
)

// `rules run` encodes a verdict a trace, and encoding/json's reflection
// was a quarter of its labelling goroutine's time. These appenders write
// the same bytes json.Marshal writes for VerdictRest and for a tag list
// (TestVerdictJSONMatchesEncodingJSON and FuzzVerdictJSON hold them to
// it), so stored verdicts read back with json.Unmarshal as before.

// VerdictRest is what a stored verdict holds beyond its summary (the
// evidence of a rule verdict); its keys are triage.Verdict's. Every
// backend stores it in this encoding.
type VerdictRest struct {
	Fired       []string          `json:"fired"`
	Evidence    []triage.Evidence `json:"evidence"`
	Unevaluated []triage.Evidence `json:"unevaluated,omitempty"`
}

// AppendVerdictRest writes v's VerdictRest as json.Marshal would.
func AppendVerdictRest(dst []byte, v *triage.Verdict) []byte {
	dst = append(dst, `{"fired":`...)
	dst = AppendStrings(dst, v.Fired)
	dst = append(dst, `,"evidence":`...)
	dst = appendEvidence(dst, v.Evidence)
	if len(v.Unevaluated) > 0 {
		dst = append(dst, `,"unevaluated":`...)
		dst = appendEvidence(dst, v.Unevaluated)
	}
	return append(dst, '}')
}

// AppendStrings writes a list; nil is null, as encoding/json writes it.
func AppendStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = triage.AppendJSONString(dst, s)
	}
	return append(dst, ']')
}

func appendEvidence(dst []byte, es []triage.Evidence) []byte {
	if es == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i := range es {
		e := &es[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"rule":`...)
		dst = triage.AppendJSONString(dst, e.Rule)
		dst = append(dst, `,"message":`...)
		dst = triage.AppendJSONString(dst, e.Message)
		dst = append(dst, `,"tool_call":`...)
		dst = strconv.AppendInt(dst, int64(e.ToolCall), 10)
		if e.File != "" {
			dst = append(dst, `,"file":`...)
			dst = triage.AppendJSONString(dst, e.File)
		}
		if e.Line != 0 {
			dst = append(dst, `,"line":`...)
			dst = strconv.AppendInt(dst, int64(e.Line), 10)
		}
		if e.Ident != "" {
			dst = append(dst, `,"ident":`...)
			dst = triage.AppendJSONString(dst, e.Ident)
		}
		if e.RunLevel {
			dst = append(dst, `,"run_level":true`...)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}
