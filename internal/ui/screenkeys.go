package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// handleKey applies one key to the queue (movement, sort, clearing marks
// and the filter) and returns what the root must do: open a trace, the
// filter line, or leave a drill-down.
func (q *queueModel) handleKey(msg tea.KeyMsg, km *KeyMap, blind, drilled bool) Action {
	half := max(1, q.height/2)
	switch {
	case key.Matches(msg, km.Down), key.Matches(msg, km.NextTrace):
		q.move(1)
	case key.Matches(msg, km.Up), key.Matches(msg, km.PrevTrace):
		q.move(-1)
	case key.Matches(msg, km.Top):
		q.moveTo(0)
	case key.Matches(msg, km.Bottom):
		q.moveTo(len(q.view) - 1)
	case key.Matches(msg, km.HalfDown):
		q.move(half)
	case key.Matches(msg, km.HalfUp):
		q.move(-half)
	case key.Matches(msg, km.Open):
		if it := q.current(); it != nil {
			return Action{kind: actOpen, id: it.TraceID}
		}
	case key.Matches(msg, km.Filter):
		return Action{kind: actFilter}
	case key.Matches(msg, km.Sort):
		q.cycleSort(blind)
		return Action{status: "sorted by " + q.sortBy.String()}
	case key.Matches(msg, km.Back):
		switch {
		case len(q.markedIDs()) > 0 || q.rangeOpen():
			q.clearMarks()
			return Action{status: "marks cleared"}
		case q.filter != "":
			_ = q.apply("", blind)
			return Action{status: "filter cleared"}
		case drilled:
			return Action{kind: actCloseDrill}
		}
	}
	return Action{}
}

// handleKey applies one key to the trace view (scrolling, panes, search
// matches, wrap, the diff's marks, the timeline's calls and folds) and
// returns what the root must do: go back, step to another trace, open
// the search line or the file list.
func (v *traceView) handleKey(msg tea.KeyMsg, km *KeyMap) Action {
	half := max(1, v.height/2)
	switch {
	case key.Matches(msg, km.Back):
		if v.query != "" {
			v.search("")
			return Action{}
		}
		return Action{kind: actBack}
	case key.Matches(msg, km.Down):
		v.scroll(1)
	case key.Matches(msg, km.Up):
		v.scroll(-1)
	case key.Matches(msg, km.Top):
		v.top()
	case key.Matches(msg, km.Bottom):
		v.bottom()
	case key.Matches(msg, km.HalfDown):
		v.scroll(half)
	case key.Matches(msg, km.HalfUp):
		v.scroll(-half)
	case key.Matches(msg, km.NextTab):
		v.setTab(v.tab + 1)
	case key.Matches(msg, km.PrevTab):
		v.setTab(v.tab - 1)
	case key.Matches(msg, km.NextTrace):
		return Action{kind: actStep, n: 1}
	case key.Matches(msg, km.PrevTrace):
		return Action{kind: actStep, n: -1}
	case key.Matches(msg, km.Search):
		return Action{kind: actSearch}
	case key.Matches(msg, km.NextMatch):
		v.nextMatch(1)
	case key.Matches(msg, km.PrevMatch):
		v.nextMatch(-1)
	case key.Matches(msg, km.Wrap):
		v.setWrap(!v.wrap)
		if v.wrap {
			return Action{status: "wrap on"}
		}
		return Action{status: "wrap off: ← and → scroll sideways"}
	case key.Matches(msg, km.Left):
		v.scrollX(-sidewaysStep)
	case key.Matches(msg, km.Right):
		if !v.scrollX(sidewaysStep) && v.wrap {
			return Action{status: "wrap is on: every line is shown whole (w turns it off)"}
		}
	case v.tab == tabDiff && key.Matches(msg, km.NextHunk):
		return Action{status: v.markStatus(v.stepMark(v.doc().hunkAnchors(), 1), "last hunk")}
	case v.tab == tabDiff && key.Matches(msg, km.PrevHunk):
		return Action{status: v.markStatus(v.stepMark(v.doc().hunkAnchors(), -1), "first hunk")}
	case v.tab == tabDiff && key.Matches(msg, km.NextFile):
		return Action{status: v.markStatus(v.stepMark(v.doc().files, 1), "last file")}
	case v.tab == tabDiff && key.Matches(msg, km.PrevFile):
		return Action{status: v.markStatus(v.stepMark(v.doc().files, -1), "first file")}
	case v.tab == tabDiff && key.Matches(msg, km.Files):
		return Action{kind: actFiles}
	case v.tab == tabTimeline && key.Matches(msg, km.NextCall):
		if !v.stepCall(1) {
			return Action{status: "last tool call"}
		}
	case v.tab == tabTimeline && key.Matches(msg, km.PrevCall):
		if !v.stepCall(-1) {
			return Action{status: "first tool call"}
		}
	case v.tab == tabTimeline && key.Matches(msg, km.NextFail):
		if !v.stepFailing(1) {
			return Action{status: v.failingStatus("no failing check after this call")}
		}
	case v.tab == tabTimeline && key.Matches(msg, km.PrevFail):
		if !v.stepFailing(-1) {
			return Action{status: v.failingStatus("no failing check before this call")}
		}
	case v.tab == tabTimeline && key.Matches(msg, km.Fold):
		v.toggleFold(false)
	case v.tab == tabTimeline && key.Matches(msg, km.FoldAll):
		v.toggleFold(true)
	case v.tab == tabEvidence && key.Matches(msg, km.Jump):
		if !v.jumpEvidence() {
			return Action{status: "this evidence points at no tool call or diff line"}
		}
	}
	return Action{}
}
