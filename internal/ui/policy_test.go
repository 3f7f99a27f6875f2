package ui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/triage-dev/triage/internal/triage"
)

// TestSessionPolicies pins what each session policy says, and that the
// app takes its policy from the session it is started as or switched to.
func TestSessionPolicies(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		p       policy
		want    policy
		columns string
	}{
		{"review", reviewPolicy(), policy{title: "triage review", label: triage.KindHuman, labelWord: "label", noteWord: "note", noteTitle: "Note", yours: "yours ",
			empty: "Nothing to review: no leftovers here.", done: "labelled"},
			"task run model seed rules why yours others status"},
		{"blind", blindPolicy(), policy{title: "triage review", label: triage.KindHuman, labelWord: "label", noteWord: "note", noteTitle: "Note", yours: "yours ",
			empty: "Nothing to review: no leftovers here.", done: "labelled",
			blind: true, slice: true, noBulk: "bulk decisions are off in blind review: every trace is read and labelled on its own"},
			"task run model seed yours status"},
		{"adjudicate", adjudicatePolicy(), policy{title: "triage adjudicate", label: triage.KindAdjudication, labelWord: "final label", noteWord: "reason", noteTitle: "Reason", yours: "final ",
			empty: "No disagreements on this slice: nothing to settle.", done: "settled", reviewers: true, reason: true, slice: true, agreement: true,
			noBulk: "bulk decisions are off in adjudication: each settlement needs its own reason"},
			"task run seed reviewers final status"},
	} {
		p, cols := comparable(tt.p)
		require.Equal(t, tt.want, p, tt.name)
		require.Equal(t, tt.columns, cols, tt.name)
	}
	same := func(want, got policy) {
		t.Helper()
		w, wc := comparable(want)
		g, gc := comparable(got)
		require.Equal(t, w, g)
		require.Equal(t, wc, gc)
	}
	cfg := testConfig()
	same(reviewPolicy(), New(newFake(1), cfg).pol)
	cfg.Blind = true
	same(blindPolicy(), New(newFake(1), cfg).pol)
	same(adjudicatePolicy(), NewAdjudicate(newFakeAdj(t, 2), adjConfig()).pol)
	m := started(t, newFake(3), switchConfig(), 100, 30)
	m = press(t, m, ":", "slice", "enter")
	same(blindPolicy(), m.pol)
}

// comparable is p without its columns, and the columns' headers: a
// column's cell is a func, which does not compare.
func comparable(p policy) (policy, string) {
	var hs []string
	for _, c := range p.columns {
		hs = append(hs, c.header)
	}
	p.columns = nil
	return p, strings.Join(hs, " ")
}

// TestPolicyColumns checks the policies' column widths against the
// layout they replaced (the review's and the adjudication's hand-written
// width rules, kept here as the reference), at every width from the
// narrowest screen to a very wide one, with and without content widths.
func TestPolicyColumns(t *testing.T) {
	t.Parallel()
	for _, nat := range []colWidths{{}, {colTask: 4, colRun: 3, colModel: 7}, {colTask: 40, colRun: 6, colModel: 30}} {
		for w := minWidth; w <= 320; w++ {
			for _, blind := range []bool{false, true} {
				p := reviewPolicy()
				if blind {
					p = blindPolicy()
				}
				require.Equal(t, refReviewCols(w, blind, nat), layoutColumns(p.columns, w, nat), "review w=%d blind=%v %v", w, blind, nat)
			}
			require.Equal(t, refAdjudicateCols(w, nat), layoutColumns(adjudicatePolicy().columns, w, nat), "adjudicate w=%d %v", w, nat)
		}
	}
	// The reason takes what the caps leave; the reviewers stop at theirs.
	require.Equal(t, 166, layoutColumns(reviewPolicy().columns, 300, colWidths{})[colWhy])
	require.Equal(t, maxReviewersCol, layoutColumns(adjudicatePolicy().columns, 300, colWidths{})[colReviewers])
}

// refFit is the old fitCols: task, run and model shrink to their content
// and give the width saved to the reason (or the reviewers).
func refFit(c, nat colWidths, spare colID) colWidths {
	saved := 0
	for _, id := range []colID{colTask, colRun, colModel} {
		if nat[id] > 0 && nat[id]+1 < c[id] {
			saved += c[id] - (nat[id] + 1)
			c[id] = nat[id] + 1
		}
	}
	if c[spare] > 0 {
		c[spare] += saved
	}
	return c
}

// refReviewCols is the old computeLayout for a review.
func refReviewCols(w int, blind bool, nat colWidths) colWidths {
	var c colWidths
	c[colSeed], c[colStatus], c[colYours] = 5, 9, 15
	if !blind {
		c[colRules] = 15
	}
	rest := max(0, w-2-c[colSeed]-c[colStatus]-c[colYours]-c[colRules])
	if !blind && w >= wideQueue {
		c[colWhy] = rest * 3 / 10
		rest -= c[colWhy]
	}
	c[colTask] = min(rest*4/10, maxTaskCol)
	c[colRun] = min(rest*3/10, maxRunCol)
	c[colModel] = min(max(0, rest-c[colTask]-c[colRun]), maxModelCol)
	if c[colWhy] > 0 {
		c[colWhy] += rest - c[colTask] - c[colRun] - c[colModel]
	}
	return refFit(c, nat, colWhy)
}

// refAdjudicateCols is the old adjudicateCols with fitCols.
func refAdjudicateCols(w int, nat colWidths) colWidths {
	var c colWidths
	c[colSeed], c[colStatus], c[colYours] = 5, 9, 15
	rest := max(0, w-2-c[colSeed]-c[colStatus]-c[colYours])
	c[colTask] = min(rest*3/10, maxTaskCol)
	c[colRun] = min(rest*2/10, maxRunCol)
	c[colReviewers] = min(max(0, rest-c[colTask]-c[colRun]), maxReviewersCol)
	nat[colModel] = 0 // no model column
	return refFit(c, nat, colReviewers)
}
