package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/agreement"
	"github.com/triage-dev/triage/internal/rules"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// Final-label sources of a rule check: only these count as the truth the
// rules are scored against.
const (
	finalAdjudicated = "adjudicated"
	finalAgreed      = "agreed"
)

type ruleCheckOpts struct {
	run, slice, fixtures string
	asJSON               bool
	minPrecision         float64
	minFired             int
	// minCluster is the settled traces a cluster needs before it is
	// proposed as a rule candidate; 0 skips the candidates.
	minCluster int
}

func newRulesCheckCmd(a *app) *cobra.Command {
	var o ruleCheckOpts
	cmd := &cobra.Command{
		Use:   "check [--run R] [--slice S] [--json] [--fixtures DIR]",
		Short: "Score each rule against people's final labels: precision, recall, and which rules may label unattended",
		Long: `Compare the rules with people on the traces that carry a final human label, so a team
sees which rules may label unattended.

A trace counts only when its final label is settled:
  - adjudicated: an adjudication exists (it takes precedence), or
  - agreed: two or more reviewers labelled it and all gave the same primary.
A single reviewer's label, or reviewers who disagree without an adjudication, do not
count; nor do traces the rules have not labelled yet ('triage rules run').

For each rule (one per class): fired, true positives (fired and the final label is the
class), false positives, false negatives, support, precision and recall; and the rules'
primary accuracy overall. A rule "may label unattended" when its precision is at least
--min-precision on at least --min-fired traces it fired on; otherwise "keep people in
the loop", with the reason.

--fixtures DIR writes every trace whose rules' primary differs from the final label as
a regression fixture DIR/<run>__<task>__<seed>.json: {"trace": the stored row,
"task_id", "run_id", "seed", "final": {"primary", "secondary", "source"}, "rules":
{"primary", "fired", "rules_version", "taxonomy_version"}}. Characters outside
[A-Za-z0-9._-] in file names become '_'; a name that would collide or grow too long
gets a hash of the trace key.

Rule candidates (closed cases sharpen detection): the failing traces are clustered as
` + "`triage clusters`" + ` does, and a cluster with at least --min-cluster settled traces,
most of which people labelled with one class the rules did not give them, is proposed as a
rule "this signature ⇒ that class", with its precision on the settled traces (the share
labelled that class), the traces it would fix and break, and whether it meets the
--min-precision / --min-fired bar. --min-cluster 0 skips them (no trace body is read).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runRulesCheck(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.run, "run", "", "only this run's traces")
	f.StringVar(&o.slice, "slice", "", "only this slice's traces")
	f.BoolVar(&o.asJSON, "json", false, "print JSON")
	f.StringVar(&o.fixtures, "fixtures", "", "write each disagreement as a regression fixture into this directory")
	f.Float64Var(&o.minPrecision, "min-precision", agreement.DefaultMinPrecision, "precision a rule needs to label unattended")
	f.IntVar(&o.minFired, "min-fired", agreement.DefaultMinFired, "traces a rule must have fired on before it may label unattended")
	f.IntVar(&o.minCluster, "min-cluster", defaultMinCluster, "settled traces a cluster needs to be proposed as a rule candidate (0: no candidates)")
	return cmd
}

// ruleCheckReport is `rules check --json`: the check's figures plus what
// was looked at and what was left out.
type ruleCheckReport struct {
	RunID           string `json:"run_id,omitempty"`
	Slice           string `json:"slice,omitempty"`
	TaxonomyVersion string `json:"taxonomy_version"`
	RulesVersion    string `json:"rules_version"`
	// NTraces counts the traces in scope.
	NTraces int `json:"n_traces"`
	// NUnsettled counts traces with human labels but no final one (one
	// reviewer, or disagreeing reviewers not adjudicated).
	NUnsettled int `json:"n_unsettled"`
	// NNoVerdict counts traces with a final label but no rule verdict.
	NNoVerdict int `json:"n_no_verdict"`
	// NOtherTaxonomy counts checked verdicts made under another taxonomy
	// version than the current one.
	NOtherTaxonomy int `json:"n_other_taxonomy"`
	*agreement.RuleCheck
	// Fixtures lists the fixture files written (with --fixtures).
	Fixtures []string `json:"fixtures,omitempty"`
	// Candidates are signatures people closed with a class the rules did
	// not give, proposed as rules; absent with --min-cluster 0.
	Candidates []ruleCandidate `json:"rule_candidates,omitempty"`
}

// checkedTrace is one trace with a settled final label and a verdict.
type checkedTrace struct {
	sum     store.TraceSummary
	final   fixtureFinal
	verdict *triage.Verdict
	// byCluster: a label the final rests on was given to a whole
	// cluster in one action (review by cluster).
	byCluster bool
}

func (a *app) runRulesCheck(ctx context.Context, o ruleCheckOpts) error {
	if !(o.minPrecision > 0 && o.minPrecision <= 1) {
		return usageErr("--min-precision %v: want a number in (0, 1]", o.minPrecision)
	}
	if o.minFired < 1 {
		return usageErr("--min-fired %d: want at least 1", o.minFired)
	}
	if o.minCluster < 0 {
		return usageErr("--min-cluster %d: want 0 (no candidates) or more", o.minCluster)
	}
	tax, err := a.taxonomy()
	if err != nil {
		return err
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := requireRun(ctx, db, o.run); err != nil {
		return err
	}
	if err := requireSlice(ctx, db, o.slice); err != nil {
		return err
	}
	rep := ruleCheckReport{RunID: o.run, Slice: o.slice, TaxonomyVersion: tax.Version, RulesVersion: rules.RulesVersion}
	checked, err := a.collectChecked(ctx, db, o, tax, &rep)
	if err != nil {
		return err
	}
	items := make([]agreement.RuleItem, len(checked))
	for i, c := range checked {
		items[i] = agreement.RuleItem{Unit: c.sum.Key(), Fired: c.verdict.Fired, RulePrimary: c.verdict.Primary, Final: c.final.Primary}
	}
	rep.RuleCheck, err = agreement.CheckRules(items, agreement.RuleCheckOptions{
		MinPrecision: o.minPrecision, MinFired: o.minFired, Classes: tax.Codes()})
	if err != nil {
		return err
	}
	if o.fixtures != "" {
		if rep.Fixtures, err = a.writeFixtures(ctx, db, o.fixtures, checked); err != nil {
			return err
		}
	}
	if o.minCluster > 0 {
		if rep.Candidates, err = a.ruleCandidates(ctx, db, o, checked); err != nil {
			return err
		}
	}
	if o.asJSON {
		return writeJSON(a.stdout, rep)
	}
	return a.printRuleCheck(o, &rep)
}

// collectChecked gathers the traces in scope that have a settled final
// label and a rule verdict, in run, task, seed order.
func (a *app) collectChecked(ctx context.Context, db store.Store, o ruleCheckOpts, tax *triage.Taxonomy, rep *ruleCheckReport) ([]checkedTrace, error) {
	run := o.run
	var inSlice map[int64]bool
	if o.slice != "" {
		sl, err := db.Slice(ctx, o.slice)
		if err != nil {
			return nil, err
		}
		if run == "" {
			run = sl.RunID
		}
		inSlice = make(map[int64]bool, len(sl.Items))
		for _, id := range sl.Items {
			inSlice[id] = true
		}
	}
	// One pass gathers the settled traces; their full verdicts follow in
	// batches (the store's one connection is busy during the pass).
	var settled []checkedTrace
	err := db.Each(ctx, run, func(s store.TraceSummary, st *triage.LabelState) error {
		if inSlice != nil && !inSlice[s.ID] {
			return nil
		}
		rep.NTraces++
		final, ok := settledFinal(st)
		if !ok {
			if st != nil && len(st.Humans) > 0 {
				rep.NUnsettled++
			}
			return nil
		}
		settled = append(settled, checkedTrace{sum: s, final: final, byCluster: givenByCluster(st)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(settled))
	for i, c := range settled {
		ids[i] = c.sum.ID
	}
	verdicts, err := db.Verdicts(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []checkedTrace
	for _, c := range settled {
		v := verdicts[c.sum.ID]
		if v == nil {
			rep.NNoVerdict++
			continue
		}
		if v.TaxonomyVersion != tax.Version {
			rep.NOtherTaxonomy++
		}
		if v.Fired == nil {
			v.Fired = []string{}
		}
		c.verdict = v
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return lessKey(out[i].sum, out[j].sum) })
	return out, nil
}

// lessKey orders traces by run, task and seed, as lists show them.
func lessKey(a, b store.TraceSummary) bool {
	if a.RunID != b.RunID {
		return a.RunID < b.RunID
	}
	if a.TaskID != b.TaskID {
		return a.TaskID < b.TaskID
	}
	return a.Seed < b.Seed
}

// settledFinal returns the final human label the rules are judged
// against: the adjudication, else the primary two or more reviewers all
// gave (with the secondary tags they all gave). One reviewer is not
// enough: a single person's slip would count against a correct rule.
func settledFinal(st *triage.LabelState) (fixtureFinal, bool) {
	if st == nil {
		return fixtureFinal{}, false
	}
	if adj := st.Adjudication; adj != nil && adj.Primary != "" {
		return fixtureFinal{Primary: adj.Primary, Secondary: uniqueSortedTags(adj.Secondary), Source: finalAdjudicated}, true
	}
	var labels []*triage.LabelEvent
	for _, e := range st.Humans {
		if e != nil && e.Kind == triage.KindHuman && e.Primary != "" {
			labels = append(labels, e)
		}
	}
	if len(labels) < 2 {
		return fixtureFinal{}, false
	}
	common := uniqueSortedTags(labels[0].Secondary)
	for _, e := range labels[1:] {
		if e.Primary != labels[0].Primary {
			return fixtureFinal{}, false
		}
		common = slices.DeleteFunc(common, func(t string) bool { return !slices.Contains(e.Secondary, t) })
	}
	return fixtureFinal{Primary: labels[0].Primary, Secondary: common, Source: finalAgreed}, true
}

// givenByCluster reports whether a live human label or the adjudication
// of the trace was given to a whole cluster in one action.
func givenByCluster(st *triage.LabelState) bool {
	if st.Adjudication != nil && st.Adjudication.Primary != "" {
		return st.Adjudication.Cluster != ""
	}
	for _, e := range st.Humans {
		if e != nil && e.Kind == triage.KindHuman && e.Cluster != "" {
			return true
		}
	}
	return false
}

func uniqueSortedTags(tags []string) []string {
	out := slices.Clone(tags)
	if out == nil {
		out = []string{}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func (a *app) printRuleCheck(o ruleCheckOpts, rep *ruleCheckReport) error {
	scope := "all runs"
	if o.run != "" {
		scope = "run " + triage.Sanitize(o.run)
	}
	if o.slice != "" {
		scope += ", slice " + triage.Sanitize(o.slice)
	}
	sayf(a.stdout, "%s, taxonomy %s, rules v%s: %d traces; %d checked, %d without a settled final label, %d final but not yet labelled by the rules\n\n",
		scope, rules.ShortVersion(rep.TaxonomyVersion), rep.RulesVersion, rep.NTraces, rep.NItems, rep.NUnsettled, rep.NNoVerdict)
	if err := agreement.WriteRuleCheckText(a.stdout, rep.RuleCheck); err != nil {
		return err
	}
	if o.minCluster > 0 && rep.NItems > 0 {
		writeRuleCandidates(a.stdout, rep.Candidates, o)
	}
	if rep.NItems == 0 {
		sayln(a.stderr, "note: no trace has a settled final label yet: adjudicate, or have two reviewers label the same traces")
	}
	if rep.NOtherTaxonomy > 0 {
		sayf(a.stderr, "note: %d verdicts were made under another taxonomy version: run 'triage rules run' to relabel\n", rep.NOtherTaxonomy)
	}
	if o.fixtures != "" {
		sayf(a.stderr, "%d regression fixtures written to %s\n", len(rep.Fixtures), o.fixtures)
	}
	return nil
}

// fixtureFinal is the final human label in a fixture.
type fixtureFinal struct {
	Primary   string   `json:"primary"`
	Secondary []string `json:"secondary"`
	Source    string   `json:"source"`
}

// fixtureRules is what the rules said, with the versions that said it.
type fixtureRules struct {
	Primary         string   `json:"primary"`
	Fired           []string `json:"fired"`
	RulesVersion    string   `json:"rules_version"`
	TaxonomyVersion string   `json:"taxonomy_version"`
}

// ruleFixture is one regression fixture: a trace the rules got wrong, with
// the label people settled on, for the rules' tests.
type ruleFixture struct {
	Trace  json.RawMessage `json:"trace"`
	TaskID string          `json:"task_id"`
	RunID  string          `json:"run_id"`
	Seed   int             `json:"seed"`
	Final  fixtureFinal    `json:"final"`
	Rules  fixtureRules    `json:"rules"`
}

// writeFixtures writes one file per trace whose primary differs from the
// final label and returns the file paths in trace order.
func (a *app) writeFixtures(ctx context.Context, db store.Store, dir string, checked []checkedTrace) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("fixtures: %w", err)
	}
	used := map[string]bool{}
	var paths []string
	for _, c := range checked {
		if c.verdict.Primary == c.final.Primary {
			continue
		}
		row, _, err := db.Row(ctx, c.sum.ID)
		if err != nil {
			return paths, fmt.Errorf("fixture %s: %w", c.sum.Key(), err)
		}
		if !json.Valid(row) {
			return paths, fmt.Errorf("fixture %s: the stored row is not JSON", c.sum.Key())
		}
		fx := ruleFixture{Trace: row, TaskID: c.sum.TaskID, RunID: c.sum.RunID, Seed: c.sum.Seed, Final: c.final,
			Rules: fixtureRules{Primary: c.verdict.Primary, Fired: c.verdict.Fired, RulesVersion: c.verdict.RulesVersion,
				TaxonomyVersion: c.verdict.TaxonomyVersion}}
		data, err := json.MarshalIndent(fx, "", "  ")
		if err != nil {
			return paths, fmt.Errorf("fixture %s: %w", triage.Sanitize(c.sum.Key()), err)
		}
		// The stored row and the ids are trace text: C1 and bidi
		// controls in them are written as \u escapes, as in every JSON
		// triage writes.
		data = append(triage.EscapeJSONText(data), '\n')
		name := fixtureName(c.sum.RunID, c.sum.TaskID, c.sum.Seed, used)
		p := filepath.Join(dir, name)
		if err := a.writeOut(p, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return paths, fmt.Errorf("fixture %s: %w", triage.Sanitize(c.sum.Key()), err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// maxNamePart bounds each part of a fixture's file name, so the whole
// stays well under the 255 bytes file systems allow.
const maxNamePart = 64

// fixtureName builds <run>__<task>__<seed>.json from untrusted ids: only
// [A-Za-z0-9._-] survive (so no separator or control character can steer
// the path: the name is always one component), long parts are cut, and a
// name that was changed, cut or already used gets a hash of the trace key,
// so two ids that sanitise alike never overwrite each other's fixture.
func fixtureName(run, task string, seed int, used map[string]bool) string {
	r, cutR := fixtureNamePart(run)
	t, cutT := fixtureNamePart(task)
	base := r + "__" + t + "__" + strconv.Itoa(seed)
	if cutR || cutT || used[base] || r != run || t != task {
		sum := sha256.Sum256([]byte(triage.TraceKey(run, task, seed)))
		base += "__" + hex.EncodeToString(sum[:4])
	}
	used[base] = true
	return base + ".json"
}

func fixtureNamePart(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" {
		out = "_"
	}
	cut := false
	if len(out) > maxNamePart {
		out, cut = out[:maxNamePart], true
	}
	return out, cut
}
