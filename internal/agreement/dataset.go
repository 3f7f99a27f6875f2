package agreement

import (
	"fmt"
	"slices"
	"strings"
)

// dataset is the ratings indexed for counting: units, raters and
// categories become small integers, and each unit's ratings sit together
// (compressed rows), sorted by rater. Units and raters are numbered in
// name order so that results, examples and bootstrap draws do not depend
// on the order of the input.
type dataset struct {
	units    []string // sorted unit names
	raters   []string // sorted rater names
	cats     []string // declared order, else sorted
	declared bool
	start    []int32 // ratings of unit u are [start[u], start[u+1])
	rater    []int32
	cat      []int32
}

// maxRows bounds the input so that int32 indices cannot overflow.
const maxRows = 1 << 30

// newDataset indexes ratings. declared, when non-empty, fixes the category
// set and its order; a label outside it is an error.
func newDataset(ratings []Rating, declared []string) (*dataset, error) {
	if len(ratings) == 0 {
		return nil, fmt.Errorf("no ratings")
	}
	if len(ratings) >= maxRows {
		return nil, fmt.Errorf("too many ratings (%d)", len(ratings))
	}
	d := &dataset{}
	catID := make(map[string]int32)
	for _, c := range declared {
		c = strings.TrimSpace(c)
		if c == "" {
			return nil, fmt.Errorf("declared categories: empty name")
		}
		if _, dup := catID[c]; dup {
			continue
		}
		catID[c] = int32(len(d.cats))
		d.cats = append(d.cats, c)
	}
	d.declared = len(d.cats) > 0

	unitID := make(map[string]int32, len(ratings)/4)
	lastUnit := int32(0)
	raterID := make(map[string]int32)
	var unitNames, raterNames []string
	uid := make([]int32, len(ratings))
	rid := make([]int32, len(ratings))
	cid := make([]int32, len(ratings))
	for i, rt := range ratings {
		if err := checkRating(rt); err != nil {
			return nil, fmt.Errorf("rating %d (unit %q, rater %q): %w", i+1, rt.Unit, rt.Rater, err)
		}
		// Long-form files list a unit's ratings together, so the last
		// unit is a cheap cache in front of the big map.
		u := lastUnit
		if i == 0 || rt.Unit != unitNames[lastUnit] {
			var ok bool
			if u, ok = unitID[rt.Unit]; !ok {
				u = int32(len(unitNames))
				unitID[rt.Unit] = u
				unitNames = append(unitNames, rt.Unit)
			}
			lastUnit = u
		}
		r, ok := raterID[rt.Rater]
		if !ok {
			r = int32(len(raterNames))
			raterID[rt.Rater] = r
			raterNames = append(raterNames, rt.Rater)
		}
		c, ok := catID[rt.Label]
		if !ok {
			if d.declared {
				return nil, fmt.Errorf("unit %q, rater %q: label %q is not one of the declared categories (%s)",
					rt.Unit, rt.Rater, rt.Label, strings.Join(d.cats, ", "))
			}
			c = int32(len(d.cats))
			catID[rt.Label] = c
			d.cats = append(d.cats, rt.Label)
		}
		uid[i], rid[i], cid[i] = u, r, c
	}

	uRank := rankNames(unitNames)
	rRank := rankNames(raterNames)
	d.units = permuted(unitNames, uRank)
	d.raters = permuted(raterNames, rRank)
	if !d.declared {
		cRank := rankNames(d.cats)
		d.cats = permuted(d.cats, cRank)
		for i := range cid {
			cid[i] = cRank[cid[i]]
		}
	}

	// Counting sort by unit rank into compressed rows.
	d.start = make([]int32, len(d.units)+1)
	for _, u := range uid {
		d.start[uRank[u]+1]++
	}
	for i := 1; i < len(d.start); i++ {
		d.start[i] += d.start[i-1]
	}
	fill := slices.Clone(d.start[:len(d.units)])
	d.rater = make([]int32, len(ratings))
	d.cat = make([]int32, len(ratings))
	for i, u := range uid {
		u = uRank[u]
		p := fill[u]
		fill[u]++
		d.rater[p] = rRank[rid[i]]
		d.cat[p] = cid[i]
	}
	return d, d.sortAndDedup()
}

// sortAndDedup orders each unit's ratings by rater, drops exact
// duplicates and refuses a rater who gave one unit two labels.
func (d *dataset) sortAndDedup() error {
	w := int32(0)
	for u := range d.units {
		lo, hi := d.start[u], d.start[u+1]
		d.sortUnit(lo, hi)
		d.start[u] = w
		for i := lo; i < hi; i++ {
			if i > lo && d.rater[i] == d.rater[i-1] {
				if d.cat[i] != d.cat[i-1] {
					return fmt.Errorf("rater %q gave unit %q two labels: %q and %q",
						d.raters[d.rater[i]], d.units[u], d.cats[d.cat[i-1]], d.cats[d.cat[i]])
				}
				continue
			}
			d.rater[w], d.cat[w] = d.rater[i], d.cat[i]
			w++
		}
	}
	d.start[len(d.units)] = w
	d.rater, d.cat = d.rater[:w], d.cat[:w]
	return nil
}

// sortUnit orders one unit's ratings by rater: insertion sort for the
// usual handful, a general sort when a hostile input piles ratings on one
// unit.
func (d *dataset) sortUnit(lo, hi int32) {
	if hi-lo > 32 {
		type rc struct{ r, c int32 }
		buf := make([]rc, hi-lo)
		for i := range buf {
			buf[i] = rc{d.rater[lo+int32(i)], d.cat[lo+int32(i)]}
		}
		slices.SortStableFunc(buf, func(a, b rc) int { return int(a.r) - int(b.r) })
		for i, x := range buf {
			d.rater[lo+int32(i)], d.cat[lo+int32(i)] = x.r, x.c
		}
		return
	}
	for i := lo + 1; i < hi; i++ {
		for j := i; j > lo && d.rater[j] < d.rater[j-1]; j-- {
			d.rater[j], d.rater[j-1] = d.rater[j-1], d.rater[j]
			d.cat[j], d.cat[j-1] = d.cat[j-1], d.cat[j]
		}
	}
}

// rankNames returns, for each name's index, its rank in sorted order.
func rankNames(names []string) []int32 {
	idx := make([]int32, len(names))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	rank := make([]int32, len(names))
	for r, i := range idx {
		rank[i] = int32(r)
	}
	return rank
}

func permuted(names []string, rank []int32) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[rank[i]] = n
	}
	return out
}
