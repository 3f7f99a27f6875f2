package signature

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
)

// Threshold is the similarity at or above which a signature joins a
// cluster: about half of the weight of two signatures must be shared.
// Part of Version.
const Threshold = 0.5

// The weights of a signature's features (part of Version). The exception
// and the failing tests say most about the cause; the rules' claims say
// what kind of failure it was; the tool shape only a little, since agents
// wander differently on every seed.
const (
	wPrimary   = 2
	wSecondary = 1
	wClaim     = 2
	wGeneric   = 0.5
	wErrType   = 2
	wErrMsg    = 6
	wTests     = 3 // shared among the tests
	wSummary   = 1.5
	wNoFailure = 1.5
	wEnd       = 1
	wSteps     = 0.5
)

// Feature is one weighted feature of a signature, for Similarity.
type Feature struct {
	Key    string
	Weight float64
}

// Features lists s's weighted features: what Similarity compares.
func (s *Signature) Features() []Feature {
	fs := make([]Feature, 0, 8+len(s.Evidence)+len(s.Tests)+len(s.Secondary))
	if s.Primary != "" {
		fs = append(fs, Feature{"p:" + s.Primary, wPrimary})
	}
	for _, t := range s.Secondary {
		fs = append(fs, Feature{"g:" + t, wSecondary})
	}
	for _, e := range s.Evidence {
		w := float64(wClaim)
		if specificClaim([]string{e}) == "" {
			w = wGeneric
		}
		fs = append(fs, Feature{"c:" + e, w})
	}
	if s.Error != nil {
		fs = append(fs, Feature{"x:" + s.Error.Type, wErrType}, Feature{"m:" + s.Error.Type + ": " + s.Error.Template, wErrMsg})
	}
	for _, t := range s.Tests {
		fs = append(fs, Feature{"t:" + t, wTests / float64(len(s.Tests))})
	}
	if s.Summary != "" {
		fs = append(fs, Feature{"s:" + s.Summary, wSummary})
	}
	if s.Error == nil && len(s.Tests) == 0 && s.Summary == "" {
		fs = append(fs, Feature{"n:", wNoFailure})
	}
	end := s.Shape
	if n := len(end); n > 4 {
		end = end[n-4:]
	}
	fs = append(fs, Feature{"e:" + end, wEnd}, Feature{"l:" + stepsBucket(s.Steps), wSteps})
	return fs
}

// Similarity is the weighted Jaccard similarity of two signatures'
// features: the weight they share over the weight either has, 0 to 1.
func Similarity(a, b *Signature) float64 {
	wa, wb := map[string]float64{}, map[string]float64{}
	for _, f := range a.Features() {
		wa[f.Key] += f.Weight
	}
	for _, f := range b.Features() {
		wb[f.Key] += f.Weight
	}
	var inter, union float64
	for k, x := range wa {
		y := wb[k]
		inter += min(x, y)
		union += max(x, y)
	}
	for k, y := range wb {
		if _, ok := wa[k]; !ok {
			union += y
		}
	}
	if union == 0 {
		return 1
	}
	return inter / union
}

// fw is a feature interned to an id, with its weight.
type fw struct {
	id uint32
	w  float32
}

// similarity is Similarity over interned, id-sorted vectors.
func similarity(a, b []fw) float64 {
	var inter, union float64
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].id == b[j].id:
			inter += float64(min(a[i].w, b[j].w))
			union += float64(max(a[i].w, b[j].w))
			i++
			j++
		case a[i].id < b[j].id:
			union += float64(a[i].w)
			i++
		default:
			union += float64(b[j].w)
			j++
		}
	}
	for ; i < len(a); i++ {
		union += float64(a[i].w)
	}
	for ; j < len(b); j++ {
		union += float64(b[j].w)
	}
	if union == 0 {
		return 1
	}
	return inter / union
}

// Clusterer groups signatures by similarity. Add every signature (equal
// signatures are kept once, with a count), then call Cluster.
//
// It keeps each distinct signature compactly, since a store's traces can
// fail in as many distinct ways as there are traces (their tool shapes
// differ): a signature's key is its cause (everything up to the shape,
// see Key) and its shape, each kept once however many signatures share
// it, and the feature vector is kept once per cause and shape end (what
// Features reads of the shape). A distinct signature costs a few dozen
// bytes, not its text (issue 27).
type Clusterer struct {
	feat   map[string]uint32
	anchor []bool // anchor[id]: the feature can find a cluster (see anchors)
	// causes are the distinct key prefixes (Key up to the shape), each
	// with the first signature added that had it (Shape and Steps
	// cleared). A key suffix (shape and steps bucket) is packed into its
	// compactSig (packShape); suffixes holds those that do not pack.
	causeID  map[string]uint32
	prefixes []string
	causes   []Signature
	shapeID  map[string]uint32
	suffixes []string
	// sigs are the distinct signatures in chunks (no doubling copy as
	// they grow), found by key through table (sigTable).
	sigs  [][]compactSig
	n     int
	table sigTable
	vecID map[vecKey]uint32
	vecs  [][]fw
}

