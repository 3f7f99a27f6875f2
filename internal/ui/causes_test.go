package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

// causeStore is a fake store whose decided traces have root causes; it
// records which ids each request asked for.
type causeStore struct {
	*fakeStore
	mu    sync.Mutex
	asked [][]int64
}

func (c *causeStore) RootCauses(_ context.Context, ids []int64) (map[int64]string, error) {
	c.mu.Lock()
	c.asked = append(c.asked, slices.Clone(ids))
	c.mu.Unlock()
	out := map[int64]string{}
	for _, id := range ids {
		out[id] = fmt.Sprintf("%s: cause of trace %d (step 4)", triage.ScorerRed, id)
	}
	return out, nil
}

// decidedFake is n traces the rules decided (no reason), but for the
// first, a leftover with its reason.
func decidedFake(n int) *causeStore {
	f := newFake(n)
	for i := range f.items {
		f.items[i].Suggestion, f.items[i].Reason = triage.ScorerRed, ""
	}
	f.items[0].Reason = "thrashing: 5 runs hit SyntaxError"
	return &causeStore{fakeStore: f}
}

// TestQueueWhyShowsRootCauses: a decided trace's why is the rules' root
// cause, without the class the rules column shows; a leftover's is its
// reason for coming to people. Only the rows on screen are asked for,
// each once, and scrolling asks for the rows that came into view.
func TestQueueWhyShowsRootCauses(t *testing.T) {
	t.Parallel()
	cs := decidedFake(60)
	m := startedOn(t, cs, testConfig(), 160, 20)
	v := m.View()
	require.Contains(t, v, "thrashing: 5 runs hit SyntaxError")
	require.Contains(t, v, "cause of trace 2 (step 4)")
	require.NotContains(t, v, "SCORER_RED: cause", "the class is the rules column's")
	require.Len(t, cs.asked, 1)
	require.NotContains(t, cs.asked[0], int64(1), "a leftover's why is its reason")
	require.Less(t, len(cs.asked[0]), 20, "only the rows on screen")

	m = press(t, m, "j", "k") // nothing new in view: nothing asked
	require.Len(t, cs.asked, 1)
	m = press(t, m, "G")
	require.Len(t, cs.asked, 2)
	require.Contains(t, cs.asked[1], int64(60))
	require.Contains(t, m.View(), "cause of trace 60 (step 4)")
}

// TestBlindQueueAsksForNoRootCauses: a blind review never fetches the
// rules' words, root causes included.
func TestBlindQueueAsksForNoRootCauses(t *testing.T) {
	t.Parallel()
	cs := decidedFake(5)
	for i := range cs.items {
		cs.items[i].Suggestion, cs.items[i].Reason = "", ""
	}
	cfg := testConfig()
	cfg.Blind, cfg.Slice = true, "s1"
	m := startedOn(t, cs, cfg, 160, 20)
	m = press(t, m, "j", "G")
	require.Empty(t, cs.asked)
	require.False(t, strings.Contains(m.View(), "cause of trace"))
}

// failingCauses is a store whose RootCauses always fails.
type failingCauses struct {
	*causeStore
	calls int
}

func (f *failingCauses) RootCauses(context.Context, []int64) (map[int64]string, error) {
	f.calls++
	return nil, errors.New("database is locked")
}

// TestFailingRootCausesAreAskedOnce: a failed request is said, and the
// rows it asked for are not asked again on every message after (settle
// would never end if they were).
func TestFailingRootCausesAreAskedOnce(t *testing.T) {
	t.Parallel()
	fc := &failingCauses{causeStore: decidedFake(30)}
	m := startedOn(t, fc, testConfig(), 160, 20)
	require.Equal(t, 1, fc.calls)
	require.Contains(t, m.View(), "root causes: database is locked")
	m = press(t, m, "j", "k")
	require.Equal(t, 1, fc.calls, "the rows on screen were asked for once")
	m = press(t, m, "G")
	require.Equal(t, 2, fc.calls, "rows that came into view are asked for")
	require.NotContains(t, m.View(), "cause of trace")
}
