package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fastCorpus lists every file of ../shared/real-logs, ../shared/formats
// and the package's testdata.
func fastCorpus(t testing.TB) []string {
	t.Helper()
	root := realLog(t)
	var files []string
	for _, dir := range []string{root, filepath.Join(filepath.Dir(root), "formats"), "testdata"} {
		err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				files = append(files, p)
			}
			return err
		})
		require.NoError(t, err)
	}
	return files
}

// decodeBoth decodes one input with the fast paths and with encoding/json
// alone, and returns both readings (records and error) as text-free
// values to compare.
func decodeBoth(t testing.TB, path string) (fast, slow decodeResult) {
	t.Helper()
	run := func(opts Options) decodeResult {
		in, err := Open(path, nil, nil)
		require.NoError(t, err)
		defer in.Close()
		var r decodeResult
		err = Decode(context.Background(), in, "", opts, func(rec Record) error {
			r.recs = append(r.recs, rec)
			return nil
		})
		if err != nil {
			r.err = err.Error()
		}
		return r
	}
	return run(Options{}), run(Options{slowOnly: true})
}

type decodeResult struct {
	recs []Record
	err  string
}

// TestFastHarnessEqualsSlow holds the fast paths to encoding/json's
// reading on every real log and sample, whole and damaged: the same
// traces, rejects, positions and errors.
func TestFastHarnessEqualsSlow(t *testing.T) {
	t.Parallel()
	files := fastCorpus(t)
	require.NotEmpty(t, files)
	for _, p := range files {
		fast, slow := decodeBoth(t, p)
		require.Equal(t, slow, fast, p)
	}
}

// TestFastHarnessDamaged cuts and corrupts the real SWE-agent,
// mini-swe-agent and Codex logs and holds the fast paths to the slow
// reading of each damaged copy (most go to the slow path; a cut inside a
// dropped field of a rollout line, or a changed byte inside a string, does
// not).
func TestFastHarnessDamaged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := 0
	for _, p := range fastCorpus(t) {
		if !strings.HasSuffix(p, ".traj") && !strings.HasSuffix(p, ".traj.json") && !strings.Contains(p, "rollout-") && !strings.HasSuffix(p, "output.jsonl") && !strings.Contains(p, "claude-code") {
			continue
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		if len(data) > 400<<10 {
			continue // the smaller logs of each format are enough, and quick
		}
		var variants [][]byte
		for _, frac := range []int{1, 31, 93} {
			variants = append(variants, data[:len(data)*frac/100])
		}
		for _, frac := range []int{3, 40, 77} {
			for _, b := range []byte{'"', '\\', 0x01, 0xff, ','} {
				v := bytes.Clone(data)
				v[len(v)*frac/100] = b
				variants = append(variants, v)
			}
		}
		for i, v := range variants {
			// The name keeps the suffix detection and the task id read.
			q := filepath.Join(dir, fmt.Sprintf("%d", n), filepath.Base(p))
			n++
			require.NoError(t, os.MkdirAll(filepath.Dir(q), 0o755))
			require.NoError(t, os.WriteFile(q, v, 0o644))
			fast, slow := decodeBoth(t, q)
			require.Equal(t, slow, fast, "%s variant %d", p, i)
		}
	}
	require.NotZero(t, n)
}

// TestFastHarnessTakesRealLogs checks the fast paths do read the real
// logs (the comparisons above would pass if every file went slow).
func TestFastHarnessTakesRealLogs(t *testing.T) {
	t.Parallel()
	counts := map[string]int{}
	for _, p := range fastCorpus(t) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := Detect(p, data[:min(len(data), DetectBytes)])
		if err != nil {
			continue
		}
		d := getJdoc()
		switch f.Name {
		case nameSWEAgent:
			var sf sweFile
			require.True(t, parseWhole(context.Background(), d, data) && sf.fastWalk(d), p)
		case nameMini:
			var m miniFast
			require.True(t, parseWhole(context.Background(), d, data) && m.fastWalk(d, newMiniBuilder(Source{})), p)
		case nameCodex:
			if codexLegacyHeader(keySet(headObjectKeys(data))) {
				break // Older rollouts are read by encoding/json alone.
			}
			for line := range bytes.Lines(data) {
				line = bytes.TrimSuffix(line, []byte("\n"))
				var l codexLine
				var pl codexPayload
				require.True(t, d.codexLine(line, &l, &pl), "%s: %.200s", p, line)
			}
		case nameClaude:
			for line := range bytes.Lines(data) {
				line = bytes.TrimSuffix(line, []byte("\n"))
				var l claudeLine
				require.True(t, d.claudeLine(line, &l), "%s: %.200s", p, line)
			}
		case nameOpenHands:
			if !strings.HasSuffix(p, ".jsonl") {
				putJdoc(d)
				continue
			}
			for line := range bytes.Lines(data) {
				line = bytes.TrimSuffix(line, []byte("\n"))
				var o ohOutput
				require.True(t, d.ohOutputLine(line, &o), "%s: %.200s", p, line)
			}
		default:
			putJdoc(d)
			continue
		}
		putJdoc(d)
		counts[f.Name]++
	}
	t.Logf("fast path read: %v", counts)
	for _, f := range []string{nameSWEAgent, nameMini, nameCodex, nameOpenHands, nameClaude} {
		require.NotZero(t, counts[f], f)
	}
}

