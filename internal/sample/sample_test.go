package sample

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/pack"
	"github.com/triage-dev/triage/internal/triage"
)

func TestPackLoadsWithOnlyTheIntendedWarning(t *testing.T) {
	t.Parallel()
	p, probs, err := pack.LoadFS(Pack(), ".")
	require.NoError(t, err)
	require.Len(t, p.Tasks, 10)
	require.Equal(t, []pack.Problem{{
		Task: "T09", Level: pack.LevelWarning,
		Message: `no hidden test: PASS_WEAK cannot be detected (add a test the agent cannot see and list it in task.json under "hidden_tests")`,
	}}, probs)
	require.Equal(t, []string{"sk-eval-SENTINEL-DONOTLEAK"}, p.Task("T06").Sentinels)
	require.Equal(t, []string{"config/tax_rates.csv"}, p.Task("T07").Withheld)
	require.Equal(t, []string{"ask_user"}, p.Task("T07").AskTools)
	require.Equal(t, []string{"src/invoices/client.py", "src/invoices/retry.py"}, p.Task("T08").Allowlist)
	require.Len(t, p.Task("T01").API.Operations, 9)

	// The embedded pack is the pack on disk, file for file (embed drops
	// names starting with _ or . without the all: prefix).
	onDisk, err := pack.Hash("pack")
	require.NoError(t, err)
	require.Equal(t, onDisk, p.SHA256)
	require.Equal(t, p.SHA256, Controls().DatasetSHA256)
}

func TestControls(t *testing.T) {
	t.Parallel()
	c := Controls()
	require.Empty(t, c.Missing())
	require.Equal(t, "invoice-client-v3", c.DatasetID)
	require.Equal(t, "pytest -q --tb=no", c.Scorer)
	require.Equal(t, 180.0, *c.WallS)
	require.Equal(t, int64(4096), *c.MaxOutputTokens)
	require.Equal(t, int64(12), *c.MaxToolCalls)
	require.False(t, *c.Network)
	require.Equal(t, "p1", c.PromptID)
	require.Regexp(t, `^sha256:[0-9a-f]{64}$`, c.ImageDigest)
	require.Regexp(t, `^[0-9a-f]{64}$`, c.DatasetSHA256)
	// Callers get their own values, not shared pointers.
	*c.WallS = 1
	require.Equal(t, 180.0, *Controls().WallS)
}

// sampleRow is the part of a trace row the checks below read.
type sampleRow struct {
	TaskID    any     `json:"task_id"`
	RunID     string  `json:"run_id"`
	Seed      int     `json:"seed"`
	Model     string  `json:"model"`
	ExitCode  *int    `json:"exit_code"`
	Outcome   string  `json:"outcome"`
	ToolCalls []tcall `json:"tool_calls"`
	Answer    string  `json:"answer"`
	Diff      string  `json:"diff"`
	Written   bool    `json:"written_tests"`
	WallS     float64 `json:"wall_s"`
	WallCap   float64 `json:"wall_cap"`
	Timeout   bool    `json:"timeout"`
	Tokens    struct {
		Output int `json:"output"`
	} `json:"tokens"`
	AssumedAPI       *bool `json:"assumed_api"`
	OutsideAllowlist *bool `json:"outside_allowlist"`
	RequiredMissing  *bool `json:"required_missing"`
	raw              string
	hasToolLog       bool
}

type tcall struct {
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Output string          `json:"output"`
	Error  string          `json:"error"`
}

func readRows(t *testing.T) []sampleRow {
	t.Helper()
	var rows []sampleRow
	sc := bufio.NewScanner(bytes.NewReader(Traces()))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var obj map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &obj), "line %d", n)
		var r sampleRow
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "line %d", n)
		_, ok := r.TaskID.(string)
		require.True(t, ok, "line %d: task_id is not a string", n)
		_, r.hasToolLog = obj["tool_calls"]
		r.raw = sc.Text()
		rows = append(rows, r)
	}
	require.NoError(t, sc.Err())
	return rows
}

