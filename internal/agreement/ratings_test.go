package agreement

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRatings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []Rating
		wantErr string
	}{
		{
			name: "csv with header",
			in:   "unit,rater,label\nt1,ann,BUG\nt1,bob,BUG\n",
			want: []Rating{{Unit: "t1", Rater: "ann", Label: "BUG"}, {Unit: "t1", Rater: "bob", Label: "BUG"}},
		},
		{
			name: "csv without header, spaces trimmed, blank lines skipped",
			in:   "t1, ann , BUG\n\nt2,bob,OK\r\n",
			want: []Rating{{Unit: "t1", Rater: "ann", Label: "BUG"}, {Unit: "t2", Rater: "bob", Label: "OK"}},
		},
		{
			name: "csv header in another order with tags",
			in:   "label,unit,rater,tags\nBUG,t1,ann,b;a;a\n",
			want: []Rating{{Unit: "t1", Rater: "ann", Label: "BUG", Tags: []string{"a", "b"}, HasTags: true}},
		},
		{
			name: "jsonl with numbers and tags",
			in:   "\n{\"unit\": 7, \"rater\": \"ann\", \"label\": \"BUG\", \"tags\": [\"x\"]}\n{\"unit\":\"8\",\"rater\":\"bob\",\"label\":\"OK\"}",
			want: []Rating{
				{Unit: "7", Rater: "ann", Label: "BUG", Tags: []string{"x"}, HasTags: true},
				{Unit: "8", Rater: "bob", Label: "OK"},
			},
		},
		{
			name: "exact duplicate kept once",
			in:   "t1,ann,BUG\nt1,ann,BUG\n",
			want: []Rating{{Unit: "t1", Rater: "ann", Label: "BUG"}},
		},
		{name: "conflicting duplicate", in: "t1,ann,BUG\nt2,ann,OK\nt1,ann,OK\n", wantErr: `r.csv:3: rater "ann" already labelled unit "t1" as "BUG" on line 1, now "OK"`},
		{name: "conflict in jsonl", in: `{"unit":"a","rater":"r","label":"X"}` + "\n" + `{"unit":"a","rater":"r","label":"Y"}`, wantErr: "r.csv:2:"},
		{name: "empty input", in: " \n\n", wantErr: "r.csv: no ratings"},
		{name: "too few fields", in: "t1,ann\n", wantErr: "r.csv:1: want 3 fields"},
		{name: "empty label", in: "unit,rater,label\nt1,ann,\n", wantErr: "r.csv:2: empty label"},
		{name: "header missing label", in: "unit,rater,class\nt1,a,b\n", wantErr: "r.csv:1:"},
		{name: "bad json", in: "{\"unit\":\"a\",\n", wantErr: "r.csv:1: not a JSON object"},
		{name: "json missing key", in: `{"unit":"a","rater":"r"}`, wantErr: `r.csv:1: missing key "label"`},
		{name: "json label not scalar", in: `{"unit":"a","rater":"r","label":{}}`, wantErr: `r.csv:1: key "label": want a string or a number`},
		{name: "json bad tags", in: `{"unit":"a","rater":"r","label":"x","tags":"y"}`, wantErr: `key "tags"`},
		{name: "csv quote error", in: "t1,\"ann,BUG\n", wantErr: "r.csv:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRatings(strings.NewReader(tc.in), "r.csv")
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseRatingsLongLine(t *testing.T) {
	t.Parallel()
	in := `{"unit":"` + strings.Repeat("x", maxLine+10) + `","rater":"r","label":"l"}`
	_, err := ParseRatings(strings.NewReader(in), "big.jsonl")
	require.ErrorContains(t, err, "big.jsonl:1: line longer than")
}
