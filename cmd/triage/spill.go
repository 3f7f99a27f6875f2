package main

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// This file is the external sort `clusters` streams its per-trace
// records through (issue 27): records are held in memory up to a limit,
// and past it written out as sorted runs to one temporary file, which the
// read merges. A store of 100k rows stays in memory; one of a million
// spills a few runs, and memory holds one run's worth whatever the rows.

// spillLimit is how many bytes of records a spill holds in memory before
// it writes a run: small next to the 128 MiB the resident set is to stay
// under, large enough that a 100k-row store never touches the disk.
const spillLimit = 4 << 20

// spillFanIn is how many runs a spill merges at once: past it, its runs
// are merged into one (at the file's end) before the next is written, so
// a read never holds more than spillFanIn runs' buffers however many
// records there are.
const spillFanIn = 32

// spill is a sequence of byte records, read back sorted by cmp (in the
// order they were added when cmp is nil). Close removes its file.
type spill struct {
	dir   string // where the file goes; "" is os.TempDir()
	limit int
	cmp   func(a, b []byte) int
	buf   []byte   // the records in memory, one after another
	offs  []uint32 // where each record in buf starts
	f     *os.File // the runs, nil until the first
	path  string   // f's name while it is still to be removed
	w     *bufio.Writer
	runs  []span
	size  int64 // bytes written to f
	err   error // the first write error, returned by every later call
	n     int   // records added
}

// span is one sorted run of the file.
type span struct{ off, n int64 }

// newSpill returns an empty spill writing its runs under dir.
func newSpill(dir string, limit int, cmp func(a, b []byte) int) *spill {
	return &spill{dir: dir, limit: max(limit, 1), cmp: cmp}
}

// Len is the number of records added.
func (s *spill) Len() int { return s.n }

// Add appends a copy of rec.
func (s *spill) Add(rec []byte) error {
	if s.err != nil {
		return s.err
	}
	if len(s.buf)+len(rec) > 1<<31 {
		return errors.New("spill: a record run of more than 2 GiB")
	}
	s.offs = append(s.offs, uint32(len(s.buf)))
	s.buf = append(s.buf, rec...)
	s.n++
	if len(s.buf)+4*len(s.offs) >= s.limit {
		if err := s.flush(); err != nil {
			return err
		}
		if len(s.runs) >= spillFanIn {
			return s.compact()
		}
	}
	return nil
}

// compact merges the file's runs into one, written at its end.
func (s *spill) compact() error {
	start := s.size
	err := s.merge(false, s.write)
	if err != nil {
		return err
	}
	if err := s.w.Flush(); err != nil {
		return s.fail(err)
	}
	s.runs = append(s.runs[:0], span{start, s.size - start})
	return nil
}

// rec is record i of the memory buffer.
func (s *spill) rec(i int) []byte {
	end := len(s.buf)
	if i+1 < len(s.offs) {
		end = int(s.offs[i+1])
	}
	return s.buf[s.offs[i]:end]
}

// sorted is the memory buffer's records in the order they are read.
func (s *spill) sorted() []int {
	order := make([]int, len(s.offs))
	for i := range order {
		order[i] = i
	}
	if s.cmp != nil {
		// Stable: records that compare equal keep the order they came in.
		slices.SortStableFunc(order, func(a, b int) int { return s.cmp(s.rec(a), s.rec(b)) })
	}
	return order
}

// flush writes the memory buffer to the file as one run.
func (s *spill) flush() error {
	if len(s.offs) == 0 {
		return nil
	}
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, "triage-clusters-*.spill")
		if err != nil {
			s.err = fmt.Errorf("a temporary file for the traces: %w", err)
			return s.err
		}
		s.f, s.path = f, f.Name()
		// Unlinked at once where the system allows it: the file then
		// goes with the process however it ends, a kill included.
		if os.Remove(s.path) == nil {
			s.path = ""
		}
		s.w = bufio.NewWriterSize(f, 64<<10)
	}
	start := s.size
	for _, i := range s.sorted() {
		if err := s.write(s.rec(i)); err != nil {
			return err
		}
	}
	if err := s.w.Flush(); err != nil {
		return s.fail(err)
	}
	s.runs = append(s.runs, span{start, s.size - start})
	s.buf, s.offs = s.buf[:0], s.offs[:0]
	return nil
}