// compactSig is one distinct signature: its cause and shape, the steps of
// the first trace added with it, its count and its feature vector.
type compactSig struct {
	shape packedShape
	cause uint32
	steps int32
	count int32
	vec   uint32
}

// sigKey is a distinct signature's key as compactSig holds it.
type sigKey struct {
	shape packedShape
	cause uint32
}

// packedShape is a key suffix (Shape, \x01, the steps bucket) in 9
// bytes: up to 16 letters of ShapeLetters 4 bits each, first letter
// lowest (0 ends the shape), and in m 1 (packed), 2 (the shape starts
// with "…") and the bucket's number times 4. A suffix that does not pack
// has m 0 and in letters its index in Clusterer.suffixes.
type packedShape struct {
	letters uint64
	m       uint8
}

// shapeCodes are the letters a packed shape holds, by their code - 1.
const shapeCodes = "rfeTXENtubigso"

// stepsBuckets are stepsBucket's values, by their number.
var stepsBuckets = [...]string{"0", "1-5", "6-20", "21-60", ">60"}

// packShape packs a key suffix, if it can.
func packShape(suffix string) (packedShape, bool) {
	j := strings.LastIndexByte(suffix, 1)
	if j < 0 {
		return packedShape{}, false
	}
	shape, bucket := suffix[:j], suffix[j+1:]
	b := slices.Index(stepsBuckets[:], bucket)
	if b < 0 {
		return packedShape{}, false
	}
	p := packedShape{m: 1 | uint8(b)<<2}
	if rest, ok := strings.CutPrefix(shape, "…"); ok {
		p.m |= 2
		shape = rest
	}
	if len(shape) > 16 {
		return packedShape{}, false
	}
	for i := 0; i < len(shape); i++ {
		c := strings.IndexByte(shapeCodes, shape[i])
		if c < 0 {
			return packedShape{}, false
		}
		p.letters |= uint64(c+1) << (4 * i)
	}
	return p, true
}

// appendSuffix appends distinct signature's key suffix to b.
func (c *Clusterer) appendSuffix(b []byte, p packedShape) []byte {
	if p.m == 0 {
		return append(b, c.suffixes[p.letters]...)
	}
	if p.m&2 != 0 {
		b = append(b, "…"...)
	}
	for l := p.letters; l != 0; l >>= 4 {
		b = append(b, shapeCodes[l&15-1])
	}
	b = append(b, 1)
	return append(b, stepsBuckets[p.m>>2]...)
}

// vecKey names a feature vector: a cause's features with those of a
// shape's end and steps bucket.
type vecKey struct {
	cause uint32
	tail  string
}

// NewClusterer returns an empty clusterer.
func NewClusterer() *Clusterer {
	return &Clusterer{feat: map[string]uint32{}, causeID: map[string]uint32{}, shapeID: map[string]uint32{},
		vecID: map[vecKey]uint32{}}
}

// splitKey cuts a signature's key before its shape: the key ends with
// the shape, \x01 and the steps bucket.
func splitKey(s *Signature) (prefix, suffix string) {
	k := s.Key()
	n := len(s.Shape) + 1 + len(stepsBucket(s.Steps))
	return k[:len(k)-n], k[len(k)-n:]
}

// intern returns s's id in ids, adding it to list when new.
func intern(ids map[string]uint32, list *[]string, s string) (uint32, bool) {
	if id, ok := ids[s]; ok {
		return id, false
	}
	id := uint32(len(*list))
	s = strings.Clone(s) // not the whole key it was cut from
	ids[s] = id
	*list = append(*list, s)
	return id, true
}

