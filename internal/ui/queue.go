package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// sortKey is a queue order.
type sortKey int

const (
	sortQueue sortKey = iota
	sortTask
	sortModel
	sortStatus
	sortRules
	numSorts
)

func (s sortKey) String() string {
	return [...]string{"queue order", "task", "model", "status", "rules' class"}[s]
}

// queueModel is the list of items with its filter, order and cursor. It
// renders only the visible window, so 100,000 items cost what 30 do.
type queueModel struct {
	all    []QueueItem
	byID   map[int64]int
	view   []int // indices into all, filtered and sorted
	cursor int   // index into view
	offset int
	height int
	loaded bool
	filter string
	sortBy sortKey
	// partial is set while the first page stands in for the whole queue;
	// touched are the items the reviewer wrote a label event for
	// meanwhile (see touch), whose state here may be newer than the whole
	// queue's read, and moved says the reviewer has moved the cursor,
	// which the whole queue must keep.
	partial bool
	touched map[int64]bool
	moved   bool
	// marks are the traces marked for a bulk decision.
	marks marks
	// only, when set, is a drill-down: the view shows these traces (by
	// key) and no other, under the filter; onlyTitle says what they are.
	only      map[string]bool
	onlyTitle string
	// ahead is what the queue's own order puts first (clusteract.go).
	ahead queueAhead
}

// appendKey appends the item's key, RUN/TASK#SEED as QueueItem.Key
// formats it, to b.
func appendKey(b []byte, it *QueueItem) []byte {
	b = append(b, it.RunID...)
	b = append(b, '/')
	b = append(b, it.TaskID...)
	b = append(b, '#')
	return strconv.AppendInt(b, int64(it.Seed), 10)
}

// setOnly opens a drill-down: the view shows only the traces keys names
// (nil: every trace again). The filter is cleared, and so are marks.
func (q *queueModel) setOnly(title string, keys []string, blind bool) {
	q.only, q.onlyTitle = nil, ""
	if keys != nil {
		q.only = make(map[string]bool, len(keys))
		for _, k := range keys {
			q.only[k] = true
		}
		q.onlyTitle = title
	}
	q.clearMarks()
	q.filter = ""
	_ = q.apply("", blind)
	q.moveTo(0)
}

// setItems replaces the items and puts the cursor where this reviewer
// stopped: the first item not yet labelled or skipped.
func (q *queueModel) setItems(items []QueueItem, blind bool) {
	q.all = items
	// The old view indexes the old items: apply must not read it.
	q.view = q.view[:0]
	q.byID = make(map[int64]int, len(items))
	for i := range q.all {
		it := &q.all[i]
		if blind { // Defence in depth: the adapter should not send these.
			it.Suggestion, it.Reason, it.Rules = "", "", nil
		}
		if it.Status == "" {
			it.Status = StatusTodo
			if it.Primary != "" {
				it.Status = StatusLabelled
			}
		}
		q.byID[it.TraceID] = i
	}
	q.loaded = true
	_ = q.apply(q.filter, blind)
	// Resume at the first item still to do, else the first one skipped.
	q.cursor = 0
	skipped := -1
	for i, idx := range q.view {
		if st := q.all[idx].Status; st == StatusTodo {
			skipped = -1
			q.cursor = i
			break
		} else if st == StatusSkipped && skipped < 0 {
			skipped = i
		}
	}
	if skipped >= 0 {
		q.cursor = skipped
	}
	q.clamp()
}

// apply sets the filter and rebuilds the view, keeping the cursor on the
// same item when it is still visible.
func (q *queueModel) apply(filter string, blind bool) error {
	f, err := parseFilter(filter, blind)
	if err != nil {
		return err
	}
	var keep int64 = -1
	if it := q.current(); it != nil {
		keep = it.TraceID
	}
	if filter != q.filter {
		// Marks are made on what the view shows: a new filter starts over,
		// so a bulk decision never reaches a trace the reviewer cannot see.
		q.clearMarks()
	}
	q.filter = filter
	q.view = q.view[:0]
	var key []byte
	for i := range q.all {
		it := &q.all[i]
		if q.only != nil {
			// The key built in a reused buffer, and looked up without a
			// copy: a drill-down over 100k items allocates nothing per
			// item.
			key = appendKey(key[:0], it)
			if !q.only[string(key)] {
				continue
			}
		}
		if f.match(it) {
			q.view = append(q.view, i)
		}
	}
	q.sort()
	q.cursor = 0
	for i, idx := range q.view {
		if q.all[idx].TraceID == keep {
			q.cursor = i
		}
	}
	q.clamp()
	return nil
}