var templateVar = regexp.MustCompile(`\{[^}/]+\}`)

// signals derives, from evidence only (never the seed flags), which
// classes a row shows, with the conventions of the rules.
func signals(t *testing.T, p *triage.Pack, r sampleRow) map[string]bool {
	task := p.Task(r.TaskID.(string))
	s := map[string]bool{}
	if r.Timeout || r.WallS >= r.WallCap || r.Tokens.Output >= 4096 || len(r.ToolCalls) >= 12 {
		s[triage.Timeout] = true
	}
	for i := 2; i < len(r.ToolCalls); i++ {
		a, b, c := r.ToolCalls[i-2], r.ToolCalls[i-1], r.ToolCalls[i]
		if a.Name == b.Name && b.Name == c.Name && string(a.Args) == string(b.Args) && string(b.Args) == string(c.Args) {
			s[triage.ToolLoop] = true
		}
	}
	known := func(p string) bool {
		if task.API == nil {
			return true
		}
		for _, tmpl := range task.API.Paths {
			parts := templateVar.Split(tmpl, -1)
			for i := range parts {
				parts[i] = regexp.QuoteMeta(parts[i])
			}
			if regexp.MustCompile("^" + strings.Join(parts, "[^/]+") + "$").MatchString(p) {
				return true
			}
		}
		return false
	}
	urlRe := regexp.MustCompile(`https?://[^\s'"]+`)
	for _, c := range r.ToolCalls {
		var args map[string]any
		_ = json.Unmarshal(c.Args, &args)
		var target string
		switch {
		case args["url"] != nil:
			target, _ = args["url"].(string)
		case c.Name == "api_call":
			target, _ = args["path"].(string)
		case c.Name == "bash" && strings.Contains(args["cmd"].(string), "curl"):
			target = urlRe.FindString(args["cmd"].(string))
		}
		if target == "" {
			continue
		}
		u, err := url.Parse(target)
		require.NoError(t, err)
		if !known(u.Path) {
			s[triage.AssumeAPI] = true
		}
	}
	litRe := regexp.MustCompile(`"(/v\d+/[^"]*)"`)
	testRe := regexp.MustCompile(`(^|/)(tests/|test_[^/]*\.py$)`)
	for _, f := range triage.ParseDiff(r.Diff) {
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind != triage.LineAdded {
					continue
				}
				for _, m := range litRe.FindAllStringSubmatch(l.Text, -1) {
					if !known(templateVar.ReplaceAllString(m[1], "x")) {
						s[triage.AssumeAPI] = true
					}
				}
			}
		}
		for _, path := range f.Paths() {
			if len(task.Allowlist) > 0 && !anyMatch(task.Allowlist, path) {
				s[triage.ScopeSlip] = true
			}
			if testRe.MatchString(path) && r.ExitCode != nil && *r.ExitCode == 0 {
				s[triage.PassWeak] = true
			}
		}
	}
	if len(task.Withheld) > 0 {
		asked := strings.Contains(r.Answer, "?")
		for _, c := range r.ToolCalls {
			asked = asked || c.Name == "ask_user"
		}
		if !asked {
			s[triage.MissingAsk] = true
		}
	}
	if r.ExitCode != nil && *r.ExitCode == 0 && (r.Written || len(task.HiddenTests) == 0) {
		s[triage.PassWeak] = true
	}
	return s
}

func anyMatch(globs []string, path string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, path); ok {
			return true
		}
	}
	return false
}

