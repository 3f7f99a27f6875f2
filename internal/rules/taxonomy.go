package rules

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"

	"github.com/triage-dev/triage/internal/triage"
)

// Root causes of seed 003, offered as secondary tags by default.
const (
	TagBadPlanning            = "BAD_PLANNING"
	TagToolMisuse             = "TOOL_MISUSE"
	TagContextLoss            = "CONTEXT_LOSS"
	TagHallucinatedAPI        = "HALLUCINATED_API"
	TagWeakTestInterpretation = "WEAK_TEST_INTERPRETATION"
	defaultLoopN              = 3
	defaultTaxonomyName       = "seed-000"
	oursPrefix                = "(triage's advice, not the seed's) "
)

// DefaultTestGlobs are the file patterns that count as tests when a diff
// touches them (PASS_WEAK), matched with doublestar against diff paths.
var defaultTestGlobs = []string{
	"tests/**", "test/**", "**/tests/**", "**/test_*.py", "**/*_test.py", "**/*_test.go",
	"**/*.test.ts", "**/*.spec.ts", "**/*.test.js", "**/*.spec.js", "**/__tests__/**",
}

// DefaultTaxonomy returns the seed article's eight classes in its order,
// with its "apply when" text and its decision-table advice. The seed gives
// no advice for PASS_CONTRACT and SCORER_RED; ours is marked as such. Each
// call returns a fresh value the caller may change.
func DefaultTaxonomy() *triage.Taxonomy {
	t := &triage.Taxonomy{
		Name: defaultTaxonomyName,
		Classes: []triage.Class{
			{Code: triage.PassContract, Name: "Real pass", ApplyWhen: "Scorer green and the agent did not author the only passing test",
				DoNot: oursPrefix + "Read it as proof of the whole interface", DoThis: oursPrefix + "Keep the hidden tests frozen and publish contract_pass_rate next to the headline rate"},
			{Code: triage.PassWeak, Name: "Lucky pass", ApplyWhen: "Scorer green, but tests are mocks, snapshots, or agent-written",
				DoNot: "Celebrate the pass rate", DoThis: "Hide tests; forbid agent-authored tests in the scorer"},
			{Code: triage.AssumeAPI, Name: "Invented surface", ApplyWhen: "Calls, paths, or types not in the frozen spec",
				DoNot: "Add more samples of the same task", DoThis: "Inject the spec as a required read; fail closed on unknown paths"},
			{Code: triage.ToolLoop, Name: "Repeated tool", ApplyWhen: "Same tool + same args, N times, no new evidence",
				DoNot: "Raise the retry cap", DoThis: "Deduplicate tool args; stop at N repeats"},
			{Code: triage.MissingAsk, Name: "Should have asked", ApplyWhen: "Required file or credential was absent; agent guessed",
				DoNot: "Fine-tune for \"confidence\"", DoThis: "Add an ask/abort tool and score it as success when the file is absent"},
			{Code: triage.ScopeSlip, Name: "Extra work", ApplyWhen: "Touched files outside the task allowlist",
				DoNot: "Blame the model", DoThis: "Enforce an allowlist in the runner, not in the prompt"},
			{Code: triage.Timeout, Name: "Budget kill", ApplyWhen: "Hit wall-clock, token, or tool cap",
				DoNot: "Switch models first", DoThis: "Lower the task, or raise one budget and record it on the card"},
			{Code: triage.ScorerRed, Name: "Honest fail", ApplyWhen: "Tests failed for a real assertion, no other bucket fits",
				DoNot: oursPrefix + "Relabel it to make the mix look better", DoThis: oursPrefix + "Read the failing assertion; it is the agent's real gap"},
		},
		LoopN:     defaultLoopN,
		TestGlobs: slices.Clone(defaultTestGlobs),
		Leftover:  triage.LeftoverPolicy{MultipleFired: true, Unevaluated: true, ScorerRed: true, HeldOut: true},
	}
	t.SecondaryTags = append(t.Codes(), TagBadPlanning, TagToolMisuse, TagContextLoss, TagHallucinatedAPI, TagWeakTestInterpretation, triage.TagLeaked)
	t.Version = Version(t)
	return t
}

