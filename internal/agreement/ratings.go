package agreement

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Rating is one judgement in long form: rater Rater put unit Unit in class
// Label. Long form is used because it handles any number of raters and
// missing ratings (a rater who skipped a unit simply has no row).
type Rating struct {
	// Unit identifies the item rated (a trace, a row).
	Unit string `json:"unit"`
	// Rater identifies who rated it.
	Rater string `json:"rater"`
	// Label is the primary class given.
	Label string `json:"label"`
	// Tags is the set of secondary tags given; meaningful when HasTags.
	Tags []string `json:"tags,omitempty"`
	// HasTags tells an empty tag set apart from no tag data at all, so
	// secondary agreement is computed only where tags were recorded.
	HasTags bool `json:"-"`
}

// maxLine bounds one input line; ratings are short and the input is
// untrusted, so a runaway line is reported rather than buffered.
const maxLine = 1 << 20

// ParseRatings reads long-form ratings from r. The format is sniffed from
// the content: a first non-blank byte '{' means JSONL (one object a line
// with "unit", "rater", "label" and optionally "tags"), anything else is
// CSV with columns unit,rater,label[,tags] and an optional header naming
// them (in any order). CSV tags are separated by ';' or '|'. name is used
// in errors as name:line. A repeated (unit, rater) with the same label is
// kept once; with a different label it is an error.
func ParseRatings(r io.Reader, name string) ([]Rating, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := sniff(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []Rating
	switch first {
	case 0:
		return nil, fmt.Errorf("%s: no ratings: the input is empty", name)
	case '{':
		out, err = parseJSONL(br, name)
	default:
		out, err = parseCSV(br, name)
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no ratings found", name)
	}
	return out, nil
}

// sniff returns the first non-space byte without consuming it (0 at EOF).
func sniff(br *bufio.Reader) (byte, error) {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if len(b) == n {
			c := b[n-1]
			switch c {
			case ' ', '\t', '\r', '\n', 0xEF, 0xBB, 0xBF: // Skip a UTF-8 BOM too.
				if n >= 4096 {
					return 0, errors.New("no content in the first 4 KiB")
				}
				continue
			}
			return c, nil
		}
		if errors.Is(err, io.EOF) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// dedup keeps the first of identical (unit, rater, label) rows and reports
// a conflicting label as an error naming both lines.
type dedup struct {
	name string
	seen map[[2]string]seenRating
}

type seenRating struct {
	label string
	line  int
}

func (d *dedup) add(out []Rating, rt Rating, line int) ([]Rating, error) {
	if d.seen == nil {
		d.seen = make(map[[2]string]seenRating)
	}
	k := [2]string{rt.Unit, rt.Rater}
	if prev, ok := d.seen[k]; ok {
		if prev.label != rt.Label {
			return out, fmt.Errorf("%s:%d: rater %q already labelled unit %q as %q on line %d, now %q",
				d.name, line, rt.Rater, rt.Unit, prev.label, prev.line, rt.Label)
		}
		return out, nil
	}
	d.seen[k] = seenRating{label: rt.Label, line: line}
	return append(out, rt), nil
}

func checkRating(rt Rating) error {
	switch {
	case rt.Unit == "":
		return errors.New("empty unit")
	case rt.Rater == "":
		return errors.New("empty rater")
	case rt.Label == "":
		return errors.New("empty label (leave a missing rating out instead)")
	}
	return nil
}

func parseJSONL(br *bufio.Reader, name string) ([]Rating, error) {
	var out []Rating
	d := dedup{name: name}
	for line := 1; ; line++ {
		b, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			rt, perr := decodeJSONRating(t)
			if perr == nil {
				perr = checkRating(rt)
			}
			if perr != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, perr)
			}
			if out, perr = d.add(out, rt, line); perr != nil {
				return nil, perr
			}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
	}
}

// readLine returns one line without its newline, refusing lines over
// maxLine.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

