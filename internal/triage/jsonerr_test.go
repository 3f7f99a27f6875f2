package triage

import (
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDescribeJSONError(t *testing.T) {
	t.Parallel()
	type inner struct {
		Seed int `json:"seed"`
	}
	type doc struct {
		Name  string    `json:"name"`
		In    inner     `json:"in"`
		List  []string  `json:"list"`
		When  time.Time `json:"when"`
		Ratio float64   `json:"ratio"`
	}
	decode := func(s string) ([]byte, error) {
		var d doc
		return []byte(s), json.Unmarshal([]byte(s), &d)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"string for int, nested", `{"in":{"seed":"zero"}}`, "in.seed: want an integer, got string (column 20)"},
		{"fraction for int", `{"in":{"seed":1.5}}`, "in.seed: want an integer, got number 1.5 (column 17)"},
		{"number for string", "{\n\"name\": 7}", "name: want a string, got number (line 2, column 9)"},
		{"object for list", `{"list":{}}`, "list: want an array, got an object (column 9)"},
		{"array for number", `{"ratio":[1]}`, "ratio: want a number, got an array (column 10)"},
		{"syntax", "{\n\"name\": \"x\",}", "invalid JSON at line 2, column 13: invalid character '}' looking for beginning of object key string"},
		{"truncated", `{"name": "x"`, "truncated: unexpected end of JSON at column 12"},
		{"empty", "  \n", "empty input: want a JSON document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data, err := decode(tc.in)
			require.Error(t, err)
			require.Equal(t, tc.want, DescribeJSONError(data, err))
		})
	}
	require.Equal(t, "", DescribeJSONError(nil, nil))
	require.Equal(t, "truncated: unexpected end of JSON", DescribeJSONError(nil, io.ErrUnexpectedEOF))
	require.Equal(t, "empty input: want a JSON document", DescribeJSONError(nil, io.EOF))
	require.Equal(t, "other", DescribeJSONError(nil, errors.New("other")))
}
