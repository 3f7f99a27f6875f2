package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// errLongLine marks a harness log line over MaxLine, the bound our own
// JSONL has too; it is rejected with its first HarnessRawLimit bytes, so
// memory stays bounded.
var errLongLine = fmt.Errorf("line is longer than %d bytes", MaxLine)

// eachLine calls fn with every non-blank line of src and its 1-based number.
// A line over MaxLine is passed with errLongLine and its head. A
// last line with no newline is passed with last=true, so a decoder can
// say "truncated" when it does not parse. Read errors are returned.
func eachLine(ctx context.Context, src Source, fn func(n int, line []byte, last bool, lineErr error) error) error {
	br := bufio.NewReaderSize(src.R, 64<<10)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := readHarnessLine(br)
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof && !errors.Is(err, errLongLine) {
			return &HarnessError{File: src.Name, Line: n, Err: err}
		}
		if len(trimHead(line)) > 0 {
			var lineErr error
			if errors.Is(err, errLongLine) {
				lineErr = errLongLine
			}
			if ferr := fn(n, line, eof, lineErr); ferr != nil {
				return ferr
			}
		}
		if eof {
			return nil
		}
	}
}

// readHarnessLine reads one line without its newline. It returns io.EOF
// with the final unterminated line (possibly empty).
func readHarnessLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine {
			keep := line
			if len(keep) < HarnessRawLimit {
				keep = append(keep, chunk[:min(len(chunk), HarnessRawLimit-len(keep))]...)
			}
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return keep, err
			}
			return keep, errLongLine
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}

// lineReject rejects one JSONL line, keeping (the head of) its bytes.
func lineReject(src Source, n int, raw []byte, format string, a ...any) Record {
	if len(raw) > HarnessRawLimit {
		raw = raw[:HarnessRawLimit]
	}
	return Record{Line: n, Reject: &Reject{File: src.Name, Line: n, Reason: fmt.Sprintf(format, a...), Raw: append([]byte(nil), raw...)}}
}

// lineJSONReason explains a line that did not parse; an unterminated last
// line is most likely a log cut off mid-write.
func lineJSONReason(line []byte, err error, last bool) string {
	msg := triage.DescribeJSONError(line, err)
	if last {
		return "truncated last line (no newline): " + strings.TrimPrefix(msg, "truncated: ")
	}
	return msg
}

// eachLineAt is eachLine over a document in memory: fn gets line n as
// data[start:end], a view rather than a copy. No line can be over MaxLine
// (wholeFile reads no more than fastMaxBytes) and no read can fail.
func eachLineAt(ctx context.Context, data []byte, fn func(n, start, end int, last bool) error) error {
	for n, i := 1, 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		end, next := len(data), len(data)
		j := bytes.IndexByte(data[i:], '\n')
		if j >= 0 {
			end, next = i+j, i+j+1
		}
		if len(trimHead(data[i:end])) > 0 {
			if err := fn(n, i, end, j < 0); err != nil {
				return err
			}
		}
		if j < 0 {
			return nil
		}
		i = next
	}
}

// eachLineWhole is eachLine, with a small source read whole first so
// that fn's lines are views of it (fn must copy what it keeps: the buffer
// is reused once the file is done).
func eachLineWhole(ctx context.Context, src Source, fn func(n int, line []byte, last bool, lineErr error) error) error {
	data, ok, slow := wholeFile(src)
	if !ok {
		return eachLine(ctx, slow, fn)
	}
	defer releaseWhole(data)
	return eachLineAt(ctx, data, func(n, start, end int, last bool) error {
		return fn(n, data[start:end:end], last, nil)
	})
}
