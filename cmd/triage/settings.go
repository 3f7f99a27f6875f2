package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/triage-dev/triage/internal/ui"
)

// fileConfig is the config file, $XDG_CONFIG_HOME/triage/config.toml
// (~/.config/triage/config.toml when the variable is unset, or the file
// $TRIAGE_CONFIG names). Flags and environment variables win over it.
type fileConfig struct {
	// Reviewer is the name review and adjudicate record.
	Reviewer string `toml:"reviewer"`
	// Store is the store's path (--db, $TRIAGE_DB).
	Store string `toml:"store"`
	// Theme is auto, dark, light or high-contrast (--theme, $TRIAGE_THEME).
	Theme string `toml:"theme"`
	// Wrap starts the trace panes with long lines wrapped (--wrap).
	Wrap *bool `toml:"wrap"`
	// Mouse turns mouse capture on (--mouse; M toggles it in the app).
	Mouse *bool `toml:"mouse"`
	// Keys rebinds keys as a --keys file's [keys] table does.
	Keys map[string][]string `toml:"keys"`

	path string
}

// configPath is where the config file is looked for.
func configPath() string {
	if p := os.Getenv("TRIAGE_CONFIG"); p != "" {
		return p
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "triage", "config.toml")
}

// loadConfig reads the config file; a missing file is an empty config.
// An unknown key, a bad theme or a bad key binding is an error naming the
// file, so a typo never silently leaves a default in place.
func loadConfig(path string) (fileConfig, error) {
	cfg := fileConfig{path: path}
	if path == "" {
		return cfg, nil
	}
	data, err := readSmallFile(path, maxSettingsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return cfg, fmt.Errorf("config %s: unknown key %q (known: reviewer, store, theme, wrap, mouse, [keys])", path, und[0].String())
	}
	if _, err := ui.ParseTheme(cfg.Theme); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if cfg.Keys != nil {
		if _, err := ui.KeyMapFrom(cfg.Keys); err != nil {
			return cfg, fmt.Errorf("config %s: %w", path, err)
		}
	}
	return cfg, nil
}

// applyConfig reads the config file before any command runs and lets it
// name the store when neither --db nor $TRIAGE_DB does.
func (a *app) applyConfig(root *cobra.Command) error {
	cfg, err := loadConfig(configPath())
	if err != nil {
		return err
	}
	a.useConfig(cfg, root.PersistentFlags().Changed("db") || os.Getenv("TRIAGE_DB") != "")
	return nil
}

// useConfig keeps the config for the commands; its store is used unless
// dbGiven (--db or $TRIAGE_DB named one).
func (a *app) useConfig(cfg fileConfig, dbGiven bool) {
	a.cfg = cfg
	if cfg.Store != "" && !dbGiven {
		a.dbPath = cfg.Store
	}
}

// uiFlags are the terminal UI's settings that review and adjudicate share.
type uiFlags struct {
	keys, theme          string
	wrap, mouse, noMouse bool
	// changed reports a flag given on the command line; nil (demo) is
	// none.
	changed func(name string) bool
}

func (o *uiFlags) given(name string) bool { return o.changed != nil && o.changed(name) }

func (o *uiFlags) add(f *pflag.FlagSet) {
	f.StringVar(&o.keys, "keys", os.Getenv("TRIAGE_KEYS"), "TOML file overriding key bindings (instead of the config file's [keys])")
	f.StringVar(&o.theme, "theme", os.Getenv("TRIAGE_THEME"), "auto, dark, light or high-contrast (default $TRIAGE_THEME, then the config file)")
	f.BoolVar(&o.wrap, "wrap", false, "start with long lines wrapped (w toggles it)")
	f.BoolVar(&o.mouse, "mouse", false, "capture the mouse: click rows and tabs, scroll with the wheel (M toggles it)")
	f.BoolVar(&o.noMouse, "no-mouse", false, "do not capture the mouse, whatever the config file says")
}

// apply fills cfg from the flags, then the config file: a flag (or its
// variable) wins, the file fills what they leave unset.
func (o *uiFlags) apply(file fileConfig, cfg *ui.Config) error {
	theme := o.theme
	if theme == "" {
		theme = file.Theme
	}
	t, err := ui.ParseTheme(theme)
	if err != nil {
		return usageErr("%v", err)
	}
	cfg.Theme = t
	cfg.Wrap = o.wrap
	if !o.given("wrap") && file.Wrap != nil {
		cfg.Wrap = *file.Wrap
	}
	switch {
	case o.noMouse:
		cfg.Mouse = false
	case o.given("mouse"):
		cfg.Mouse = o.mouse
	case file.Mouse != nil:
		cfg.Mouse = *file.Mouse
	}
	switch {
	case o.keys != "":
		km, err := loadKeys(o.keys)
		if err != nil {
			return err
		}
		cfg.KeyMap = &km
	case file.Keys != nil:
		km, err := ui.KeyMapFrom(file.Keys)
		if err != nil {
			return fmt.Errorf("config %s: %w", file.path, err)
		}
		cfg.KeyMap = &km
	}
	return nil
}

// commit is the commit triage was built from when the build says so
// itself: go build -ldflags "-X main.commit=$(git rev-parse HEAD)". It
// stands in for the toolchain's VCS stamp, which is off outside a git
// checkout, with -buildvcs=false, and for go run and go test.
var commit string

// version is what triage --version prints: the module's version and the
// commit it was built from, as the Go toolchain recorded them (or as
// -ldflags set commit), or a word on how to get one.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(bi, ok, commit)
}

// versionOf is version for given build information and commit.
func versionOf(bi *debug.BuildInfo, ok bool, stamped string) string {
	if !ok {
		bi = &debug.BuildInfo{}
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified, at string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		case "vcs.time":
			at = s.Value
		}
	}
	if rev == "" {
		rev = stamped
	}
	var extra []string
	switch {
	case rev == "":
		extra = append(extra, "commit unknown: built without VCS stamping; build in a git checkout, or with -ldflags \"-X main.commit=$(git rev-parse HEAD)\"")
	case !strings.Contains(v, rev[:min(12, len(rev))]):
		r := rev[:min(12, len(rev))]
		if modified == "true" {
			r += "+dirty"
		}
		extra = append(extra, "commit "+r)
	}
	if at != "" {
		extra = append(extra, at)
	}
	if bi.GoVersion != "" {
		extra = append(extra, bi.GoVersion)
	}
	return v + " (" + strings.Join(extra, ", ") + ")"
}
