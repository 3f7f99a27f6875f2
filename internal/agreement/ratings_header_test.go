package agreement

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseRatingsMisspeltHeader: a header with one column misspelt is
// reported, not read as a rating by rater "who" with label "label".
func TestParseRatingsMisspeltHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"unit,who,label\nu1,ana,A\n", `r.csv:1: header lacks the "rater" column`},
		{"item,rater,label\nu1,ana,A\n", `r.csv:1: header lacks the "unit" column`},
		{"Unit,Rater,class\nu1,ana,A\n", `r.csv:1: header lacks the "label" column`},
	} {
		_, err := ParseRatings(strings.NewReader(tc.in), "r.csv")
		require.EqualError(t, err, tc.want, tc.in)
	}
	rs, err := ParseRatings(strings.NewReader("u1,ana,label\nu1,bo,label\n"), "r.csv")
	require.NoError(t, err, "one column word alone is data, not a header")
	require.Len(t, rs, 2)
}
