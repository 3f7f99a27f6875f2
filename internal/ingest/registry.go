package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// JSONL is our own trace format: one JSON object a line (DESIGN §2).
var JSONL = Format{
	Name:   "jsonl",
	Wants:  "one JSON object a line (a .jsonl name, or a first line that is a whole object)",
	Detect: detectJSONL,
	Decode: decodeJSONL,
}

// Formats returns every format triage reads, in detection order: the
// harness formats first (their shapes are specific), our JSONL last.
func Formats() []Format {
	return append(HarnessFormats(), JSONL)
}

// FormatNames lists the --format values.
func FormatNames() []string {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	return names
}

// Lookup returns the format called name.
func Lookup(name string) (Format, bool) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// Detect picks the format of a file from its name and first bytes.
func Detect(name string, head []byte) (Format, error) {
	for _, f := range Formats() {
		if f.Detect != nil && f.Detect(name, head) {
			return f, nil
		}
	}
	return Format{}, &UnknownFormatError{Name: name}
}

// UnknownFormatError is a file no format reads. It names every format
// tried and what each looks for, so the user can tell which one the file
// was meant to be and what it lacks.
type UnknownFormatError struct{ Name string }

// Error implements error.
func (e *UnknownFormatError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: not a trace file of any known format (tried %s)", e.Name, strings.Join(FormatNames(), ", "))
	for _, f := range Formats() {
		if f.Wants != "" {
			fmt.Fprintf(&b, "\n  %s: wants %s", f.Name, f.Wants)
		}
	}
	return b.String()
}

// detectJSONL accepts content whose first non-blank line is a whole JSON
// object (a pretty-printed .json file is not JSONL), or an empty file
// (which imports nothing, cleanly). A file named .jsonl is ours whatever
// it holds, so its bad lines are rejected one by one with reasons.
func detectJSONL(name string, head []byte) bool {
	lname := strings.ToLower(name)
	if strings.HasSuffix(lname, ".jsonl") || strings.HasSuffix(lname, ".jsonl.gz") || strings.HasSuffix(lname, ".ndjson") {
		return true
	}
	t := trimHead(head)
	if len(t) == 0 {
		return true
	}
	if t[0] != '{' {
		return false
	}
	line, _, complete := bytes.Cut(t, []byte("\n"))
	if !complete && len(head) >= DetectBytes {
		// A first line longer than the head: trust its opening brace.
		return true
	}
	return json.Valid(bytes.TrimRight(line, "\r"))
}

// stem is a file's name without directory and extensions, the default
// run; standard input's is "stdin".
func stem(name string) string { return nameOr(harnessStem(name), "stdin") }

// Input is one opened input: decompressed content with its name.
type Input struct {
	Name string
	Path string
	R    io.Reader
	// Head is the first bytes of the content, for detection; R still
	// yields them.
	Head   []byte
	closer func() error
	// gzipped says the content is decompressed from the file at Path;
	// inflate then bounds what it expands to (Decode sets its limits).
	gzipped bool
	// dirFiles are the event files of a claimed directory (see
	// claimedDir), in order; R streams them as one JSON array.
	dirFiles []string
	inflate  *inflateReader
	// trial says the input is a trial folder (see isTrialDir): R is
	// empty and the trial format reads the folder's files.
	trial bool
}

// Close releases the input.
func (in *Input) Close() error {
	if in.closer == nil {
		return nil
	}
	return in.closer()
}

// Open opens a trace file ("-" is standard input), decompressing gzip by
// its magic bytes, and peeks at its head for detection. wrap, if not nil,
// wraps the compressed stream (a progress counter).
func Open(path string, stdin io.Reader, wrap func(io.Reader) io.Reader) (*Input, error) {
	var raw io.Reader
	var closer func() error
	name := path
	if path == "-" {
		raw, name = stdin, "<stdin>"
	} else {
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, pathErr(err))
		}
		if st.IsDir() {
			return openDir(path, wrap)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, pathErr(err))
		}
		raw, closer = f, f.Close
	}
	if wrap != nil {
		raw = wrap(raw)
	}
	br := bufio.NewReaderSize(raw, 64<<10)
	var r io.Reader = br
	magic, _ := br.Peek(2)
	gzipped := len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b
	var inflate *inflateReader
	if gzipped {
		compressed := &countReader{r: br}
		zr, err := gzip.NewReader(compressed)
		if err != nil {
			if closer != nil {
				closer()
			}
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		inflate = &inflateReader{r: zr, in: compressed, limits: limitsOf(Options{})}
		zbr := bufio.NewReaderSize(inflate, 64<<10)
		r = zbr
		prev := closer
		closer = func() error {
			zr.Close()
			if prev != nil {
				return prev()
			}
			return nil
		}
		br = zbr
	}
	head, _ := br.Peek(DetectBytes)
	return &Input{Name: name, Path: pathOrEmpty(path), R: r, Head: head, closer: closer, gzipped: gzipped, inflate: inflate}, nil
}

func pathOrEmpty(p string) string {
	if p == "-" {
		return ""
	}
	return p
}

// pathErr drops the *fs.PathError wrapper, whose path the message names
// already.
func pathErr(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// Decode detects (or takes) the format of in and streams its records.
func Decode(ctx context.Context, in *Input, format string, opts Options, emit func(Record) error) error {
	var f Format
	if in.trial && (format == "" || format == "auto") {
		format = nameTrial
	}
	if format != "" && format != "auto" {
		var ok bool
		if f, ok = Lookup(format); !ok {
			return fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(FormatNames(), ", "))
		}
	} else {
		var err error
		if f, err = Detect(in.Name, in.Head); err != nil {
			return err
		}
	}
	if in.inflate != nil {
		in.inflate.limits = limitsOf(opts)
	}
	return f.Decode(ctx, Source{Name: in.Name, Path: in.Path, R: in.R, Opts: opts, gzipped: in.gzipped, dirFiles: in.dirFiles, trial: in.trial}, emit)
}
