package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/ingest"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// Exit statuses of DESIGN §4.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitRejected = 3
)

// exitErr carries an exit status up to run; a nil err with a code says
// "done, but" (exit 3 after rejected lines).
type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string {
	if e.err == nil {
		return "exit " + strconv.Itoa(e.code)
	}
	return e.err.Error()
}

func (e *exitErr) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitErr{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// app is what every command shares: the streams and the store's path.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	dbPath         string
	taxonomyPath   string
	// isTerminal says whether a stream is a terminal; tests replace it.
	isTerminal func(w any) bool
	// cfg is the config file (settings.go), read before any command runs.
	cfg fileConfig
	// heap is the soft memory limit `clusters` and `report` keep while
	// their live heap is small (cappedGC); nil for the other commands.
	heap *heapCap
}

// openStore opens the store, which must exist: a command that reads
// should not leave an empty store behind a mistyped --db.
func (a *app) openStore(ctx context.Context) (store.Store, error) {
	// A database server's store is made on first use by any command: the
	// server, not a path, says whether it exists.
	if _, err := os.Stat(a.dbPath); errors.Is(err, os.ErrNotExist) && !isServerURL(a.dbPath) {
		return nil, fmt.Errorf("no store at %s: import traces first (triage import FILE), or name the store with --db or $TRIAGE_DB", a.dbPath)
	}
	return a.open(ctx)
}

// createStore opens the store, creating it when it does not exist yet
// (import, card init, demo).
func (a *app) createStore(ctx context.Context) (store.Store, error) {
	return a.open(ctx)
}

// open opens the store. A write that waits for another process's says
// so on stderr, once, after a second: writers wait for one another
// instead of failing (the review screen, which owns the terminal, turns
// the message off).
func (a *app) open(ctx context.Context) (store.Store, error) {
	db, err := openDB(ctx, a.dbPath, decodeRow)
	if err != nil {
		return nil, err
	}
	db.OnWait(a.sayWaiting)
	return db, nil
}

// sayWaiting tells the user what a write waits for.
func (a *app) sayWaiting(holder string) {
	if holder == "" {
		holder = "another triage process"
	}
	fmt.Fprintf(a.stderr, "triage: waiting for %s, which is writing to the store…\n", triage.Sanitize(holder))
}

// maxReadToolCalls bounds the tool calls of one trace that the commands
// reading traces build (rules, clusters, explain, the review screen): a
// trace of a million calls took 0.75 GB in rules run, 1.08 GB in clusters
// and 2.4 GB in the review screen. The real logs' longest trace has 372
// calls; the calls past the bound are not read, and the trace says so
// (triage.ReadCut). show prints the stored row whole, and store copy
// decodes whole (decodeWholeRow).
const maxReadToolCalls = 10_000

// decodeRow decodes the store's rows, which import validated once, up to
// maxReadToolCalls tool calls.
func decodeRow(row []byte, run string) (*triage.Trace, error) {
	return ingest.DecodeStoredCalls(row, run, maxReadToolCalls)
}

// decodeWholeRow decodes a stored row with every tool call, for store
// copy, which must copy traces whole.
func decodeWholeRow(row []byte, run string) (*triage.Trace, error) {
	return ingest.DecodeStored(row, run)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, isTerminal: isTerminal}
	useHashCache()
	root := newRootCmd(a)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	// a.stderr, not stderr: under --redact the command masked it, and
	// its error message names runs, tasks and files too.
	if err == nil {
		return exitOK
	}
	var ee *exitErr
	if errors.As(err, &ee) {
		if ee.err != nil {
			sayln(a.stderr, "triage:", errText(ee.err))
			if ee.code == exitUsage {
				sayln(a.stderr, "Run 'triage --help' for usage.")
			}
		}
		return ee.code
	}
	sayln(a.stderr, "triage:", errText(err))
	if isUsage(err) {
		sayln(a.stderr, "Run 'triage --help' for usage.")
		return exitUsage
	}
	return exitError
}

// errText is an error's message made inert for the terminal: messages
// quote file names, task IDs and trace text, any of which may carry
// escape sequences, and every command's error ends here.
func errText(err error) string { return triage.Sanitize(err.Error()) }

