package agreement

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
)

// Sample draws a deterministic sample of size items: the same items, seed
// and size give the same sample whatever the input order, because items
// are first sorted by key (which must be unique). With stratum non-nil the
// sample is stratified proportionally: each stratum gets its floor share of
// size and the remaining places go to the largest remainders (ties to the
// larger stratum, then the stratum name). The result is sorted by key.
// size ≥ len(items) returns every item.
func Sample[T any](items []T, size int, seed uint64, key func(T) string, stratum func(T) string) ([]T, error) {
	if size < 0 {
		return nil, fmt.Errorf("sample: negative size %d", size)
	}
	if key == nil {
		return nil, errors.New("sample: a key function is required for a deterministic order")
	}
	type keyed struct {
		key, stratum string
		item         T
	}
	all := make([]keyed, len(items))
	for i, it := range items {
		all[i] = keyed{key: key(it), item: it}
		if stratum != nil {
			all[i].stratum = stratum(it)
		}
	}
	slices.SortFunc(all, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	for i := 1; i < len(all); i++ {
		if all[i].key == all[i-1].key {
			return nil, fmt.Errorf("sample: duplicate key %q", all[i].key)
		}
	}
	pick := func(group []keyed, n int, stream string) []keyed {
		// A partial Fisher–Yates shuffle on a stream named after the
		// stratum, so adding items to one stratum leaves others' draws alone.
		h := fnv.New64a()
		_, _ = h.Write([]byte(stream))
		src := rand.NewPCG(seed, h.Sum64())
		g := slices.Clone(group)
		for i := range n {
			j := i + int(bounded(src, uint64(len(g)-i)))
			g[i], g[j] = g[j], g[i]
		}
		return g[:n]
	}
	var chosen []keyed
	switch {
	case size >= len(all):
		chosen = all
	case stratum == nil:
		chosen = pick(all, size, "")
	default:
		var names []string
		groups := map[string][]keyed{}
		for _, k := range all {
			if _, ok := groups[k.stratum]; !ok {
				names = append(names, k.stratum)
			}
			groups[k.stratum] = append(groups[k.stratum], k)
		}
		slices.Sort(names)
		quota := largestRemainder(names, func(s string) int { return len(groups[s]) }, size, len(all))
		for _, s := range names {
			chosen = append(chosen, pick(groups[s], quota[s], "stratum:"+s)...)
		}
	}
	slices.SortFunc(chosen, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	out := make([]T, len(chosen))
	for i, k := range chosen {
		out[i] = k.item
	}
	return out, nil
}

// largestRemainder apportions size places among strata in proportion to
// their sizes (Hamilton's method).
func largestRemainder(names []string, sizeOf func(string) int, size, total int) map[string]int {
	quota := make(map[string]int, len(names))
	type rem struct {
		name string
		frac int // Remainder numerator over total, kept exact in integers.
		n    int
	}
	rems := make([]rem, 0, len(names))
	given := 0
	for _, s := range names {
		n := sizeOf(s)
		q := size * n / total
		quota[s] = q
		given += q
		rems = append(rems, rem{name: s, frac: size*n - q*total, n: n})
	}
	slices.SortFunc(rems, func(a, b rem) int {
		return cmp.Or(cmp.Compare(b.frac, a.frac), cmp.Compare(b.n, a.n), cmp.Compare(a.name, b.name))
	})
	for i := 0; given < size; i++ {
		quota[rems[i].name]++
		given++
	}
	return quota
}
