package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/klauspost/compress/s2"
)

// Trace bodies are stored in chunks: the bodies of consecutive traces one
// import batch wrote, up to about chunkBytes, compressed together as one
// row of trace_chunks keyed by the lowest trace id in it. A row per chunk
// instead of one per trace takes a b-tree insert and three bound
// parameters off every trace, and rows that look alike compress better
// together (docs/PERFORMANCE.md). Stores
// written before migration 0003 keep their bodies in trace_rows, which
// every reader still consults for a trace no chunk holds.
//
// A chunk's body is
//
//	chunkMagic, uvarint n, n × uvarint (id − first_id), ascending,
//	then an S2 block of n entries: raw and norm, each as uvarint
//	(length + 1) and its bytes, 0 for nil.
//
// The ids stay outside the compressed block so that Check can match
// chunks to traces without decompressing them.
const chunkMagic = 0xC1

// appendBodyEntry appends one trace's raw and norm in the entry layout.
func appendBodyEntry(dst, raw, norm []byte) []byte {
	for _, b := range [2][]byte{raw, norm} {
		if b == nil {
			dst = append(dst, 0)
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(len(b))+1)
		dst = append(dst, b...)
	}
	return dst
}

// chunkBytes is about how many bytes of bodies one chunk holds: a reader
// of one trace decompresses its whole chunk, and SQLite refuses a blob
// over 1 GB, which 64 traces of 20 MiB would pass. A trace larger than
// this gets a chunk of its own.
const chunkBytes = 1 << 20

// packRuns cuts traces into runs of about chunkBytes and packs each run
// as one chunk block; runs[r] is the [start, end) of block r.
func packRuns(raws, norms [][]byte) (runs [][2]int, blocks [][]byte) {
	start, size := 0, 0
	for i := range raws {
		n := len(raws[i]) + len(norms[i])
		if i > start && size+n > chunkBytes {
			runs = append(runs, [2]int{start, i})
			blocks = append(blocks, packBodies(raws[start:i], norms[start:i]))
			start, size = i, 0
		}
		size += n
	}
	if start < len(raws) {
		runs = append(runs, [2]int{start, len(raws)})
		blocks = append(blocks, packBodies(raws[start:], norms[start:]))
	}
	return runs, blocks
}

// packBodies compresses the entries of a chunk into its S2 block.
func packBodies(raws, norms [][]byte) []byte {
	n := 0
	for i := range raws {
		n += len(raws[i]) + len(norms[i]) + 2*binary.MaxVarintLen32
	}
	sc := getScratch()
	defer putScratch(sc)
	sc.plain = slices.Grow(sc.plain[:0], n)
	for i := range raws {
		sc.plain = appendBodyEntry(sc.plain, raws[i], norms[i])
	}
	return sc.compress(sc.plain)
}

// scratch is the buffers packing reuses from one chunk or verdict group
// to the next: growing them afresh (the plain entries, S2's worst-case
// output, a verdict's JSON) was a quarter of the bytes `import --rules`
// allocated (docs/PERFORMANCE.md), and made as many collections.
type scratch struct{ json, plain, enc []byte }

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooledScratch keeps the one chunk of a 20 MiB trace from pinning its
// buffers in the pool.
const maxPooledScratch = 4 << 20

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(sc *scratch) {
	for _, b := range []*[]byte{&sc.json, &sc.plain, &sc.enc} {
		if cap(*b) > maxPooledScratch {
			*b = nil
		}
	}
	scratchPool.Put(sc)
}

// compress compresses plain with S2 into the scratch's output buffer and
// returns a copy of exactly the compressed bytes.
func (sc *scratch) compress(plain []byte) []byte {
	if m := s2.MaxEncodedLen(len(plain)); m > cap(sc.enc) {
		sc.enc = make([]byte, m)
	}
	return bytes.Clone(s2.Encode(sc.enc[:cap(sc.enc)], plain))
}

// chunkBody puts the id header in front of a packed block. ids are
// ascending and ids[0] is the chunk's first_id.
func chunkBody(ids []int64, block []byte) []byte {
	return append(idHeader(chunkMagic, ids, len(block)), block...)
}

// idHeader writes the header chunks and rule_verdicts labels start with:
// magic, uvarint n, n × uvarint (id − ids[0]); room for more bytes after.
func idHeader(magic byte, ids []int64, more int) []byte {
	out := make([]byte, 0, 1+binary.MaxVarintLen32*(1+len(ids))+more)
	out = append(out, magic)
	out = binary.AppendUvarint(out, uint64(len(ids)))
	for _, id := range ids {
		out = binary.AppendUvarint(out, uint64(id-ids[0]))
	}
	return out
}

