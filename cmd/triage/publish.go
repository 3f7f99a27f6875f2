package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/pack"
	"github.com/triage-dev/triage/internal/rules"
	"github.com/triage-dev/triage/internal/sample"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// cardRead says how cardInput reads a run.
type cardRead struct {
	// check, when set, vets the controls before a single trace is read,
	// so that a card refused for missing controls is refused at once.
	check func(triage.Controls) error
	// forCard leaves out the per-cell grid: a card carries per-task
	// counts only, and a cell is 72 bytes (a million traces, 70 MB).
	forCard bool
	// trendBy is what the report's trend points are (card.TrendBy).
	trendBy string
	// clusters reads the failing traces' bodies first (report
	// --clusters): their clusters enter the trends and their tools the
	// tool breakdowns. extra is that reading, when already done.
	clusters bool
	extra    map[int64]traceExtra
	// noise names two runs of one configuration whose differences are
	// the trends' noise floor.
	noise []string
	// failing, when set, collects the traces the rules labelled whose
	// current label is a failure, for their root causes: in the same
	// pass, so the report reads the label states once.
	failing *failingRefs
	// scoredOnly leaves out the traces with no recorded outcome (report
	// --scored), counted in the input's UnscoredLeftOut.
	scoredOnly bool
	// oneTrend says the caller shows a trend only when it has two
	// points or more (report): a report of one run by run keeps none.
	oneTrend bool
}

// cardInput gathers a run's controls, agreement and traces (each by its
// current label) for package card. The traces stream from the store into
// a card.Tally, so a run of any size costs memory for its tasks, not its
// rows.
func (a *app) cardInput(ctx context.Context, db store.Store, run string, tax *triage.Taxonomy, opt cardRead) (card.Input, error) {
	in := card.Input{Taxonomy: tax, RulesVersion: rules.RulesVersion}
	if run == "" {
		// A store with one run means that run: its controls belong on
		// the report.
		runs, err := db.Runs(ctx)
		if err != nil {
			return in, err
		}
		if len(runs) == 1 {
			run = runs[0].Controls.RunID
		}
	}
	if err := requireRun(ctx, db, run); err != nil {
		return in, err
	}
	if run != "" {
		c, _, err := db.Controls(ctx, run)
		if err != nil {
			return in, fmt.Errorf("run %q: %w", run, err)
		}
		in.Controls = c
		if opt.check != nil {
			if err := opt.check(c); err != nil {
				return in, err
			}
		}
		if c.PackDir != "" {
			// The pack only adds how many tasks have no trace; a pack
			// that moved costs that note, said here, not the report.
			if pk, _, err := loadPack(c.PackDir); err == nil {
				in.NTasksInPack = pk.Len()
			} else {
				sayf(a.stderr, "note: run %s: its pack could not be read (%s), so tasks with no trace are not counted\n", run, errText(err))
			}
		}
	}
	if opt.clusters && opt.extra == nil {
		var err error
		if opt.extra, err = a.traceExtras(ctx, db, clusterScope(run, opt.noise)); err != nil {
			return in, err
		}
	}
	in.Clustered = opt.extra != nil
	var err error
	if in.Noise, err = readNoise(ctx, db, opt.noise, opt.extra); err != nil {
		return in, err
	}
	if in.Noise != nil {
		in.NoiseRuns = opt.noise
	}
	in.Tally = card.NewTally().TrendBy(opt.trendBy)
	if opt.forCard {
		in.Tally.WithoutCells()
	}
	if opt.oneTrend && run != "" && (opt.trendBy == "" || opt.trendBy == card.TrendByRun) {
		in.Tally.WithoutTrend()
	}
	rows := 0
	err = db.Each(ctx, run, func(s store.TraceSummary, st *triage.LabelState) error {
		if rows++; rows%8192 == 0 {
			a.heap.check()
		}
		row := card.TraceRow{RunID: s.RunID, TaskID: s.TaskID, Seed: s.Seed, Model: s.Model, Agent: s.Agent, PromptID: s.PromptID,
			ExitCode: s.ExitCode, Outcome: s.Outcome, Tokens: s.Tokens, CostUSD: s.CostUSD, WallS: s.WallS, Import: s.ImportID}
		applyExtra(&row, opt.extra, s.ID)
		f := triage.Resolve(st)
		row.Primary, row.Secondary, row.Source, row.Decision, row.Leftover = f.Primary, f.Secondary, f.Source, f.Decision, f.Unresolved
		if opt.failing != nil && st != nil && st.Rule != nil && f.Primary != "" && !triage.IsPass(f.Primary) {
			opt.failing.ids, opt.failing.keys = append(opt.failing.ids, s.ID), append(opt.failing.keys, s.Key())
		}
		if st != nil && st.Rule != nil && st.Rule.Verdict != nil {
			v := st.Rule.Verdict
			if v.Outcome != "" {
				row.Outcome = v.Outcome
			}
			row.Leaked = slices.Contains(v.Secondary, triage.TagLeaked)
		}
		if slices.Contains(row.Secondary, triage.TagLeaked) {
			row.Leaked = true
		}
		if opt.scoredOnly && row.Unknown() {
			in.UnscoredLeftOut++
			return nil
		}
		in.Tally.Add(&row)
		return nil
	})
	if err != nil {
		return in, err
	}
	if in.NotChecked, err = notChecked(ctx, db, in.Tally); err != nil {
		return in, err
	}
	if t, err := db.LatestTrust(ctx, tax.Version); err == nil {
		in.TaxonomyTrusted = t.Status
		ag := &card.AgreementSummary{Slice: t.Slice, Units: t.Units, Alpha: t.Alpha, Verdict: t.Status}
		if t.CILo != nil && t.CIHi != nil {
			ag.CI95 = &[2]float64{*t.CILo, *t.CIHi}
		}
		_ = json.Unmarshal([]byte(t.Reasons), &ag.Reasons)
		in.Agreement = ag
	} else if !errors.Is(err, store.ErrNotFound) {
		return in, err
	}
	return in, nil
}

