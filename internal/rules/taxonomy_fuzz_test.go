package rules

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/triage-dev/triage/internal/triage"
)

// taxonomyFormats are the formats ParseTaxonomy reads; the fuzzer picks
// one by index so a single corpus drives all three parsers.
var taxonomyFormats = []string{"toml", "yaml", "json"}

// FuzzParseTaxonomy feeds arbitrary bytes to the taxonomy loader in each
// format: no input may panic; an accepted taxonomy is valid and carries
// its own Version; and written back in every format it parses to the same
// Version (the three formats describe one thing, and a team can move a
// taxonomy between them without changing which labels it matches).
func FuzzParseTaxonomy(f *testing.F) {
	for i, s := range []string{tomlTax, yamlTax, jsonTax} {
		f.Add([]byte(s), uint8(i))
	}
	f.Add([]byte("[[classes]]\ncode = \"A\"\n[[classes]]\ncode = \"A\"\n"), uint8(0))
	f.Add([]byte("classes: [{code: \"A\\tB\"}]\nloop_n: 1\n"), uint8(1))
	f.Add([]byte(`{"classes":[{"code":"X"}],"test_globs":["[a-"]} {}`), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		tax, err := ParseTaxonomy(data, taxonomyFormats[int(format)%len(taxonomyFormats)])
		if err != nil {
			require.Nil(t, tax)
			require.Contains(t, err.Error(), "taxonomy", "the error names what was being read")
			return
		}
		require.NoError(t, Validate(tax))
		require.NotEmpty(t, tax.Classes)
		require.Equal(t, Version(tax), tax.Version)
		if !utf8.Valid(data) {
			return // JSON replaces bad bytes, so the round trip may not hold.
		}
		for _, w := range taxonomyFormats {
			out := writeTaxonomy(t, tax, w)
			back, err := ParseTaxonomy(out, w)
			require.NoError(t, err, "written as %s:\n%s", w, out)
			require.Equal(t, tax.Version, back.Version, "written as %s:\n%s", w, out)
		}
	})
}

// writeTaxonomy writes t in the file shape ParseTaxonomy reads, with
// every optional key present so nothing falls back to a default.
func writeTaxonomy(t *testing.T, tax *triage.Taxonomy, format string) []byte {
	t.Helper()
	tags, globs, loop := tax.SecondaryTags, tax.TestGlobs, tax.LoopN
	if tags == nil {
		tags = []string{}
	}
	if globs == nil {
		globs = []string{}
	}
	p := tax.Leftover
	f := taxonomyFile{Name: tax.Name, Classes: tax.Classes, SecondaryTags: &tags, LoopN: &loop, TestGlobs: &globs,
		Leftover: &policyFile{MultipleFired: &p.MultipleFired, Unevaluated: &p.Unevaluated, ScorerRed: &p.ScorerRed, HeldOut: &p.HeldOut}}
	var b bytes.Buffer
	var err error
	switch format {
	case "toml":
		err = toml.NewEncoder(&b).Encode(f)
	case "yaml":
		err = yaml.NewEncoder(&b).Encode(f)
	default:
		err = json.NewEncoder(&b).Encode(f)
	}
	require.NoError(t, err, format)
	return b.Bytes()
}
