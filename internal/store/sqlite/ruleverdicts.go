package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/triage-dev/triage/internal/triage"
)

// Rule verdicts are stored in rows of rule_verdicts (migration 0005), one
// row per INSERT of up to ruleEventBatch verdicts, instead of a
// label_events row each: a row and an index entry per verdict were a
// third of `import --rules`. What the verdicts of one row share (actor,
// versions, time) are its columns; labels holds what lists and reports
// read and evidence the rest:
//
//	labels:   labelsMagic, uvarint n, n × uvarint (trace − first_trace),
//	          strictly ascending; uvarint d, then d summaries, each five
//	          strings (primary, secondary tags as JSON, decision, reason,
//	          outcome) as uvarint length and bytes; then n × uvarint, each
//	          verdict's summary.
//	evidence: an S2 block of n entries in the layout of a trace chunk's
//	          (appendBodyEntry: the verdict's rest as JSON, then nil).
//
// A few hundred distinct summaries label a million traces, so labels
// costs about three bytes a verdict and reading every trace's verdict for
// a list or a report reads no evidence. A trace's current rule verdict is
// the one in the highest row that holds it; rule events written before
// the migration stay in label_events and are older than any row here.
const labelsMagic = 0xC2

// ruleSum is what a verdict shows in lists: its summary.
type ruleSum struct{ primary, sec, decision, reason, outcome string }

// verdictGroup is one rule_verdicts row encoded off the writing
// goroutine: everything but the trace ids, which an import learns only as
// it inserts the traces.
type verdictGroup struct {
	tail     []byte // labels after the ids: the summaries and each verdict's
	evidence []byte
}

// encodeGroup encodes the verdicts of one rule_verdicts row.
func encodeGroup(events []triage.LabelEvent, sc *scratch) (verdictGroup, error) {
	dict := map[ruleSum]uint64{}
	var sums []ruleSum
	which := make([]uint64, len(events))
	plain := sc.plain[:0]
	for i := range events {
		v := events[i].Verdict
		if v == nil {
			return verdictGroup{}, fmt.Errorf("rule event for trace %d has no verdict", events[i].TraceID)
		}
		sc.json = appendStrings(sc.json[:0], nonNil(v.Secondary))
		k := ruleSum{v.Primary, string(sc.json), string(v.Decision), v.Reason, string(v.Outcome)}
		d, ok := dict[k]
		if !ok {
			d = uint64(len(sums))
			dict[k] = d
			sums = append(sums, k)
		}
		which[i] = d
		sc.json = appendVerdictRest(sc.json[:0], v)
		plain = appendBodyEntry(plain, sc.json, nil)
	}
	sc.plain = plain
	tail := binary.AppendUvarint(nil, uint64(len(sums)))
	for _, s := range sums {
		for _, f := range [5]string{s.primary, s.sec, s.decision, s.reason, s.outcome} {
			tail = binary.AppendUvarint(tail, uint64(len(f)))
			tail = append(tail, f...)
		}
	}
	for _, d := range which {
		tail = binary.AppendUvarint(tail, d)
	}
	return verdictGroup{tail: tail, evidence: sc.compress(plain)}, nil
}

// labelsBlob puts the trace ids, strictly ascending, in front of a
// group's tail.
func labelsBlob(ids []int64, tail []byte) []byte {
	return append(idHeader(labelsMagic, ids, len(tail)), tail...)
}

// ruleLabels is a decoded labels blob.
type ruleLabels struct {
	traces []int64
	sums   []ruleSum
	which  []uint32 // traces[i]'s summary is sums[which[i]]
}

// labelTraces reads the trace ids of row's labels and returns what
// follows them.
func labelTraces(row, first int64, b []byte) ([]int64, []byte, error) {
	return readIDHeader(labelsMagic, fmt.Sprintf("rule verdicts %d have", row), first, b)
}

