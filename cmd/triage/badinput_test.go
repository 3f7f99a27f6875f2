package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// badDir is the bad-input corpus (issue 8, item 1): one directory a case,
// each with a case.txt manifest (see testdata/bad/README.md).
const badDir = "../../testdata/bad"

// minBadCases keeps the corpus from quietly shrinking.
const minBadCases = 45

// badCase is one parsed case.txt.
type badCase struct {
	name   string
	setup  [][]string // commands that must succeed (exit 0) before run
	args   []string
	stdin  string // a file of the case fed to run's standard input
	exit   int
	stderr []string // substrings that must all appear in stderr
	stdout []string // substrings that must all appear in stdout
}

// parseBadCase reads a manifest. It is strict so a typo in a manifest
// fails the test instead of silently asserting less.
func parseBadCase(name string, data []byte) (badCase, error) {
	c := badCase{name: name, exit: -1}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return c, fmt.Errorf("case.txt:%d: want key: value, got %q", n, line)
		}
		val = strings.TrimSpace(val)
		switch key {
		case "setup":
			c.setup = append(c.setup, strings.Fields(val))
		case "run":
			if c.args != nil {
				return c, fmt.Errorf("case.txt:%d: second run line", n)
			}
			c.args = strings.Fields(val)
		case "stdin":
			c.stdin = val
		case "exit":
			if c.exit >= 0 {
				return c, fmt.Errorf("case.txt:%d: second exit line", n)
			}
			code, err := strconv.Atoi(val)
			if err != nil {
				return c, fmt.Errorf("case.txt:%d: exit: %w", n, err)
			}
			c.exit = code
		case "stderr":
			c.stderr = append(c.stderr, val)
		case "stdout":
			c.stdout = append(c.stdout, val)
		default:
			return c, fmt.Errorf("case.txt:%d: unknown key %q", n, key)
		}
	}
	switch {
	case len(c.args) == 0:
		return c, fmt.Errorf("case.txt: no run line")
	case c.exit < 0:
		return c, fmt.Errorf("case.txt: no exit line")
	case c.exit != exitOK && len(c.stderr) == 0:
		return c, fmt.Errorf("case.txt: a failing case needs an expected stderr line")
	}
	return c, sc.Err()
}

// expand fills in the placeholders of an argument or expected text.
func expand(s, dir, store string) string {
	return strings.NewReplacer("{dir}", dir, "{store}", store).Replace(s)
}

// runGuarded runs the command line in-process as the binary would, and
// turns a panic into an error so one bad case cannot hide the others.
func runGuarded(args []string, stdin io.Reader) (code int, stdout, stderr string, panicked error) {
	var out, errb bytes.Buffer
	func() {
		defer func() {
			if r := recover(); r != nil {
				panicked = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		code = run(context.Background(), args, stdin, &out, &errb)
	}()
	return code, out.String(), errb.String(), panicked
}

// withStore adds --db {store} unless the command line names the store.
func withStore(args []string) []string {
	if slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "{store}") }) {
		return args
	}
	return append([]string{"--db", "{store}"}, args...)
}

func loadBadCases(t *testing.T) []badCase {
	t.Helper()
	entries, err := os.ReadDir(badDir)
	require.NoError(t, err)
	var cases []badCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(badDir, e.Name(), "case.txt"))
		require.NoError(t, err, e.Name())
		c, err := parseBadCase(e.Name(), data)
		require.NoError(t, err, e.Name())
		cases = append(cases, c)
	}
	return cases
}

// TestBadInputCorpus runs every case of testdata/bad through run, the
// binary's own entry point, each on a private copy of its directory and a
// fresh store, and checks the exit status, the message and that nothing
// panics. A changed message or status fails the case.
func TestBadInputCorpus(t *testing.T) {
	t.Parallel()
	cases := loadBadCases(t)
	require.GreaterOrEqual(t, len(cases), minBadCases, "the corpus shrank")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "case")
			require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(badDir, c.name))))
			store := filepath.Join(tmp, "store.db")
			argv := func(args []string) []string {
				out := make([]string, 0, len(args)+2)
				for _, a := range withStore(args) {
					out = append(out, expand(a, dir, store))
				}
				return out
			}
			for _, s := range c.setup {
				code, _, errOut, p := runGuarded(argv(s), strings.NewReader(""))
				require.NoError(t, p, "setup %v", s)
				require.Equal(t, exitOK, code, "setup %v: %s", s, errOut)
			}
			var stdin io.Reader = strings.NewReader("")
			if c.stdin != "" {
				f, err := os.Open(filepath.Join(dir, c.stdin))
				require.NoError(t, err)
				defer f.Close()
				stdin = f
			}
			code, out, errOut, p := runGuarded(argv(c.args), stdin)
			require.NoError(t, p, "nothing may panic")
			require.Equal(t, c.exit, code, "exit status\nstdout:\n%s\nstderr:\n%s", out, errOut)
			for _, want := range c.stderr {
				require.Contains(t, errOut, expand(want, dir, store), "stderr")
			}
			for _, want := range c.stdout {
				require.Contains(t, out, expand(want, dir, store), "stdout")
			}
		})
	}
}

// TestBadInputCorpusReadme keeps the README's table in step with the
// corpus: every case is listed once, and nothing listed is missing.
func TestBadInputCorpusReadme(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(badDir, "README.md"))
	require.NoError(t, err)
	listed := map[string]int{}
	for _, line := range strings.Split(string(readme), "\n") {
		if name, ok := strings.CutPrefix(line, "| `"); ok {
			if name, _, ok = strings.Cut(name, "`"); ok {
				listed[name]++
			}
		}
	}
	var names []string
	err = fs.WalkDir(os.DirFS(badDir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." {
			names = append(names, p)
			return fs.SkipDir
		}
		return nil
	})
	require.NoError(t, err)
	for _, n := range names {
		require.Equal(t, 1, listed[n], "README.md lists case %s once", n)
		delete(listed, n)
	}
	require.Empty(t, listed, "README.md lists cases that do not exist")
}

// TestParseBadCaseRejectsSloppyManifests proves the manifest reader fails
// loudly rather than asserting less than the case meant.
func TestParseBadCaseRejectsSloppyManifests(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, text, want string }{
		{"no run", "exit: 1\nstderr: x\n", "no run line"},
		{"no exit", "run: import x\nstderr: x\n", "no exit line"},
		{"no message", "run: import x\nexit: 1\n", "needs an expected stderr"},
		{"typo key", "run: import x\nexti: 1\n", `unknown key "exti"`},
		{"bad exit", "run: import x\nexit: one\n", "exit:"},
		{"two runs", "run: a\nrun: b\n", "second run line"},
		{"two exits", "run: a\nexit: 1\nexit: 3\n", "second exit line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseBadCase("x", []byte(tc.text))
			require.ErrorContains(t, err, tc.want)
		})
	}
}
