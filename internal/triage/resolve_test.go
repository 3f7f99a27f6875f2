package triage

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLiveEventsAndCurrentLabel(t *testing.T) {
	t.Parallel()
	ev := func(id int64, k LabelKind, p string) LabelEvent { return LabelEvent{ID: id, Kind: k, Primary: p} }
	cases := []struct {
		name       string
		events     []LabelEvent
		human, adj string
		current    string
	}{
		{"nothing", nil, "", "", ""},
		{"one label", []LabelEvent{ev(1, KindHuman, ToolLoop)}, ToolLoop, "", ToolLoop},
		{"relabel", []LabelEvent{ev(1, KindHuman, ToolLoop), ev(2, KindHuman, Timeout)}, Timeout, "", Timeout},
		{"undo", []LabelEvent{ev(1, KindHuman, ToolLoop), ev(2, KindHuman, Timeout), ev(3, KindUndo, "")}, ToolLoop, "", ToolLoop},
		{"undo everything", []LabelEvent{ev(1, KindHuman, ToolLoop), ev(2, KindUndo, ""), ev(3, KindUndo, "")}, "", "", ""},
		{"skip hides nothing", []LabelEvent{ev(1, KindHuman, ToolLoop), ev(2, KindSkip, "")}, ToolLoop, "", ToolLoop},
		{"review then adjudicate", []LabelEvent{ev(1, KindHuman, ScorerRed), ev(2, KindAdjudication, ToolLoop)}, ScorerRed, ToolLoop, ToolLoop},
		{"undo the adjudication", []LabelEvent{ev(1, KindHuman, ScorerRed), ev(2, KindAdjudication, ToolLoop), ev(3, KindUndo, "")}, ScorerRed, "", ScorerRed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, a := LiveEvents(tc.events)
			got := func(e *LabelEvent) string {
				if e == nil {
					return ""
				}
				return e.Primary
			}
			require.Equal(t, tc.human, got(h))
			require.Equal(t, tc.adj, got(a))
			require.Equal(t, tc.current, got(CurrentLabel(tc.events)))
		})
	}
}

func TestResolvePrecedence(t *testing.T) {
	t.Parallel()
	rule := &LabelEvent{Kind: KindRule, Primary: ScorerRed, Verdict: &Verdict{Decision: DecisionLeftover, Reason: "why"}}
	certain := &LabelEvent{Kind: KindRule, Primary: PassContract, Verdict: &Verdict{Decision: DecisionCertain}}
	ann := &LabelEvent{ID: 1, Kind: KindHuman, Primary: ToolLoop}
	bob := &LabelEvent{ID: 2, Kind: KindHuman, Primary: Timeout}
	bobAgrees := &LabelEvent{ID: 2, Kind: KindHuman, Primary: ToolLoop}
	adj := &LabelEvent{ID: 3, Kind: KindAdjudication, Primary: AssumeAPI}

	f := Resolve(&LabelState{Rule: certain})
	require.Equal(t, Final{Primary: PassContract, Source: SourceRules, Decision: DecisionCertain}, f)
	f = Resolve(&LabelState{Rule: rule})
	require.True(t, f.Unresolved)
	require.Equal(t, "why", f.Reason)
	f = Resolve(&LabelState{Rule: rule, Humans: map[string]*LabelEvent{"ann": ann}})
	require.Equal(t, SourceHuman, f.Source)
	require.False(t, f.Unresolved, "a single human label settles a rules leftover")
	f = Resolve(&LabelState{Rule: rule, Humans: map[string]*LabelEvent{"ann": ann, "bob": bob}})
	require.True(t, f.Unresolved, "disagreeing reviewers need an adjudication")
	require.Equal(t, Timeout, f.Primary, "the latest human word is shown meanwhile")
	f = Resolve(&LabelState{Rule: rule, Humans: map[string]*LabelEvent{"ann": ann, "bob": bobAgrees}})
	require.False(t, f.Unresolved)
	require.Equal(t, ToolLoop, f.Primary)
	f = Resolve(&LabelState{Rule: rule, Humans: map[string]*LabelEvent{"ann": ann, "bob": bob}, Adjudication: adj})
	require.Equal(t, Final{Primary: AssumeAPI, Source: SourceAdjudicated}, f)
	require.True(t, Resolve(nil).Unresolved)
}