// FuzzHarnessFastSlow holds the fast paths to encoding/json's reading on
// arbitrary input: each whole-file decoder gives the same records and
// error either way.
func FuzzHarnessFastSlow(f *testing.F) {
	for _, s := range []string{
		`{"environment":"swe_main","trajectory":[{"action":"ls","observation":"a\nb","thought":"t","execution_time":1.5}],"history":[{"role":"user","content":[{"type":"text","text":"fix"}]}],"info":{"exit_status":"submitted","submission":"diff --git a/x b/x\n","model_stats":{"instance_cost":0.5,"tokens_sent":10,"tokens_received":2}}}`,
		`{"info":{"exit_status":"Submitted","submission":"","model_stats":{"instance_cost":1},"config":{"model":{"model_name":"m"}}},"messages":[{"role":"system","content":"s"},{"role":"user","content":"task"},{"role":"assistant","content":"x\n` + "```bash\\nls\\n```" + `","extra":{"response":{"usage":{"prompt_tokens":3,"completion_tokens":4}}}},{"role":"user","content":"<returncode>0</returncode><output>ok</output>"}],"trajectory_format":"mini-swe-agent-1"}`,
		`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"\ud83d\ude00 \ud800 ok"}]}],"instance_id":"i1"}`,
		"{\"timestamp\":\"2025-01-01T00:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"s1\",\"cwd\":\"/r\",\"model\":\"gpt\"}}\n{\"timestamp\":\"2025-01-01T00:00:01Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{\\\"command\\\":[\\\"ls\\\"]}\",\"call_id\":\"c1\"}}\n{\"timestamp\":\"2025-01-01T00:00:02Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"{\\\"output\\\":\\\"x\\\",\\\"metadata\\\":{\\\"exit_code\\\":1,\\\"duration_seconds\\\":0.1}}\"}}\n",
		`{"Trajectory":[],"info":{"Exit_Status":"x"}}`,
		"{\"type\":\"user\",\"sessionId\":\"s1\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/r\",\"message\":{\"role\":\"user\",\"content\":\"fix it\"}}\n{\"type\":\"assistant\",\"sessionId\":\"s1\",\"requestId\":\"q\",\"message\":{\"id\":\"m1\",\"model\":\"claude\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"},{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Edit\",\"input\":{\"file_path\":\"/r/a.go\"}}],\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n{\"type\":\"user\",\"sessionId\":\"s1\",\"cwd\":\"/r\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}]},\"toolUseResult\":{\"filePath\":\"/r/a.go\",\"structuredPatch\":[{\"oldStart\":1,\"oldLines\":1,\"newStart\":1,\"newLines\":1,\"lines\":[\"-a\",\"+b\"]}]}}\n{\"type\":\"result\",\"subtype\":\"success\",\"total_cost_usd\":0.5,\"result\":\"all done\"}\n",
		`{"instance_id":"a__b-1","instruction":"fix it","metadata":{"agent_class":"CodeActAgent","llm_config":{"model":"m"}},"history":[{"id":1,"timestamp":"2025-01-01T00:00:00","source":"agent","action":"run","args":{"command":"ls","thought":"look"},"tool_call_metadata":{"function_name":"execute_bash","model_response":{"id":"r1","model":"m","usage":{"prompt_tokens":5,"completion_tokens":1}}}},{"id":2,"cause":1,"observation":"run","content":"a b","extras":{"metadata":{"exit_code":0}},"llm_metrics":{"accumulated_cost":0.1}},[{"action":"run","command":"pwd"},{"observation":"run","content":"/","exit_code":0}]],"metrics":{"accumulated_cost":0.2},"test_result":{"git_patch":"diff --git a/x b/x\n","report":{"resolved":true}},"error":null}`,
		`{"trajectory":[{"action":"a","action":"b"}]}`,
		"{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}",
	} {
		f.Add([]byte(s))
	}
	for _, s := range miniV2Seeds {
		f.Add([]byte(s))
	}
	decoders := []struct {
		name   string
		decode func(context.Context, Source, func(Record) error) error
	}{
		{"x.traj", decodeSWEAgent},
		{"x.traj.json", decodeMini},
		{"rollout-x.jsonl", decodeCodex},
		{"output.jsonl", decodeOpenHandsOutput},
		{"session.jsonl", decodeClaude},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, dc := range decoders {
			run := func(opts Options) decodeResult {
				var r decodeResult
				err := dc.decode(context.Background(), Source{Name: dc.name, R: bytes.NewReader(data), Opts: opts}, func(rec Record) error {
					r.recs = append(r.recs, rec)
					return nil
				})
				if err != nil {
					r.err = err.Error()
				}
				return r
			}
			fast, slow := run(Options{}), run(Options{slowOnly: true})
			require.Equal(t, slow, fast, dc.name)
		}
	})
}
