package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Secrets of every shape --redact masks, built from parts so secret
// scanners leave this file alone. The sentinel matches no secret shape:
// only the pack's task.json makes it one.
var (
	redactSentinel = "CANARY-7f3a-" + "DO-NOT-LEAK"
	redactOpenAI   = "sk-" + "proj-" + strings.Repeat("Ab3", 10)
	redactAWS      = "AKIA" + "IOSFODNN7EXAMPLE"
	redactGitHub   = "ghp" + "_" + strings.Repeat("a1B2", 9)
	redactJWT      = "eyJ" + "hbGciOiJIUzI1NiJ9.eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N"
	redactToken    = "Zx81kq0pLm3nQ7"
	redactBearerTk = "abc123.def456-ghi789"
	redactPEMBody  = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn"
	redactPEM      = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + redactPEMBody + "\n-----END RSA " + "PRIVATE KEY-----"
)

// redactStore builds a store whose run has a pack with a sentinel, whose
// traces carry secrets in every field a report or card shows, and whose
// human label has a note holding every shape.
func redactStore(t *testing.T) *cli {
	t.Helper()
	c := newCLI(t)
	tasks := filepath.Join(c.dir, "pack", "tasks")
	c.file("pack/tasks/T01/prompt.md", "Write a client.\n")
	c.file("pack/tasks/T01/task.json", `{"sentinels": ["`+redactSentinel+`"]}`)
	c.file("pack/tasks/T02/prompt.md", "Write a server.\n")
	code, _, errOut := c.run("", "card", "init", "--run", "r", "--pack", tasks, "--dataset-id", "d", "--scorer", "pytest -q",
		"--wall-s", "180", "--max-output-tokens", "4096", "--max-tool-calls", "12", "--image-digest", "sha256:x", "--network=false")
	require.Equal(t, exitOK, code, errOut)
	rows := []map[string]any{
		{"task_id": "T01", "seed": 0, "exit_code": 0, "model": redactSentinel, "agent": redactOpenAI, "prompt_id": redactAWS,
			"answer": "done " + redactSentinel},
		{"task_id": "T02", "seed": 0, "exit_code": 1, "model": redactGitHub, "agent": redactJWT, "prompt_id": "token=" + redactToken},
	}
	var in strings.Builder
	for _, r := range rows {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		in.Write(b)
		in.WriteByte('\n')
	}
	code, _, errOut = c.run(in.String(), "import", "--run", "r", "-")
	require.Equal(t, exitOK, code, errOut)
	note := strings.Join([]string{"pasted", redactSentinel, redactOpenAI, redactAWS, redactGitHub, redactJWT,
		"api_key=" + redactToken, "Authorization: Bearer " + redactBearerTk, redactPEM}, " ")
	label, err := json.Marshal(map[string]any{"run_id": "r", "task_id": "T01", "seed": 0, "reviewer": "ann", "kind": "human",
		"primary": "PASS_CONTRACT", "secondary": []string{}, "note": note, "created_at": "2025-01-02T03:04:05Z"})
	require.NoError(t, err)
	code, _, errOut = c.run(string(label)+"\n", "labels", "import", "-")
	require.Equal(t, exitOK, code, errOut)
	return c
}

// requireRedacted runs args with and without --redact: without, every
// secret is in the output (so the test sees them); with, none is and
// masks are. Text tables cut long cells, so only a prefix is looked for.
func requireRedacted(t *testing.T, c *cli, secrets []string, args ...string) {
	t.Helper()
	code, plain, errOut := c.run("", args...)
	require.Equal(t, exitOK, code, errOut)
	code, masked, errOut := c.run("", append(args, "--redact")...)
	require.Equal(t, exitOK, code, errOut)
	// Markdown escapes '_' and '['; the words are what matter.
	plain, masked = strings.ReplaceAll(plain, `\`, ""), strings.ReplaceAll(masked, `\`, "")
	for _, s := range secrets {
		p := s[:min(len(s), 16)]
		require.Contains(t, plain, p, "without --redact the output shows %q", s)
		require.NotContains(t, masked, p, "--redact must mask %q", s)
	}
	require.Contains(t, masked, "[REDACTED:")
	require.NotContains(t, plain, "[REDACTED:")
}

func TestRedactReportEveryFormat(t *testing.T) {
	t.Parallel()
	c := redactStore(t)
	secrets := []string{redactSentinel, redactOpenAI, redactAWS, redactGitHub, redactJWT, redactToken}
	for _, format := range []string{"text", "md", "json", "html"} {
		t.Run(format, func(t *testing.T) {
			requireRedacted(t, c, secrets, "report", "--run", "r", "--format", format, "--width", "160")
		})
	}
	_, out, _ := c.run("", "report", "--run", "r", "--json", "--redact")
	require.Contains(t, out, `"[REDACTED:sentinel]"`, "the sentinel comes from the run's task pack")
}

func TestRedactCardExport(t *testing.T) {
	t.Parallel()
	c := redactStore(t)
	requireRedacted(t, c, []string{redactSentinel, redactOpenAI, redactGitHub, redactJWT},
		"card", "export", "--run", "r", "--allow-unresolved", "--allow-untrusted")
	_, out, _ := c.run("", "card", "export", "--run", "r", "--allow-unresolved", "--allow-untrusted", "--redact")
	var card map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &card), "a redacted card is still a card")
}

func TestRedactLabelsExport(t *testing.T) {
	t.Parallel()
	c := redactStore(t)
	requireRedacted(t, c, []string{redactSentinel, redactOpenAI, redactAWS, redactGitHub, redactJWT, redactToken, redactBearerTk, redactPEMBody},
		"labels", "export")
	_, out, _ := c.run("", "labels", "export", "--redact")
	var row labelRow
	require.NoError(t, json.Unmarshal([]byte(out), &row))
	require.Equal(t, "pasted [REDACTED:sentinel] [REDACTED:api-key] [REDACTED:api-key] [REDACTED:api-key] [REDACTED:jwt] "+
		"api_key=[REDACTED:secret] Authorization: Bearer [REDACTED:bearer] [REDACTED:private-key]", row.Note)
	require.Equal(t, "ann", row.Reviewer, "only the note is masked")
}

func TestRedactNeedsItsPack(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	tasks := filepath.Join(c.dir, "pack", "tasks")
	c.file("pack/tasks/T01/task.json", `{"sentinels": ["`+redactSentinel+`"]}`)
	c.file("pack/tasks/T01/prompt.md", "Write a client.\n")
	code, _, errOut := c.run("", "card", "init", "--run", "r", "--pack", tasks)
	require.Equal(t, exitOK, code, errOut)
	c.run(`{"task_id":"T01"}`+"\n", "import", "--run", "r", "-")
	require.NoError(t, os.Rename(tasks, tasks+".moved"))
	code, _, errOut = c.run("", "report", "--run", "r", "--json")
	require.Equal(t, exitOK, code, "without --redact the pack is not needed: %s", errOut)
	require.Contains(t, errOut, "note: run r: its pack could not be read", "a moved pack costs a note, said")
	code, _, errOut = c.run("", "report", "--run", "r", "--json", "--redact")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "--redact: run r: task pack")
	require.Contains(t, errOut, "its sentinels could not be masked")
}
