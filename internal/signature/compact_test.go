package signature

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestClustererKeepsSignaturesWhole: the compact form gives back every
// distinct signature as added (shapes that pack and shapes that do not:
// an unknown letter, more than 16 letters, none), counts equal keys once,
// and orders signatures as their keys order, which Cluster's ties use.
func TestClustererKeepsSignaturesWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shapes := []string{"", "r", "reXs", "…rfeTXENtubigsor", "rfeTXENtubigsorf", "Zr", "rfeTXENtubigsorfe", "…ab", "e\x01x"}
	c := NewClusterer()
	first := map[string]Signature{}
	var idx []int
	var sigs []Signature
	for i := range 3000 {
		s := Signature{Version: Version, Primary: []string{"A", "B", "AB"}[r.IntN(3)], Secondary: []string{}, Evidence: []string{}, Tests: []string{},
			Shape: shapes[r.IntN(len(shapes))], Steps: r.IntN(80)}
		if r.IntN(2) == 0 {
			s.Error = &Error{Type: "KeyError", Template: fmt.Sprint("k", r.IntN(3))}
		}
		if r.IntN(3) == 0 {
			s.Tests = []string{fmt.Sprint("t", r.IntN(2))}
		}
		if i%500 == 0 {
			s.Shape = strings.Repeat("rX", 1+r.IntN(6))
		}
		k := s.Key()
		if _, ok := first[k]; !ok {
			first[k] = s
		}
		idx = append(idx, c.Add(s))
		sigs = append(sigs, s)
	}
	if c.Len() != len(first) {
		t.Fatalf("%d distinct signatures kept, want %d", c.Len(), len(first))
	}
	counts := map[int]int{}
	for i, s := range sigs {
		got := c.Signature(idx[i])
		if got.Key() != s.Key() {
			t.Fatalf("signature %d: key %q, want %q", i, got.Key(), s.Key())
		}
		if want := first[s.Key()]; got.Shape != want.Shape || got.Steps != want.Steps {
			t.Fatalf("signature %d: shape %q steps %d, want the first added's %q %d", i, got.Shape, got.Steps, want.Shape, want.Steps)
		}
		counts[idx[i]]++
	}
	for i, n := range counts {
		if c.Count(i) != n {
			t.Fatalf("count of %d: %d, want %d", i, c.Count(i), n)
		}
	}
	for a := range c.Len() {
		for b := range c.Len() {
			if got, want := c.compareKeys(a, b), strings.Compare(c.Signature(a).Key(), c.Signature(b).Key()); got != want {
				t.Fatalf("compareKeys(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	}
}