// FormatFromName infers a taxonomy file's format from its extension.
func FormatFromName(name string) (string, error) {
	switch strings.ToLower(path.Ext(name)) {
	case ".toml":
		return "toml", nil
	case ".yaml", ".yml":
		return "yaml", nil
	case ".json":
		return "json", nil
	}
	return "", fmt.Errorf("taxonomy %s: cannot tell the format from the extension (want .toml, .yaml, .yml or .json)", name)
}

// taxonomyFile is the file form: pointers tell an absent key (take the
// default) from a present one (validate it).
type taxonomyFile struct {
	Name          string         `json:"name" toml:"name" yaml:"name"`
	Classes       []triage.Class `json:"classes" toml:"classes" yaml:"classes"`
	SecondaryTags *[]string      `json:"secondary_tags" toml:"secondary_tags" yaml:"secondary_tags"`
	LoopN         *int           `json:"loop_n" toml:"loop_n" yaml:"loop_n"`
	TestGlobs     *[]string      `json:"test_globs" toml:"test_globs" yaml:"test_globs"`
	Leftover      *policyFile    `json:"leftover" toml:"leftover" yaml:"leftover"`
}

type policyFile struct {
	MultipleFired *bool `json:"multiple_fired" toml:"multiple_fired" yaml:"multiple_fired"`
	Unevaluated   *bool `json:"unevaluated" toml:"unevaluated" yaml:"unevaluated"`
	ScorerRed     *bool `json:"scorer_red" toml:"scorer_red" yaml:"scorer_red"`
	HeldOut       *bool `json:"held_out" toml:"held_out" yaml:"held_out"`
}

// ParseTaxonomy reads a team's taxonomy in "toml", "yaml" or "json". Keys
// it does not know are rejected (a typo must not silently fall back to a
// default). Absent optional keys take the defaults: the seed's secondary
// tags for the file's classes, loop_n 3, the default test globs, and a
// leftover policy with every reason on. The result carries its Version.
func ParseTaxonomy(data []byte, format string) (*triage.Taxonomy, error) {
	var f taxonomyFile
	switch strings.ToLower(format) {
	case "toml":
		md, err := toml.Decode(string(data), &f)
		if err != nil {
			return nil, fmt.Errorf("taxonomy: %w", err)
		}
		if und := md.Undecoded(); len(und) > 0 {
			keys := make([]string, len(und))
			for i, k := range und {
				keys[i] = k.String()
			}
			return nil, fmt.Errorf("taxonomy: unknown keys: %s", strings.Join(keys, ", "))
		}
	case "yaml", "yml":
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("taxonomy: %w", err)
		}
	case "json":
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			// Field path, JSON types and line, not Go's struct names.
			return nil, fmt.Errorf("taxonomy: %s", triage.DescribeJSONError(data, err))
		}
		if dec.More() {
			return nil, errors.New("taxonomy: unexpected data after the JSON object")
		}
	default:
		return nil, fmt.Errorf("taxonomy: unknown format %q (want toml, yaml or json)", format)
	}
	t := &triage.Taxonomy{Name: f.Name, Classes: f.Classes, LoopN: defaultLoopN, TestGlobs: slices.Clone(defaultTestGlobs),
		Leftover: triage.LeftoverPolicy{MultipleFired: true, Unevaluated: true, ScorerRed: true, HeldOut: true}}
	if f.LoopN != nil {
		t.LoopN = *f.LoopN
	}
	if f.TestGlobs != nil {
		t.TestGlobs = *f.TestGlobs
	}
	if f.SecondaryTags != nil {
		t.SecondaryTags = *f.SecondaryTags
	} else {
		t.SecondaryTags = append(t.Codes(), TagBadPlanning, TagToolMisuse, TagContextLoss, TagHallucinatedAPI, TagWeakTestInterpretation, triage.TagLeaked)
	}
	if p := f.Leftover; p != nil {
		for _, kv := range []struct {
			src *bool
			dst *bool
		}{{p.MultipleFired, &t.Leftover.MultipleFired}, {p.Unevaluated, &t.Leftover.Unevaluated}, {p.ScorerRed, &t.Leftover.ScorerRed}, {p.HeldOut, &t.Leftover.HeldOut}} {
			if kv.src != nil {
				*kv.dst = *kv.src
			}
		}
	}
	if err := Validate(t); err != nil {
		return nil, err
	}
	t.Version = Version(t)
	return t, nil
}

