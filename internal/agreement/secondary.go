package agreement

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Secondary is agreement on the secondary tags, which are sets: each rater
// gives a unit any number of tags. Each tag is scored as a yes/no class,
// and the sets as wholes are scored with alpha under a set distance.
type Secondary struct {
	// NUnits counts units with tag data.
	NUnits int `json:"n_units"`
	// NRaters counts raters with tag data.
	NRaters int `json:"n_raters"`
	// NPairableUnits counts units with tag sets from two or more raters.
	NPairableUnits int `json:"n_pairable_units"`
	// Tags holds per-tag agreement in tag order.
	Tags []TagAgreement `json:"tags"`
	// SetAlpha holds alpha over whole sets, one entry per distance.
	SetAlpha []SetAlpha `json:"set_alpha"`
}

// TagAgreement is agreement on whether one tag applies.
type TagAgreement struct {
	// Tag is the tag name.
	Tag string `json:"tag"`
	// Given counts ratings that carry the tag.
	Given int `json:"given"`
	// CohenKappa is present only with exactly two raters.
	CohenKappa *Value `json:"cohen_kappa,omitempty"`
	// Alpha is binary (present/absent) nominal alpha.
	Alpha Value `json:"alpha"`
}

// SetAlpha is Krippendorff's alpha with a distance between sets.
type SetAlpha struct {
	// Distance is "masi" or "jaccard".
	Distance string `json:"distance"`
	// Alpha is the coefficient.
	Alpha Value `json:"alpha"`
}

// maxDistinctSets bounds the expected-disagreement sum, which is
// quadratic in the number of distinct tag sets.
const maxDistinctSets = 4000

// tagUnit is one unit's tag sets, one per rater, as set ids.
type tagUnit struct {
	raters []int32
	sets   []int32
}

// secondary computes tag agreement from ratings that carry tag data; nil
// when none do. A rater giving one unit two different tag sets is an error,
// as for primary labels.
func secondary(ratings []Rating) (*Secondary, error) {
	setID := map[string]int32{}
	var sets [][]string
	byUnit := map[string]map[string]int32{}
	raters := map[string]bool{}
	for _, rt := range ratings {
		if !rt.HasTags {
			continue
		}
		tags := normTags(rt.Tags)
		k := strings.Join(tags, "\x00")
		id, ok := setID[k]
		if !ok {
			id = int32(len(sets))
			setID[k] = id
			sets = append(sets, tags)
		}
		if byUnit[rt.Unit] == nil {
			byUnit[rt.Unit] = map[string]int32{}
		}
		if prev, dup := byUnit[rt.Unit][rt.Rater]; dup && prev != id {
			return nil, fmt.Errorf("rater %q gave unit %q two tag sets: [%s] and [%s]", rt.Rater, rt.Unit,
				strings.Join(sets[prev], " "), strings.Join(tags, " "))
		}
		byUnit[rt.Unit][rt.Rater] = id
		raters[rt.Rater] = true
	}
	if len(byUnit) == 0 {
		return nil, nil
	}
	raterNames := slices.Sorted(maps.Keys(raters))
	rIdx := map[string]int32{}
	for i, r := range raterNames {
		rIdx[r] = int32(i)
	}
	unitNames := make([]string, 0, len(byUnit))
	for u := range byUnit {
		unitNames = append(unitNames, u)
	}
	slices.Sort(unitNames)
	units := make([]tagUnit, 0, len(unitNames))
	s := &Secondary{NUnits: len(unitNames), NRaters: len(raterNames)}
	for _, u := range unitNames {
		var tu tagUnit
		for _, r := range raterNames {
			if id, ok := byUnit[u][r]; ok {
				tu.raters = append(tu.raters, rIdx[r])
				tu.sets = append(tu.sets, id)
			}
		}
		if len(tu.sets) >= 2 {
			s.NPairableUnits++
		}
		units = append(units, tu)
	}
	s.Tags = perTag(units, sets, len(raterNames) == 2)
	s.SetAlpha = []SetAlpha{
		{Distance: "masi", Alpha: setAlpha(units, sets, masi)},
		{Distance: "jaccard", Alpha: setAlpha(units, sets, jaccard)},
	}
	return s, nil
}

