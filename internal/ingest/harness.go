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
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/triage"
)

// HarnessFormats returns the agent-harness formats in detection-priority
// order: the most specific shapes first (a zip magic, a versioned log,
// keyed trajectories), the loosest JSONL shapes last, so that a registry
// trying them in order before our own JSONL never mistakes one for another.
func HarnessFormats() []Format {
	logs := agentLogFormats()
	// A trial's result.json is named before the trajectories: its keys
	// (trial_name, task_name) are no agent log's.
	return append([]Format{logs[0], TrialFormat}, logs[1:]...)
}

// agentLogFormats are the formats of an agent's own log, the ones a
// trial folder's agent/ may hold, in detection order.
func agentLogFormats() []Format {
	return []Format{InspectFormat, SWEAgentFormat, MiniSWEAgentFormat, OpenHandsFormat, GeminiFormat, CodexFormat, CodexExecFormat, ACPFormat, ClaudeCodeFormat, AiderFormat}
}

// The --format names of the harness formats.
const (
	nameSWEAgent  = "swe-agent"
	nameMini      = "mini-swe-agent"
	nameInspect   = "inspect"
	nameOpenHands = "openhands"
	nameClaude    = "claude-code"
	nameCodex     = "codex"
)

// HarnessRawLimit bounds the harness record kept in Trace.Raw: larger
// records are dropped (Raw nil) and the store keeps the normalised trace.
const HarnessRawLimit = 1 << 20

// HarnessError is a harness file that could not be decoded: it names the
// file and the position (byte offset, and line when it could be counted).
type HarnessError struct {
	File   string
	Offset int64
	// Line is 1-based, or 0 when the line could not be counted (stdin).
	Line int
	Err  error
}

// Error implements error as "file:line: byte N: reason".
func (e *HarnessError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: byte %d: %v", e.File, e.Line, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: byte %d: %v", e.File, e.Offset, e.Err)
}

// Unwrap implements errors.Unwrap.
func (e *HarnessError) Unwrap() error { return e.Err }

// walkFailed ends the Decode of a whole-file format whose walk failed:
// cancellation and read failures are returned, a JSON failure is emitted
// as a Reject at its position. When the source is a file on disk the line
// is counted by re-reading it up to that byte, which costs nothing on the
// happy path.
func walkFailed(ctx context.Context, src Source, dec *json.Decoder, cr *countingReader, err error, emit func(Record) error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if isIOErr(err) {
		return &HarnessError{File: src.Name, Offset: cr.n, Err: err}
	}
	off := errOffset(err, dec, cr)
	line := max(lineAt(src, off), 1)
	return emit(Record{Line: line, Reject: &Reject{File: src.Name, Line: line, Reason: fmt.Sprintf("byte %d: %v", off, explainJSONErr(err))}})
}

// fileReject rejects the whole file: a record placed at its first line.
func fileReject(src Source, reason string) Record {
	return Record{Line: 1, Reject: &Reject{File: src.Name, Line: 1, Reason: reason}}
}

// explainJSONErr rewrites the decoder's terse end-of-input errors so a
// truncated file says so.
func explainJSONErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("truncated input: unexpected end of JSON")
	}
	// A type mismatch names the field and both types in JSON words, not
	// Go's struct and type names.
	if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return errors.New(triage.DescribeJSONError(nil, err))
	}
	return err
}

// errOffset places a decode failure: a syntax error where the decoder
// saw it, a truncated input at its end (every byte read), anything else
// at the start of the value being decoded.
func errOffset(err error, dec *json.Decoder, cr *countingReader) int64 {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return se.Offset
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return cr.n
	}
	return dec.InputOffset()
}