// cycleSort moves to the next order; the rules' order is skipped in blind
// mode because it would reveal the verdict.
func (q *queueModel) cycleSort(blind bool) {
	q.sortBy = (q.sortBy + 1) % numSorts
	if blind && q.sortBy == sortRules {
		q.sortBy = (q.sortBy + 1) % numSorts
	}
	_ = q.apply(q.filter, blind)
}

func (q *queueModel) sort() {
	key := func(it *QueueItem) string {
		switch q.sortBy {
		case sortTask:
			return it.TaskID
		case sortModel:
			return it.Model
		case sortStatus:
			return string(it.Status)
		case sortRules:
			return it.Suggestion
		}
		return ""
	}
	if q.sortBy == sortQueue {
		slices.Sort(q.view)
		q.sortAhead()
		return
	}
	slices.SortStableFunc(q.view, func(a, b int) int {
		x, y := &q.all[a], &q.all[b]
		if c := strings.Compare(key(x), key(y)); c != 0 {
			return c
		}
		if q.sortBy == sortTask {
			// A task's seeds in number order (1, 2, 10), run by run.
			if c := strings.Compare(x.RunID, y.RunID); c != 0 {
				return c
			}
			if x.Seed != y.Seed {
				return x.Seed - y.Seed
			}
		}
		return a - b
	})
}

func (q *queueModel) setHeight(h int) { q.height = h; q.clamp() }

// current is the item under the cursor, or nil.
func (q *queueModel) current() *QueueItem {
	if q.cursor < 0 || q.cursor >= len(q.view) {
		return nil
	}
	return &q.all[q.view[q.cursor]]
}

// item returns the item of a trace, or nil.
func (q *queueModel) item(id int64) *QueueItem {
	if i, ok := q.byID[id]; ok {
		return &q.all[i]
	}
	return nil
}

// touch records that a label event for the trace is on its way to the
// store: while the first page shows, the whole queue's read may predate
// it, so setWhole keeps this item's state.
func (q *queueModel) touch(id int64) {
	if q.partial {
		q.touched[id] = true
	}
}

// setFirstPage shows the first page of the queue while the rest loads.
func (q *queueModel) setFirstPage(items []QueueItem, blind bool) {
	q.setItems(items, blind)
	q.partial, q.touched, q.moved = true, map[int64]bool{}, false
}

// setWhole replaces the first page by the whole queue. Items the reviewer
// labelled on the first page keep their state there (a label written while
// the whole queue was being read may be missing from it), and a cursor
// the reviewer moved stays on its item.
func (q *queueModel) setWhole(items []QueueItem, blind bool) {
	if !q.partial {
		q.setItems(items, blind)
		return
	}
	var keep int64
	if cur := q.current(); cur != nil && q.moved {
		keep = cur.TraceID
	}
	local := map[int64]QueueItem{}
	for id := range q.touched {
		if i, ok := q.byID[id]; ok {
			local[id] = q.all[i]
		}
	}
	for i := range items {
		if it, ok := local[items[i].TraceID]; ok {
			items[i].Primary, items[i].Secondary, items[i].Note, items[i].Status = it.Primary, it.Secondary, it.Note, it.Status
		}
	}
	q.partial, q.touched, q.moved = false, nil, false
	q.setItems(items, blind)
	if keep != 0 {
		for vi, idx := range q.view {
			if q.all[idx].TraceID == keep {
				q.moveTo(vi)
				break
			}
		}
	}
}

// lastNote tells the reviewer they reached the end of the view, which on
// the first page is not the end of the queue.
func (q *queueModel) lastNote() string {
	if q.partial {
		return "last trace loaded so far: the rest of the queue is loading"
	}
	return "last trace of the queue"
}

// move shifts the cursor by d and reports whether it moved.
func (q *queueModel) move(d int) bool {
	old := q.cursor
	q.cursor += d
	q.clamp()
	return q.cursor != old
}

