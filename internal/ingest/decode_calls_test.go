package ingest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// TestDecodeStoredCallsKeepsTheFirstCalls: a stored row read with a bound
// on tool calls keeps exactly the first calls of the whole reading, in
// both decoders (the direct pass and the tree), and says how many there
// were; without a bound, or under it, nothing is cut.
func TestDecodeStoredCallsKeepsTheFirstCalls(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"task_id":"T","tool_calls":[`)
	for i := range 25 {
		if i > 0 {
			b.WriteByte(',')
		}
		// Spaced arguments and wall times use the direct pass's scratch.
		fmt.Fprintf(&b, `{"name":"bash","args":{"cmd": "cat f%d"},"output":"o%d","wall_s":%d.5}`, i, i, i)
	}
	b.WriteString(`],"answer":"done"}`)
	row := []byte(b.String())
	whole, err := DecodeStored(row, "r")
	require.NoError(t, err)
	require.Len(t, whole.ToolCalls, 25)
	require.Nil(t, whole.ReadCut)

	cut, err := DecodeStoredCalls(row, "r", 10)
	require.NoError(t, err)
	require.Equal(t, whole.ToolCalls[:10], cut.ToolCalls)
	require.Equal(t, &triage.ReadCut{Kept: 10, Total: 25}, cut.ReadCut)
	require.Equal(t, 25, cut.CallCount())
	require.Equal(t, "done", *cut.Answer, "what follows the calls is read")

	d := &rowDecoder{trusted: true, maxCalls: 10}
	tree, err := d.decodeTree(row, "r")
	require.NoError(t, err)
	require.Equal(t, whole.ToolCalls[:10], tree.ToolCalls)
	require.Equal(t, 25, d.totalCalls)

	under, err := DecodeStoredCalls(row, "r", 25)
	require.NoError(t, err)
	require.Nil(t, under.ReadCut)
	require.Equal(t, whole.ToolCalls, under.ToolCalls)
	again, err := DecodeStored(row, "r")
	require.NoError(t, err)
	require.Nil(t, again.ReadCut, "the pooled decoder forgets the bound")
	require.Len(t, again.ToolCalls, 25)
}
