package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/triage-dev/triage/internal/ingest"
	"github.com/triage-dev/triage/internal/rules"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

type importOpts struct {
	run, format, model, results string
	strict, asJSON, rules       bool
	maxRatio                    int
	maxInflate                  string
}

// importSummary is the --json output of import (DESIGN §4).
type importSummary struct {
	Imported   int `json:"imported"`
	Duplicates int `json:"duplicates"`
	Rejected   int `json:"rejected"`
	// Skipped counts blank lines (nothing but spaces, tabs, CRs): every
	// line of a file ends in one count.
	Skipped int            `json:"skipped"`
	Rejects []importReject `json:"rejects"`
	// RejectsNotListed counts the rejects past the first maxListed, which
	// the summary counts but does not list (see 'triage rejects').
	RejectsNotListed int `json:"rejects_not_listed,omitempty"`
	// Labelled counts the traces --rules labelled.
	Labelled int `json:"labelled,omitempty"`
	// Errors are whole inputs that could not be read (missing file,
	// directory, unknown format); their lines are unknown.
	Errors []string `json:"errors,omitempty"`
	// Skipped are the files a directory walk did not import, with why.
	SkippedFiles []ingest.Skip `json:"skipped_files,omitempty"`
	// Warnings are results files whose verdicts could not be used; the
	// traces beside them imported with an unknown outcome.
	Warnings []string `json:"warnings,omitempty"`
	// NothingWritten says --strict rolled the import back: then imported
	// and labelled are 0, whatever the batches had written before.
	NothingWritten bool `json:"nothing_written,omitempty"`
	// Reseeded counts the Inspect samples stored under a later seed than
	// their epoch: another log of the same task had that epoch in the
	// run already (see reseeder).
	Reseeded int `json:"reseeded,omitempty"`
	// ReseededExample names one of them, before → after.
	ReseededExample string `json:"reseeded_example,omitempty"`
}

// reject counts a rejected line in the summary and files it, with its
// bytes, in the store: a bad line and a trace conflicting with a stored
// one end the same way.
func (s *importSummary) reject(ctx context.Context, im store.Import, r store.Reject) error {
	s.Rejected++
	s.list(r)
	return im.Reject(ctx, r)
}

// maxListed bounds the rejects a summary lists: memory stays bounded
// whatever the input, and every reject is in the store.
const maxListed = 10_000

func (s *importSummary) list(r store.Reject) {
	if len(s.Rejects) < maxListed {
		s.Rejects = append(s.Rejects, importReject{File: r.File, Line: r.Line, Reason: r.Reason})
	} else {
		s.RejectsNotListed++
	}
}

// repeats files a line rejected for the same reason as an earlier line of
// the same bytes once: 14 KB of gzipped "{}" lines are 4.8 million such
// lines, and a reject row costs a hundred times a short line's bytes (the
// file, the reason, the hash, the time, the index), so filing each one
// made a 1.49 GB store. Each is counted as rejected; after the file, one
// row says how many more there were. The table of lines seen is bounded.
type repeats struct {
	seen map[[32]byte]*repeat
}

type repeat struct {
	first, next, last, n int
	reason, file         string
}

// maxRepeatKeys bounds the lines repeats remembers; a line past it is
// filed as it comes.
const maxRepeatKeys = 100_000

// again reports whether r repeats a reject already filed, and counts it.
func (rp *repeats) again(r store.Reject) bool {
	// The file is part of the key: a folder input (OpenHands events, a
	// trial) rejects each of its files under that file's own name, and two
	// empty ones are not repeats of each other.
	h := sha256.New()
	h.Write([]byte(r.File))
	h.Write([]byte{0})
	h.Write([]byte(r.Reason))
	h.Write([]byte{0})
	h.Write(r.Raw)
	var k [32]byte
	h.Sum(k[:0])
	if e, ok := rp.seen[k]; ok {
		if e.n == 0 {
			e.next = r.Line
		}
		e.n++
		e.last = r.Line
		return true
	}
	if rp.seen == nil {
		rp.seen = map[[32]byte]*repeat{}
	}
	if len(rp.seen) < maxRepeatKeys {
		rp.seen[k] = &repeat{first: r.Line, reason: r.Reason, file: r.File}
	}
	return false
}

