package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/pack"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// redactFlagUsage is the one help line every --redact flag shares.
const redactFlagUsage = "mask task sentinels and secrets (API keys, bearer tokens, private keys, JWTs) in trace text and notes"

// storeRedactor returns the Redactor for --redact: the sentinels of every
// run's task pack in the store, and every secret shape. Output may mix
// runs (a report over all of them, a label file), and masking another
// pack's canary costs nothing. A pack that cannot be read is an error:
// its sentinels would go out unmasked while the user asked for them not
// to. So is a pack that no longer hashes to the run's frozen
// dataset_sha256: a sentinel removed from task.json after card init would
// go out unmasked (issue 17). Without --redact it returns nil, the
// identity.
//
// With --redact, the command's standard error is masked from here on too:
// its notes and its error message name runs, tasks and files.
func (a *app) storeRedactor(ctx context.Context, db store.Store, redact bool) (*triage.Redactor, error) {
	if !redact {
		return nil, nil
	}
	// The controls only: Runs would also count each run's traces.
	runs, err := db.RunControls(ctx)
	if err != nil {
		return nil, fmt.Errorf("--redact: %w", err)
	}
	var pk packs
	var sentinels []string
	// A refusal names a run, which may itself hold a secret: it is
	// masked with what is known by then.
	refuse := func(err error) (*triage.Redactor, error) {
		a.stderr = redactWriter{w: a.stderr, rd: triage.NewRedactor(sentinels)}
		return nil, err
	}
	for _, r := range runs {
		p, err := pk.load(r)
		if err != nil {
			return refuse(fmt.Errorf("--redact: %w (its sentinels could not be masked)", err))
		}
		if p == nil {
			continue
		}
		if err := frozenPack(r, p, "its sentinels may not be the ones its traces were run with, so they cannot be trusted to mask them"); err != nil {
			return refuse(fmt.Errorf("--redact: %w", err))
		}
		if err := p.Each(func(t *triage.Task) error {
			sentinels = append(sentinels, t.Sentinels...)
			return nil
		}); err != nil {
			return refuse(fmt.Errorf("--redact: %w", err))
		}
	}
	rd := triage.NewRedactor(sentinels)
	a.stderr = redactWriter{w: a.stderr, rd: rd}
	return rd, nil
}

// frozenPack checks that the pack read for a run is the one its controls
// froze. The store keeps the pack's hash, not each file's, so the files
// named are those modified since card init; a file removed cannot be
// named, and the message says so.
func frozenPack(c triage.Controls, p *triage.Pack, why string) error {
	if c.DatasetSHA256 == "" || p.SHA256 == c.DatasetSHA256 {
		return nil
	}
	dir := p.Dir
	if dir == "" {
		dir = c.PackDir
	}
	changed := changedSince(dir, c.CreatedAt)
	what := "no file was modified since then, so one was removed, renamed or added with an old time"
	if len(changed) > 0 {
		what = "modified since then: " + strings.Join(changed, ", ") + " (files removed since cannot be named)"
	}
	return fmt.Errorf("run %s: task pack %s hashes to %s, not to the dataset_sha256 %s frozen by card init on %s: %s; %s",
		c.RunID, dir, short(p.SHA256), short(c.DatasetSHA256), c.CreatedAt.UTC().Format(time.RFC3339), why, what)
}

// changedSince lists the pack's files ("tasks/…", as the dataset hash
// names them) modified after t, in byte order.
func changedSince(dir string, t time.Time) []string {
	root := dir
	if filepath.Base(filepath.Clean(dir)) != pack.TasksDir {
		if st, err := os.Stat(filepath.Join(dir, pack.TasksDir)); err == nil && st.IsDir() {
			root = filepath.Join(dir, pack.TasksDir)
		}
	}
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(t) {
			rel, _ := filepath.Rel(root, p)
			out = append(out, pack.TasksDir+"/"+filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// redactWriter masks each write; the text commands write their notes and
// errors one whole message a write (sayf, sayln).
type redactWriter struct {
	w  io.Writer
	rd *triage.Redactor
}

func (r redactWriter) Write(p []byte) (int, error) {
	if _, err := r.w.Write(r.rd.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