// Add counts one trace's signature and returns the index of its distinct
// signature, which Cluster's result maps to a cluster.
func (c *Clusterer) Add(s Signature) int {
	prefix, suffix := splitKey(&s)
	cause, isNew := intern(c.causeID, &c.prefixes, prefix)
	if isNew {
		cs := s
		cs.Shape, cs.Steps = "", 0
		c.causes = append(c.causes, cs)
	}
	shape, ok := packShape(suffix)
	if !ok {
		id, _ := intern(c.shapeID, &c.suffixes, suffix)
		shape = packedShape{letters: uint64(id)}
	}
	k := sigKey{shape, cause}
	slot, i := c.table.find(c, k)
	if i >= 0 {
		c.sig(i).count++
		return i
	}
	i = c.n
	end := s.Shape
	if n := len(end); n > 4 {
		end = end[n-4:]
	}
	vk := vecKey{cause, end + "\x01" + stepsBucket(s.Steps)}
	v, ok := c.vecID[vk]
	if !ok {
		v = uint32(len(c.vecs))
		c.vecID[vk] = v
		c.vecs = append(c.vecs, c.vector(&s))
	}
	if i%sigChunk == 0 {
		c.sigs = append(c.sigs, make([]compactSig, 0, sigChunk))
	}
	last := &c.sigs[len(c.sigs)-1]
	*last = append(*last, compactSig{shape: shape, cause: cause, steps: int32(min(s.Steps, 1<<31-1)), count: 1, vec: v})
	c.n++
	c.table.put(c, slot, i)
	return i
}

// sigChunk is how many distinct signatures a chunk of Clusterer.sigs
// holds.
const sigChunk = 1 << 14

// sig is distinct signature i.
func (c *Clusterer) sig(i int) *compactSig { return &c.sigs[i/sigChunk][i%sigChunk] }

// sigTable finds a distinct signature by its key: open addressing over
// the signatures' indexes (4 bytes a slot, at most half full), the keys
// read from the signatures themselves, where a map would hold each key
// again.
type sigTable struct {
	slots []int32 // index + 1; 0 is empty
	used  int
}

func (k sigKey) hash() uint64 {
	h := k.shape.letters*0x9E3779B97F4A7C15 ^ uint64(k.shape.m)<<56 ^ uint64(k.cause)*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>32
}

// find returns k's signature index, or -1 and the slot to put it in.
func (t *sigTable) find(c *Clusterer, k sigKey) (slot, i int) {
	if len(t.slots) == 0 {
		return -1, -1
	}
	mask := len(t.slots) - 1
	for s := int(k.hash()) & mask; ; s = (s + 1) & mask {
		v := t.slots[s]
		if v == 0 {
			return s, -1
		}
		if cs := c.sig(int(v - 1)); cs.shape == k.shape && cs.cause == k.cause {
			return s, int(v - 1)
		}
	}
}

// put records signature i in slot (find's), growing the table past half
// full.
func (t *sigTable) put(c *Clusterer, slot, i int) {
	if slot < 0 || 2*(t.used+1) > len(t.slots) {
		t.slots = make([]int32, max(1024, 2*len(t.slots)))
		t.used = 0
		for j := range i + 1 {
			cs := c.sig(j)
			s, _ := t.find(c, sigKey{cs.shape, cs.cause})
			t.slots[s] = int32(j + 1)
			t.used++
		}
		return
	}
	t.slots[slot] = int32(i + 1)
	t.used++
}

// Len is the number of distinct signatures added.
func (c *Clusterer) Len() int { return c.n }

// Signature returns distinct signature i: the first added with its key.
func (c *Clusterer) Signature(i int) *Signature {
	cs := c.sig(i)
	s := c.causes[cs.cause]
	var buf [64]byte
	suffix := c.appendSuffix(buf[:0], cs.shape)
	s.Shape = string(suffix[:max(0, bytes.LastIndexByte(suffix, 1))])
	s.Steps = int(cs.steps)
	return &s
}

// Count is how many traces had distinct signature i.
func (c *Clusterer) Count(i int) int { return int(c.sig(i).count) }

// compareKeys orders distinct signatures a and b as strings.Compare
// orders their keys, without building them.
func (c *Clusterer) compareKeys(a, b int) int {
	sa, sb := c.sig(a), c.sig(b)
	var ba, bb [64]byte
	if sa.cause == sb.cause {
		return bytes.Compare(c.appendSuffix(ba[:0], sa.shape), c.appendSuffix(bb[:0], sb.shape))
	}
	pa, pb := c.prefixes[sa.cause], c.prefixes[sb.cause]
	if !strings.HasPrefix(pa, pb) && !strings.HasPrefix(pb, pa) {
		return strings.Compare(pa, pb) // they differ before either ends
	}
	return bytes.Compare(c.appendSuffix([]byte(pa), sa.shape), c.appendSuffix([]byte(pb), sb.shape))
}

