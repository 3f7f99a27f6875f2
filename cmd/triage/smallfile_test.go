package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSettingsFilesAreBounded: a config, taxonomy, key map or card that is
// a FIFO, a device or a huge file is refused at once, naming the file,
// without reading it: a FIFO as config.toml hung every command, a 1 GB
// config took 4.6 GB and /dev/zero 1.9 GB to refuse.
func TestSettingsFilesAreBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "config.toml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	huge := filepath.Join(dir, "huge.toml")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30)) // sparse: 1 GiB that costs no disk
	require.NoError(t, f.Close())
	cases := []struct{ path, want string }{
		{fifo, "not a regular file (a FIFO)"},
		{"/dev/zero", "not a regular file (a character device)"},
		{dir, "not a regular file (a directory)"},
		{huge, "1073741824 bytes is more than the 4 MiB"},
	}
	for _, tc := range cases {
		done := make(chan error, 1)
		go func() { _, err := loadConfig(tc.path); done <- err }()
		select {
		case err := <-done:
			require.ErrorContains(t, err, tc.path)
			require.ErrorContains(t, err, tc.want)
		case <-time.After(10 * time.Second):
			t.Fatalf("loadConfig(%s) hangs", tc.path)
		}
	}
	c := newCLI(t)
	code, _, errOut := c.run("", "import", c.file("a.jsonl", `{"task_id":"T01"}`+"\n"))
	require.Equal(t, exitOK, code, errOut)
	for i, tc := range cases {
		// A taxonomy's format is told by its extension: a link named .toml.
		tax := filepath.Join(dir, fmt.Sprintf("tax-%d.toml", i))
		require.NoError(t, os.Symlink(tc.path, tax))
		want := strings.Replace(tc.want, "4 MiB", "", 1)
		for _, args := range [][]string{{"--taxonomy", tax, "rules", "run"}, {"card", "verify", tc.path, "--pack", dir}} {
			code, _, errOut := c.run("", args...)
			require.Equal(t, exitError, code, "%v: %s", args, errOut)
			require.Contains(t, errOut, want, "%v", args)
		}
		got, err := loadKeys(tc.path)
		require.ErrorContains(t, err, tc.want, "keys %s: %v", tc.path, got)
	}
}
