package ingest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Walk is the command line's paths as inputs: the files to import, which
// of them a directory walk found (a walked file that no format reads is
// skipped, not an error), and every file the walk left out, with why, so
// a user sees that nothing was dropped silently.
type Walk struct {
	Files   []string
	Walked  map[string]bool
	Skipped []Skip
	// Unreadable are entries under a directory that could not be read (a
	// path longer than the system allows, a directory without the right
	// to list it): unlike Skipped, they may hold traces, so the command
	// must fail for them after importing the rest. They were listed as
	// skipped, and the import exited 0.
	Unreadable []Skip
}

// Skip is a file a directory walk did not import, and the reason.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ExpandWalk expands paths: "-" and files named on the command line stay
// as given (a device or FIFO named directly is read, with the same line
// limit as a file); a directory becomes its regular trace files,
// recursively and sorted, and everything else under it is listed in
// Skipped: files that are not regular (a FIFO would block the walk
// forever, a link to /dev/zero would never end), hidden directories, the
// results files adapters read beside their logs, and other file types.
func ExpandWalk(paths []string) (Walk, error) {
	w := Walk{Walked: map[string]bool{}}
	for _, p := range paths {
		if p == "-" {
			w.Files = append(w.Files, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			w.Files = append(w.Files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if path == p {
					return err
				}
				w.Unreadable = append(w.Unreadable, Skip{path, pathErr(err).Error()})
				if d != nil && d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					w.Skipped = append(w.Skipped, Skip{path + string(filepath.Separator), "hidden directory"})
					return filepath.SkipDir
				}
				if claimedDir(path) {
					// A format that keeps a run as a folder (OpenHands
					// sessions' events/N.json) reads it as one input.
					found = append(found, path)
					return filepath.SkipDir
				}
				return nil
			}
			if why := notRegular(path, d); why != "" {
				w.Skipped = append(w.Skipped, Skip{path, why})
				return nil
			}
			if why := skipReason(d.Name()); why != "" && !aiderFileName(path) {
				if !byExtension(why) || !contentCandidate(d.Name()) {
					w.Skipped = append(w.Skipped, Skip{path, why})
					return nil
				}
				// A console's stream kept as .txt or .log (Harbor's
				// agent/claude-code.txt, a captured stream-json): read by
				// the format its content is, whatever its name.
				if !detectsByContent(path) {
					w.Skipped = append(w.Skipped, Skip{path, why + ", and no format reads its content"})
					return nil
				}
			}
			if filepath.Base(filepath.Dir(path)) == "sb-cli-reports" && strings.HasSuffix(strings.TrimSuffix(strings.ToLower(path), ".gz"), ".json") {
				w.Skipped = append(w.Skipped, Skip{path, "results file: an sb-cli report, read for the outcomes of the logs beside it"})
				return nil
			}
			if RunReport(path) {
				w.Skipped = append(w.Skipped, Skip{path, "results file: a SWE-bench run report, read for the outcomes of the logs beside it"})
				return nil
			}
			if why := scoredCopy(path); why != "" {
				w.Skipped = append(w.Skipped, Skip{path, why})
				return nil
			}
			found = append(found, path)
			return nil
		})
		if err != nil {
			return w, fmt.Errorf("%s: %w", p, pathErr(err))
		}
		sort.Strings(found)
		for _, f := range found {
			w.Walked[f] = true
		}
		w.Files = append(w.Files, found...)
	}
	w.dropScoredCopies()
	sort.SliceStable(w.Skipped, func(i, j int) bool { return w.Skipped[i].Path < w.Skipped[j].Path })
	sort.SliceStable(w.Unreadable, func(i, j int) bool { return w.Unreadable[i].Path < w.Unreadable[j].Path })
	return w, nil
}

// notRegular says why a walked entry is not a regular file ("" when it
// is): links are followed, and must end at a regular file.
func notRegular(path string, d fs.DirEntry) string {
	mode := d.Type()
	if mode&fs.ModeSymlink != 0 {
		st, err := os.Stat(path)
		if err != nil {
			return "a link that leads nowhere: " + pathErr(err).Error()
		}
		mode = st.Mode().Type()
		if st.IsDir() {
			return "a link to a directory (not followed)"
		}
	}
	switch {
	case mode.IsRegular():
		return ""
	case mode&fs.ModeNamedPipe != 0:
		return "not a regular file: a FIFO"
	case mode&fs.ModeSocket != 0:
		return "not a regular file: a socket"
	case mode&fs.ModeDevice != 0:
		return "not a regular file: a device"
	}
	return "not a regular file"
}