// file files one row for each repeated line, at its first repeat, saying
// how many more lines were like it.
func (rp *repeats) file(ctx context.Context, im store.Import, name string) error {
	var rs []*repeat
	for _, e := range rp.seen {
		if e.n > 0 {
			rs = append(rs, e)
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].first < rs[j].first })
	for _, e := range rs {
		reason := fmt.Sprintf("this line and %d more up to line %d are the bytes of line %d, rejected for the same reason (%s); the line is kept once, at line %d", e.n-1, e.last, e.first, e.reason, e.first)
		file := e.file
		if file == "" {
			file = name
		}
		if err := im.Reject(ctx, store.Reject{File: file, Line: e.next, Reason: reason}); err != nil {
			return err
		}
	}
	rp.seen = nil
	return nil
}

type importReject struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

func newImportCmd(a *app) *cobra.Command {
	var o importOpts
	cmd := &cobra.Command{
		Use:   "import FILE… | -",
		Short: "Import traces (our JSONL, .jsonl.gz, or agent-harness logs) into the store",
		Long: `Import traces into the store. Every input line ends as exactly one of imported,
duplicate or rejected; rejected lines are kept with their bytes (see 'triage rejects').
Re-importing a file changes nothing. A directory imports every trace file under it.

Exit status: 0 all clean, 3 some lines rejected, 1 an input could not be read
(or, with --strict, any bad line: then nothing is written).`,
		Example: `  triage import runs/run-a.jsonl
  zcat big.jsonl.gz | triage import --run run-a -
  triage import --json traces/ > summary.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runImport(cmd.Context(), o, args)
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"jsonl", "jsonl.gz", "json", "traj", "eval"}, cobra.ShellCompDirectiveFilterFileExt
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.run, "run", "", "run id for rows that do not name one (default: the file's stem)")
	f.StringVar(&o.format, "format", "auto", "input format: auto or one of "+strings.Join(ingest.FormatNames(), ", "))
	f.StringVar(&o.model, "model", "", "model name for traces whose source does not record it")
	f.StringVar(&o.results, "results", "", "SWE-bench report.json or results summary for trajectories")
	f.BoolVar(&o.strict, "strict", false, "write nothing if any line is bad (exit status 1)")
	f.BoolVar(&o.asJSON, "json", false, "print the summary as JSON")
	f.BoolVar(&o.rules, "rules", false, "label each new trace with the rules as it is stored (what 'triage rules run' would do next, in one pass)")
	f.IntVar(&o.maxRatio, "max-ratio", ingest.DefaultMaxRatio, "a compressed input may expand to at most this many times its size (past its first MiB); -1: no limit")
	f.StringVar(&o.maxInflate, "max-inflate", "32GiB", "a compressed input may expand to at most this much (e.g. 512MiB, 64GiB); -1: no limit")
	_ = cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return append([]string{"auto"}, ingest.FormatNames()...), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func (a *app) runImport(ctx context.Context, o importOpts, args []string) error {
	streamingGC()
	var err error
	// A mistyped --format is a usage error, caught before the store is
	// created and before any file is opened.
	if _, ok := ingest.Lookup(o.format); !ok && o.format != "auto" && o.format != "" {
		return usageErr("--format %q: unknown format (known: auto, %s)", o.format, strings.Join(ingest.FormatNames(), ", "))
	}
	var maxInflate int64 // 0: ingest's default
	if o.maxInflate != "" {
		if maxInflate, err = parseSize(o.maxInflate); err != nil {
			return usageErr("--max-inflate %q: %v", o.maxInflate, err)
		}
	}
	if o.maxRatio < -1 {
		return usageErr("--max-ratio %d: want a positive ratio, or -1 for no limit", o.maxRatio)
	}
	walk, err := ingest.ExpandWalk(args)
	if err != nil {
		return &exitErr{code: exitError, err: err}
	}
	files := walk.Files
	db, err := a.createStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()

	prog := newProgress(a, files)
	defer prog.done()
	sum := importSummary{SkippedFiles: walk.Skipped}
	outcomes := ingest.NewOutcomes()
	opts := ingest.Options{RunID: o.run, Model: o.model, Results: o.results, Outcomes: outcomes, Lite: !o.rules, MaxRatio: o.maxRatio, MaxInflate: maxInflate}
	var ir *importRules
	if o.rules {
		if ir, err = a.newImportRules(ctx, db); err != nil {
			return err
		}
	}

	var im store.Import
	var rs reseeder
	// Results arrive per batch; a conflict is filed as a reject (or, for
	// an Inspect sample, tried again at the next seed: rs).
	onResult := func(ad store.Added) error {
		switch ad.Result {
		case store.Imported:
			sum.Imported++
			if ir != nil {
				sum.Labelled++
			}
			rs.landed(ad, &sum)
		case store.Duplicate:
			sum.Duplicates++
		case store.Conflict:
			if rs.take(ad) {
				return nil
			}
			raw := ad.Trace.Raw
			if raw == nil {
				raw = ad.Norm
			}
			reason := fmt.Sprintf("%s is already stored with different content; import it under another --run", ad.Trace.Key())
			return sum.reject(ctx, im, store.Reject{File: ad.File, Line: ad.Line, Reason: reason, Raw: raw})
		}
		return nil
	}
	begin := func() error {
		if im != nil {
			return nil
		}
		if im, err = db.BeginImport(ctx, onResult); err != nil {
			return err
		}
		if o.strict {
			// --strict must be able to roll every file back: no steps.
			im.Whole()
		}
		if ir != nil {
			im.LabelWith(ir.l.tax.Version, rules.RulesVersion, ir.label)
		}
		return nil
	}
	var readErr bool
	for _, u := range walk.Unreadable {
		// It may hold traces: the import goes on and then fails.
		sum.Errors = append(sum.Errors, fmt.Sprintf("%s: cannot be read: %s", u.Path, u.Reason))
		readErr = true
	}
	pendingFiles, pendingBytes := 0, int64(0)
	pf := startPrefetch(ctx, files, o.format, opts, prog.wrap)
	defer pf.close()
	for i, path := range files {
		name := path
		if path == "-" {
			name = "<stdin>"
		}
		db.SetActivity("the import of " + name)
		if err := begin(); err != nil {
			return err
		}
		pre := pf.get(ctx, i)
		if pre == nil {
			return ctx.Err()
		}
		ferr := a.importFile(ctx, im, path, o.format, opts, &sum, prog, pre)
		pf.done(pre)
		if _, ok := errors.AsType[*ingest.UnknownFormatError](ferr); ok && walk.Walked[path] {
			// A directory holds other files too: one no format reads is
			// listed, not an error.
			sum.SkippedFiles = append(sum.SkippedFiles, ingest.Skip{Path: path, Reason: "no trace format reads it (tried " + strings.Join(ingest.FormatNames(), ", ") + ")"})
			ferr = nil
		}
		if ferr != nil {
			if fatal, ok := errors.AsType[*fatalErr](ferr); ok {
				im.Rollback()
				return fatal.err
			}
			readErr = true
			sum.Errors = append(sum.Errors, ferr.Error())
		}
		if pre != nil && !pre.stream {
			pendingFiles++
			pendingBytes += pre.size
		} else {
			pendingFiles, pendingBytes = commitFiles, 0 // a streamed file commits alone
		}
		if !o.strict && (pendingFiles >= commitFiles || pendingBytes >= commitBytes || i == len(files)-1) {
			// A transaction holds whole files only: a file lands whole
			// or not at all. Small harness logs share one, so a directory
			// of thousands is not thousands of commits.
			if err := im.Commit(ctx); err != nil {
				return err
			}
			im, pendingFiles, pendingBytes = nil, 0, 0
		}
	}
	prog.done()
	sum.Warnings = outcomes.Warnings()
	if o.strict && im != nil && sum.Rejected == 0 && !readErr {
		if err := im.Flush(ctx); err != nil {
			return err
		}
	}
	if err := rs.place(ctx, begin, func() store.Import { return im }); err != nil {
		return err
	}
	if !o.strict && im != nil {
		if err := im.Commit(ctx); err != nil {
			return err
		}
		im = nil
	}
	bad := sum.Rejected > 0 || readErr
	if o.strict && im != nil {
		if !bad {
			if err := im.Flush(ctx); err != nil {
				return err
			}
			bad = sum.Rejected > 0
		}
		if bad {
			im.Rollback()
			// The summary says what was written: nothing. The counts
			// followed the batches written inside the rolled-back
			// transaction.
			sum.Imported, sum.Labelled, sum.NothingWritten = 0, 0, true
		} else if err := im.Commit(ctx); err != nil {
			return err
		}
	}
	if o.asJSON {
		if sum.Rejects == nil {
			sum.Rejects = []importReject{}
		}
		if err := writeJSON(a.stdout, sum); err != nil {
			return err
		}
	} else {
		a.printImportSummary(sum)
		if ir != nil && !(o.strict && bad) {
			sayf(a.stdout, "%d labelled by the rules (taxonomy %s, rules v%s)\n", sum.Labelled, rules.ShortVersion(ir.l.tax.Version), rules.RulesVersion)
			if ir.missingPack() {
				sayln(a.stderr, "note: no task pack for some runs (card init --pack): ASSUME_API, MISSING_ASK and SCOPE_SLIP could not be evaluated there")
			}
		}
	}
	if sum.NothingWritten {
		fmt.Fprintln(a.stderr, "--strict: nothing was written because some input was bad")
	}
	switch {
	case o.strict && bad, readErr:
		return &exitErr{code: exitError}
	case sum.Rejected > 0:
		return &exitErr{code: exitRejected}
	}
	return nil
}

// commitFiles and commitBytes bound the small harness logs one import
// transaction holds: a transaction only ever holds whole files.
const (
	commitFiles = 64
	commitBytes = 8 << 20
)

// fatalErr aborts the whole import (a store failure), unlike a bad input.
type fatalErr struct{ err error }

func (e *fatalErr) Error() string { return e.err.Error() }

// importFile stores one input's records: decoded ahead by the prefetcher
// (pre), or read and decoded here when pre says to stream it.
func (a *app) importFile(ctx context.Context, im store.Import, path, format string, opts ingest.Options, sum *importSummary, prog *progressBar, pre *decodedFile) (ferr error) {
	var name string
	var decode func(emit func(ingest.Record, []byte, string) error) error
	if pre != nil && !pre.stream {
		if pre.name == "" {
			return pre.err // the file did not open
		}
		name = pre.name
		decode = func(emit func(ingest.Record, []byte, string) error) error {
			for i, r := range pre.recs {
				if err := emit(r, pre.norms[i], pre.bad[i]); err != nil {
					return err
				}
			}
			return pre.err
		}
	} else {
		in, err := ingest.Open(path, a.stdin, prog.wrap)
		if err != nil {
			return err
		}
		defer in.Close()
		name = in.Name
		decode = func(emit func(ingest.Record, []byte, string) error) error {
			return ingest.Decode(ctx, in, format, opts, func(r ingest.Record) error {
				norm, bad := prepare(r)
				return emit(r, norm, bad)
			})
		}
	}
	var rp repeats
	reject := func(file string, line int, reason string, raw []byte) error {
		// A reason may quote the input; a NUL in it is written as its
		// escape, which PostgreSQL's text can hold, on both stores alike.
		reason = strings.ReplaceAll(reason, "\x00", `\u0000`)
		r := store.Reject{File: file, Line: line, Reason: reason, Raw: raw}
		if rp.again(r) {
			sum.Rejected++
			return nil
		}
		if err := sum.reject(ctx, im, r); err != nil {
			return &fatalErr{err}
		}
		return nil
	}
	defer func() {
		if err := rp.file(ctx, im, name); err != nil && ferr == nil {
			ferr = &fatalErr{err}
		}
	}()
	records := 0
	err := decode(func(r ingest.Record, norm []byte, bad string) error {
		records++
		if r.Blank {
			sum.Skipped++
			return nil
		}
		if r.Reject != nil {
			return reject(r.Reject.File, r.Reject.Line, r.Reject.Reason, r.Reject.Raw)
		}
		t := r.Trace
		if bad != "" {
			return reject(name, r.Line, bad, t.Raw)
		}
		if err := im.Add(ctx, t, norm, name, r.Line); err != nil {
			return &fatalErr{fmt.Errorf("import %s:%d: %w", name, r.Line, err)}
		}
		return nil
	})
	// An input that expands past its limits keeps what was read before,
	// and the rest is one reject naming the limit.
	if ie, ok := errors.AsType[*ingest.InflateError](err); ok {
		line := 1
		if re, ok := errors.AsType[*ingest.ReadError](err); ok {
			line = max(re.Line, 1)
		}
		return reject(name, line, fmt.Sprintf("not read past this line: %v", ie), nil)
	}
	// An input cut short (a truncated gzip stream, an I/O error) keeps
	// what was read before the cut, and the cut is filed as a reject.
	if re, ok := errors.AsType[*ingest.ReadError](err); ok {
		if re.Line == 0 {
			// Nothing was read: the cut is at the very start, line 1.
			return reject(name, 1, fmt.Sprintf("input unreadable from its first line: %v", re.Err), nil)
		}
		return reject(name, re.Line, fmt.Sprintf("input truncated or unreadable after this line: %v", re.Err), nil)
	}
	if he, ok := errors.AsType[*ingest.HarnessError](err); ok {
		return reject(name, he.Line, fmt.Sprintf("input truncated or unreadable at byte %d: %v", he.Offset, he.Err), nil)
	}
	if err == nil && records == 0 {
		// Not an error (an empty export is a valid "nothing new"), but a
		// file emptied by a failed copy should not pass unnoticed.
		sayf(a.stderr, "triage: warning: %s: empty, no traces in it\n", triage.Sanitize(name))
	}
	return err
}

func (a *app) printImportSummary(sum importSummary) {
	w := a.stderr
	const show = 20
	if sum.Reseeded > 0 {
		sayf(w, "note: %d Inspect samples stored under later seeds (%s): another log of their task had that epoch in the run already\n", sum.Reseeded, triage.Sanitize(sum.ReseededExample))
	}
	shown := min(len(sum.Rejects), show)
	for _, r := range sum.Rejects[:shown] {
		// File names and reasons quote the input, which may carry escapes.
		sayf(w, "%s:%d: %s\n", triage.Sanitize(r.File), r.Line, triage.Sanitize(r.Reason))
	}
	// Rejected counts every line; Rejects lists at most maxListed, and
	// no line that repeated one before it.
	if more := sum.Rejected - shown; more > 0 {
		lines := "lines"
		if more == 1 {
			lines = "line"
		}
		sayf(w, "… and %d more rejected %s (see 'triage rejects')\n", more, lines)
	}
	for _, e := range sum.Errors {
		sayln(w, "triage:", triage.Sanitize(e))
	}
	for _, wn := range sum.Warnings {
		sayln(w, "triage: warning:", triage.Sanitize(wn))
	}
	if n := len(sum.SkippedFiles); n > 0 {
		if n == 1 {
			sayln(w, "skipped 1 file that is not a trace:")
		} else {
			sayf(w, "skipped %d files that are not traces:\n", n)
		}
		for i, sk := range sum.SkippedFiles {
			if i == show {
				sayf(w, "  … and %d more (import --json lists them all)\n", n-show)
				break
			}
			sayf(w, "  %s: %s\n", triage.Sanitize(sk.Path), triage.Sanitize(sk.Reason))
		}
	}
	sayf(a.stdout, "%d imported, %d duplicates, %d rejected", sum.Imported, sum.Duplicates, sum.Rejected)
	switch sum.Skipped {
	case 0:
	case 1:
		sayf(a.stdout, ", 1 blank line skipped")
	default:
		sayf(a.stdout, ", %d blank lines skipped", sum.Skipped)
	}
	fmt.Fprintln(a.stdout)
}

// parseSize reads a byte count: a number with an optional unit (B, KiB,
// MiB, GiB, TiB, or K, M, G, T, as powers of 1024); -1 is no limit.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "-1" {
		return -1, nil
	}
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, errors.New("want a positive size such as 512MiB or 64GiB, or -1 for no limit")
	}
	return n * mult, nil
}