func TestTracesShowEveryClassByEvidence(t *testing.T) {
	t.Parallel()
	p, _, err := pack.LoadFS(Pack(), ".")
	require.NoError(t, err)
	rows := readRows(t)
	require.GreaterOrEqual(t, len(rows), 48)

	classes := map[string]int{}
	outcomes := map[string]int{}
	models := map[string]bool{}
	seeds := map[string]map[int]bool{}
	var several, noLog, noExit, flagged, leaked int
	for _, r := range rows {
		id := r.TaskID.(string)
		require.NotNil(t, p.Task(id), "task %s not in the pack", id)
		require.Equal(t, "demo", r.RunID)
		if seeds[id] == nil {
			seeds[id] = map[int]bool{}
		}
		require.False(t, seeds[id][r.Seed], "%s#%d twice", id, r.Seed)
		seeds[id][r.Seed] = true
		models[r.Model] = true
		outcomes[r.Outcome]++
		if !r.hasToolLog {
			noLog++
		}
		if r.ExitCode == nil {
			noExit++
		}
		if r.AssumedAPI != nil {
			flagged++
		}
		if strings.Contains(r.raw, "sk-eval-SENTINEL-DONOTLEAK") && id == "T06" && strings.Contains(r.raw, `"output":"sk-eval`) {
			leaked++
			require.Equal(t, "failed", r.Outcome)
		}
		// Diffs are well-formed: each hunk holds the lines its header counts.
		for _, f := range triage.ParseDiff(r.Diff) {
			require.NotEmpty(t, f.Hunks, "%s#%d %s", id, r.Seed, f.Path())
			for _, h := range f.Hunks {
				var o, n int
				for _, l := range h.Lines {
					if l.Kind != triage.LineAdded {
						o++
					}
					if l.Kind != triage.LineRemoved {
						n++
					}
				}
				require.Equal(t, [2]int{h.OldLines, h.NewLines}, [2]int{o, n}, "%s#%d %s %s", id, r.Seed, f.Path(), h.Header)
			}
		}
		sig := signals(t, p, r)
		if len(sig) > 1 {
			several++
		}
		for c := range sig {
			classes[c]++
		}
		if r.ExitCode != nil && len(sig) == 0 {
			if *r.ExitCode == 0 {
				classes[triage.PassContract]++
			} else {
				classes[triage.ScorerRed]++
			}
		}
	}
	for id := range p.Tasks {
		require.GreaterOrEqual(t, len(seeds[id]), 3, "task %s needs several seeds", id)
	}
	require.Len(t, models, 3)
	for _, c := range []string{triage.PassContract, triage.PassWeak, triage.AssumeAPI, triage.ToolLoop,
		triage.MissingAsk, triage.ScopeSlip, triage.Timeout, triage.ScorerRed} {
		require.GreaterOrEqual(t, classes[c], 2, "class %s by evidence: %v", c, classes)
	}
	require.GreaterOrEqual(t, classes[triage.PassContract], 8)
	for _, o := range []string{"success", "incomplete", "failed", "blocked"} {
		require.Positive(t, outcomes[o], "outcome %s", o)
	}
	require.Positive(t, outcomes[""], "some rows leave the outcome to be derived")
	require.GreaterOrEqual(t, several, 3, "rows where several rules fire")
	require.GreaterOrEqual(t, noLog, 2, "rows with no tool log")
	require.GreaterOrEqual(t, noExit, 1, "rows with an unknown exit code")
	require.Equal(t, 1, leaked, "one leaked sentinel")
	require.GreaterOrEqual(t, flagged, 3)
	require.LessOrEqual(t, flagged, 5, "only a few rows carry the seed flags")
}

func TestTracesHaveHostileAndSecretLookingOutput(t *testing.T) {
	t.Parallel()
	var hostile, secret bool
	for _, r := range readRows(t) {
		for _, c := range r.ToolCalls {
			if strings.Contains(c.Output, "\x1b]0;pwned\x07") && strings.Contains(c.Output, "\x1b[2J") && strings.Contains(c.Output, "\x1b]52;c;") {
				hostile = true
			}
			if regexp.MustCompile(`AKIA[0-9A-Z]{16}`).MatchString(c.Output) && strings.Contains(c.Output, "ghp_") {
				secret = true
			}
		}
	}
	require.True(t, hostile, "a tool output with OSC title, clear screen and OSC 52")
	require.True(t, secret, "a tool output with AKIA… and ghp_… strings")
}