// dropScoredCopies skips an OpenHands scored copy named on the command
// line together with the output.jsonl beside it (a shell glob of *.jsonl
// names both): imported, its lines would conflict with output.jsonl's.
func (w *Walk) dropScoredCopies() {
	named := map[string]bool{}
	for _, f := range w.Files {
		named[filepath.Clean(f)] = true
	}
	kept := w.Files[:0]
	for _, f := range w.Files {
		if strings.EqualFold(filepath.Base(f), OpenHandsScoredName) && named[filepath.Join(filepath.Dir(filepath.Clean(f)), "output.jsonl")] {
			w.Skipped = append(w.Skipped, Skip{f, "results file: OpenHands' scored copy of the output.jsonl also named, read for the outcomes of its runs"})
			continue
		}
		kept = append(kept, f)
	}
	w.Files = kept
}

// scoredCopy says why an OpenHands scored copy of output.jsonl is not
// imported when output.jsonl is beside it: its lines are the same runs,
// which would conflict with output.jsonl's; their verdicts are read for
// those runs instead (Outcomes.openHandsScored). Alone, it is a trace
// file like output.jsonl.
func scoredCopy(path string) string {
	if !strings.EqualFold(filepath.Base(path), OpenHandsScoredName) {
		return ""
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "output.jsonl")); err != nil {
		return ""
	}
	return "results file: OpenHands' scored copy of output.jsonl, read for the outcomes of its runs"
}

// skipReason says why a walked file is not a trace to detect ("" when it
// may be one); a gzipped file counts as its plain name (Open
// decompresses any of them). Results files are read by the adapters next
// to their trajectories, not imported on their own.
func skipReason(name string) string {
	l := strings.TrimSuffix(strings.ToLower(name), ".gz")
	switch {
	case strings.HasSuffix(l, "report.json"), l == "results.json", strings.HasPrefix(l, "results_summary"),
		strings.HasSuffix(l, ".eval.log"), strings.HasPrefix(l, "exit_statuses_") && strings.HasSuffix(l, ".yaml"),
		l == "post-condition-output.txt":
		return "results file: read for the outcomes of the logs beside it"
	case l == "result.json", l == "reward.json", l == "rewards.jsonl", l == "ctrf.json":
		// A trial folder's own files (Harbor, BenchFlow) outside a
		// folder the walk claimed as a trial: a job's summary.
		return "results file: read for the outcomes of the logs beside it"
	case l == strings.ToLower(AiderResultsName):
		return "results file: aider's benchmark results, read for the outcome of the chat history beside it"
	case l == "run_metadata.json":
		return "results file: Terminal-Bench's run metadata, read for the agent and model of the trials under it"
	case l == "manifest.json":
		return "provenance manifest, not a trace"
	case l == "preds.json", strings.HasSuffix(l, "all_preds.jsonl"), l == "predictions.jsonl", l == "predictions.json":
		// SWE-agent and mini-swe-agent write the submitted patches here
		// too; each trajectory carries its own submission.
		return "predictions file (the submitted patches, which each trajectory also holds), not a trace"
	case strings.HasSuffix(l, ".aider.chat.history.md"):
		return ""
	}
	for _, ext := range []string{".jsonl", ".json", ".traj", ".eval", ".ndjson"} {
		if strings.HasSuffix(l, ext) {
			return ""
		}
	}
	ext := filepath.Ext(l)
	if ext == "" {
		return "no trace file extension (.jsonl, .json, .traj, .eval)"
	}
	return "not a trace file type (" + ext + ")"
}

// contentCandidates are the extensions of text files that may hold a
// trace under another name: a console's stream-json saved as .txt, a
// JSON-lines log saved as .log or .out.
var contentCandidates = []string{".txt", ".log", ".out"}

// contentCandidate says a walked file whose name is no trace type is
// still looked at for a trace: a text capture's extension, or none.
func contentCandidate(name string) bool {
	l := strings.TrimSuffix(strings.ToLower(name), ".gz")
	if filepath.Ext(l) == "" {
		return !strings.HasPrefix(l, ".")
	}
	for _, ext := range contentCandidates {
		if strings.HasSuffix(l, ext) {
			return true
		}
	}
	return false
}

// detectsByContent reports whether a harness format reads the file's
// first bytes. Our own JSONL is not tried: its detector takes any first
// line that is a JSON object, and a .log of JSON events is not a run of
// ours.
func detectsByContent(path string) bool {
	in, err := Open(path, nil, nil)
	if err != nil {
		return false
	}
	defer in.Close()
	if len(trimHead(in.Head)) == 0 {
		return false
	}
	for _, f := range HarnessFormats() {
		if f.Detect != nil && f.Name != nameTrial && f.Detect(in.Name, in.Head) {
			return true
		}
	}
	return false
}

// byExtension says a skip reason is the file's type alone, which its
// content may still overrule (a results file is skipped by its name).
func byExtension(why string) bool {
	return strings.HasPrefix(why, "not a trace file type") || strings.HasPrefix(why, "no trace file extension")
}
