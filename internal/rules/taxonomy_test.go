package rules

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

func TestDefaultTaxonomy(t *testing.T) {
	t.Parallel()
	tax := DefaultTaxonomy()
	require.Equal(t, []string{"PASS_CONTRACT", "PASS_WEAK", "ASSUME_API", "TOOL_LOOP", "MISSING_ASK", "SCOPE_SLIP", "TIMEOUT", "SCORER_RED"}, tax.Codes())
	require.Equal(t, "Invented surface", tax.Class(triage.AssumeAPI).Name)
	require.Equal(t, "Same tool + same args, N times, no new evidence", tax.Class(triage.ToolLoop).ApplyWhen)
	require.Equal(t, "Deduplicate tool args; stop at N repeats", tax.Class(triage.ToolLoop).DoThis)
	require.Contains(t, tax.Class(triage.PassContract).DoThis, "not the seed's")
	require.Equal(t, 3, tax.LoopN)
	require.Subset(t, tax.SecondaryTags, append(tax.Codes(), "BAD_PLANNING", "TOOL_MISUSE", "CONTEXT_LOSS", "HALLUCINATED_API", "WEAK_TEST_INTERPRETATION", "LEAKED"))
	require.Contains(t, tax.TestGlobs, "**/*_test.go")
	require.Equal(t, triage.LeftoverPolicy{MultipleFired: true, Unevaluated: true, ScorerRed: true, HeldOut: true}, tax.Leftover)
	require.NoError(t, Validate(tax))
	require.Equal(t, Version(tax), tax.Version)
	require.Equal(t, tax.Version, DefaultTaxonomy().Version, "the version is deterministic")
	require.Equal(t, RuleOrder(), []string{"TIMEOUT", "TOOL_LOOP", "ASSUME_API", "MISSING_ASK", "SCOPE_SLIP", "PASS_WEAK", "PASS_CONTRACT", "SCORER_RED"})
}

const tomlTax = `
name = "team"
loop_n = 4
secondary_tags = ["FLAKY", "LEAKED"]
test_globs = ["tests/**"]

[leftover]
scorer_red = false

[[classes]]
code = "PASS_CONTRACT"
name = "Real pass"

[[classes]]
code = "SCORER_RED"
name = "Honest fail"
apply_when = "nothing else fits"
`

const yamlTax = `
secondary_tags: [LEAKED, FLAKY]
classes:
  - {code: PASS_CONTRACT, name: Real pass}
  - code: SCORER_RED
    apply_when: nothing else fits
    name: Honest fail
leftover: {scorer_red: false}
test_globs: ["tests/**"]
loop_n: 4
name: team
`

const jsonTax = `{"classes":[{"name":"Real pass","code":"PASS_CONTRACT"},{"code":"SCORER_RED","name":"Honest fail","apply_when":"nothing else fits"}],
 "name":"team","loop_n":4,"secondary_tags":["FLAKY","LEAKED"],"test_globs":["tests/**"],"leftover":{"scorer_red":false}}`

func TestParseTaxonomyFormatsShareAVersion(t *testing.T) {
	t.Parallel()
	var versions []string
	for _, c := range []struct{ data, format string }{{tomlTax, "toml"}, {yamlTax, "yaml"}, {jsonTax, "json"}} {
		tax, err := ParseTaxonomy([]byte(c.data), c.format)
		require.NoError(t, err, c.format)
		require.Equal(t, []string{"PASS_CONTRACT", "SCORER_RED"}, tax.Codes())
		require.Equal(t, 4, tax.LoopN)
		require.Equal(t, triage.LeftoverPolicy{MultipleFired: true, Unevaluated: true, ScorerRed: false, HeldOut: true}, tax.Leftover)
		require.Equal(t, Version(tax), tax.Version)
		versions = append(versions, tax.Version)
	}
	require.Equal(t, versions[0], versions[1])
	require.Equal(t, versions[0], versions[2])

	changed, err := ParseTaxonomy([]byte(`{"classes":[{"code":"PASS_CONTRACT","name":"Real pass"},{"code":"SCORER_RED","name":"Honest fail","apply_when":"nothing else fits"}],
 "name":"team","loop_n":5,"secondary_tags":["FLAKY","LEAKED"],"test_globs":["tests/**"],"leftover":{"scorer_red":false}}`), "json")
	require.NoError(t, err)
	require.NotEqual(t, versions[0], changed.Version, "a change of meaning changes the version")
	require.Len(t, ShortVersion(changed.Version), 12)
}

