package card

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse feeds arbitrary bytes to the card reader that `verify` and
// `compare` use: no input may panic, a rejection wraps ErrBadCard, and an
// accepted card writes out in a form that parses back to the same card
// (writing it twice gives the same bytes). Verify is deterministic, says
// something in each problem, and never passes a card Parse rejects.
func FuzzParse(f *testing.F) {
	f.Add([]byte(seedCard))
	f.Add([]byte(`{"n_tasks":1,"n_tasks":2}`))
	f.Add([]byte(`{"primary_counts":{"A":1e400},"seeds":{"per_task":[{"runs":-1}]}}`))
	f.Add([]byte(`{"taxonomy":"\u001b]0;t\u0007","models":[null,{}]}`))
	f.Add([]byte(`{} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var probe struct {
			Hash string `json:"dataset_sha256"`
		}
		_ = json.Unmarshal(data, &probe)
		ps := Verify(data, probe.Hash)
		require.Equal(t, ps, Verify(data, probe.Hash), "Verify is deterministic")
		for _, p := range ps {
			require.NotEmpty(t, p.Message, "problem at %q says nothing", p.Path)
		}
		c, err := Parse(data)
		if err != nil {
			require.NotEmpty(t, ps, "Verify passed a card Parse rejects: %v", err)
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
