package card

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse feeds arbitrary bytes to the card reader that `verify` and
// `compare` use: no input may panic, a rejection wraps ErrBadCard, and an
// accepted card writes out in a form that parses back to the same card
// (writing it twice gives the same bytes). Verify runs on it too.
func FuzzParse(f *testing.F) {
	f.Add([]byte(seedCard))
	f.Add([]byte(`{"n_tasks":1,"n_tasks":2}`))
	f.Add([]byte(`{"primary_counts":{"A":1e400},"seeds":{"per_task":[{"runs":-1}]}}`))
	f.Add([]byte(`{"taxonomy":"\u001b]0;t\u0007","models":[null,{}]}`))
	f.Add([]byte(`{} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Verify(data, "")
		c, err := Parse(data)
		if err != nil {
			require.True(t, errors.Is(err, ErrBadCard), "error %v does not wrap ErrBadCard", err)
			require.Nil(t, c)
			return
		}
		require.NotNil(t, c)
		out, err := c.MarshalIndent()
		require.NoError(t, err, "an accepted card must write out")
		c2, err := Parse(out)
		require.NoError(t, err, "a written card must parse: %s", out)
		out2, err := c2.MarshalIndent()
		require.NoError(t, err)
		require.Equal(t, string(out), string(out2), "write∘parse is not a fixed point")
		_ = Verify(out, "")
	})
}