// lineAt counts the lines of src's file up to byte off of its content
// (1-based), decompressing a gzipped file again, or returns 0 when there
// is no file to re-read.
func lineAt(src Source, off int64) int {
	if src.Path == "" {
		return 0
	}
	f, err := os.Open(src.Path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var content io.Reader = f
	if src.gzipped {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return 0
		}
		defer zr.Close()
		content = zr
	}
	line := 1
	buf := make([]byte, 64<<10)
	r := io.LimitReader(content, off)
	for {
		n, err := r.Read(buf)
		line += bytes.Count(buf[:n], []byte{'\n'})
		if err != nil {
			return line
		}
	}
}

// isIOErr separates reader failures (returned as errors: the input is
// unreadable) from JSON failures (rejected with a position).
func isIOErr(err error) bool {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &te) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return false
	}
	var sh *shapeError
	return !errors.As(err, &sh)
}

// shapeError is valid JSON of the wrong shape (an array where an object
// belongs): rejected like a syntax error.
type shapeError struct{ msg string }

func (e *shapeError) Error() string { return e.msg }

func shapef(format string, a ...any) error { return &shapeError{msg: fmt.Sprintf(format, a...)} }

// countingReader counts bytes handed to the JSON decoder so a failure in a
// nested Unmarshal can still be placed.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// walkObject consumes one JSON object from dec, calling fn for each key;
// fn must consume the value (Decode, skipValue or a nested walk).
func walkObject(ctx context.Context, dec *json.Decoder, what string, fn func(key string) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return shapef("%s: want a JSON object, found %s", what, tokenKind(tok))
	}
	for dec.More() {
		if err := ctx.Err(); err != nil {
			return err
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return shapef("%s: want a key, found %s", what, tokenKind(tok))
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// walkArray consumes one JSON array from dec, calling fn for each element
// (fn must consume it). A null is accepted as an empty array.
func walkArray(ctx context.Context, dec *json.Decoder, what string, fn func(i int) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return shapef("%s: want a JSON array, found %s", what, tokenKind(tok))
	}
	for i := 0; dec.More(); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(i); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// skipValue consumes one JSON value token by token, so a huge value we do
// not need (a prompt history, a config) is never held whole.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return "'" + v.String() + "'"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

// harnessStem is a file name without directory and trace extensions.
func harnessStem(name string) string {
	base := filepath.Base(name)
	if name == "" || name == "-" || name == "<stdin>" || base == "." || base == string(filepath.Separator) {
		return ""
	}
	for _, ext := range []string{".gz", ".jsonl", ".json", ".traj", ".eval"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// fileName is the path when known, else the display name.
func fileName(src Source) string {
	if src.Path != "" {
		return src.Path
	}
	return src.Name
}

// runFromDir picks the run id: --run, else the name of the experiment
// directory the log sits in (a harness writes one directory per
// experiment). Folders named after the task itself (SWE-agent v1 writes
// <exp>/<iid>/<iid>.traj) and the generic folders harnesses nest logs in
// (trajs/, trajectories/, logs/…) are skipped for their parents, so three
// harnesses' trajs/ folders do not merge into one run called "trajs".
// Stdin falls back to "stdin".
func runFromDir(src Source, task string) string {
	return runFromDirCached(src, task, nil)
}

// runFromDirCached is runFromDir keeping the log's directory, made
// absolute (a getwd and a stat), in *absDir for the next call on the
// same source: aider's history is a session per trace.
func runFromDirCached(src Source, task string, absDir *string) string {
	if src.Opts.RunID != "" {
		return src.Opts.RunID
	}
	name := fileName(src)
	if harnessStem(name) == "" {
		return "stdin"
	}
	var dir string
	if absDir != nil && *absDir != "" {
		dir = *absDir
	} else {
		dir = filepath.Dir(name)
		if !filepath.IsAbs(dir) {
			if abs, err := filepath.Abs(dir); err == nil {
				dir = abs
			}
		}
		if absDir != nil {
			*absDir = dir
		}
	}
	fallback := ""
	for i := 0; i < 4; i++ {
		b := filepath.Base(dir)
		if b == "." || b == string(filepath.Separator) || b == "" {
			break
		}
		switch {
		case b == task:
		case genericDirs[strings.ToLower(b)]:
			if fallback == "" {
				fallback = b
			}
		default:
			return b
		}
		dir = filepath.Dir(dir)
	}
	if fallback != "" {
		return fallback
	}
	return harnessStem(name)
}

// genericDirs are folder names that say where logs are kept, not which
// experiment wrote them.
var genericDirs = map[string]bool{
	"trajs": true, "traj": true, "trajectories": true, "logs": true, "log": true,
	"results": true, "outputs": true, "output": true, "runs": true, "sessions": true,
	"events": true, "data": true, "eval_results": true, "run_evaluation": true,
	"test_logs": true, "fixtures": true, "raw": true,
}

// contentText flattens a chat content value: a string, or a list of blocks
// whose text-like fields are joined; anything else is kept as JSON text.
func contentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '[':
		var blocks []json.RawMessage
		if json.Unmarshal(raw, &blocks) == nil {
			var parts []string
			for _, b := range blocks {
				if t := blockText(b); t != "" {
					parts = append(parts, t)
				}
			}
			return strings.Join(parts, "\n")
		}
	case '{':
		if t := blockText(raw); t != "" {
			return t
		}
	}
	return string(raw)
}

// blockText is the text of one content block ({type:"text", text}, a
// nested tool_result content, or a bare string); images and other binary
// blocks give "".
func blockText(b json.RawMessage) string {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		_ = json.Unmarshal(b, &s)
		return s
	}
	var blk struct {
		Type    string          `json:"type"`
		Text    *string         `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(b, &blk) != nil {
		return ""
	}
	if blk.Text != nil {
		return *blk.Text
	}
	if len(blk.Content) > 0 {
		return contentText(blk.Content)
	}
	return ""
}

// argsJSON keeps a tool call's arguments as JSON: an object or other JSON
// value stays as is; a JSON-encoded string holding JSON is unwrapped; any
// other text becomes a JSON string.
func argsJSON(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if t := bytes.TrimSpace([]byte(s)); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
				raw = t
			}
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return stringJSON(string(raw))
	}
	return buf.Bytes()
}

// stringJSON encodes s as a JSON string.
func stringJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// commandArgs is the {"command": …} argument object shell-style harnesses
// get, so every adapter presents a shell action the same way.
func commandArgs(cmd string) json.RawMessage {
	// What json.Marshal writes for map[string]string{"command": cmd},
	// without the map and the reflection.
	b := append(make([]byte, 0, len(cmd)+len(cmd)/16+16), `{"command":`...)
	b = triage.AppendJSONString(b, cmd)
	return append(b, '}')
}

func ptr[T any](v T) *T { return &v }

// nonEmpty returns a pointer to s, or nil for "" (unknown, not empty).
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// wallSpan is the wall-clock between two RFC 3339 stamps, nil when either
// is missing or malformed or they run backwards.
func wallSpan(first, last string) *float64 {
	a, ok1 := parseStamp(first)
	b, ok2 := parseStamp(last)
	if !ok1 || !ok2 || b.Before(a) {
		return nil
	}
	return ptr(b.Sub(a).Seconds())
}

// parseStamp reads RFC 3339, or the zone-less ISO stamps OpenHands writes
// (taken as UTC; only differences are used).
func parseStamp(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// newHarnessTrace starts a trace with what every adapter sets the same way.
func newHarnessTrace(format string, src Source) *triage.Trace {
	return &triage.Trace{Source: format, Model: src.Opts.Model, HasToolLog: true}
}

// peekReader returns a reader that still yields the first n bytes, and
// those bytes, so a Decode can branch on the content's shape.
func peekReader(r io.Reader, n int) (*bufio.Reader, []byte, error) {
	br := bufio.NewReaderSize(r, max(n, 16))
	b, err := br.Peek(n)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return br, b, err
	}
	return br, b, nil
}