// isUsage recognises cobra's own argument and flag errors.
func isUsage(err error) bool {
	msg := err.Error()
	// cobra's own wording: `invalid argument "x" for "--flag"`, not the
	// OS error EINVAL ("invalid argument"), which is no usage error.
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "flag needs an argument", `invalid argument "`, "accepts ", "requires at least", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "triage",
		Short: "Tell why your coding agents fail: import traces, label them, agree, publish the failure mix",
		Long: `triage imports coding-agent traces into a local SQLite store with the run's frozen
controls, labels them with deterministic rules (never an LLM), walks reviewers through
what the rules cannot decide, checks that two reviewers agree before a taxonomy is
trusted, and publishes benchmark cards, failure-mix reports and run comparisons.

Start with:  triage demo`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("triage {{.Version}}\n")
	def := os.Getenv("TRIAGE_DB")
	if def == "" {
		def = "triage.db"
	}
	root.PersistentFlags().StringVar(&a.dbPath, "db", def, "store: an SQLite file, or a PostgreSQL URL postgres://… (or set $TRIAGE_DB)")
	root.PersistentFlags().StringVar(&a.taxonomyPath, "taxonomy", "", "taxonomy file, TOML, YAML or JSON (or set $TRIAGE_TAXONOMY; default: the seed's eight classes)")
	var cpuprofile, memprofile, tracefile string
	root.PersistentFlags().StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile to this file (for performance work)")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	// What was allocated, and where: the collector's work follows it.
	root.PersistentFlags().StringVar(&memprofile, "memprofile", "", "write an allocation profile to this file at exit (for performance work)")
	_ = root.PersistentFlags().MarkHidden("memprofile")
	// An execution trace shows what a CPU profile cannot: goroutines
	// waiting on one another, i.e. a pipeline that leaves a core idle.
	root.PersistentFlags().StringVar(&tracefile, "trace", "", "write an execution trace to this file, for 'go tool trace' (for performance work)")
	_ = root.PersistentFlags().MarkHidden("trace")
	var stops []func()
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := a.applyConfig(root); err != nil {
			return err
		}
		// Profiles go through the atomic writer like every other file:
		// one cut short by a kill never replaces a good profile, and
		// neither can name the store.
		if cpuprofile != "" {
			f, err := a.createOut(cpuprofile)
			if err != nil {
				return err
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				f.Abort()
				return err
			}
			stops = append(stops, func() { pprof.StopCPUProfile(); a.commitOut(f) })
		}
		if memprofile != "" {
			stops = append(stops, func() {
				f, err := a.createOut(memprofile)
				if err != nil {
					sayln(a.stderr, "triage:", errText(err))
					return
				}
				if pprof.Lookup("allocs").WriteTo(f, 0) != nil {
					f.Abort()
					return
				}
				a.commitOut(f)
			})
		}
		if tracefile != "" {
			f, err := a.createOut(tracefile)
			if err != nil {
				return err
			}
			if err := trace.Start(f); err != nil {
				f.Abort()
				return err
			}
			stops = append(stops, func() { trace.Stop(); a.commitOut(f) })
		}
		return nil
	}
	root.PersistentPostRun = func(*cobra.Command, []string) {
		for _, stop := range stops {
			stop()
		}
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitErr{code: exitUsage, err: err}
	})
	root.AddCommand(
		newImportCmd(a),
		newStoreCmd(a),
		newRejectsCmd(a),
		newTracesCmd(a),
		newShowCmd(a),
		newStepsCmd(a),
		newClustersCmd(a),
		newGateCmd(a),
		newTrendsCmd(a),
		newCardCmd(a),
		newRulesCmd(a),
		newReviewCmd(a),
		newPackCmd(a),
		newDemoCmd(a),
		newReportCmd(a),
		newCompareCmd(a),
		newSliceCmd(a),
		newAgreeCmd(a),
		newLabelsCmd(a),
		newAdjudicateCmd(a),
	)
	refuseUnknownSubcommands(root)
	addStoreCompletions(a, root)
	return root
}

// refuseUnknownSubcommands makes every group command below the root (card,
// slice, labels, …) refuse an argument that names none of its
// subcommands, as cobra does only at the root: "triage card exprot" is a
// usage error with a suggestion, not the group's help with exit 0. A group
// given no argument still prints its help.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if !c.HasParent() || !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.SuggestionsMinimumDistance = 2 // cobra's default, set only at the root
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return &exitErr{code: exitUsage, err: errors.New(msg)}
	}
}
