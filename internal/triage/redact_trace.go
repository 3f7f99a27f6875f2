package triage

import (
	"encoding/json"
	"strings"
)

// Trace returns a copy of t with every text that came from the run masked:
// names, arguments, outputs and errors of tool calls, messages, the
// answer, the diff, the test output and the raw record. Identity fields
// (run, task, seed) are kept, since they name the trace. t is not changed;
// a nil Redactor or a nil trace returns t itself.
func (r *Redactor) Trace(t *Trace) *Trace {
	if r == nil || t == nil {
		return t
	}
	c := *t
	c.Model, c.Agent, c.PromptID = r.String(t.Model), r.String(t.Agent), r.String(t.PromptID)
	if t.ToolCalls != nil {
		c.ToolCalls = make([]ToolCall, len(t.ToolCalls))
		for i, tc := range t.ToolCalls {
			tc.Name, tc.Output, tc.Error, tc.TS = r.String(tc.Name), r.String(tc.Output), r.String(tc.Error), r.String(tc.TS)
			tc.Args = r.JSON(tc.Args)
			c.ToolCalls[i] = tc
		}
	}
	if t.Messages != nil {
		c.Messages = make([]Message, len(t.Messages))
		for i, m := range t.Messages {
			c.Messages[i] = Message{Role: r.String(m.Role), Content: r.String(m.Content)}
		}
	}
	c.Answer, c.Diff, c.TestOutput = r.ptr(t.Answer), r.ptr(t.Diff), r.ptr(t.TestOutput)
	c.Raw = r.JSON(t.Raw)
	return &c
}

// JSON masks raw JSON text (tool arguments, a raw record). Masks land
// inside JSON strings, so valid JSON stays valid. When the text spells a
// secret with escapes ("\u0073k-…", the way the guard probe looks for a
// hidden sentinel), the canonical form, which decodes them, is masked
// instead: a reader then sees sorted keys, never the secret.
func (r *Redactor) JSON(raw []byte) []byte {
	if r == nil || len(raw) == 0 {
		return raw
	}
	out := r.Bytes(raw)
	if !strings.Contains(string(out), `\u`) && !strings.Contains(string(out), `\/`) {
		return out
	}
	canon, err := CanonicalJSON(out)
	if err != nil {
		return out
	}
	if masked := r.String(canon); masked != canon {
		return json.RawMessage(masked)
	}
	return out
}

func (r *Redactor) ptr(s *string) *string {
	if s == nil {
		return nil
	}
	v := r.String(*s)
	return &v
}

// Evidence returns e with its message and identifier masked. The guard
// probe's identifier is the sentinel itself, possibly clipped (so no
// longer a whole sentinel), and is masked whatever its length.
func (r *Redactor) Evidence(e Evidence) Evidence {
	if r == nil {
		return e
	}
	e.Message, e.File = r.String(e.Message), r.String(e.File)
	if e.Rule == TagLeaked && e.Ident != "" {
		e.Ident = redactPrefix + RedactSentinel + "]"
	} else {
		e.Ident = r.String(e.Ident)
	}
	return e
}

// Verdict returns a copy of v with its evidence and reason masked.
func (r *Redactor) Verdict(v *Verdict) *Verdict {
	if r == nil || v == nil {
		return v
	}
	c := *v
	c.Reason = r.String(v.Reason)
	c.Evidence = r.evidence(v.Evidence)
	c.Unevaluated = r.evidence(v.Unevaluated)
	return &c
}

func (r *Redactor) evidence(es []Evidence) []Evidence {
	if es == nil {
		return nil
	}
	out := make([]Evidence, len(es))
	for i, e := range es {
		out[i] = r.Evidence(e)
	}
	return out
}

// Event returns e with its note masked, and its verdict when it carries
// one. Reviewers paste trace text into notes.
func (r *Redactor) Event(e LabelEvent) LabelEvent {
	if r == nil {
		return e
	}
	e.Note = r.String(e.Note)
	e.Verdict = r.Verdict(e.Verdict)
	return e
}

// Events masks a history with Event, into a new slice.
func (r *Redactor) Events(es []LabelEvent) []LabelEvent {
	if r == nil || es == nil {
		return es
	}
	out := make([]LabelEvent, len(es))
	for i, e := range es {
		out[i] = r.Event(e)
	}
	return out
}