// errCorruptChunk names what is wrong with a stored chunk.
var errCorruptChunk = errors.New("stored chunk is corrupt")

// headerIDs reads a chunk's id header and returns the ids and the packed
// block after it.
func headerIDs(first int64, body []byte) ([]int64, []byte, error) {
	return readIDHeader(chunkMagic, fmt.Sprintf("chunk %d has", first), first, body)
}

// readIDHeader reads an idHeader whose first id is first; owner names
// what holds it in errors ("chunk 3 has").
func readIDHeader(magic byte, owner string, first int64, b []byte) ([]int64, []byte, error) {
	if len(b) == 0 || b[0] != magic {
		return nil, nil, fmt.Errorf("%w: %s no header", errCorruptChunk, owner)
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, nil, fmt.Errorf("%w: %s a bad count", errCorruptChunk, owner)
	}
	b = b[k:]
	ids := make([]int64, n)
	prev := int64(-1)
	for i := range ids {
		d, k := binary.Uvarint(b)
		if k <= 0 || d > 1<<53 {
			return nil, nil, fmt.Errorf("%w: %s a bad id", errCorruptChunk, owner)
		}
		b = b[k:]
		ids[i] = first + int64(d)
		if ids[i] <= prev {
			return nil, nil, fmt.Errorf("%w: %s ids out of order", errCorruptChunk, owner)
		}
		prev = ids[i]
	}
	return ids, b, nil
}

// chunk is a decoded chunk: its ids, and each trace's raw and norm,
// slices of one buffer.
type chunk struct {
	first, last int64
	ids         []int64
	raws, norms [][]byte
}

func decodeChunk(first, last int64, body []byte) (*chunk, error) {
	ids, block, err := headerIDs(first, body)
	if err != nil {
		return nil, err
	}
	plain, err := s2.Decode(nil, block)
	if err != nil {
		return nil, fmt.Errorf("%w: chunk %d: %v", errCorruptChunk, first, err)
	}
	c := &chunk{first: first, last: last, ids: ids, raws: make([][]byte, len(ids)), norms: make([][]byte, len(ids))}
	for i := range ids {
		for _, dst := range [2]*[]byte{&c.raws[i], &c.norms[i]} {
			l, k := binary.Uvarint(plain)
			if k <= 0 || l > uint64(len(plain)-k)+1 {
				return nil, fmt.Errorf("%w: chunk %d entry %d is cut short", errCorruptChunk, first, i)
			}
			plain = plain[k:]
			if l == 0 {
				continue
			}
			*dst = plain[: l-1 : l-1]
			plain = plain[l-1:]
		}
	}
	return c, nil
}

// find returns the bodies of id, if the chunk holds it.
func (c *chunk) find(id int64) (raw, norm []byte, ok bool) {
	i := sort.Search(len(c.ids), func(i int) bool { return c.ids[i] >= id })
	if i == len(c.ids) || c.ids[i] != id {
		return nil, nil, false
	}
	return c.raws[i], c.norms[i], true
}

// The two tables of chunks: trace bodies by trace id, and the evidence of
// rule verdicts written as label_events rows, by label event id
// (migration 0004; since 0005 verdicts are rule_verdicts rows, and stores
// labelled before keep theirs here).
const (
	traceChunks   = "trace_chunks"
	verdictChunks = "verdict_chunks"
)

// chunkOf reads the chunk of table whose range holds id; nil when none
// does.
func chunkOf(ctx context.Context, q querier, table string, id int64) (*chunk, error) {
	var first, last int64
	var body []byte
	err := q.QueryRowContext(ctx, `SELECT first_id, last_id, body FROM `+table+` WHERE first_id <= ? ORDER BY first_id DESC LIMIT 1`, id).Scan(&first, &last, &body)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && last < id) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr(err)
	}
	return decodeChunk(first, last, body)
}

// lastChunk keeps the chunk read last: the review screen and `rules
// check` read traces one at a time, mostly in id order, and a chunk holds
// many of them. Chunks are never changed once committed, so the cache
// cannot go stale.
type lastChunk struct {
	mu sync.Mutex
	c  *chunk
}

