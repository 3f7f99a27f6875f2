package diffview

import (
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/stretchr/testify/require"
)

// The embedded copies must colour every token type as chroma's own
// styles do (chromastyles/README.md): a chroma upgrade that changes them
// fails here until they are copied again.
func TestEmbeddedChromaStylesMatchChroma(t *testing.T) {
	for _, name := range []string{"github", "github-dark"} { // DefaultStyleFor's
		ours, theirs := chromaStyle(name), styles.Get(name)
		require.Equal(t, name, ours.Name)
		for tt := range chroma.StandardTypes {
			require.Equal(t, theirs.Get(tt), ours.Get(tt), "%s: %v", name, tt)
		}
	}
	require.Equal(t, "plain", chromaStyle("no-such-style").Name)
}
