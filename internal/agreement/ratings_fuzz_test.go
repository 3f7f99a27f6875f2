package agreement

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzParseRatings feeds arbitrary text to the ratings reader: no input
// may panic; an error names the input it was reading; accepted ratings
// have a unit, rater and label each, at most one rating per rater and
// unit, and written back as JSONL they read as the same ratings; and what
// parses computes agreement and prints without panicking.
func FuzzParseRatings(f *testing.F) {
	for _, s := range []string{
		"unit,rater,label\na,b,c\n", `{"unit":"a","rater":"b","label":"c","tags":["x"]}`,
		"a,b,c,d;e\na,c,c\n", "\xef\xbb\xbfunit,rater,label\n", "{", "\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		rs, err := ParseRatings(strings.NewReader(in), "fuzz")
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "fuzz:"), "error does not name the input: %v", err)
			return
		}
		seen := map[[2]string]bool{}
		for _, r := range rs {
			require.True(t, r.Unit != "" && r.Rater != "" && r.Label != "", "%+v", r)
			k := [2]string{r.Unit, r.Rater}
			require.False(t, seen[k], "two ratings by %q of %q", r.Rater, r.Unit)
			seen[k] = true
		}
		if utf8.ValidString(in) {
			var b strings.Builder
			for _, r := range rs {
				row := map[string]any{"unit": r.Unit, "rater": r.Rater, "label": r.Label}
				if r.HasTags {
					row["tags"] = append([]string{}, r.Tags...)
				}
				line, err := json.Marshal(row)
				require.NoError(t, err)
				b.Write(line)
				b.WriteByte('\n')
			}
			back, err := ParseRatings(strings.NewReader(b.String()), "back")
			require.NoError(t, err, "written back:\n%s", b.String())
			require.Equal(t, rs, back, "written back:\n%s", b.String())
		}
		// Whatever parses must compute without panicking.
		r, err := Compute(rs, Options{Resamples: 20})
		if err == nil {
			require.NoError(t, WriteText(&strings.Builder{}, r))
		}
	})
}