func (c *Clusterer) vector(s *Signature) []fw {
	fs := s.Features()
	v := make([]fw, 0, len(fs))
	for _, f := range fs {
		id, ok := c.feat[f.Key]
		if !ok {
			id = uint32(len(c.feat))
			c.feat[f.Key] = id
			c.anchor = append(c.anchor, isAnchor(f))
		}
		v = append(v, fw{id, float32(f.Weight)})
	}
	slices.SortFunc(v, func(a, b fw) int { return cmp.Compare(a.id, b.id) })
	// Equal keys (a tag listed twice) merge.
	out := v[:0]
	for _, x := range v {
		if n := len(out); n > 0 && out[n-1].id == x.id {
			out[n-1].w += x.w
			continue
		}
		out = append(out, x)
	}
	return out
}

// isAnchor reports whether a feature says something of the cause, so
// that signatures sharing it are worth comparing: a specific claim, the
// exception, a failing test, the run's summary, or having no failing
// output at all. Every signature has one. The class, tags, generic claims
// and the shape are shared by too many to narrow the search.
func isAnchor(f Feature) bool {
	switch f.Key[:2] {
	case "x:", "m:", "t:", "s:", "n:":
		return true
	case "c:":
		return f.Weight >= wClaim
	}
	return false
}

// Group is one cluster: its distinct signatures, the first (the most
// common) its leader, and how many traces it holds.
type Group struct {
	// Leader is the distinct signature the others were compared with.
	Leader int
	// Sigs are the cluster's distinct signatures, most common first.
	Sigs []int
	// Size is the number of traces.
	Size int
}

// maxCandidates bounds the signatures one signature is compared with per
// anchor feature: the most common ones, which come first. It keeps
// clustering linear when many signatures share a feature (every
// AssertionError) and resemble nothing.
const maxCandidates = 64

// Cluster groups the distinct signatures by single linkage: two
// signatures at Threshold or more similar are in one cluster, and so are
// their clusters. Each signature, most common first, is compared with the
// signatures before it that share an anchor feature with it (at most
// maxCandidates an anchor). It returns the clusters largest first (then by
// their first signature's key), each with its signatures most common
// first, the first its Leader; and which cluster each distinct signature
// is in. The result depends only on the signatures and their counts, not
// on the order they were added.
func (c *Clusterer) Cluster() (groups []Group, of []int) {
	n := c.n
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(c.sig(b).count, c.sig(a).count), c.compareKeys(a, b))
	})
	rank := make([]int, n) // rank[sig]: its place in order
	for r, i := range order {
		rank[i] = r
	}
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		// The root is the earlier signature in order, so a cluster's
		// root is its most common signature.
		if rank[ra] > rank[rb] {
			ra, rb = rb, ra
		}
		parent[rb] = ra
	}
	index := make(map[uint32][]int) // anchor feature → signatures with it, in order
	seen := make([]int, n)          // seen[j]: the last signature compared with j, +1
	for _, i := range order {
		v := c.vecs[c.sig(i).vec]
		for _, f := range v {
			if !c.anchor[f.id] {
				continue
			}
			list := index[f.id]
			for _, j := range list[:min(len(list), maxCandidates)] {
				if seen[j] == i+1 {
					continue
				}
				seen[j] = i + 1
				if find(i) != find(j) && similarity(v, c.vecs[c.sig(j).vec]) >= Threshold {
					union(i, j)
				}
			}
			if len(list) < maxCandidates {
				index[f.id] = append(list, i)
			}
		}
	}
	byRoot := map[int]int{}
	for _, i := range order {
		r := find(i)
		g, ok := byRoot[r]
		if !ok {
			g = len(groups)
			byRoot[r] = g
			groups = append(groups, Group{Leader: r})
		}
		groups[g].Sigs = append(groups[g].Sigs, i)
		groups[g].Size += int(c.sig(i).count)
	}
	perm := make([]int, len(groups))
	for g := range perm {
		perm[g] = g
	}
	// Groups were made in order, so a stable sort by size keeps ties in
	// the order of their leaders.
	slices.SortStableFunc(perm, func(a, b int) int { return cmp.Compare(groups[b].Size, groups[a].Size) })
	sorted := make([]Group, len(groups))
	at := make([]int, len(groups))
	for r, g := range perm {
		sorted[r] = groups[g]
		at[g] = r
	}
	of = make([]int, n)
	for i := range of {
		of[i] = at[byRoot[find(i)]]
	}
	return sorted, of
}