// decodeLabels decodes the labels blob of rule_verdicts row.
func decodeLabels(row, first int64, b []byte) (*ruleLabels, error) {
	ids, b, err := labelTraces(row, first, b)
	if err != nil {
		return nil, err
	}
	bad := func(what string) error {
		return fmt.Errorf("%w: rule verdicts %d have a bad %s", errCorruptChunk, row, what)
	}
	d, k := binary.Uvarint(b)
	if k <= 0 || d > uint64(len(b)) {
		return nil, bad("summary count")
	}
	b = b[k:]
	l := &ruleLabels{traces: ids, sums: make([]ruleSum, d), which: make([]uint32, len(ids))}
	for i := range l.sums {
		var f [5]string
		for j := range f {
			n, k := binary.Uvarint(b)
			if k <= 0 || n > uint64(len(b)-k) {
				return nil, bad("summary")
			}
			f[j] = string(b[k : k+int(n)])
			b = b[k+int(n):]
		}
		l.sums[i] = ruleSum{f[0], f[1], f[2], f[3], f[4]}
	}
	for i := range l.which {
		w, k := binary.Uvarint(b)
		if k <= 0 || w >= d {
			return nil, bad("summary index")
		}
		l.which[i] = uint32(w)
		b = b[k:]
	}
	if len(b) != 0 {
		return nil, bad("length")
	}
	return l, nil
}

// decodeEvidence unpacks the n verdict rests of an evidence block.
func decodeEvidence(row int64, n int, block []byte) ([][]byte, error) {
	plain, err := s2.Decode(nil, block)
	if err != nil {
		return nil, fmt.Errorf("%w: rule verdicts %d: %v", errCorruptChunk, row, err)
	}
	out := make([][]byte, n)
	for i := range out {
		for j := range 2 {
			l, k := binary.Uvarint(plain)
			if k <= 0 || l > uint64(len(plain)-k)+1 {
				return nil, fmt.Errorf("%w: rule verdicts %d: entry %d is cut short", errCorruptChunk, row, i)
			}
			plain = plain[k:]
			if l == 0 {
				continue
			}
			if j == 0 {
				out[i] = plain[: l-1 : l-1]
			}
			plain = plain[l-1:]
		}
	}
	if len(plain) != 0 {
		return nil, fmt.Errorf("%w: rule verdicts %d: %d bytes after the last entry", errCorruptChunk, row, len(plain))
	}
	return out, nil
}

// verdictRef is where a verdict is stored, and its event as lists see it
// (shared by every verdict with the same summary and row columns: copy
// before changing).
type verdictRef struct {
	row    int64
	pos, n int // the verdict's place in its row, and the row's verdicts
	ev     *triage.LabelEvent
}

// eventOf returns trace's own copy of a summary event.
func eventOf(trace int64, shared *triage.LabelEvent) *triage.LabelEvent {
	e := *shared
	e.TraceID = trace
	v := *e.Verdict
	e.Verdict = &v
	return &e
}

// ruleEvents makes the summary events of rule_verdicts rows, sharing one
// per distinct summary and row columns.
type ruleEvents map[ruleEventKey]*triage.LabelEvent

type ruleEventKey struct {
	ruleSum
	actor, taxV, rulesV, created string
}

func (re ruleEvents) get(actor, taxV, rulesV, created string, s ruleSum) *triage.LabelEvent {
	k := ruleEventKey{s, actor, taxV, rulesV, created}
	if e, ok := re[k]; ok {
		return e
	}
	sec := []string{}
	if s.sec != "" && s.sec != "[]" {
		_ = json.Unmarshal([]byte(s.sec), &sec)
		sec = slices.Clip(sec)
	}
	e := &triage.LabelEvent{Actor: actor, Kind: triage.KindRule, Primary: s.primary, Secondary: sec, TaxonomyVersion: taxV,
		CreatedAt: parseStamp(created),
		Verdict: &triage.Verdict{Primary: s.primary, Secondary: sec, Decision: triage.Decision(s.decision), Reason: s.reason,
			Outcome: triage.Outcome(s.outcome), TaxonomyVersion: taxV, RulesVersion: rulesV}}
	re[k] = e
	return e
}

// eachRuleVerdict calls fn for every verdict in rule_verdicts on a trace
// in lo..hi, in row order: when a trace has several, the last call is its
// current one.
func eachRuleVerdict(ctx context.Context, q querier, lo, hi int64, fn func(trace int64, ref verdictRef)) error {
	if hi < lo {
		return nil
	}
	rows, err := q.QueryContext(ctx, `SELECT id, first_trace, actor, taxonomy_version, rules_version, created_at, labels
		FROM rule_verdicts WHERE last_trace >= ? AND first_trace <= ? ORDER BY id`, lo, hi)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	events := ruleEvents{}
	var shared []*triage.LabelEvent
	for rows.Next() {
		var row, first int64
		var actor, taxV, rulesV, created string
		var labels sql.RawBytes
		if err := rows.Scan(&row, &first, &actor, &taxV, &rulesV, &created, &labels); err != nil {
			return mapErr(err)
		}
		l, err := decodeLabels(row, first, labels)
		if err != nil {
			return err
		}
		shared = shared[:0]
		for _, s := range l.sums {
			shared = append(shared, events.get(actor, taxV, rulesV, created, s))
		}
		for i, t := range l.traces {
			if t >= lo && t <= hi {
				fn(t, verdictRef{row: row, pos: i, n: len(l.traces), ev: shared[l.which[i]]})
			}
		}
	}
	return mapErr(rows.Err())
}

