package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImportArrows keeps DESIGN §1's one-way data flow true: each internal
// package may import only the internal packages listed for it.
func TestImportArrows(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not on PATH")
	}
	const mod = "github.com/triage-dev/triage/internal/"
	allowed := map[string][]string{
		"triage":         {},
		"ingest":         {"triage"},
		"pack":           {"triage"},
		"store":          {"triage"},
		"store/sqlite":   {"triage", "store"},
		"store/postgres": {"triage", "store"},
		"rules":          {"triage", "pack"},
		"agreement":      {},
		"signature":      {"triage"},
		"card":           {"triage", "agreement", "reportview"},
		"reportview":     {"triage"},
		"ui":             {"triage", "agreement", "reportview", "ui/diffview"},
		"ui/diffview":    {"triage"},
		"sample":         {"triage", "pack"},
		"sample/gen":     {"triage"},
		"termtest":       {}, // imported by tests only
		"shareddata":     {}, // imported by tests only
		"pgtest":         {}, // imported by tests only
		"timingtest":     {}, // imported by tests only
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "../../internal/...").Output()
	require.NoError(t, err)
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		ok, known := allowed[pkg]
		require.True(t, known, "package internal/%s is not in DESIGN §1's table: add it here with its allowed imports", pkg)
		seen++
		for _, dep := range fields[1:] {
			if !strings.HasPrefix(dep, mod) {
				continue
			}
			d := strings.TrimPrefix(dep, mod)
			permitted := false
			for _, a := range ok {
				if d == a {
					permitted = true
				}
			}
			require.True(t, permitted, "internal/%s imports internal/%s, which DESIGN §1 does not allow", pkg, d)
		}
	}
	require.GreaterOrEqual(t, seen, 9)
}
