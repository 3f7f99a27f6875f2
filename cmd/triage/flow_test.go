package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/ingest"
	"github.com/triage-dev/triage/internal/shareddata"
	"github.com/triage-dev/triage/internal/triage"
	"github.com/triage-dev/triage/internal/ui"
)

// demoStore builds a store like `triage demo` does, without the TUI.
func demoStore(t *testing.T) *cli {
	t.Helper()
	c := newCLI(t)
	code, _, errOut := c.run("", "demo")
	require.Equal(t, exitOK, code, errOut)
	return c
}

func TestDemoWithoutTerminalPrintsTheReport(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, out, errOut := c.run("", "demo")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "import: 50 imported, 0 duplicates, 0 rejected")
	require.Contains(t, errOut, "rules: 50 traces labelled by the rules")
	require.Contains(t, out, "Failure mix")
	require.Contains(t, out, "Per-task grid")
	code, _, errOut = c.run("", "demo")
	require.Equal(t, exitUsage, code, "demo refuses to reuse a store without --keep")
	require.Contains(t, errOut, "wants a fresh store")
}

func TestReportJSONCarriesPrimaryCountsAndLeftovers(t *testing.T) {
	t.Parallel()
	c := demoStore(t)
	code, out, _ := c.run("", "report", "--run", "demo", "--json")
	require.Equal(t, exitOK, code)
	var rep struct {
		PrimaryCounts map[string]int `json:"primary_counts"`
		Leftovers     struct {
			Count  int      `json:"count"`
			Traces []string `json:"traces"`
		} `json:"leftovers"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	total := 0
	for _, n := range rep.PrimaryCounts {
		total += n
	}
	require.Equal(t, 50, total, "every trace counted once")
	// The eight classes, and T04#3 apart: its scorer crashed, so its
	// outcome is unknown and no class was given (DESIGN §7).
	require.Len(t, rep.PrimaryCounts, 9)
	require.Equal(t, 1, rep.PrimaryCounts[card.Unlabelled])
	require.Positive(t, rep.Leftovers.Count)
	require.Len(t, rep.Leftovers.Traces, rep.Leftovers.Count)

	code, out, _ = c.run("", "traces", "--json", "--run", "demo")
	require.Equal(t, exitOK, code)
	leftovers := strings.Count(out, `"decision":"leftover"`)
	require.Equal(t, rep.Leftovers.Count, leftovers)

	code, out, _ = c.run("", "rules", "explain", "demo/T06#3")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "LEAKED")
	code, _, errOut := c.run("", "rules", "explain", "demo/NOPE#0")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "trace demo/NOPE#0: not found")
}

func TestCardExportRefusesThenPublishes(t *testing.T) {
	t.Parallel()
	c := demoStore(t)
	code, _, errOut := c.run("", "card", "export", "--run", "demo")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "unresolved")
	code, _, errOut = c.run("", "card", "export", "--run", "demo", "--allow-unresolved")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "trust")
	out := filepath.Join(c.dir, "card.json")
	code, _, errOut = c.run("", "card", "export", "--run", "demo", "--allow-unresolved", "--allow-untrusted", "--out", out)
	require.Equal(t, exitOK, code, errOut)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	s := string(data)
	// The seed's keys, in the seed's order, first.
	last := -1
	for _, k := range []string{`"card_version"`, `"dataset_id"`, `"dataset_sha256"`, `"scorer"`, `"budgets"`, `"env"`, `"n_tasks"`, `"primary_counts"`, `"derived"`} {
		i := strings.Index(s, k)
		require.Greater(t, i, last, "key %s out of order", k)
		last = i
	}
	require.Contains(t, s, `"taxonomy_trusted": false`)
	code, verify, errOut := c.run("", "card", "verify", out, "--pack", "sample:")
	require.Equal(t, exitOK, code, verify+errOut)
}

func TestSliceBlindLabelsAgreeAndExchange(t *testing.T) {
	t.Parallel()
	c := demoStore(t)
	code, out, errOut := c.run("", "slice", "create", "s1", "--size", "12", "--run", "demo", "--stratify", "task", "--seed", "7")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "slice s1: 12 traces")
	// Same inputs, same items.
	code, show1, _ := c.run("", "slice", "show", "s1")
	require.Equal(t, exitOK, code)
	c.run("", "slice", "create", "s1", "--size", "12", "--run", "demo", "--stratify", "task", "--seed", "7")
	_, show2, _ := c.run("", "slice", "show", "s1")
	require.Equal(t, show1, show2)

	// Two reviewers label every item (as the TUI would, through label rows).
	var keys []string
	for _, line := range strings.Split(show1, "\n") {
		if strings.HasPrefix(line, "demo/") {
			keys = append(keys, strings.Fields(line)[0])
		}
	}
	require.Len(t, keys, 12)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	rows := func(reviewer string, disagreeEvery int) string {
		var b strings.Builder
		for i, k := range keys {
			run, rest, _ := strings.Cut(k, "/")
			task, seed, _ := strings.Cut(rest, "#")
			label := "SCORER_RED"
			if i%3 == 0 {
				label = "TOOL_LOOP"
			}
			if disagreeEvery > 0 && i%disagreeEvery == 0 {
				label = "ASSUME_API"
			}
			fmt.Fprintf(&b, `{"run_id":%q,"task_id":%q,"seed":%s,"reviewer":%q,"kind":"human","primary":%q,"secondary":[],"note":"","slice":"s1","created_at":%q}`+"\n",
				run, task, seed, reviewer, label, at.Add(time.Duration(i)*time.Minute).Format(time.RFC3339))
		}
		return b.String()
	}
	annFile := c.file("ann.jsonl", rows("ann", 0))
	bobFile := c.file("bob.jsonl", rows("bob", 5))
	// Two imports at once lose nothing.
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i, f := range []string{annFile, bobFile} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = c.run("", "labels", "import", f)
		}()
	}
	wg.Wait()
	require.Equal(t, []int{exitOK, exitOK}, codes)
	code, out, _ = c.run("", "labels", "import", annFile)
	require.Equal(t, exitOK, code)
	require.Equal(t, "0 label events imported, 12 already present, 0 rejected\n", out, "importing twice changes nothing")

	code, out, _ = c.run("", "labels", "export", "--slice", "s1")
	require.Equal(t, exitOK, code)
	require.Equal(t, 24, strings.Count(out, "\n"))

	code, _, _ = c.run("", "slice", "create", "s1", "--size", "5", "--run", "demo")
	require.Equal(t, exitError, code, "a slice with labels is frozen")

	code, out, errOut = c.run("", "agree", "s1", "--json")
	require.Equal(t, exitOK, code, errOut)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.EqualValues(t, 12, rep["n_units"])
	require.EqualValues(t, 2, rep["n_raters"])
	require.Contains(t, rep, "cohen_kappa")
	require.Contains(t, rep, "fleiss_kappa", "two raters on every unit is a complete design")
	verdict := rep["verdict"].(map[string]any)
	require.Equal(t, "insufficient", verdict["status"], "12 units are fewer than the 20 a trusted verdict needs")

	// A label for a trace whose content differs is refused, never guessed.
	bad := c.file("bad.jsonl", `{"run_id":"demo","task_id":"T01","seed":0,"content_hash":"00ff","reviewer":"zed","kind":"human","primary":"TIMEOUT","secondary":[],"note":"","created_at":"2026-11-01T09:00:00Z"}`+"\n")
	code, _, errOut = c.run("", "labels", "import", bad)
	require.Equal(t, exitRejected, code)
	require.Contains(t, errOut, "bad.jsonl:1: demo/T01#0: content hash 00ff… differs")
}

func TestAgreeRatingsFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	f := c.file("r.csv", "unit,rater,label\nu1,a,x\nu1,b,x\nu2,a,y\nu2,b,x\nu3,a,y\nu3,b,y\n")
	code, out, errOut := c.run("", "agree", "--ratings", f, "--json", "--categories", "x,y,z")
	require.Equal(t, exitOK, code, errOut)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.EqualValues(t, 3, rep["n_units"])
	code, _, _ = c.run("", "agree")
	require.Equal(t, exitUsage, code)
}

func TestHarnessDirectoryImport(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	// Real runs, read from ../shared (the SWE-agent ones copied under the
	// <instance_id>.traj names the adapter reads the instance id from).
	swe, mini := shareddata.SWEAgentDir(t), shareddata.Dir(t, "formats", "mini-swe-agent")
	code, out, errOut := c.run("", "import", "--run", "h", swe, mini)
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "9 imported, 0 duplicates, 0 rejected\n", out)
	code, out, _ = c.run("", "traces", "--json", "--run", "h")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"task_id":"django__django-16255"`)
	require.Contains(t, out, `"task_id":"marshmallow-code__marshmallow-1867"`)
	code, _, errOut = c.run("", "import", c.file("notes.txt", "hello, world\n"))
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "not a trace file of any known format (tried ")
	// The bad input: the formats tried and why each refused.
	for _, f := range ingest.Formats() {
		require.Contains(t, errOut, "\n  "+f.Name+": wants ", "%s says what it wants", f.Name)
	}
}