// ruleOverlay holds the current chunked rule verdict of every trace in
// lo..hi, a pointer a trace (8 MB for a million): lists and reports walk
// traces in id order and look each one up.
type ruleOverlay struct {
	lo int64
	at []*triage.LabelEvent
}

func loadRuleOverlay(ctx context.Context, q querier, lo, hi int64) (*ruleOverlay, error) {
	o := &ruleOverlay{lo: lo}
	err := eachRuleVerdict(ctx, q, lo, hi, func(trace int64, ref verdictRef) {
		if o.at == nil {
			o.at = make([]*triage.LabelEvent, hi-lo+1)
		}
		o.at[trace-lo] = ref.ev
	})
	return o, err
}

// get returns trace's current chunked verdict as a shared event, nil
// when it has none.
func (o *ruleOverlay) get(trace int64) *triage.LabelEvent {
	if o == nil || trace < o.lo || trace-o.lo >= int64(len(o.at)) {
		return nil
	}
	return o.at[trace-o.lo]
}

// traceRange returns the lowest and highest trace id of run (of every
// run when it is empty); hi < lo when there is none.
func traceRange(ctx context.Context, q querier, runID string) (lo, hi int64, err error) {
	// Each bound its own subquery: SQLite reads a lone min or max of the
	// rowid off the b-tree's end, but min and max together (or wrapped in
	// coalesce) scan every trace, 12-22 ms at 100k under load, before
	// each first page of the queue and each report.
	query, args := `SELECT coalesce((SELECT min(id) FROM traces), 1), coalesce((SELECT max(id) FROM traces), 0)`, []any(nil)
	if runID != "" {
		query, args = `SELECT coalesce(min(id), 1), coalesce(max(id), 0) FROM traces WHERE run_id = ?`, []any{runID}
	}
	err = q.QueryRowContext(ctx, query, args...).Scan(&lo, &hi)
	return lo, hi, mapErr(err)
}

// inRun is the condition that keeps the traces of run (between lo and
// hi, its traceRange) in a query that walks traces in id order, with the
// traces table's alias prefix ("t." or ""). The id range lets SQLite walk
// the table from the run's first trace to its last; `run_id = ?` alone
// walks the (run, task, seed) index and sorts every row by id before the
// first comes back (0.37 s of `report` on 100k traces). The unary plus
// keeps SQLite from choosing that index anyway.
func inRun(prefix string, lo, hi int64, runID string) (string, []any) {
	return prefix + `id BETWEEN ? AND ? AND +` + prefix + `run_id = ?`, []any{lo, hi, runID}
}

// idRange returns the lowest and highest of ids; hi < lo when empty.
func idRange(ids []int64) (lo, hi int64) {
	if len(ids) == 0 {
		return 1, 0
	}
	return slices.Min(ids), slices.Max(ids)
}

