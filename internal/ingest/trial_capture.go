package ingest

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// trialCaptureNames are the terminal captures of a trial whose agent
// wrote no log a format reads, best first: Terminal-Bench's recording of
// the agent's terminal, then its pane after the agent.
var trialCaptureNames = []string{
	"sessions/agent.log",
	"panes/post-agent.txt",
}

// maxTrialCaptureFiles bounds the files under agent/ looked at for a
// console capture.
const maxTrialCaptureFiles = 200

// trialCaptureTrace is the trace of a trial whose agent's log no format
// reads: what its terminal showed (the capture's last maxCaptureText
// bytes, escape sequences stripped) as a "terminal" message, and the
// harness's keystrokes (commands.txt) as a "harness" message. When the
// capture is the console of an agent whose printing is known
// (mini-swe-agent, OpenHands; see consoleTrace) its steps are read from
// it; else there are no steps (HasToolLog false): the capture is kept as
// text for a person to read, and the outcome, failing tests and caps the
// harness recorded still count (applyTrialResult).
func trialCaptureTrace(dir string, src Source) *triage.Trace {
	t := newHarnessTrace(nameTrial, src)
	t.HasToolLog = false
	cands := make([]string, 0, len(trialCaptureNames)+4)
	for _, n := range trialCaptureNames {
		cands = append(cands, filepath.Join(dir, filepath.FromSlash(n)))
	}
	// An agent's own console under agent/ (Harbor keeps it as
	// <agent>.txt or .log): the largest is the one that ran.
	best, bestSize := "", int64(0)
	n := 0
	root := filepath.Join(dir, "agent")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || n >= maxTrialCaptureFiles {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		n++
		l := strings.ToLower(d.Name())
		if !strings.HasSuffix(l, ".txt") && !strings.HasSuffix(l, ".log") {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() && info.Size() > bestSize {
			best, bestSize = p, info.Size()
		}
		return nil
	})
	if best != "" {
		cands = append([]string{best}, cands...)
	}
	// A console whose printing is known is read as steps (consoleTrace);
	// the harness's keystrokes still go with it.
	for _, p := range cands {
		if ct := consoleTrace(p, src); ct != nil {
			t = ct
			break
		}
	}
	for _, p := range cands {
		if t.HasToolLog {
			break
		}
		c, ok := readCaptureFile(p, maxCaptureText)
		if !ok || strings.TrimSpace(c.Text) == "" {
			continue
		}
		rel, _ := filepath.Rel(dir, p)
		t.Messages = append(t.Messages, triage.Message{Role: "terminal", Content: captureHeader(filepath.ToSlash(rel), c) + c.Text})
		break
	}
	if c, ok := readCaptureFile(filepath.Join(dir, tbCommandsName), maxCaptureText); ok && strings.TrimSpace(c.Text) != "" {
		t.Messages = append(t.Messages, triage.Message{Role: "harness", Content: captureHeader(tbCommandsName, c) + c.Text})
	}
	return t
}

// captureHeader names the capture a message holds and says when its
// start was left out.
func captureHeader(name string, c captureTail) string {
	if c.Dropped > 0 {
		return fmt.Sprintf("[%s: its last %d bytes; %d before them left out]\n", name, len(c.Text), c.Dropped)
	}
	return fmt.Sprintf("[%s]\n", name)
}