func (q *queueModel) moveTo(i int) { q.cursor = i; q.clamp() }

// nextToDo is the view index of the first item still to do after the
// cursor, wrapping to the top; failing that the first skipped one after
// it; -1 when every item is labelled. On the first page it does not wrap:
// the items still to do may be in the rest of the queue, still loading.
func (q *queueModel) nextToDo() int {
	n := len(q.view)
	skipped := -1
	for k := 1; k <= n; k++ {
		i := (q.cursor + k) % n
		if q.partial && i <= q.cursor {
			break
		}
		switch q.all[q.view[i]].Status {
		case StatusTodo:
			return i
		case StatusSkipped:
			if skipped < 0 && i != q.cursor {
				skipped = i
			}
		}
	}
	return skipped
}

// moveToID puts the cursor on a trace's item when the view shows it.
func (q *queueModel) moveToID(id int64) {
	for vi, idx := range q.view {
		if q.all[idx].TraceID == id {
			q.moveTo(vi)
			return
		}
	}
}

func (q *queueModel) clamp() {
	q.cursor = max(0, min(q.cursor, len(q.view)-1))
	if q.height <= 0 {
		q.offset = q.cursor
		return
	}
	if q.cursor < q.offset {
		q.offset = q.cursor
	}
	if q.cursor >= q.offset+q.height {
		q.offset = q.cursor - q.height + 1
	}
	q.offset = max(0, min(q.offset, len(q.view)-q.height))
}

// progress counts labelled items among all (not only the filtered ones).
func (q *queueModel) progress() (done, total int) {
	for i := range q.all {
		if q.all[i].Primary != "" {
			done++
		}
	}
	return done, len(q.all)
}

// filterSpec is a parsed filter: every term must match.
type filterSpec struct {
	terms []filterTerm
}

type filterTerm struct {
	field, value string
}

// filterFields are the keys a filter term may use.
var filterFields = []string{"class", "rule", "status", "model", "task", "run", "label", "empty"}

// parseFilter reads "class:ASSUME_API model:gpt status:todo words". Bare
// words match the task, run or model. Terms on the rules' output are
// refused in blind mode.
func parseFilter(s string, blind bool) (filterSpec, error) {
	var f filterSpec
	for _, tok := range strings.Fields(s) {
		field, value, ok := strings.Cut(tok, ":")
		if !ok {
			f.terms = append(f.terms, filterTerm{value: strings.ToLower(tok)})
			continue
		}
		field = strings.ToLower(field)
		if !slices.Contains(filterFields, field) {
			return f, fmt.Errorf("unknown filter %q: use %s", field+":", strings.Join(filterFields, ": ")+":")
		}
		if blind && (field == "class" || field == "rule") {
			return f, fmt.Errorf("%s: filters on the rules' verdict, hidden in blind mode", field)
		}
		f.terms = append(f.terms, filterTerm{field: field, value: strings.ToLower(value)})
	}
	return f, nil
}

func (f filterSpec) match(it *QueueItem) bool {
	for _, t := range f.terms {
		if !t.match(it) {
			return false
		}
	}
	return true
}

func (t filterTerm) match(it *QueueItem) bool {
	has := func(s string) bool { return strings.Contains(strings.ToLower(s), t.value) }
	switch t.field {
	case "":
		return has(it.TaskID) || has(it.RunID) || has(it.Model)
	case "class":
		return has(it.Suggestion)
	case "rule":
		return slices.ContainsFunc(it.Rules, has)
	case "status":
		return strings.HasPrefix(string(it.Status), t.value)
	case "model":
		return has(it.Model)
	case "task":
		return has(it.TaskID)
	case "run":
		return has(it.RunID)
	case "label":
		// Anyone's label: a reviewer looks for what the team said, and
		// a disagreement matches both classes.
		return has(it.Primary) || slices.ContainsFunc(it.Others, func(o OtherLabel) bool { return has(o.Primary) })
	case "empty":
		// empty:yes (or y, true) finds the traces that recorded nothing,
		// empty:no hides them.
		want := t.value == "" || strings.HasPrefix("yes", t.value) || t.value == "true"
		return it.Empty == want
	}
	return false
}
