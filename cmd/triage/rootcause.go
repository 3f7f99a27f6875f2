package main

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/signature"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// rootCauseBatch is how many rows rootCauses holds while it reads their
// verdicts' evidence.
const rootCauseBatch = 512

// rootCauses fills traces rows' root cause (triage.RootCause) from the
// rules' full verdicts, which the streamed label states do not carry: it
// holds up to rootCauseBatch rows, reads their verdicts in one query on a
// second connection (the stream holds the first) and passes them on in
// order, so the list still streams.
type rootCauses struct {
	ctx  context.Context
	db   store.Store
	emit func(traceRow) error
	rows []traceRow
	ids  []int64 // ids[i] is rows[i]'s trace, 0 when the rules never ran on it
}

func newRootCauses(ctx context.Context, db store.Store, emit func(traceRow) error) *rootCauses {
	db.AllowConcurrentReads(2)
	return &rootCauses{ctx: ctx, db: db, emit: emit}
}

// add queues r, the row of trace id; ruled says the rules labelled it.
func (c *rootCauses) add(r traceRow, id int64, ruled bool) error {
	if !ruled {
		id = 0
	}
	c.rows, c.ids = append(c.rows, r), append(c.ids, id)
	if len(c.rows) < rootCauseBatch {
		return nil
	}
	return c.flush()
}

// flush passes the queued rows on with their root causes.
func (c *rootCauses) flush() error {
	if len(c.rows) == 0 {
		return nil
	}
	want := make([]int64, 0, len(c.ids))
	for _, id := range c.ids {
		if id != 0 {
			want = append(want, id)
		}
	}
	var vs map[int64]*triage.Verdict
	if len(want) > 0 {
		var err error
		if vs, err = c.db.Verdicts(c.ctx, want); err != nil {
			return err
		}
	}
	for i := range c.rows {
		if c.ids[i] != 0 {
			c.rows[i].RootCause = triage.RootCause(vs[c.ids[i]])
		}
		if err := c.emit(c.rows[i]); err != nil {
			return err
		}
	}
	c.rows, c.ids = c.rows[:0], c.ids[:0]
	return nil
}

// rootCauseCell is the width of the traces table's root cause column.
const rootCauseCell = 90

// clipCell cuts a cell to n runes, marking the cut.
func clipCell(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// causeTemplate is a root cause line with its volatile details
// normalised (signature.Template), whole: a template cut at its 160 bytes
// ("…") is made again piece by piece, the line split at its clauses ("; ",
// then ": ", then ", ", then spaces, as far as a piece needs) and each
// piece templated on its own, so the report's JSON carries the whole cause
// (issue 29: 2 of the real logs' 10 causes ended in "…").
func causeTemplate(line string) string {
	return templateWhole(line, []string{"; ", ": ", ", ", " "})
}

func templateWhole(s string, seps []string) string {
	t := signature.Template(s)
	if !strings.HasSuffix(t, "…") {
		return t
	}
	for i, sep := range seps {
		if !strings.Contains(s, sep) {
			continue
		}
		parts := strings.Split(s, sep)
		for j, p := range parts {
			parts[j] = templateWhole(p, seps[i+1:])
		}
		return strings.Join(parts, sep)
	}
	return t // One word past 160 bytes: cut, as a word of it is all it says.
}

// maxTemplateCache bounds the root cause lines reportRootCauses keeps
// the template of.
const maxTemplateCache = 1 << 16

// failingRefs are the failing traces the rules labelled (ids and
// RUN/TASK#SEED keys, in the store's order), gathered while the report's
// tally reads the label states (cardRead.failing).
type failingRefs struct {
	ids  []int64
	keys []string
}

// reportRootCauses groups the root causes of the failing traces (a
// current label other than a pass, labelled by the rules) for the
// report: each triage.RootCause line with its volatile details normalised
// (signature.Template), largest first, with a few of its traces and,
// when allKeys (the report screen opens them), all of them. It reads the verdicts' evidence a batch at a time;
// the traces were gathered in the tally's pass, so the label states are
// read once.
func (a *app) reportRootCauses(ctx context.Context, failing *failingRefs, redact, allKeys bool) ([]card.RootCauseGroup, error) {
	if len(failing.ids) == 0 {
		return []card.RootCauseGroup{}, nil
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rd, err := a.storeRedactor(ctx, db, redact)
	if err != nil {
		return nil, err
	}
	ids, keys := failing.ids, failing.keys
	groups := map[string]*card.RootCauseGroup{}
	// Root cause lines repeat (the same claim at the same step), so
	// their templates are remembered, up to a bound.
	templates := map[string]string{}
	const batch = 1024
	for lo := 0; lo < len(ids); lo += batch {
		hi := min(lo+batch, len(ids))
		vs, err := db.Verdicts(ctx, ids[lo:hi])
		if err != nil {
			return nil, err
		}
		for i := lo; i < hi; i++ {
			line := triage.RootCause(vs[ids[i]])
			if line == "" {
				continue
			}
			cause, ok := templates[line]
			if !ok {
				cause = rd.String(causeTemplate(line))
				if len(templates) < maxTemplateCache {
					templates[line] = cause
				}
			}
			g := groups[cause]
			if g == nil {
				g = &card.RootCauseGroup{Cause: cause}
				groups[cause] = g
			}
			g.Count++
			// Every trace, for the report screen to open (the report's
			// Redactor masks them with the rest); a few are examples.
			// A written report names only the examples: a key a failing
			// trace is 16 MB on a million.
			if allKeys {
				g.Keys = append(g.Keys, keys[i])
			}
			if len(g.Traces) < 3 {
				g.Traces = append(g.Traces, rd.String(keys[i]))
			}
		}
	}
	out := make([]card.RootCauseGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(x, y card.RootCauseGroup) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), strings.Compare(x.Cause, y.Cause))
	})
	return out, nil
}
