package agreement

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImportsNothingInternal keeps DESIGN §1 true for this package: it
// imports no other package of the module, so it stays pure and reusable.
func TestImportsNothingInternal(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		af, err := parser.ParseFile(fset, f, src, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			require.Falsef(t, strings.HasPrefix(path, "github.com/triage-dev/triage"), "%s imports %s", f, path)
			require.NotContainsf(t, []string{"database/sql", "os", "time", "net/http"}, path, "%s imports %s: the package is pure", f, path)
		}
	}
}
