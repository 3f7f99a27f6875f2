package card

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCountsUnmarshalKeepsOrderAndRefusesRepeats(t *testing.T) {
	t.Parallel()
	var c Counts
	require.NoError(t, json.Unmarshal([]byte(`{"B": 2, "A": 0, "C": 5}`), &c))
	require.Equal(t, Counts{{Key: "B", N: 2}, {Key: "A", N: 0}, {Key: "C", N: 5}}, c)
	require.ErrorContains(t, json.Unmarshal([]byte(`{"A": 1, "B": 2, "A": 3}`), &c), `count "A" appears twice`)
	require.ErrorContains(t, json.Unmarshal([]byte(`{"A": -1}`), &c), "not a non-negative integer")
}

// A card file is untrusted: a count object with many keys must parse in
// time linear in its size. The repeat check once scanned every earlier
// key, and 100,000 keys took 48 s; they now take well under a second.
func TestCountsUnmarshalManyKeys(t *testing.T) {
	t.Parallel()
	const n = 100_000
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%06d":%d`, i, i)
	}
	b.WriteByte('}')
	var c Counts
	start := time.Now()
	require.NoError(t, json.Unmarshal([]byte(b.String()), &c))
	require.Less(t, time.Since(start), 10*time.Second)
	require.Len(t, c, n)
	require.Equal(t, Count{Key: "k099999", N: n - 1}, c[n-1])
	require.Equal(t, n*(n-1)/2, c.Sum())
}

// Comparing two cards lists a's classes, then b's new ones, and looks the
// counts up by key: with 30,000 classes a card pair once took seconds of
// linear scans (the cards are untrusted files).
func TestClassDeltasManyClasses(t *testing.T) {
	t.Parallel()
	const n = 30_000
	a, b := &Card{NTasks: n}, &Card{NTasks: 2 * n}
	for i := range n {
		a.PrimaryCounts = append(a.PrimaryCounts, Count{Key: fmt.Sprintf("c%05d", i), N: 1})
		b.PrimaryCounts = append(b.PrimaryCounts, Count{Key: fmt.Sprintf("c%05d", n-1-i+n/2), N: 2})
	}
	start := time.Now()
	d := classDeltas(a, b)
	require.Less(t, time.Since(start), 5*time.Second)
	require.Len(t, d, n+n/2)
	require.Equal(t, ClassDelta{Code: "c00000", A: 1, Delta: -1, ShareA: 1.0 / n, ShareDelta: -1.0 / n}, d[0])
	require.Equal(t, ClassDelta{Code: "c29999", A: 1, B: 2, Delta: 1, ShareA: 1.0 / n, ShareB: 1.0 / n}, d[n-1])
	require.Equal(t, "c44999", d[n].Code, "b's own classes follow, in b's order")
	require.Equal(t, 2, d[n].B)
}
