package pack

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// fuzzPack is goodTask with task.json replaced by data.
func fuzzPack(taskJSON []byte) fstest.MapFS {
	m := fstest.MapFS{}
	for name, body := range goodTask() {
		m[name] = &fstest.MapFile{Data: []byte(body), Mode: 0o644}
	}
	m["tasks/T01/task.json"] = &fstest.MapFile{Data: taskJSON, Mode: 0o644}
	return m
}

// FuzzLoadFS loads a pack whose task.json is arbitrary bytes: no input may
// panic or make the pack unreadable; every problem names the task, a file
// inside it and a reason; every path the task keeps stays inside the task
// directory; and a task.json that drew no complaint, written back from
// the loaded task, loads to the same task.
func FuzzLoadFS(f *testing.F) {
	f.Add([]byte(goodTask()["tasks/T01/task.json"]))
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Add([]byte(`{"spec":["../x","/etc/passwd","./openapi.yaml",""],"allowlist":["[a-"],"sentinels":[" "],"colour":1}`))
	f.Add([]byte(`{"hidden_tests":"x","withheld":[1],"spec":["prompt.md"]} []`))
	f.Add([]byte(`[{"spec":null}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, probs := loadFuzzPack(t, data)
		task := p.Tasks["T01"]
		require.NotNil(t, task)
		taskJSONBad := false
		for _, pr := range probs {
			require.Equal(t, "T01", pr.Task, "%+v", pr)
			require.NotEmpty(t, pr.Message, "%+v", pr)
			require.Contains(t, []Level{LevelError, LevelWarning}, pr.Level)
			if pr.File != "" {
				require.True(t, strings.HasPrefix(pr.File, "tasks/T01/") && fs.ValidPath(pr.File), "file %q", pr.File)
			}
			if pr.File == "tasks/T01/"+TaskFile && pr.Level == LevelError {
				taskJSONBad = true
			}
		}
		for _, list := range [][]string{task.Spec, task.Withheld, task.HiddenTests} {
			for _, p := range list {
				require.True(t, fs.ValidPath(p) && p != ".", "path %q escapes the task", p)
			}
		}
		_, again := loadFuzzPack(t, data)
		require.Equal(t, probs, again, "problems are deterministic")
		if taskJSONBad {
			return
		}
		doc := map[string][]string{}
		for k, v := range map[string][]string{"spec": task.Spec, "allowlist": task.Allowlist, "withheld": task.Withheld,
			"hidden_tests": task.HiddenTests, "sentinels": task.Sentinels, "ask_tools": task.AskTools} {
			if v != nil {
				doc[k] = v
			}
		}
		out, err := json.Marshal(doc)
		require.NoError(t, err)
		p2, probs2 := loadFuzzPack(t, out)
		for _, pr := range probs2 {
			require.NotEqual(t, "tasks/T01/"+TaskFile, pr.File, "the written-back task.json %s: %s", out, pr)
		}
		requireSameSettings(t, task, p2.Tasks["T01"])
	})
}

func loadFuzzPack(t *testing.T, taskJSON []byte) (*triage.Pack, []Problem) {
	t.Helper()
	p, probs, err := LoadFS(fuzzPack(taskJSON), ".")
	require.NoError(t, err, "a pack whose files all read must load")
	require.NotEmpty(t, p.SHA256)
	return p, probs
}

func requireSameSettings(t *testing.T, a, b *triage.Task) {
	t.Helper()
	norm := func(s []string) []string {
		if len(s) == 0 {
			return nil
		}
		return s
	}
	for _, pair := range [][2][]string{{a.Spec, b.Spec}, {a.Allowlist, b.Allowlist}, {a.Withheld, b.Withheld},
		{a.HiddenTests, b.HiddenTests}, {a.Sentinels, b.Sentinels}, {a.AskTools, b.AskTools}} {
		require.Equal(t, norm(pair[0]), norm(pair[1]))
	}
}
