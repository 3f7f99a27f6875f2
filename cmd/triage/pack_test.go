package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pack hash and pack check take a directory, so the shell completes
// directories only (cobra's __complete reports directive 16,
// ShellCompDirectiveFilterDirs).
func TestPackCommandsCompleteDirectories(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"hash", "check"} {
		c := newCLI(t)
		code, out, errOut := c.run("", "__complete", "pack", sub, "")
		require.Equal(t, exitOK, code, errOut)
		require.Equal(t, ":16", strings.TrimSpace(out), sub)
	}
}