// legacyRuleEvents reports whether label_events holds rule verdicts
// (stores labelled before migration 0005), so that readers skip looking
// for them in stores that have none.
func legacyRuleEvents(ctx context.Context, q querier) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM label_events WHERE kind = 'rule')`).Scan(&n)
	return n == 1, mapErr(err)
}

// chunkedVerdicts completes the current chunked verdicts of traces with
// their evidence, reading each row's evidence once.
func chunkedVerdicts(ctx context.Context, q querier, traces []int64) (map[int64]*triage.Verdict, error) {
	want := make(map[int64]bool, len(traces))
	for _, t := range traces {
		want[t] = true
	}
	lo, hi := idRange(traces)
	refs := map[int64]verdictRef{}
	if err := eachRuleVerdict(ctx, q, lo, hi, func(trace int64, ref verdictRef) {
		if want[trace] {
			refs[trace] = ref
		}
	}); err != nil {
		return nil, err
	}
	byRow := map[int64][]int64{}
	for t, ref := range refs {
		byRow[ref.row] = append(byRow[ref.row], t)
	}
	out := make(map[int64]*triage.Verdict, len(refs))
	for row, ts := range byRow {
		var block []byte
		if err := q.QueryRowContext(ctx, `SELECT evidence FROM rule_verdicts WHERE id = ?`, row).Scan(&block); err != nil {
			return nil, mapErr(err)
		}
		rests, err := decodeEvidence(row, refs[ts[0]].n, block)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			ref := refs[t]
			v := eventOf(t, ref.ev).Verdict
			if err := fillRest(v, rests[ref.pos]); err != nil {
				return nil, fmt.Errorf("verdict of trace %d: %w", t, err)
			}
			out[t] = v
		}
	}
	return out, nil
}

// fillRest sets what a verdict holds beyond its summary from its JSON.
func fillRest(v *triage.Verdict, body []byte) error {
	if len(body) == 0 {
		return nil
	}
	rest, err := decodeVerdictRest(body)
	if err != nil {
		return err
	}
	v.Fired, v.Evidence, v.Unevaluated = rest.Fired, rest.Evidence, rest.Unevaluated
	return nil
}

// appendRuleEvent stores one rule event as a rule_verdicts row of its own
// (AppendLabel and AppendLabels; `rules run` writes hundreds a row).
func appendRuleEvent(ctx context.Context, tx *sql.Tx, e *triage.LabelEvent) error {
	_, err := appendRuleEvents(ctx, tx, []triage.LabelEvent{*e}, nil)
	return err
}

// appendRuleEvents stores the rule events that start events as one
// rule_verdicts row: as many as share its actor, versions and time, with
// trace ids ascending, up to ruleEventBatch. It returns how many it
// stored (at least one). now stamps an event with no time (nil: none
// lacks one).
func appendRuleEvents(ctx context.Context, tx *sql.Tx, events []triage.LabelEvent, now func() time.Time) (int, error) {
	first := &events[0]
	n := 0
	for n < len(events) && n < ruleEventBatch {
		e := &events[n]
		if e.Kind != triage.KindRule {
			break
		}
		if e.CreatedAt.IsZero() && now != nil {
			e.CreatedAt = now()
		}
		v := e.Verdict
		if v == nil {
			return 0, fmt.Errorf("rule event for trace %d has no verdict", e.TraceID)
		}
		if e.TaxonomyVersion != "" && e.TaxonomyVersion != v.TaxonomyVersion {
			return 0, fmt.Errorf("rule event for trace %d: taxonomy version %q, its verdict's %q", e.TraceID, e.TaxonomyVersion, v.TaxonomyVersion)
		}
		if n > 0 && (e.Actor != first.Actor || v.TaxonomyVersion != first.Verdict.TaxonomyVersion || v.RulesVersion != first.Verdict.RulesVersion ||
			!e.CreatedAt.Equal(first.CreatedAt) || e.TraceID <= events[n-1].TraceID) {
			break
		}
		n++
	}
	group := events[:n]
	exists, err := tx.PrepareContext(ctx, `SELECT count(*) FROM traces WHERE id = ?`)
	if err != nil {
		return 0, mapErr(err)
	}
	defer exists.Close()
	for i := range group {
		var c int
		if err := exists.QueryRowContext(ctx, group[i].TraceID).Scan(&c); err != nil {
			return 0, mapErr(err)
		}
		if c == 0 {
			return 0, fmt.Errorf("rule event for trace %d: %w", group[i].TraceID, ErrNotFound)
		}
	}
	g, err := encodeGroup(group, &scratch{})
	if err != nil {
		return 0, err
	}
	v := first.Verdict
	w := newVerdictWriter(tx, first.Actor, v.TaxonomyVersion, v.RulesVersion, first.CreatedAt.UTC().Format(time.RFC3339Nano))
	defer w.close()
	if err := w.write(ctx, labelled{events: group, groups: []verdictGroup{g}}); err != nil {
		return 0, err
	}
	return n, nil
}

// ruleHistory returns the chunked rule events on trace, oldest first.
func ruleHistory(ctx context.Context, q querier, trace int64, actor string) ([]triage.LabelEvent, error) {
	var out []triage.LabelEvent
	err := eachRuleVerdict(ctx, q, trace, trace, func(t int64, ref verdictRef) {
		if actor == "" || ref.ev.Actor == actor {
			out = append(out, *eventOf(t, ref.ev))
		}
	})
	return out, err
}
