package triage

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Decision says whether a verdict can be counted unattended.
type Decision string

// The decisions of a verdict.
const (
	DecisionCertain  Decision = "certain"
	DecisionLeftover Decision = "leftover"
)

// Evidence is one reason a rule fired (or could not be evaluated), with a
// pointer into the trace so a reviewer can jump to it.
type Evidence struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// ToolCall is the index of the tool call, or -1.
	ToolCall int `json:"tool_call"`
	// File and Line point into the diff (new-side line number), when set.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Ident is the offending identifier (an invented path, a file outside
	// the allowlist), so views can highlight it.
	Ident string `json:"ident,omitempty"`
	// RunLevel marks an unevaluated rule whose reason holds for the whole
	// run or task (no pack, no spec, no allowlist), not for this trace:
	// reports say it once for the run.
	RunLevel bool `json:"run_level,omitempty"`
}

// Verdict is what the rules decided for one trace.
type Verdict struct {
	Primary   string     `json:"primary"`
	Secondary []string   `json:"secondary"`
	Fired     []string   `json:"fired"`
	Evidence  []Evidence `json:"evidence"`
	Decision  Decision   `json:"decision"`
	// Reason says why a leftover goes to people.
	Reason string `json:"reason,omitempty"`
	// Unevaluated lists rules that lacked evidence, with why.
	Unevaluated     []Evidence `json:"unevaluated,omitempty"`
	Outcome         Outcome    `json:"outcome"`
	TaxonomyVersion string     `json:"taxonomy_version"`
	RulesVersion    string     `json:"rules_version"`
}

// LabelKind is what produced a label event.
type LabelKind string

// The kinds of label event. Undo retracts the same actor's latest live
// event on the trace; nothing is ever deleted.
const (
	KindRule         LabelKind = "rule"
	KindHuman        LabelKind = "human"
	KindAdjudication LabelKind = "adjudication"
	KindSkip         LabelKind = "skip"
	KindUndo         LabelKind = "undo"
)

// ActorRules is the actor name of rule verdicts.
const ActorRules = "rules"

// LabelEvent is one append-only event in a trace's label history.
type LabelEvent struct {
	ID              int64     `json:"id,omitempty"`
	TraceID         int64     `json:"-"`
	Actor           string    `json:"reviewer"`
	Kind            LabelKind `json:"kind"`
	Primary         string    `json:"primary"`
	Secondary       []string  `json:"secondary"`
	Note            string    `json:"note"`
	TaxonomyVersion string    `json:"taxonomy_version"`
	Slice           string    `json:"slice,omitempty"`
	// Cluster, when set, says the label was given to a whole cluster of
	// traces in one action, after a sample of it was read: it names the
	// cluster (its signature's name, as `triage clusters` shows it).
	// Each member still gets its own event.
	Cluster string `json:"cluster,omitempty"`
	// Verdict is set on rule events.
	Verdict   *Verdict  `json:"verdict,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// CheckText refuses a NUL character in any of the event's text fields
// (see NoNUL): both stores refuse it alike, so a copy between them fails
// naming the field rather than deep in PostgreSQL's write.
func (e *LabelEvent) CheckText() error {
	for _, f := range [...]struct{ name, v string }{{"reviewer", e.Actor}, {"primary", e.Primary}, {"note", e.Note},
		{"taxonomy_version", e.TaxonomyVersion}, {"slice", e.Slice}, {"cluster", e.Cluster}} {
		if err := NoNUL(f.name, f.v); err != nil {
			return err
		}
	}
	for i, s := range e.Secondary {
		if err := NoNUL(fmt.Sprintf("secondary[%d]", i), s); err != nil {
			return err
		}
	}
	return nil
}

// LabelSource says where a trace's current label comes from.
type LabelSource string

// Label sources in precedence order.
const (
	SourceAdjudicated LabelSource = "adjudicated"
	SourceHuman       LabelSource = "human"
	SourceRules       LabelSource = "rules"
	SourceNone        LabelSource = ""
)

// EventBefore orders label events as they happened: by created_at, so
// the current label is a function of the events and not of the order they
// reached a store (resolve took the highest row id as the latest and undo
// applied in id order: the same events imported in another order gave
// other reports). Equal stamps (stamps carry nanoseconds: only a crafted
// file or a frozen clock gives them) are ordered by what the events say,
// an undo after what it could retract; the row id decides only between
// events that are alike in all of that.
func EventBefore(a, b *LabelEvent) bool {
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c < 0
	}
	if c := cmpContent(a, b); c != 0 {
		return c < 0
	}
	return a.ID < b.ID
}

// cmpContent compares two events' content, undo last.
func cmpContent(a, b *LabelEvent) int {
	if ua, ub := a.Kind == KindUndo, b.Kind == KindUndo; ua != ub {
		if ua {
			return 1
		}
		return -1
	}
	for _, p := range [...][2]string{{string(a.Kind), string(b.Kind)}, {a.Actor, b.Actor}, {a.Primary, b.Primary}, {a.Note, b.Note},
		{a.TaxonomyVersion, b.TaxonomyVersion}, {a.Slice, b.Slice}, {a.Cluster, b.Cluster}} {
		if c := strings.Compare(p[0], p[1]); c != 0 {
			return c
		}
	}
	return slices.Compare(a.Secondary, b.Secondary)
}

// liveStack applies one actor's undos in time order (EventBefore): each
// retracts the actor's latest live event, whatever its kind. What remains
// is live.
func liveStack(events []LabelEvent) []*LabelEvent {
	order := make([]*LabelEvent, len(events))
	for i := range events {
		order[i] = &events[i]
	}
	slices.SortStableFunc(order, func(a, b *LabelEvent) int {
		switch {
		case EventBefore(a, b):
			return -1
		case EventBefore(b, a):
			return 1
		}
		return 0
	})
	var stack []*LabelEvent
	for _, e := range order {
		if e.Kind == KindUndo {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		stack = append(stack, e)
	}
	return stack
}

// CurrentLabel is one actor's latest live label or adjudication on one
// trace, or nil: skips are recorded but label nothing.
func CurrentLabel(events []LabelEvent) *LabelEvent {
	stack := liveStack(events)
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i].Kind != KindSkip {
			return stack[i]
		}
	}
	return nil
}

// LiveEvents is one actor's live human label and live adjudication on one
// trace (either may be nil), so an adjudicator's own review survives their
// adjudication and an undo can take either back.
func LiveEvents(events []LabelEvent) (human, adjudication *LabelEvent) {
	stack := liveStack(events)
	for i := len(stack) - 1; i >= 0 && (human == nil || adjudication == nil); i-- {
		switch stack[i].Kind {
		case KindHuman:
			if human == nil {
				human = stack[i]
			}
		case KindAdjudication:
			if adjudication == nil {
				adjudication = stack[i]
			}
		}
	}
	return human, adjudication
}