func newCardExportCmd(a *app) *cobra.Command {
	var run, out string
	var opts card.Options
	var redact bool
	cmd := &cobra.Command{
		Use:   "export --run R [--out card.json]",
		Short: "Export the run's adjudicated benchmark card (the seed's keys, in order)",
		Long: `Export the benchmark card of seed 000, counted from final labels: adjudicated, then
agreed human, then single human, then certain rule verdicts. Refused with a reason when
the run has no traces, a control is missing, leftovers are unresolved or the taxonomy
is not trusted (see --allow-unresolved and --allow-untrusted, which the card then states).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runCardExport(cmd.Context(), run, out, opts, redact)
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "run to publish (required)")
	cmd.Flags().StringVar(&out, "out", "", "write the card to this file instead of stdout")
	cmd.Flags().BoolVar(&opts.AllowUnresolved, "allow-unresolved", false, "count unresolved leftovers under \"unresolved\" instead of refusing")
	cmd.Flags().BoolVar(&opts.AllowUntrusted, "allow-untrusted", false, "export with \"taxonomy_trusted\": false instead of refusing")
	cmd.Flags().BoolVar(&redact, "redact", false, redactFlagUsage)
	_ = cmd.MarkFlagRequired("run")
	return cmd
}

func (a *app) runCardExport(ctx context.Context, run, out string, opts card.Options, redact bool) error {
	if out != "" {
		if err := refuseStoreTarget(a.dbPath, out); err != nil {
			return err
		}
	}
	// The controls are not checked before the traces are read: a card
	// refused lists every blocker at once (missing controls, leftovers,
	// trust), which needs the traces counted.
	in, rd, err := a.loadCardInput(ctx, run, redact, cardRead{forCard: true})
	if err != nil {
		return err
	}
	c, err := card.Build(in, opts)
	if err != nil {
		return err
	}
	rd.Value(c)
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	data = append(triage.EscapeJSONText(data), '\n')
	if out == "" {
		_, err = a.stdout.Write(data)
		return err
	}
	if err := a.writeOut(out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return err
	}
	sayf(a.stderr, "card written to %s\n", triage.Sanitize(out))
	return nil
}

func newCardVerifyCmd(a *app) *cobra.Command {
	var packDir string
	cmd := &cobra.Command{
		Use:   "verify CARD.json --pack DIR",
		Short: "Recompute the dataset hash and check the card's derived fields against its counts",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := readSmallFile(args[0], maxCardBytes)
			if err != nil {
				return err
			}
			h, err := packHash(packDir)
			if err != nil {
				return err
			}
			probs := card.Verify(data, h)
			for _, p := range probs {
				sayln(a.stdout, triage.Sanitize(p.String()))
			}
			if len(probs) > 0 {
				return &exitErr{code: exitError, err: fmt.Errorf("%s: %d problems", args[0], len(probs))}
			}
			sayf(a.stdout, "%s: ok", triage.Sanitize(args[0]))
			if h != "" {
				sayf(a.stdout, " (dataset_sha256 %s matches)", h)
			}
			sayln(a.stdout)
			return nil
		},
	}
	cmd.Flags().StringVar(&packDir, "pack", "", "task pack whose hash the card must carry (\"sample:\" for the embedded demo pack)")
	_ = cmd.MarkFlagRequired("pack")
	return cmd
}

func newReportCmd(a *app) *cobra.Command {
	var run, format, out string
	var width int
	var redact bool
	var opt reportOpts
	cmd := &cobra.Command{
		Use:   "report [--run R] [--format text|md|json|html] [--trend-by run|model|prompt_id|agent] [--noise X,Y] [--clusters] [--scored]",
		Short: "The failure mix, both pass rates, the per-task grid, typed outcomes and costs",
		Long: `The failure mix, both pass rates, the per-task grid, typed outcomes and costs, broken down
by run, model, agent, prompt, repository and task type (from SWE-bench-style task ids), with
seed 004's two pictures: each model's pass@1 and pass^k against dollars, tokens and
wall-clock, and the model × task heatmap of solved seeds with saturated and cold tasks.

Trends: when the report covers two or more runs (or, with --trend-by, values of a version
field), pass@1, pass^k and each class's share per point, oldest first by first import, with
95% intervals clustered by task; --noise X,Y (two runs of one configuration) sets each
figure's noise floor, and no change inside it is called a trend.

--clusters reads the failing traces (as ` + "`triage clusters`" + ` does): each cluster's share
joins the trends, and the tools they called and the tool whose call failed break the report
down by tool. Without it, no trace body is read.

--scored counts only the traces with a recorded outcome (a scorer's verdict or a typed
outcome): a mix that is mostly sessions nobody scored says so under the mix, and this
shows the scored runs alone, saying how many traces it left out.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				format = "json"
			}
			if tui, _ := cmd.Flags().GetBool("tui"); tui {
				return a.showReportTUI(cmd.Context(), run, redact)
			}
			return a.runReport(cmd.Context(), run, format, out, width, redact, opt)
		},
	}
	cmd.Flags().StringVar(&opt.trendBy, "trend-by", card.TrendByRun, "trend points: run, model, prompt_id or agent")
	cmd.Flags().StringVar(&opt.noise, "noise", "", "X,Y: two runs of one configuration, whose differences are the trends' noise floor")
	cmd.Flags().BoolVar(&opt.clusters, "clusters", false, "read the failing traces: cluster shares in the trends, breakdowns by tool")
	cmd.Flags().BoolVar(&opt.scored, "scored", false, "count only the traces with a recorded outcome (the report says how many it left out)")
	_ = cmd.RegisterFlagCompletionFunc("trend-by", cobra.FixedCompletions(card.TrendDimensions, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().StringVar(&run, "run", "", "only this run")
	cmd.Flags().StringVar(&format, "format", "text", "text, md, json or html")
	cmd.Flags().Bool("json", false, "same as --format json")
	cmd.Flags().Bool("tui", false, "show the mix and the per-task grid full screen")
	cmd.Flags().StringVar(&out, "out", "", "write to this file instead of stdout")
	cmd.Flags().IntVar(&width, "width", 0, "text width (default: the terminal's, or 100)")
	cmd.Flags().BoolVar(&redact, "redact", false, redactFlagUsage)
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "md", "json", "html"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// reportOpts are report's trend and dashboard flags.
type reportOpts struct {
	trendBy, noise string
	clusters       bool
	// scored counts the scored runs alone (--scored).
	scored bool
}

func (a *app) runReport(ctx context.Context, run, format, out string, width int, redact bool, opt reportOpts) error {
	if !slices.Contains(card.TrendDimensions, opt.trendBy) {
		return usageErr("--trend-by %q: want %s", triage.Sanitize(opt.trendBy), strings.Join(card.TrendDimensions, ", "))
	}
	noise, err := parseNoise(opt.noise)
	if err != nil {
		return err
	}
	// The format is checked before anything is read or --out is created,
	// so a typo never truncates a previous report.
	var write func(io.Writer, *card.ReportData) error
	switch format {
	case "text", "":
		if width <= 0 {
			width = terminalWidth(a.stdout, 100)
		}
		color := out == "" && a.isTerminal(a.stdout) && os.Getenv("NO_COLOR") == ""
		write = func(w io.Writer, r *card.ReportData) error { return card.WriteText(w, r, width, color) }
	case "md", "markdown":
		write = card.WriteMarkdown
	case "json":
		write = card.WriteJSON
	case "html":
		write = card.WriteHTML
	default:
		return usageErr("--format %q: want text, md, json or html", format)
	}
	if out != "" {
		if err := refuseStoreTarget(a.dbPath, out); err != nil {
			return err
		}
	}
	// The report's live heap peaks near 46 MB on 100,000 tasks: under the
	// default collector that is a 126 MB resident set, at the bound. The
	// clusters' soft limit holds it lower at the same CPU, and is given up
	// once the live heap outgrows it (a store of a million rows).
	a.heap = cappedGC()
	var failing failingRefs
	in, rd, err := a.loadCardInput(ctx, run, redact, cardRead{trendBy: opt.trendBy, clusters: opt.clusters, noise: noise, failing: &failing, scoredOnly: opt.scored, oneTrend: true})
	if err != nil {
		return err
	}
	if in.RootCauses, err = a.reportRootCauses(ctx, &failing, redact, false); err != nil {
		return err
	}
	in.ReportOnce = true
	r := card.Report(in)
	if err := a.noteTrendDatasets(ctx, r.Trend); err != nil {
		return err
	}
	rd.Value(r)
	if out == "" {
		return write(a.stdout, r)
	}
	return a.writeOut(out, func(w io.Writer) error { return write(w, r) })
}

func newCompareCmd(a *app) *cobra.Command {
	var force, asJSON, clusters bool
	var noise string
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "What changed between two cards or two runs: controls, class deltas, flipped task cells, noise floor",
		Long: `Compare two card files (card export) or two runs in the store. When the dataset hashes
differ, B is a new benchmark and a like-for-like comparison is refused unless --force.
For two runs of one configuration, the flipped pass^k cells are the noise floor.

Two runs in the store are also followed as a trend A → B: pass@1, pass^k and each class's
share with 95% intervals clustered by task, each change called up, down or noise; --noise X,Y
(two runs of one configuration) sets each figure's noise floor, and --clusters adds the
shares of the largest failure clusters (reading the failing traces).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runCompare(cmd.Context(), args[0], args[1], force, asJSON, compareTrendOpts{noise: noise, clusters: clusters})
		},
	}
	cmd.Flags().StringVar(&noise, "noise", "", "X,Y: two runs of one configuration, whose differences are the trend's noise floor")
	cmd.Flags().BoolVar(&clusters, "clusters", false, "follow the largest failure clusters' shares too (reads the failing traces)")
	cmd.Flags().BoolVar(&force, "force", false, "compare even when the dataset hashes differ")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// compareTrendOpts are compare's trend flags.
type compareTrendOpts struct {
	noise    string
	clusters bool
}

func (a *app) runCompare(ctx context.Context, x, y string, force, asJSON bool, topt compareTrendOpts) error {
	var cmp *card.Comparison
	noise, err := parseNoise(topt.noise)
	if err != nil {
		return err
	}
	opts := card.CompareOptions{Force: force}
	if isFile(x) && isFile(y) {
		ca, err := readCard(x)
		if err != nil {
			return err
		}
		cb, err := readCard(y)
		if err != nil {
			return err
		}
		if cmp, err = card.Compare(ca, cb, opts); err != nil {
			// A refusal names the two files it compared (A and B).
			return fmt.Errorf("compare A=%s B=%s: %w", x, y, err)
		}
		if noise != nil || topt.clusters {
			return usageErr("--noise and --clusters follow runs in the store, not card files")
		}
	} else {
		tax, err := a.taxonomy()
		if err != nil {
			return err
		}
		db, err := a.openStore(ctx)
		if err != nil {
			return err
		}
		defer db.Close()
		rd := cardRead{forCard: true, noise: noise}
		if topt.clusters {
			for _, r := range []string{x, y} {
				if err := requireRun(ctx, db, r); err != nil {
					return err
				}
			}
			if rd.extra, err = a.traceExtras(ctx, db, clusterScope(x, append([]string{y}, noise...))); err != nil {
				return err
			}
		}
		ia, err := a.cardInput(ctx, db, x, tax, rd)
		if err != nil {
			return err
		}
		rd.noise = nil // read once, with A
		ib, err := a.cardInput(ctx, db, y, tax, rd)
		if err != nil {
			return err
		}
		if cmp, err = card.CompareInputs(ia, ib, opts); err != nil {
			return err
		}
		if !cmp.NewBenchmark || cmp.Forced {
			cmp.Trend = card.CompareTrend(tax, ia, ib, ia.Noise, noise, rd.extra != nil)
		}
	}
	if asJSON {
		return card.WriteCompareJSON(a.stdout, cmp)
	}
	return card.WriteCompareText(a.stdout, cmp)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func readCard(path string) (*card.Card, error) {
	data, err := readSmallFile(path, maxCardBytes)
	if err != nil {
		return nil, err
	}
	c, err := card.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// packHash hashes a pack directory, or the embedded sample for "sample:".
func packHash(dir string) (string, error) {
	if dir == samplePackDir {
		return pack.HashFS(sample.Pack(), ".")
	}
	return pack.Hash(dir)
}

// loadCardInput opens the store and gathers one run's card input under
// the current taxonomy. With redact it also returns the Redactor for
// --redact: the caller masks what it built from the input (a report, a
// card) as a whole with its Value, so that every string of the output is
// masked in one place, identifiers included. Counting runs on the data as
// stored.
func (a *app) loadCardInput(ctx context.Context, run string, redact bool, opt cardRead) (card.Input, *triage.Redactor, error) {
	tax, err := a.taxonomy()
	if err != nil {
		return card.Input{}, nil, err
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return card.Input{}, nil, err
	}
	defer db.Close()
	rd, err := a.storeRedactor(ctx, db, redact)
	if err != nil {
		return card.Input{}, nil, err
	}
	in, err := a.cardInput(ctx, db, run, tax, opt)
	return in, rd, err
}

// notChecked says, once a run, which rules could not apply to any of its
// traces: a run with no task pack has no spec, allowlist or withheld input,
// so ASSUME_API, MISSING_ASK and SCOPE_SLIP were not checked. The rules do
// not send a trace to people for this alone (DESIGN §7); the report says it.
func notChecked(ctx context.Context, db store.Store, t *card.Tally) ([]card.RunNote, error) {
	controls, err := db.RunControls(ctx)
	if err != nil {
		return nil, err
	}
	packed := map[string]bool{}
	for _, c := range controls {
		packed[c.RunID] = c.PackDir != ""
	}
	var out []card.RunNote
	for _, run := range t.Runs() {
		if !packed[run] {
			out = append(out, card.RunNote{RunID: run, Traces: t.RunTraces(run),
				Note: "no task pack (card init --pack): ASSUME_API, MISSING_ASK and SCOPE_SLIP were not checked"})
		}
	}
	return out, nil
}