func decodeJSONRating(b []byte) (Rating, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return Rating{}, fmt.Errorf("not a JSON object: %w", err)
	}
	var rt Rating
	var err error
	fields := []struct {
		key string
		dst *string
	}{{"unit", &rt.Unit}, {"rater", &rt.Rater}, {"label", &rt.Label}}
	for _, f := range fields {
		raw, ok := m[f.key]
		if !ok {
			return Rating{}, fmt.Errorf("missing key %q", f.key)
		}
		if *f.dst, err = scalarString(raw); err != nil {
			return Rating{}, fmt.Errorf("key %q: %w", f.key, err)
		}
	}
	if raw, ok := m["tags"]; ok && string(raw) != "null" {
		var tags []string
		if err := json.Unmarshal(raw, &tags); err != nil {
			return Rating{}, fmt.Errorf("key \"tags\": want an array of strings: %w", err)
		}
		rt.Tags, rt.HasTags = normTags(tags), true
	}
	return rt, nil
}

// scalarString accepts a JSON string or number: unit ids are often numbers.
func scalarString(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return strings.TrimSpace(s), nil
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&n); err == nil {
		return n.String(), nil
	}
	return "", errors.New("want a string or a number")
}

// normTags trims, drops empties and sorts a tag list into a set.
func normTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	w := 0
	for i, t := range out {
		if i == 0 || t != out[w-1] {
			out[w] = t
			w++
		}
	}
	return out[:w]
}

func parseCSV(br *bufio.Reader, name string) ([]Rating, error) {
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	cols := map[string]int{"unit": 0, "rater": 1, "label": 2, "tags": 3}
	var out []Rating
	d := dedup{name: name}
	for rec := 0; ; rec++ {
		fields, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			// csv.ParseError already carries "record on line N".
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if rec == 0 && isHeader(fields) {
			cols = map[string]int{}
			for i, f := range fields {
				cols[strings.ToLower(strings.TrimSpace(f))] = i
			}
			for _, k := range []string{"unit", "rater", "label"} {
				if _, ok := cols[k]; !ok {
					return nil, fmt.Errorf("%s:%d: header lacks the %q column", name, line, k)
				}
			}
			if _, ok := cols["tags"]; !ok {
				cols["tags"] = -1
			}
			continue
		}
		if len(fields) == 1 && strings.TrimSpace(fields[0]) == "" {
			continue
		}
		rt, err := csvRating(fields, cols)
		if err == nil {
			err = checkRating(rt)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if out, err = d.add(out, rt, line); err != nil {
			return nil, err
		}
	}
}

// isHeader says whether the first record names columns: two of unit,
// rater and label are enough, so a header with one column misspelt is
// reported as such instead of being read as a rating.
func isHeader(fields []string) bool {
	n := 0
	for _, f := range fields {
		switch strings.ToLower(strings.TrimSpace(f)) {
		case "unit", "rater", "label":
			n++
		}
	}
	return n >= 2
}

func csvRating(fields []string, cols map[string]int) (Rating, error) {
	get := func(k string) (string, bool) {
		i := cols[k]
		if i < 0 || i >= len(fields) {
			return "", false
		}
		return strings.TrimSpace(fields[i]), true
	}
	need := cols["label"] + 1
	if u, r := cols["unit"]+1, cols["rater"]+1; u > need || r > need {
		need = max(u, r)
	}
	if len(fields) < need {
		return Rating{}, fmt.Errorf("want %d fields (unit,rater,label), got %d", need, len(fields))
	}
	var rt Rating
	rt.Unit, _ = get("unit")
	rt.Rater, _ = get("rater")
	rt.Label, _ = get("label")
	if t, ok := get("tags"); ok {
		rt.HasTags = true
		rt.Tags = normTags(strings.FieldsFunc(t, func(r rune) bool { return r == ';' || r == '|' }))
	}
	if len(fields) > 4 && cols["tags"] == 3 {
		return Rating{}, errors.New("too many fields: want unit,rater,label[,tags] (" + strconv.Itoa(len(fields)) + " given)")
	}
	return rt, nil
}
