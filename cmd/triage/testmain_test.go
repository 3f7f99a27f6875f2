package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/triage-dev/triage/internal/pgtest"

	"github.com/stretchr/testify/require"
)

// childMainEnv makes the test binary behave as the triage command itself:
// tests that need a real process (one they can SIGKILL, or several on one
// store) run os.Executable() with this set and triage's arguments, so no
// test has to `go build` the binary first.
const childMainEnv = "TRIAGE_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(childMainEnv) == "1" {
		main() // exits with triage's status
	}
	// The developer's own config file (reviewer, store, keys) must not
	// change what the tests see: point the lookup at an empty directory.
	dir, err := os.MkdirTemp("", "triage-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	// Nor may the records of pack hashes land in the user's cache.
	os.Setenv(hashCacheEnv, filepath.Join(dir, "packs"))
	os.Unsetenv("TRIAGE_CONFIG")
	code := m.Run()
	os.RemoveAll(dir)
	pgtest.Stop()
	os.Exit(code)
}

// triageCommand returns the command that runs triage with args in a child
// process (see childMainEnv).
func triageCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("test binary: %v", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), childMainEnv+"=1")
	return cmd
}

// TestChildMainRunsTriage keeps the re-exec path honest: the child must
// be triage (its usage, its exit status), not the test binary.
func TestChildMainRunsTriage(t *testing.T) {
	t.Parallel()
	out, err := triageCommand(t, "--help").Output()
	require.NoError(t, err)
	require.Contains(t, string(out), "labels")
	require.NotContains(t, string(out), "PASS")
	cmd := triageCommand(t, "no-such-command")
	require.Error(t, cmd.Run())
	require.Equal(t, exitUsage, cmd.ProcessState.ExitCode())
}
