package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// MaxLine is the longest JSONL line accepted. Longer lines are rejected
// with their first MaxRejectRaw bytes kept, so memory stays bounded: a
// line is held whole while it is read and decoded, a few times its size
// at the peak, which must stay under 512 MB (docs/RELIABILITY.md).
const MaxLine = 64 << 20

// maxUnended is how far a line may run with no end before the rest of
// the input is given up on.
const maxUnended = 4 * MaxLine

// finiteInput says whether src is a regular file (compressed or not: the
// decompression limits bound what it expands to), so a line of any length
// ends: a line over maxUnended in a file ended the input, and the good
// lines after it were lost.
func finiteInput(src Source) bool {
	if src.Path == "" {
		return false
	}
	st, err := os.Stat(src.Path)
	return err == nil && st.Mode().IsRegular()
}

// setOversize records that line i of a batch is n bytes, over MaxLine.
func setOversize(m map[int]int, i, n int) map[int]int {
	if m == nil {
		m = map[int]int{}
	}
	m[i] = n
	return m
}

// MaxRejectRaw bounds the raw bytes kept for an oversized line (the store
// bounds every reject's bytes to the same, store.MaxRejectRaw).
const MaxRejectRaw = 1 << 20

// batch is a run of consecutive lines decoded by one worker. Lines are
// copied out of the reader's buffer so workers own their bytes.
type batch struct {
	lines   [][]byte
	lineNos []int
	// noEOL marks that the last line of the file had no newline: if it
	// does not parse, it was most likely truncated.
	noEOL bool
	// oversize holds lines over MaxLine (by index), rejected unparsed.
	oversize map[int]int
	out      chan []Record
}

const (
	batchLines = 512
	batchBytes = 1 << 20
)

// decodeJSONL reads src line by line, decodes lines on all cores and
// emits records in input order. Memory is bounded by the batches in
// flight (about 2 per core of at most 1 MiB each, or one long line).
func decodeJSONL(ctx context.Context, src Source, emit func(Record) error) error {
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *batch, workers)
	order := make(chan *batch, 2*workers)
	runID := src.Opts.RunID
	if runID == "" {
		runID = stem(src.Name)
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := rowDecoder{lite: src.Opts.Lite}
			for b := range work {
				b.out <- d.decodeBatch(b, src.Name, runID)
			}
		}()
	}
	readErr := make(chan error, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(order)
		defer close(work)
		readErr <- splitLines(ctx, src.R, finiteInput(src), func(b *batch) bool {
			b.out = make(chan []Record, 1)
			select {
			case order <- b:
			case <-ctx.Done():
				return false
			}
			select {
			case work <- b:
			case <-ctx.Done():
				return false
			}
			return true
		})
	}()
	var emitErr error
	for b := range order {
		recs := <-b.out
		if emitErr != nil {
			continue
		}
		for _, r := range recs {
			if err := emit(r); err != nil {
				emitErr = err
				cancel()
				break
			}
		}
	}
	wg.Wait()
	if emitErr != nil {
		return emitErr
	}
	return <-readErr
}

func (d *rowDecoder) decodeBatch(b *batch, file, runID string) []Record {
	recs := make([]Record, 0, len(b.lines))
	for i, line := range b.lines {
		no := b.lineNos[i]
		if n, ok := b.oversize[i]; ok {
			recs = append(recs, Record{Line: no, Reject: &Reject{File: file, Line: no,
				Reason: fmt.Sprintf("line is %d bytes, over the %d MiB limit (first %d bytes kept)", n, MaxLine>>20, len(line)), Raw: line}})
			continue
		}
		if isBlank(line) {
			recs = append(recs, Record{Line: no, Blank: true})
			continue
		}
		t, err := d.decode(line, runID)
		if err != nil {
			reason := err.Error()
			if b.noEOL && i == len(b.lines)-1 {
				reason = "truncated last line (no newline at end of file): " + reason
			}
			recs = append(recs, Record{Line: no, Reject: &Reject{File: file, Line: no, Reason: reason, Raw: line}})
			continue
		}
		recs = append(recs, Record{Line: no, Trace: t})
	}
	return recs
}