func TestDisagreementsFollowAdjudicationAndUndo(t *testing.T) {
	t.Parallel()
	c := demoStore(t)
	code, out, errOut := c.run("", "slice", "create", "s2", "--size", "3", "--run", "demo", "--seed", "3")
	require.Equal(t, exitOK, code, errOut+out)
	_, show, _ := c.run("", "slice", "show", "s2")
	var rows strings.Builder
	n := 0
	for _, line := range strings.Split(show, "\n") {
		if !strings.HasPrefix(line, "demo/") {
			continue
		}
		run, rest, _ := strings.Cut(strings.Fields(line)[0], "/")
		task, seed, _ := strings.Cut(rest, "#")
		for _, r := range []struct{ who, label string }{{"ann", "TOOL_LOOP"}, {"bob", "TIMEOUT"}} {
			label := r.label
			if n == 0 {
				label = "SCORER_RED" // the first item: both agree
			}
			fmt.Fprintf(&rows, `{"run_id":%q,"task_id":%q,"seed":%s,"reviewer":%q,"kind":"human","primary":%q,"secondary":[],"note":"","slice":"s2","created_at":"2026-11-01T09:0%d:00Z"}`+"\n",
				run, task, seed, r.who, label, n)
		}
		n++
	}
	require.Equal(t, 3, n)
	code, _, errOut = c.run("", "labels", "import", c.file("l.jsonl", rows.String()))
	require.Equal(t, exitOK, code, errOut)

	ctx := t.Context()
	db, err := openDB(ctx, c.db, decodeRow)
	require.NoError(t, err)
	defer db.Close()
	adj := &adjStore{uiStore: &uiStore{db: db}}
	ds, err := adj.Disagreements(ctx, ui.DisagreementQuery{Slice: "s2", Adjudicator: "cy"})
	require.NoError(t, err)
	require.Len(t, ds, 2, "the item both reviewers agree on is not a disagreement")
	all, err := adj.Disagreements(ctx, ui.DisagreementQuery{Slice: "s2", Adjudicator: "cy", All: true})
	require.NoError(t, err)
	require.Len(t, all, 3)
	require.Equal(t, ui.StatusTodo, ds[0].Status)

	id := ds[0].TraceID
	_, err = db.AppendLabel(ctx, triage.LabelEvent{TraceID: id, Actor: "cy", Kind: triage.KindAdjudication, Primary: "TOOL_LOOP", Note: "loop is real", Slice: "s2"})
	require.NoError(t, err)
	ds, err = adj.Disagreements(ctx, ui.DisagreementQuery{Slice: "s2", Adjudicator: "cy"})
	require.NoError(t, err)
	require.Equal(t, ui.StatusLabelled, ds[0].Status)
	require.Equal(t, "TOOL_LOOP", ds[0].Primary)
	_, err = db.AppendLabel(ctx, triage.LabelEvent{TraceID: id, Actor: "cy", Kind: triage.KindUndo, Slice: "s2"})
	require.NoError(t, err)
	ds, err = adj.Disagreements(ctx, ui.DisagreementQuery{Slice: "s2", Adjudicator: "cy"})
	require.NoError(t, err)
	require.Equal(t, ui.StatusTodo, ds[0].Status, "undo takes the adjudication back")
	require.Empty(t, ds[0].Primary)
}
