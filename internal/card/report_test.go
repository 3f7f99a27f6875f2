package card

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReportTextGolden(t *testing.T) {
	t.Parallel()
	for _, width := range []int{80, 140} {
		var b bytes.Buffer
		require.NoError(t, WriteText(&b, Report(seedMix()), width, false))
		require.NotContains(t, b.String(), "\x1b", "no colour means no escape sequences")
		checkGolden(t, fmt.Sprintf("report_%d.golden.txt", width), b.Bytes())
	}
}
