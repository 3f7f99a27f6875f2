package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/ui"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, out, errOut := c.run("", "--version")
	require.Equal(t, exitOK, code, errOut)
	require.True(t, strings.HasPrefix(out, "triage "), out)
	require.Contains(t, out, "go1.", "the toolchain is named")
	require.Contains(t, out, "commit ", "a commit, or how to stamp one")
}

// TestVersionNamesTheCommitWithoutVCSStamping: a build with no VCS stamp
// (-buildvcs=false, go run, a tarball) takes the commit -ldflags set, and
// says how to get one when there is none (issue 29: it printed none).
func TestVersionNamesTheCommitWithoutVCSStamping(t *testing.T) {
	t.Parallel()
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}
	require.Equal(t, "(devel) (commit 8104906a1b2c, go1.26.0)", versionOf(bi, true, "8104906a1b2c3d4e"))
	require.Contains(t, versionOf(bi, true, ""), "commit unknown: built without VCS stamping")
	stamped := &debug.BuildInfo{GoVersion: "go1.26.0", Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abcdef1234567890"}, {Key: "vcs.modified", Value: "true"}}}
	require.Equal(t, "(devel) (commit abcdef123456+dirty, go1.26.0)", versionOf(stamped, true, "ignored"))
}

// TestSeedsSortAsNumbers: the review queue lists seeds 1, 2, 10 in that
// order, not 1, 10, 2, whatever order they were imported in.
func TestSeedsSortAsNumbers(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	rows := `{"task_id":"T01","seed":10,"exit_code":0}
{"task_id":"T01","seed":2,"exit_code":0}
{"task_id":"T01","seed":1,"exit_code":1}
`
	code, _, errOut := c.run(rows, "import", "--format", "jsonl", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	a := &app{dbPath: c.db}
	db, err := a.openStore(t.Context())
	require.NoError(t, err)
	defer db.Close()
	items, err := (&uiStore{db: db}).Queue(t.Context(), ui.QueueQuery{Reviewer: "ann", RunID: "r", All: true})
	require.NoError(t, err)
	var seeds []int
	for _, it := range items {
		seeds = append(seeds, it.Seed)
	}
	require.Equal(t, []int{1, 2, 10}, seeds)
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "config.toml")
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	cfg, err := loadConfig(filepath.Join(dir, "missing.toml"))
	require.NoError(t, err, "no file is an empty config")
	require.Equal(t, "", cfg.Reviewer)

	p := write("reviewer = \"ann\"\nstore = \"/data/evals.db\"\ntheme = \"high-contrast\"\nwrap = true\nmouse = true\n[keys]\nnext_trace = [\"n\"]\nnext_match = [\"m\"]\n")
	cfg, err = loadConfig(p)
	require.NoError(t, err)
	require.Equal(t, "ann", cfg.Reviewer)
	require.Equal(t, "/data/evals.db", cfg.Store)
	require.True(t, *cfg.Wrap)
	require.True(t, *cfg.Mouse)

	for _, tt := range []struct{ toml, want string }{
		{"reviwer = \"x\"\n", `unknown key "reviwer"`},
		{"theme = \"pink\"\n", `theme "pink": want auto, dark, light or high-contrast`},
		{"[keys]\nnxt = [\"n\"]\n", `unknown binding "nxt"`},
		{"[keys]\nnext_trace = [\"j\"]\n", `"j" is also bound to down`},
		{"wrap = \"yes\"\n", "config " + p},
	} {
		_, err := loadConfig(write(tt.toml))
		require.ErrorContains(t, err, tt.want, tt.toml)
		require.ErrorContains(t, err, p, "the error names the file")
	}
}

func TestConfigUnderFlagsAndVariables(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	file := fileConfig{Reviewer: "ann", Store: "cfg.db", Theme: "light", Wrap: &yes, Mouse: &yes, Keys: map[string][]string{"next_trace": {"n"}, "next_match": {"m"}}, path: "config.toml"}

	a := &app{dbPath: "triage.db"}
	a.useConfig(file, false)
	require.Equal(t, "cfg.db", a.dbPath, "the config names the store when --db and $TRIAGE_DB do not")
	a = &app{dbPath: "flag.db"}
	a.useConfig(file, true)
	require.Equal(t, "flag.db", a.dbPath, "--db or $TRIAGE_DB wins")

	var cfg ui.Config
	require.NoError(t, (&uiFlags{}).apply(file, &cfg))
	require.Equal(t, ui.ThemeLight, cfg.Theme)
	require.True(t, cfg.Wrap)
	require.True(t, cfg.Mouse)
	require.NotNil(t, cfg.KeyMap)
	require.Equal(t, []string{"n"}, cfg.KeyMap.NextTrace.Keys())

	given := func(names ...string) func(string) bool {
		return func(n string) bool { return strings.Contains(strings.Join(names, ","), n) }
	}
	cfg = ui.Config{}
	o := &uiFlags{theme: "dark", wrap: false, mouse: false, changed: given("wrap", "mouse")}
	require.NoError(t, o.apply(file, &cfg))
	require.Equal(t, ui.ThemeDark, cfg.Theme, "--theme (or $TRIAGE_THEME) wins")
	require.False(t, cfg.Wrap, "--wrap=false wins")
	require.False(t, cfg.Mouse, "--mouse=false wins")

	cfg = ui.Config{}
	require.NoError(t, (&uiFlags{noMouse: true}).apply(file, &cfg))
	require.False(t, cfg.Mouse, "--no-mouse wins")

	cfg = ui.Config{}
	require.NoError(t, (&uiFlags{}).apply(fileConfig{Mouse: &no}, &cfg))
	require.False(t, cfg.Mouse)
	cfg = ui.Config{}
	require.NoError(t, (&uiFlags{}).apply(fileConfig{}, &cfg))
	require.False(t, cfg.Mouse, "the mouse is not captured by default: the terminal selects text")

	require.ErrorContains(t, (&uiFlags{theme: "neon"}).apply(fileConfig{}, &cfg), `theme "neon"`)
}

// TestConfigReviewerAndStore runs a command with a config file naming
// the store: traces reads it without --db.
func TestConfigStoreIsUsed(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, _, errOut := c.run(`{"task_id":"T07","exit_code":0}`+"\n", "import", "--format", "jsonl", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	a := &app{stdout: &strings.Builder{}, stderr: &strings.Builder{}, dbPath: "nowhere.db", isTerminal: func(any) bool { return false }}
	a.useConfig(fileConfig{Store: c.db}, false)
	require.NoError(t, a.runTraces(t.Context(), "", false))
	require.Contains(t, a.stdout.(*strings.Builder).String(), "r/T07#0")
}
