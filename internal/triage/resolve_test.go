package triage

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLiveEventsAndCurrentLabel(t *testing.T) {
	t.Parallel()
	// Each event is made a second after the one before it.
	ev := func(id int64, k LabelKind, p string) LabelEvent {
		return LabelEvent{ID: id, Kind: k, Primary: p, CreatedAt: time.Unix(id, 0)}
	}
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
	ann := &LabelEvent{ID: 1, Kind: KindHuman, Primary: ToolLoop, CreatedAt: time.Unix(1, 0)}
	bob := &LabelEvent{ID: 2, Kind: KindHuman, Primary: Timeout, CreatedAt: time.Unix(2, 0)}
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

// TestCurrentLabelIsAFunctionOfTheEvents: the same events reaching a store
// in any order (so with row ids in any order) give the same live events
// and the same resolved label: the order is the events' created_at, and
// equal stamps are ordered by content, an undo after what it retracts.
// Before, undo applied in id order and resolve took the highest id as the
// latest, so an import in another order gave another report.
func TestCurrentLabelIsAFunctionOfTheEvents(t *testing.T) {
	t.Parallel()
	at := func(s int64) time.Time { return time.Unix(1_700_000_000+s, 0) }
	same := at(50)
	for _, tc := range []struct {
		name   string
		events []LabelEvent
		human  string
		adj    string
	}{
		{"relabel then undo", []LabelEvent{
			{Kind: KindHuman, Primary: ToolLoop, CreatedAt: at(1)},
			{Kind: KindHuman, Primary: Timeout, CreatedAt: at(2)},
			{Kind: KindHuman, Primary: ScorerRed, CreatedAt: at(3)},
			{Kind: KindUndo, CreatedAt: at(4)},
		}, Timeout, ""},
		{"adjudicate, undo, adjudicate", []LabelEvent{
			{Kind: KindHuman, Primary: ToolLoop, CreatedAt: at(1)},
			{Kind: KindAdjudication, Primary: Timeout, CreatedAt: at(2)},
			{Kind: KindUndo, CreatedAt: at(3)},
			{Kind: KindAdjudication, Primary: ScorerRed, CreatedAt: at(4)},
		}, ToolLoop, ScorerRed},
		{"equal stamps", []LabelEvent{
			{Kind: KindHuman, Primary: ToolLoop, CreatedAt: same},
			{Kind: KindHuman, Primary: Timeout, CreatedAt: same},
			{Kind: KindHuman, Primary: ScorerRed, CreatedAt: same},
			{Kind: KindUndo, CreatedAt: same},
		}, Timeout, ""}, // by content: SCORER_RED, TIMEOUT, TOOL_LOOP, undone
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := len(tc.events)
			perm := make([]int, n)
			for i := range perm {
				perm[i] = i
			}
			// Every arrival order: ids follow arrival.
			var walk func(k int)
			walk = func(k int) {
				if k == n {
					evs := make([]LabelEvent, n)
					for pos, i := range perm {
						evs[pos] = tc.events[i]
						evs[pos].ID = int64(pos + 1)
						evs[pos].Actor = "ann"
					}
					h, a := LiveEvents(evs)
					got := func(e *LabelEvent) string {
						if e == nil {
							return ""
						}
						return e.Primary
					}
					require.Equal(t, tc.human, got(h), "arrival order %v", perm)
					require.Equal(t, tc.adj, got(a), "arrival order %v", perm)
					return
				}
				for i := k; i < n; i++ {
					perm[k], perm[i] = perm[i], perm[k]
					walk(k + 1)
					perm[k], perm[i] = perm[i], perm[k]
				}
			}
			walk(0)
		})
	}
	// Two reviewers who disagree: the latest word shown is the latest
	// made, whichever row came last.
	ann := &LabelEvent{ID: 9, Actor: "ann", Kind: KindHuman, Primary: ToolLoop, CreatedAt: at(1)}
	bob := &LabelEvent{ID: 3, Actor: "bob", Kind: KindHuman, Primary: Timeout, CreatedAt: at(2)}
	f := Resolve(&LabelState{Humans: map[string]*LabelEvent{"ann": ann, "bob": bob}})
	require.Equal(t, Timeout, f.Primary)
}
