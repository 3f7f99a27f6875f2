package main

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/triage-dev/triage/internal/ingest"
)

// A directory of harness logs is thousands of small whole-file documents
// (a trajectory, a session), each decoded with encoding/json on one core
// while the store waited. The prefetcher decodes the files ahead, on every
// core, while the store writes the one before: records still reach the
// writer in file order, each file in its own transaction. Our JSONL files
// are left to the streaming path (it decodes on every core itself, and a
// file may be any size), and so is any file over prefetchMaxBytes.

// prefetchMaxBytes bounds a file decoded ahead, and prefetchBudget the
// bytes of the files decoded ahead at once, so memory stays bounded
// however many files a directory holds.
const (
	prefetchMaxBytes = 16 << 20
	prefetchBudget   = 48 << 20
)

// decodedFile is one file decoded ahead of the writer: its records, each
// trace's normalised row (ingest.Finish, done on the worker) or why it
// cannot be stored, and the decoder's error. stream says the file was not
// decoded ahead (JSONL, too big, stdin, a folder): the writer reads it.
type decodedFile struct {
	stream bool
	// name is the opened input's name; "" when opening failed (err).
	name  string
	recs  []ingest.Record
	norms [][]byte
	bad   []string
	err   error
	// size is what the file holds of the budget, given back when written.
	size int64
}

// prefetcher hands out the files of an import in order, decoded ahead.
type prefetcher struct {
	out    []chan *decodedFile
	budget *byteBudget
	stop   context.CancelFunc
	// gc raises the memory limit once a harness log is decoded ahead.
	gc sync.Once
}

type prefetchJob struct {
	i    int
	size int64
}

// startPrefetch starts decoding files ahead on every core; wrap counts
// the bytes read for the progress bar. get(i) returns file i's result in
// order; close stops the workers.
func startPrefetch(ctx context.Context, files []string, format string, opts ingest.Options, wrap func(io.Reader) io.Reader) *prefetcher {
	ctx, stop := context.WithCancel(ctx)
	p := &prefetcher{out: make([]chan *decodedFile, len(files)), budget: newByteBudget(prefetchBudget), stop: stop}
	for i := range p.out {
		p.out[i] = make(chan *decodedFile, 1)
	}
	go func() {
		<-ctx.Done()
		p.budget.wake()
	}()
	jobs := make(chan prefetchJob)
	// The budget is taken here, in file order, so the writer (which gives
	// it back in file order) can never wait on a file whose worker waits
	// on budget held by later files.
	go func() {
		defer close(jobs)
		for i, path := range files {
			size, ok := prefetchable(path, format)
			if !ok {
				p.out[i] <- &decodedFile{stream: true}
				continue
			}
			if !p.budget.take(ctx, size) {
				return
			}
			select {
			case jobs <- prefetchJob{i, size}:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range runtime.GOMAXPROCS(0) {
		go func() {
			for j := range jobs {
				d := decodeWhole(ctx, files[j.i], format, opts, wrap, &p.gc)
				d.size = j.size
				p.out[j.i] <- d
			}
		}()
	}
	return p
}

// get waits for file i's result; nil when the import was cancelled.
func (p *prefetcher) get(ctx context.Context, i int) *decodedFile {
	select {
	case d := <-p.out[i]:
		return d
	case <-ctx.Done():
		return nil
	}
}

// done gives back the budget file d held, once the writer is through it.
func (p *prefetcher) done(d *decodedFile) {
	if d != nil {
		p.budget.release(d.size)
	}
}

// close stops the workers.
func (p *prefetcher) close() { p.stop() }

// prefetchable says whether a file may be decoded ahead, and its size: a
// regular file, small enough, not named our JSONL by --format. Only a stat:
// the format is told from the content by the worker, on every core.
func prefetchable(path, format string) (int64, bool) {
	if path == "-" || format == ingest.JSONL.Name {
		return 0, false
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > prefetchMaxBytes {
		return 0, false
	}
	return st.Size(), true
}

// decodeWhole decodes one file into memory, with each trace validated
// and normalised as the writer would. The format is told from the content
// as the decoder would (a Codex rollout or a Claude Code session is named
// .jsonl but is one document); our JSONL is handed back to stream.
func decodeWhole(ctx context.Context, path, format string, opts ingest.Options, wrap func(io.Reader) io.Reader, gc *sync.Once) *decodedFile {
	d := &decodedFile{}
	in, err := ingest.Open(path, nil, wrap)
	if err != nil {
		d.err = err
		return d
	}
	defer in.Close()
	if format == "" || format == "auto" {
		f, err := ingest.Detect(in.Name, in.Head)
		if err != nil || f.Name == ingest.JSONL.Name {
			// Our JSONL (any size, decoded on every core by its own
			// path), or no format: the writer reads it and says which.
			return &decodedFile{stream: true}
		}
		format = f.Name
	}
	d.name = in.Name
	gc.Do(harnessGC)
	d.err = ingest.Decode(ctx, in, format, opts, func(r ingest.Record) error {
		norm, bad := prepare(r)
		d.recs = append(d.recs, r)
		d.norms = append(d.norms, norm)
		d.bad = append(d.bad, bad)
		return nil
	})
	return d
}

// prepare validates and normalises a record's trace: its stored row, or
// why it cannot be stored ("" and nil for a reject or a blank line).
func prepare(r ingest.Record) (norm []byte, bad string) {
	t := r.Trace
	if t == nil {
		return nil, ""
	}
	if err := t.Validate(); err != nil {
		return nil, err.Error()
	}
	norm, err := ingest.Finish(t)
	if err != nil {
		return nil, "cannot normalise: " + err.Error()
	}
	return norm, ""
}

// byteBudget is a counting semaphore on bytes.
type byteBudget struct {
	mu        sync.Mutex
	cond      *sync.Cond
	left, max int64
}

func newByteBudget(n int64) *byteBudget {
	b := &byteBudget{left: n, max: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// take waits until n bytes fit (one file bigger than the budget still goes
// once nothing else is held); false when ctx ended first.
func (b *byteBudget) take(ctx context.Context, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.left < n && b.left < b.max && ctx.Err() == nil {
		b.cond.Wait()
	}
	if ctx.Err() != nil {
		return false
	}
	b.left -= n
	return true
}

func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// wake lets a waiting take see that its context ended: the broadcast is
// made holding the lock, so a take between its check and its Wait cannot
// miss it.
func (b *byteBudget) wake() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cond.Broadcast()
}
