package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// AppendLabels writes a run of rule events (a store copy's verdicts) as
// rule_verdicts rows of up to 256, as rules run does, not a row each: 600
// verdicts of one time are 3 rows; a change of time, a trace id that does
// not ascend, or a person's event between them starts a new row. Every
// verdict reads back as written, and a verdict on no stored trace is
// refused by its id with nothing written.
func TestAppendLabelsGroupsRuleEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	var ts []*triage.Trace
	for i := range 700 {
		ts = append(ts, trace("r", fmt.Sprintf("T%03d", i), 0, fmt.Sprint(i)))
	}
	importAll(t, db, ts...)
	rng := rand.New(rand.NewPCG(1, 2))
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rule := func(id int64, when time.Time) triage.LabelEvent {
		v := randomVerdict(rng)
		v.TaxonomyVersion, v.RulesVersion = "tv", "4"
		v.Secondary = nonNil(v.Secondary) // the store gives back [] for none
		return triage.LabelEvent{TraceID: id, Actor: triage.ActorRules, Kind: triage.KindRule, Primary: v.Primary,
			Secondary: v.Secondary, TaxonomyVersion: "tv", Verdict: v, CreatedAt: when}
	}
	rows := func() int {
		var n int
		require.NoError(t, db.db.QueryRowContext(ctx, `SELECT count(*) FROM rule_verdicts`).Scan(&n))
		return n
	}
	var events []triage.LabelEvent
	for id := int64(1); id <= 600; id++ {
		events = append(events, rule(id, at))
	}
	n, err := db.AppendLabels(ctx, events)
	require.NoError(t, err)
	require.Equal(t, 600, n)
	require.Equal(t, 3, rows())

	more := []triage.LabelEvent{rule(601, at), rule(602, at.Add(time.Second)), rule(603, at.Add(time.Second)), rule(650, at.Add(time.Second)), rule(640, at.Add(time.Second)),
		{TraceID: 641, Actor: "ana", Kind: triage.KindHuman, Primary: triage.Timeout, TaxonomyVersion: "tv", CreatedAt: at}, rule(642, at.Add(time.Second))}
	n, err = db.AppendLabels(ctx, more)
	require.NoError(t, err)
	require.Equal(t, 7, n)
	require.Equal(t, 3+4, rows(), "601 | 602 603 650 | 640 | (ana's event is no verdict row) | 642")

	ids := []int64{1, 256, 257, 600, 601, 603, 650, 640, 642}
	got, err := db.Verdicts(ctx, ids)
	require.NoError(t, err)
	want := map[int64]*triage.Verdict{}
	for _, e := range append(events, more...) {
		if e.Kind == triage.KindRule {
			want[e.TraceID] = e.Verdict
		}
	}
	for _, id := range ids {
		// As JSON: the store keeps text, so invalid UTF-8 comes back as
		// U+FFFD, as json.Marshal writes it.
		w, err := json.Marshal(want[id])
		require.NoError(t, err)
		g, err := json.Marshal(got[id])
		require.NoError(t, err)
		require.JSONEq(t, string(w), string(g), "trace %d", id)
	}

	_, err = db.AppendLabels(ctx, []triage.LabelEvent{rule(690, at), rule(9999, at)})
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorContains(t, err, "trace 9999")
	require.Equal(t, 7, rows(), "nothing of the refused batch is written")
}