// isBlank reports a line of nothing but JSON white space. A line of \v or
// \f is not blank: JSON does not read them as space, and such a line is
// rejected as not JSON rather than skipped.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// splitLines cuts r into batches of lines. It strips a leading UTF-8 BOM
// and CR before LF, and reports a read error (a truncated gzip stream, an
// I/O error) after handing over every complete line read before it.
//
// When finite (a regular file, whose end is known to come), a line with no
// end for any length is read to its end in bounded memory, rejected, and
// the lines after it are read; otherwise (a device, a pipe) the input is
// given up on after maxUnended.
func splitLines(ctx context.Context, r io.Reader, finite bool, send func(*batch) bool) error {
	br := bufio.NewReaderSize(r, 1<<20)
	lineNo := 0
	newBatch := func() *batch {
		return &batch{lines: make([][]byte, 0, batchLines), lineNos: make([]int, 0, batchLines)}
	}
	cur := newBatch()
	size := 0
	flush := func() bool {
		if len(cur.lines) == 0 {
			return true
		}
		ok := send(cur)
		cur, size = newBatch(), 0
		return ok
	}
	var long []byte
	longLen := 0
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: accumulate, bounded. Once
			// it passes MaxLine only its head is kept, in a buffer of its
			// own, so the line's bytes read so far are let go.
			if longLen+len(chunk) <= MaxLine {
				long = append(long, chunk...)
			} else {
				if len(long) > MaxRejectRaw || cap(long) > 2*MaxRejectRaw {
					long = append(make([]byte, 0, MaxRejectRaw), long[:min(len(long), MaxRejectRaw)]...)
				}
				if len(long) < MaxRejectRaw {
					long = append(long, chunk[:min(len(chunk), MaxRejectRaw-len(long))]...)
				}
			}
			longLen += len(chunk)
			if longLen > maxUnended && !finite {
				// No line end in four times the line limit: an endless
				// device (/dev/zero) or not text at all. The line is
				// rejected and the rest is not read, so the import ends.
				lineNo++
				cur.oversize = setOversize(cur.oversize, len(cur.lines), longLen)
				cur.lines = append(cur.lines, long[:min(len(long), MaxRejectRaw)])
				cur.lineNos = append(cur.lineNos, lineNo)
				if !flush() {
					return ctx.Err()
				}
				return &ReadError{Line: lineNo, Err: fmt.Errorf("no line end in %d MiB: the rest of the input was not read", maxUnended>>20)}
			}
			continue
		}
		if _, ok := errors.AsType[*InflateError](err); ok {
			// Cut by a decompression limit: the line in hand is the
			// limit's artefact, not the input's, and is not decoded.
			if !flush() {
				return ctx.Err()
			}
			return &ReadError{Line: lineNo, Err: err}
		}
		if len(chunk) == 0 && long == nil && err != nil {
			if !flush() {
				return ctx.Err()
			}
			if err == io.EOF {
				return nil
			}
			return &ReadError{Line: lineNo, Err: err}
		}
		lineNo++
		var line []byte
		over := 0
		if long != nil {
			longLen += len(chunk)
			if longLen <= MaxLine {
				line = append(long, chunk...)
			} else {
				line = long[:min(len(long), MaxRejectRaw)]
				// The line's length, without its newline.
				over = longLen - len(chunk) + len(bytes.TrimSuffix(chunk, []byte("\n")))
			}
			long, longLen = nil, 0
		} else {
			line = append([]byte(nil), chunk...)
		}
		eol := len(line) > 0 && line[len(line)-1] == '\n' && over == 0
		if eol {
			line = line[:len(line)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if over > 0 {
			cur.oversize = setOversize(cur.oversize, len(cur.lines), over)
		}
		cur.lines = append(cur.lines, line)
		cur.lineNos = append(cur.lineNos, lineNo)
		size += len(line)
		if err != nil {
			cur.noEOL = !eol
			if !flush() {
				return ctx.Err()
			}
			if err == io.EOF {
				return nil
			}
			return &ReadError{Line: lineNo, Err: err}
		}
		if len(cur.lines) >= batchLines || size >= batchBytes {
			if !flush() {
				return ctx.Err()
			}
		}
	}
}

// ReadError is an input that could not be read to its end (a truncated
// gzip stream, an I/O error). Line is the last line read, complete or not.
type ReadError struct {
	Line int
	Err  error
}

// Error implements error.
func (e *ReadError) Error() string {
	return fmt.Sprintf("read failed after line %d: %v", e.Line, e.Err)
}

// Unwrap implements errors.Unwrap.
func (e *ReadError) Unwrap() error { return e.Err }