func TestParseTaxonomyDefaults(t *testing.T) {
	t.Parallel()
	tax, err := ParseTaxonomy([]byte(`classes: [{code: A}, {code: B}]`), "yml")
	require.NoError(t, err)
	require.Equal(t, 3, tax.LoopN)
	require.Equal(t, DefaultTaxonomy().TestGlobs, tax.TestGlobs)
	require.Equal(t, DefaultTaxonomy().Leftover, tax.Leftover)
	require.Equal(t, []string{"A", "B", "BAD_PLANNING", "TOOL_MISUSE", "CONTEXT_LOSS", "HALLUCINATED_API", "WEAK_TEST_INTERPRETATION", "LEAKED"}, tax.SecondaryTags)
}

func TestParseTaxonomyErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data, format, want string
	}{
		{"unknown toml key", "[[classes]]\ncode = \"A\"\ncolour = \"red\"\n", "toml", "unknown keys: classes.colour"},
		{"unknown top key", "classes = [{code = \"A\"}]\nloopn = 3\n", "toml", "unknown keys: loopn"},
		{"unknown yaml key", "classes: [{code: A}]\nleftover: {held: true}\n", "yaml", "field held not found"},
		{"unknown json key", `{"classes":[{"code":"A"}],"extra":1}`, "json", `unknown field "extra"`},
		{"trailing json", `{"classes":[{"code":"A"}]} {}`, "json", "unexpected data"},
		{"duplicate codes", `{"classes":[{"code":"A"},{"code":"B"},{"code":"A"}]}`, "json", `classes[2].code: "A" repeats classes[0]`},
		{"empty classes", `{"classes":[]}`, "json", "classes: empty"},
		{"empty file", ``, "yaml", "classes: empty"},
		{"empty code", `{"classes":[{"name":"x"}]}`, "json", "classes[0].code: empty"},
		{"code with space", `{"classes":[{"code":"A B"}]}`, "json", "contains a space"},
		{"loop_n 1", `{"classes":[{"code":"A"}],"loop_n":1}`, "json", "loop_n: 1 is less than 2"},
		{"loop_n 0 given", `{"classes":[{"code":"A"}],"loop_n":0}`, "json", "loop_n: 0"},
		{"duplicate tag", `{"classes":[{"code":"A"}],"secondary_tags":["X","X"]}`, "json", `secondary_tags[1]: "X" repeats`},
		{"bad glob", `{"classes":[{"code":"A"}],"test_globs":["tests/[x"]}`, "json", "not a valid glob"},
		{"bad syntax", `classes = [`, "toml", "taxonomy:"},
		{"bad format", `{}`, "ini", `unknown format "ini"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseTaxonomy([]byte(c.data), c.format)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestFormatFromName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"t.toml": "toml", "T.YAML": "yaml", "a/b.yml": "yaml", "x.json": "json"} {
		got, err := FormatFromName(name)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	_, err := FormatFromName("taxonomy.txt")
	require.ErrorContains(t, err, "cannot tell the format")
}

func TestVersionIgnoresTagOrderButNotClassOrder(t *testing.T) {
	t.Parallel()
	a := DefaultTaxonomy()
	b := DefaultTaxonomy()
	b.SecondaryTags[0], b.SecondaryTags[1] = b.SecondaryTags[1], b.SecondaryTags[0]
	require.Equal(t, Version(a), Version(b))
	b.Classes[0], b.Classes[1] = b.Classes[1], b.Classes[0]
	require.NotEqual(t, Version(a), Version(b))
	// The canonical form is JSON; the version is its SHA-256 in hex.
	_, err := json.Marshal(a)
	require.NoError(t, err)
	require.Len(t, Version(a), 64)
}
