package ingest

import (
	"bufio"
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
