package ui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
)

// FuzzLoadKeyMap feeds arbitrary config files to the key map loader: no
// input may panic; a rejection says it is about the key config; an
// accepted map leaves every binding with at least one non-empty key and
// help text; and the accepted map, written back as a [keys] table, loads
// to the same keys.
func FuzzLoadKeyMap(f *testing.F) {
	f.Add([]byte("[keys]\nnext_trace = [\"n\"]\nlabel_1 = [\"!\"]\n"))
	f.Add([]byte("[keys]\nquit = [\"\", \"ctrl+q\"]\nlabel_8 = [\" \", \"space\"]\n"))
	f.Add([]byte("title = \"x\"\n[keys]\ndown = [\"j\", \"down\", \"ctrl+n\"]\n[other]\na = 1\n"))
	f.Add([]byte("[keys]\nnxt_trace = [\"n\"]\n"))
	f.Add([]byte("keys = 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		km, err := LoadKeyMap(data)
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "key config: "), "%v", err)
			return
		}
		cfg := map[string][]string{}
		for name, b := range km.bindings() {
			keys := b.Keys()
			require.NotEmpty(t, keys, "binding %q lost its keys", name)
			for _, k := range keys {
				require.NotEmpty(t, k, "binding %q has an empty key", name)
			}
			require.NotEmpty(t, b.Help().Key, "binding %q has no help key", name)
			require.Equal(t, -1, strings.IndexFunc(b.Help().Key, isControlRune), "binding %q's help key %q holds a control character", name, b.Help().Key)
			cfg[name] = keys
		}
		var buf bytes.Buffer
		require.NoError(t, toml.NewEncoder(&buf).Encode(map[string]any{"keys": cfg}))
		back, err := LoadKeyMap(buf.Bytes())
		require.NoError(t, err, "written back:\n%s", buf.String())
		for name, b := range back.bindings() {
			require.Equal(t, cfg[name], b.Keys(), "binding %q after a round trip", name)
		}
	})
}
