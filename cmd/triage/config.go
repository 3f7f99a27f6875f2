package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/triage-dev/triage/internal/pack"
	"github.com/triage-dev/triage/internal/rules"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// taxonomy loads the team's taxonomy (--taxonomy or $TRIAGE_TAXONOMY) or
// the seed's default, with its version filled in.
func (a *app) taxonomy() (*triage.Taxonomy, error) {
	path := a.taxonomyPath
	if path == "" {
		path = os.Getenv("TRIAGE_TAXONOMY")
	}
	if path == "" {
		t := rules.DefaultTaxonomy()
		t.Version = rules.Version(t)
		return t, nil
	}
	data, err := readSmallFile(path, maxSettingsBytes)
	if err != nil {
		return nil, fmt.Errorf("taxonomy: %w", err)
	}
	format, err := rules.FormatFromName(path)
	if err != nil {
		return nil, err // it names the file already
	}
	t, err := rules.ParseTaxonomy(data, format)
	if err != nil {
		// "FILE: taxonomy: KEY PATH: what", the shape of every input error.
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.Version = rules.Version(t)
	return t, nil
}

// hashCacheEnv moves the records of full pack reads that let a load skip
// re-reading an unchanged pack (pack.CachedHash); "off" keeps none, so
// every load reads every file.
const hashCacheEnv = "TRIAGE_CACHE_DIR"

var hashCacheOnce sync.Once

// useHashCache points pack.CachedHash at $TRIAGE_CACHE_DIR, or at
// triage/packs under the user's cache directory, once a process.
func useHashCache() {
	hashCacheOnce.Do(func() {
		dir := os.Getenv(hashCacheEnv)
		switch dir {
		case "off":
			dir = ""
		case "":
			if base, err := os.UserCacheDir(); err == nil {
				dir = filepath.Join(base, "triage", "packs")
			}
		}
		pack.SetCacheDir(dir)
	})
}

// packs loads each run's task pack once, from the directory its controls
// recorded (or --pack), so the rules see the task's spec and allowlist.
// It is safe for concurrent use: the review screen asks from tea.Cmds.
type packs struct {
	override string
	mu       sync.Mutex
	byDir    map[string]*triage.Pack
}

// forRun returns a run's controls and its pack (nil when none is known).
func (p *packs) forRun(ctx context.Context, db store.Store, run string) (*triage.Pack, triage.Controls, error) {
	c, _, err := db.Controls(ctx, run)
	if err != nil {
		return nil, c, err
	}
	pk, err := p.load(c)
	return pk, c, err
}

// load returns the pack of a run with these controls.
func (p *packs) load(c triage.Controls) (*triage.Pack, error) {
	dir := p.override
	if dir == "" {
		dir = c.PackDir
	}
	if dir == "" {
		return nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if pk, ok := p.byDir[dir]; ok {
		return pk, nil
	}
	pk, _, err := loadPack(dir)
	if err != nil {
		return nil, fmt.Errorf("run %s: task pack %s: %w", c.RunID, dir, err)
	}
	if p.byDir == nil {
		p.byDir = map[string]*triage.Pack{}
	}
	p.byDir[dir] = pk
	return pk, nil
}

// loadPack loads a pack from disk, or the embedded sample for the
// pseudo-directory "sample:" that the demo records.
func loadPack(dir string) (*triage.Pack, []pack.Problem, error) {
	if dir == samplePackDir {
		return loadSamplePack()
	}
	pk, err := pack.Open(dir)
	return pk, nil, err
}