// Validate checks a taxonomy: at least one class, codes present, unique
// and free of spaces and control characters, secondary tags unique and
// non-empty, loop_n at least 2, test globs valid doublestar patterns.
func Validate(t *triage.Taxonomy) error {
	if t == nil {
		return errors.New("taxonomy: nil")
	}
	if len(t.Classes) == 0 {
		return errors.New("taxonomy: classes: empty (a taxonomy needs at least one class)")
	}
	seen := map[string]int{}
	for i, c := range t.Classes {
		if err := checkCode(c.Code); err != nil {
			return fmt.Errorf("taxonomy: classes[%d].code: %w", i, err)
		}
		if j, dup := seen[c.Code]; dup {
			return fmt.Errorf("taxonomy: classes[%d].code: %q repeats classes[%d]", i, c.Code, j)
		}
		seen[c.Code] = i
	}
	tags := map[string]bool{}
	for i, s := range t.SecondaryTags {
		if err := checkCode(s); err != nil {
			return fmt.Errorf("taxonomy: secondary_tags[%d]: %w", i, err)
		}
		if tags[s] {
			return fmt.Errorf("taxonomy: secondary_tags[%d]: %q repeats", i, s)
		}
		tags[s] = true
	}
	if t.LoopN < 2 {
		return fmt.Errorf("taxonomy: loop_n: %d is less than 2 (a loop needs at least two identical calls)", t.LoopN)
	}
	for i, g := range t.TestGlobs {
		if g == "" || !doublestar.ValidatePattern(g) {
			return fmt.Errorf("taxonomy: test_globs[%d]: %q is not a valid glob", i, g)
		}
	}
	return nil
}

func checkCode(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == ',' {
			return fmt.Errorf("%q contains a space, comma or control character", s)
		}
	}
	return nil
}

// canonicalTaxonomy is the hashed form: classes in order, tags sorted,
// globs as given (their order is the order they are tried, but matching
// does not depend on it; keeping it avoids surprising nobody), policy.
type canonicalTaxonomy struct {
	Name          string                `json:"name"`
	Classes       []triage.Class        `json:"classes"`
	SecondaryTags []string              `json:"secondary_tags"`
	LoopN         int                   `json:"loop_n"`
	TestGlobs     []string              `json:"test_globs"`
	Leftover      triage.LeftoverPolicy `json:"leftover"`
}

// Version returns the full hex SHA-256 of t's canonical JSON form, so the
// file's format, spacing and key order do not change it while any change
// of meaning does. ShortVersion gives the 12-character display form.
func Version(t *triage.Taxonomy) string {
	c := canonicalTaxonomy{Name: t.Name, Classes: t.Classes, SecondaryTags: slices.Clone(t.SecondaryTags),
		LoopN: t.LoopN, TestGlobs: t.TestGlobs, Leftover: t.Leftover}
	slices.Sort(c.SecondaryTags)
	if c.Classes == nil {
		c.Classes = []triage.Class{}
	}
	if c.SecondaryTags == nil {
		c.SecondaryTags = []string{}
	}
	if c.TestGlobs == nil {
		c.TestGlobs = []string{}
	}
	b, err := json.Marshal(c)
	if err != nil {
		// Only strings, ints and bools: Marshal cannot fail, but a
		// version must exist whatever happens.
		b = fmt.Appendf(nil, "%#v", c)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ShortVersion is the first 12 hex characters of a version, for display.
func ShortVersion(v string) string {
	if len(v) > 12 {
		return v[:12]
	}
	return v
}
