package card

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNotCheckedTextsSayANoteOnce: a note many runs share is one line
// naming the runs, largest first, and counting the rest; a note of one
// run names it; "1 trace" is singular.
func TestNotCheckedTextsSayANoteOnce(t *testing.T) {
	const pack = "no task pack: ASSUME_API was not checked"
	var notes []RunNote
	for i := range 8 {
		notes = append(notes, RunNote{RunID: fmt.Sprintf("r%d", i), Note: pack, Traces: i + 1})
	}
	notes = append(notes, RunNote{RunID: "solo", Note: "a format that never records asks", Traces: 1})
	got := notCheckedTexts(notes)
	require.Equal(t, []string{
		pack + " · 8 runs, 36 traces: r7 (8), r6 (7), r5 (6), r4 (5), r3 (4), r2 (3), and 2 more",
		"solo · a format that never records asks (1 trace)",
	}, got)
	require.Equal(t, []string{"a · " + pack + " (2 traces)"}, notCheckedTexts([]RunNote{{RunID: "a", Note: pack, Traces: 2}}))
	require.Empty(t, notCheckedTexts(nil))
}