// body returns the stored raw and norm of trace id, unpacked.
func (s *DB) body(ctx context.Context, id int64) (raw, norm []byte, err error) {
	s.chunks.mu.Lock()
	c := s.chunks.c
	s.chunks.mu.Unlock()
	if c == nil || id < c.first || id > c.last {
		if c, err = chunkOf(ctx, s.db, traceChunks, id); err != nil {
			return nil, nil, err
		}
		if c != nil {
			s.chunks.mu.Lock()
			s.chunks.c = c
			s.chunks.mu.Unlock()
		}
	}
	if c != nil {
		if raw, norm, ok := c.find(id); ok {
			return raw, norm, nil
		}
	}
	// A store from before chunks.
	if err := s.db.QueryRowContext(ctx, `SELECT raw, norm FROM trace_rows WHERE trace_id = ?`, id).Scan(&raw, &norm); err != nil {
		return nil, nil, mapErr(err)
	}
	return unpackPair(raw, norm)
}

func unpackPair(raw, norm []byte) ([]byte, []byte, error) {
	raw, err := unpackRow(raw)
	if err != nil {
		return nil, nil, err
	}
	norm, err = unpackRow(norm)
	return raw, norm, err
}

// fillBodies sets Raw and Norm of rows, whose ids are ascending, reading
// each chunk they need once; rows no chunk holds are read from trace_rows.
// With budget > 0 it fills only a prefix, rows[:n]: it stops once the
// prefix's bodies (as read, decompressed) pass budget, at the row that
// passes it, so a batch of large rows is bounded by bytes and not by its
// count; n is at least 1 when rows is not empty, and the rows after n are
// left empty for the next batch.
func fillBodies(ctx context.Context, q querier, rows []StoredRow, budget int) (int, error) {
	var c *chunk
	var missing []int
	n, size := len(rows), 0
	// pre[k] is the chunk bytes of the rows before missing[k].
	var pre []int
	for i := range rows {
		id := rows[i].ID
		if c == nil || id > c.last {
			var err error
			if c, err = chunkOf(ctx, q, traceChunks, id); err != nil {
				return 0, err
			}
		}
		found := false
		if c != nil {
			if raw, norm, ok := c.find(id); ok {
				rows[i].Raw, rows[i].Norm = raw, norm
				size += len(raw) + len(norm)
				found = true
			}
		}
		if !found {
			missing = append(missing, i)
			pre = append(pre, size)
		}
		if budget > 0 && size > budget {
			n = i + 1
			break
		}
	}
	clear(rows[n:])
	if len(missing) == 0 {
		return n, nil
	}
	// A store from before chunks: the missing rows in id order, a query
	// of up to 500, stopping once the prefix passes budget.
	fetched := 0
	for lo := 0; lo < len(missing); lo += 500 {
		part := missing[lo:min(lo+500, len(missing))]
		ids := make([]int64, len(part))
		for j, i := range part {
			ids[j] = rows[i].ID
		}
		cut, err := fillLegacy(ctx, q, rows, part, ids, func(k, b int) bool {
			fetched += b
			return budget > 0 && pre[lo+k]+fetched > budget
		})
		if err != nil {
			return 0, err
		}
		if cut >= 0 {
			n = part[cut] + 1
			clear(rows[n:])
			return n, nil
		}
	}
	return n, nil
}

// fillLegacy reads the rows at part (ids, ascending) from trace_rows in id
// order. After each it calls over with the row's place in part and its
// bytes; when over says true it stops and returns that place, else -1.
func fillLegacy(ctx context.Context, q querier, rows []StoredRow, part []int, ids []int64, over func(k, bytes int) bool) (int, error) {
	rs, err := q.QueryContext(ctx, `SELECT trace_id, raw, norm FROM trace_rows WHERE trace_id IN (`+placeholders(len(ids))+`) ORDER BY trace_id`, idArgs(ids)...)
	if err != nil {
		return -1, mapErr(err)
	}
	defer rs.Close()
	k := 0
	for rs.Next() {
		var id int64
		var raw, norm []byte
		if err := rs.Scan(&id, &raw, &norm); err != nil {
			return -1, mapErr(err)
		}
		if k == len(ids) || id != ids[k] {
			break // ids[k] is not stored: said below
		}
		if raw, norm, err = unpackPair(raw, norm); err != nil {
			return -1, fmt.Errorf("trace %d: %w", id, err)
		}
		// A trace named twice is one row, filled at each place.
		for k < len(ids) && ids[k] == id {
			rows[part[k]].Raw, rows[part[k]].Norm = raw, norm
			if over(k, len(raw)+len(norm)) {
				return k, nil
			}
			k++
		}
	}
	if err := rs.Err(); err != nil {
		return -1, mapErr(err)
	}
	if k < len(ids) {
		return -1, fmt.Errorf("trace %d: %w", ids[k], ErrNotFound)
	}
	return -1, nil
}