// write appends one record to the file, its length first (a uvarint).
func (s *spill) write(r []byte) error {
	var lb [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(lb[:], uint64(len(r)))
	if _, err := s.w.Write(lb[:n]); err != nil {
		return s.fail(err)
	}
	if _, err := s.w.Write(r); err != nil {
		return s.fail(err)
	}
	s.size += int64(n + len(r))
	return nil
}

func (s *spill) fail(err error) error {
	s.err = fmt.Errorf("writing a temporary file for the traces: %w", err)
	return s.err
}

// Spilled reports whether any record went to the file.
func (s *spill) Spilled() bool { return s.f != nil }

// Each calls fn with every record in order (cmp's, else the order they
// were added). rec is valid only until fn returns. Each may be called
// again, but no record may be added once it has been.
func (s *spill) Each(fn func(rec []byte) error) error {
	if s.err != nil {
		return s.err
	}
	return s.merge(true, fn)
}

// merge reads the file's runs, and with mem the memory buffer, merged.
func (s *spill) merge(mem bool, fn func(rec []byte) error) error {
	srcs := make([]*runReader, 0, len(s.runs)+1)
	for _, r := range s.runs {
		srcs = append(srcs, &runReader{r: bufio.NewReaderSize(io.NewSectionReader(s.f, r.off, r.n), min(32<<10, max(s.limit, 16)))})
	}
	if mem {
		srcs = append(srcs, &runReader{mem: s, order: s.sorted()})
	}
	if s.cmp == nil {
		for _, src := range srcs {
			for {
				ok, err := src.next()
				if err != nil {
					return err
				}
				if !ok {
					break
				}
				if err := fn(src.cur); err != nil {
					return err
				}
			}
		}
		return nil
	}
	h := &runHeap{cmp: s.cmp}
	for i, src := range srcs {
		src.rank = i
		ok, err := src.next()
		if err != nil {
			return err
		}
		if ok {
			h.rs = append(h.rs, src)
		}
	}
	heap.Init(h)
	for len(h.rs) > 0 {
		src := h.rs[0]
		if err := fn(src.cur); err != nil {
			return err
		}
		ok, err := src.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

// Close removes the file, if the system did not let flush unlink it.
func (s *spill) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.path != "" {
		if rerr := os.Remove(s.path); rerr != nil && err == nil {
			err = rerr
		}
	}
	s.f, s.path, s.buf, s.offs = nil, "", nil, nil
	return err
}

// runReader reads one run: of the file, or the memory buffer in order.
type runReader struct {
	r     *bufio.Reader
	mem   *spill
	order []int
	at    int
	cur   []byte
	rank  int // earlier runs first among equal records
}

func (r *runReader) next() (bool, error) {
	if r.mem != nil {
		if r.at == len(r.order) {
			return false, nil
		}
		r.cur = r.mem.rec(r.order[r.at])
		r.at++
		return true, nil
	}
	n, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading back a temporary file for the traces: %w", err)
	}
	if uint64(cap(r.cur)) < n {
		r.cur = make([]byte, n)
	}
	r.cur = r.cur[:n]
	if _, err := io.ReadFull(r.r, r.cur); err != nil {
		return false, fmt.Errorf("reading back a temporary file for the traces: %w", err)
	}
	return true, nil
}

// runHeap is the runs by their current record, the smallest on top.
type runHeap struct {
	rs  []*runReader
	cmp func(a, b []byte) int
}

func (h *runHeap) Len() int { return len(h.rs) }
func (h *runHeap) Less(i, j int) bool {
	if c := h.cmp(h.rs[i].cur, h.rs[j].cur); c != 0 {
		return c < 0
	}
	return h.rs[i].rank < h.rs[j].rank
}
func (h *runHeap) Swap(i, j int) { h.rs[i], h.rs[j] = h.rs[j], h.rs[i] }
func (h *runHeap) Push(x any)    { h.rs = append(h.rs, x.(*runReader)) }
func (h *runHeap) Pop() any {
	x := h.rs[len(h.rs)-1]
	h.rs = h.rs[:len(h.rs)-1]
	return x
}

// recWriter builds one record: integers as uvarints, strings with their
// length before them.
type recWriter struct{ b []byte }

func (w *recWriter) reset()         { w.b = w.b[:0] }
func (w *recWriter) uint(v uint64)  { w.b = binary.AppendUvarint(w.b, v) }
func (w *recWriter) str(s string)   { w.uint(uint64(len(s))); w.b = append(w.b, s...) }
func (w *recWriter) bytes(p []byte) { w.uint(uint64(len(p))); w.b = append(w.b, p...) }
func (w *recWriter) be64(v uint64)  { w.b = binary.BigEndian.AppendUint64(w.b, v) }
func (w *recWriter) be32(v uint32)  { w.b = binary.BigEndian.AppendUint32(w.b, v) }
func (w *recWriter) flag(v bool)    { w.b = append(w.b, boolByte(v)) }
func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// recReader reads a record recWriter built, in the same order. A record
// cut short (a bug, or a damaged file) sets err and reads zeros.
type recReader struct {
	b   []byte
	err error
}

func (r *recReader) short() {
	if r.err == nil {
		r.err = errors.New("a temporary file for the traces holds a damaged record")
	}
	r.b = nil
}

func (r *recReader) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.short()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes is the next string, sharing the record's memory.
func (r *recReader) bytes() []byte {
	n := r.uint()
	if uint64(len(r.b)) < n {
		r.short()
		return nil
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p
}

func (r *recReader) str() string { return string(r.bytes()) }

func (r *recReader) fixed(n int) []byte {
	if len(r.b) < n {
		r.short()
		return make([]byte, n)
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *recReader) be64() uint64 { return binary.BigEndian.Uint64(r.fixed(8)) }
func (r *recReader) be32() uint32 { return binary.BigEndian.Uint32(r.fixed(4)) }
func (r *recReader) flag() bool   { return r.fixed(1)[0] != 0 }