// perTag scores each tag as a binary class per (unit, rater).
func perTag(units []tagUnit, sets [][]string, two bool) []TagAgreement {
	given := map[string]int{}
	for _, u := range units {
		for _, id := range u.sets {
			for _, tg := range sets[id] {
				given[tg]++
			}
		}
	}
	names := make([]string, 0, len(given))
	for tg := range given {
		names = append(names, tg)
	}
	slices.Sort(names)
	out := make([]TagAgreement, 0, len(names))
	for _, tg := range names {
		var c [2]float64 // Pairable values without and with the tag.
		var diag float64
		var conf [2][2]int
		pairable, both := 0, 0
		for _, u := range units {
			m := len(u.sets)
			if m < 2 {
				continue
			}
			pairable++
			a := 0
			for _, id := range u.sets {
				if has(sets[id], tg) {
					a++
				}
			}
			fm, fa := float64(m), float64(a)
			diag += (fa*(fa-1) + (fm-fa)*(fm-fa-1)) / (fm - 1)
			c[1] += fa
			c[0] += fm - fa
			if two && m == 2 {
				both++
				conf[b2i(has(sets[u.sets[0]], tg))][b2i(has(sets[u.sets[1]], tg))]++
			}
		}
		ta := TagAgreement{Tag: tg, Given: given[tg], Alpha: Undefined(whyFewPairs)}
		if pairable >= minPairedUnits {
			ta.Alpha = alphaFrom(diag, c[:])
		}
		if two {
			k := binaryKappa(conf, both)
			ta.CohenKappa = &k
		}
		out = append(out, ta)
	}
	return out
}

func binaryKappa(conf [2][2]int, n int) Value {
	if n < minPairedUnits {
		return Undefined(whyNoShared)
	}
	fn := float64(n)
	po := float64(conf[0][0]+conf[1][1]) / fn
	a1 := float64(conf[1][0]+conf[1][1]) / fn
	b1 := float64(conf[0][1]+conf[1][1]) / fn
	pe := a1*b1 + (1-a1)*(1-b1)
	if 1-pe < nearOne {
		return Undefined(whyOneClass)
	}
	return Defined((po - pe) / (1 - pe))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func has(set []string, tg string) bool {
	_, ok := slices.BinarySearch(set, tg)
	return ok
}

// setAlpha is alpha = 1 − D_o/D_e with distance dist between sets:
// D_o averages the distance within units (each unit's pairs weighted
// 1/(m_u−1)), D_e over all pairs of pairable values.
func setAlpha(units []tagUnit, sets [][]string, dist func(a, b []string) float64) Value {
	n := 0.0
	nSet := make([]float64, len(sets))
	var do float64
	pairable := 0
	for _, u := range units {
		m := len(u.sets)
		if m < 2 {
			continue
		}
		pairable++
		sum := 0.0
		for i, a := range u.sets {
			nSet[a]++
			for _, b := range u.sets[i+1:] {
				if a != b {
					sum += 2 * dist(sets[a], sets[b])
				}
			}
		}
		do += sum / float64(m-1)
		n += float64(m)
	}
	if pairable < minPairedUnits {
		return Undefined(whyFewPairs)
	}
	var used []int
	for id, c := range nSet {
		if c > 0 {
			used = append(used, id)
		}
	}
	if len(used) > maxDistinctSets {
		return Undefined("too many distinct tag sets to compare all pairs")
	}
	var de float64
	for i, a := range used {
		for _, b := range used[i+1:] {
			de += 2 * nSet[a] * nSet[b] * dist(sets[a], sets[b])
		}
	}
	if de == 0 {
		return Undefined("every rater gave the same tag set throughout, so expected disagreement is zero")
	}
	return Defined(1 - (n-1)*do/de)
}

// jaccard is 1 − |A∩B|/|A∪B|; two empty sets are identical.
func jaccard(a, b []string) float64 {
	inter := intersect(a, b)
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return 1 - float64(inter)/float64(union)
}

// masi is Passonneau's (2006) distance 1 − J·M, where J is the Jaccard
// similarity and M rewards monotonic relations: 1 for equal sets, 2/3 when
// one contains the other, 1/3 when they overlap otherwise, 0 if disjoint.
func masi(a, b []string) float64 {
	inter := intersect(a, b)
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	var m float64
	switch {
	case inter == len(a) && inter == len(b):
		m = 1
	case inter == len(a) || inter == len(b):
		m = 2.0 / 3
	case inter > 0:
		m = 1.0 / 3
	}
	return 1 - float64(inter)/float64(union)*m
}

// intersect counts common members of two sorted sets.
func intersect(a, b []string) int {
	i, j, n := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch strings.Compare(a[i], b[j]) {
		case 0:
			n++
			i++
			j++
		case -1:
			i++
		default:
			j++
		}
	}
	return n
}
