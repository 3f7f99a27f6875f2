package triage

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const testSentinel = "sk-eval-SENTINEL-DONOTLEAK"

// Fake secrets in every shape String knows. They are built from parts so
// that secret scanners do not flag this file.
var (
	fakeOpenAI    = "sk-" + "proj-" + strings.Repeat("Ab3", 12)
	fakeAnthropic = "sk-" + "ant-api03-" + strings.Repeat("xY9_", 10)
	fakeAWS       = "AKIA" + "IOSFODNN7EXAMPLE"
	fakeGitHub    = "ghp" + "_" + strings.Repeat("a1B2", 9)
	fakePAT       = "github" + "_pat_" + strings.Repeat("11ABC", 6)
	fakeSlack     = "xoxb" + "-123456789012-abcdefABCDEF"
	fakeGoogle    = "AIza" + strings.Repeat("Sy0_", 9)
	fakeJWT       = "eyJ" + "hbGciOiJIUzI1NiJ9.eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	fakeBearer    = "Authorization: Bearer " + "abc123.def456-ghi789"
	fakePEM       = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7\nMhgHcTz6sE2I2yPB\n-----END RSA " + "PRIVATE KEY-----"
)

func TestRedactorString(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]string{testSentinel, "", "hunter-42-canary"})
	cases := []struct {
		name, in, want string
		gone           string // must not survive
	}{
		{"sentinel", "leaked " + testSentinel + " here", "leaked [REDACTED:sentinel] here", testSentinel},
		{"sentinel twice", testSentinel + testSentinel, "[REDACTED:sentinel]", testSentinel},
		{"second sentinel", "x hunter-42-canary y", "x [REDACTED:sentinel] y", "hunter-42-canary"},
		{"openai", "key " + fakeOpenAI + ".", "key [REDACTED:api-key].", fakeOpenAI},
		{"anthropic", "ANTHROPIC=" + fakeAnthropic, "ANTHROPIC=[REDACTED:api-key]", fakeAnthropic},
		{"aws", "aws " + fakeAWS + " end", "aws [REDACTED:api-key] end", fakeAWS},
		{"github", fakeGitHub, "[REDACTED:api-key]", fakeGitHub},
		{"github pat", "(" + fakePAT + ")", "([REDACTED:api-key])", fakePAT},
		{"slack", "slack " + fakeSlack, "slack [REDACTED:api-key]", fakeSlack},
		{"google", "g=" + fakeGoogle, "g=[REDACTED:api-key]", fakeGoogle},
		{"jwt", "cookie " + fakeJWT + " ok", "cookie [REDACTED:jwt] ok", fakeJWT},
		{"bearer", fakeBearer, "Authorization: Bearer [REDACTED:bearer]", "abc123.def456-ghi789"},
		{"bearer lower", "authorization: bearer Zm9vYmFyYmF6MTIz", "authorization: bearer [REDACTED:bearer]", "Zm9vYmFyYmF6MTIz"},
		{"private key", "key:\n" + fakePEM + "\ndone", "key:\n[REDACTED:private-key]\ndone", "MIIEowIBAAKCAQEA"},
		{"private key cut off", "x " + fakePEM[:60], "x [REDACTED:private-key]", "MIIEow"},
		{"private key json escaped", `{"k":"` + strings.ReplaceAll(fakePEM, "\n", `\n`) + `"}`, `{"k":"[REDACTED:private-key]"}`, "MIIEow"},
		{"api_key assignment", "api_key=Zx81kq0pLm3n", "api_key=[REDACTED:secret]", "Zx81kq0pLm3n"},
		{"token yaml", "token: abcdefgh12", "token: [REDACTED:secret]", "abcdefgh12"},
		{"json token", `{"access_token": "q8Zr0uT1vW2x"}`, `{"access_token": "[REDACTED:secret]"}`, "q8Zr0uT1vW2x"},
		{"escaped json password", `{\"password\": \"s3cr3t-pass!\"}`, `{\"password\": \"[REDACTED:secret]\"}`, "s3cr3t-pass!"},
		{"env secret", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "AWS_SECRET_ACCESS_KEY=[REDACTED:secret]", "wJalrXUtnFEMI"},
		// Not secrets: the text must come back untouched.
		{"task id", "task-invoice-client-retry-logic-02", "task-invoice-client-retry-logic-02", ""},
		{"short sk", "sk-short", "sk-short", ""},
		{"token count", `"max_tokens": 12345678, "token": 12345678`, `"max_tokens": 12345678, "token": 12345678`, ""},
		{"bearer word", "bearer tokens are bearer authentication", "bearer tokens are bearer authentication", ""},
		{"public key", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", ""},
		{"plain", "nothing to see", "nothing to see", ""},
		{"empty", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := r.String(c.in)
			require.Equal(t, c.want, got)
			if c.gone != "" {
				require.Contains(t, c.in, c.gone, "the case must hold what it checks")
				require.NotContains(t, got, c.gone)
			}
			require.Equal(t, got, r.String(got), "idempotent")
		})
	}
}

func TestRedactorNilIsIdentity(t *testing.T) {
	t.Parallel()
	var r *Redactor
	in := "leak " + testSentinel + " " + fakeOpenAI
	require.Equal(t, in, r.String(in))
	require.Nil(t, r.With([]string{"x"}))
	tr := &Trace{TaskID: "t", Answer: &in}
	require.Same(t, tr, r.Trace(tr))
	require.Equal(t, in, r.Event(LabelEvent{Note: in}).Note)
}

func TestRedactorSentinelSpellings(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]string{"<canary-é>"})
	for _, in := range []string{"<canary-é>", `\u003ccanary-é\u003e`, `<canary-\u00e9>`} {
		require.Equal(t, "a [REDACTED:sentinel] b", r.String("a "+in+" b"), in)
	}
	// With adds a task's sentinels and keeps the others.
	w := NewRedactor([]string{"first-canary"}).With([]string{"second-canary"})
	require.Equal(t, "[REDACTED:sentinel] [REDACTED:sentinel]", w.String("first-canary second-canary"))
	// Each spelling is searched once, however often it is given (two runs
	// of one pack give every sentinel twice), longest first.
	d := NewRedactor([]string{"abc", "xyz", "abc"}).With([]string{"xyz", "<é>"})
	require.Equal(t, []string{`\u003cé\u003e`, `<\u00e9>`, "<é>", "abc", "xyz"}, d.Sentinels())
}

func TestRedactorTrace(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]string{testSentinel})
	answer, diff, tests := "the key is "+fakeOpenAI, "+const k = \""+testSentinel+"\"", "PASS "+fakeJWT
	hidden := strings.Replace(testSentinel, "s", `\u0073`, 1)
	tr := &Trace{RunID: "r", TaskID: "t", Model: "m " + fakeAWS,
		ToolCalls: []ToolCall{
			{Name: "bash", Args: json.RawMessage(`{"cmd":"echo ` + testSentinel + `"}`), Output: fakeBearer, Error: fakePEM},
			{Name: "bash", Args: json.RawMessage(`{"b":1,"cmd":"` + hidden + `"}`)},
		},
		Messages: []Message{{Role: "user", Content: "use " + fakeGitHub}},
		Answer:   &answer, Diff: &diff, TestOutput: &tests,
		Raw: []byte(`{"task_id":"t","answer":"` + testSentinel + `"}`),
	}
	orig, err := json.Marshal(tr)
	require.NoError(t, err)
	got := r.Trace(tr)
	after, err := json.Marshal(tr)
	require.NoError(t, err)
	require.Equal(t, orig, after, "Trace must not change its argument")

	all, err := json.Marshal(got)
	require.NoError(t, err)
	text := string(all) + string(got.Raw)
	for _, secret := range []string{testSentinel, fakeOpenAI, fakeAWS, "abc123.def456", "MIIEow", fakeGitHub, fakeJWT, hidden} {
		require.Contains(t, string(orig)+string(tr.Raw), secret)
		require.NotContains(t, text, secret)
	}
	require.Equal(t, "r", got.RunID)
	require.Equal(t, `{"cmd":"echo [REDACTED:sentinel]"}`, string(got.ToolCalls[0].Args))
	require.True(t, json.Valid(got.ToolCalls[1].Args), string(got.ToolCalls[1].Args))
	require.Contains(t, string(got.ToolCalls[1].Args), "[REDACTED:sentinel]")
	require.True(t, json.Valid(got.Raw))
}

func TestRedactorVerdictAndEvents(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]string{testSentinel})
	long := strings.Repeat("z", 300)
	v := &Verdict{Reason: "saw " + fakeOpenAI, Evidence: []Evidence{
		{Rule: TagLeaked, Message: "sentinel found in the answer", Ident: long[:200] + "…"},
		{Rule: "ASSUME_API", Message: "called " + testSentinel, Ident: "/v1/" + testSentinel},
	}}
	got := r.Verdict(v)
	require.Equal(t, "saw [REDACTED:api-key]", got.Reason)
	require.Equal(t, "[REDACTED:sentinel]", got.Evidence[0].Ident)
	require.Equal(t, "called [REDACTED:sentinel]", got.Evidence[1].Message)
	require.Equal(t, "/v1/[REDACTED:sentinel]", got.Evidence[1].Ident)
	require.Equal(t, long[:200]+"…", v.Evidence[0].Ident, "the argument is unchanged")

	evs := r.Events([]LabelEvent{{Note: "pasted " + fakeSlack, Verdict: v}})
	require.Equal(t, "pasted [REDACTED:api-key]", evs[0].Note)
	require.Equal(t, "saw [REDACTED:api-key]", evs[0].Verdict.Reason)
}

// FuzzRedact checks the masker's promises on any text and sentinel: no
// panic, no sentinel and no secret left (a second pass finds nothing to
// do), and idempotence.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{fakeOpenAI, fakeAnthropic, fakeAWS, fakeGitHub, fakePAT, fakeSlack, fakeGoogle, fakeJWT, fakeBearer, fakePEM,
		fakePEM[:50], "api_key=" + testSentinel, "token: x" + testSentinel, "xsk-" + strings.Repeat("a", 30), "\xff\xfe" + testSentinel} {
		f.Add(s, testSentinel)
		f.Add("pre "+s+" post", "canary")
	}
	f.Fuzz(func(t *testing.T, text, sentinel string) {
		r := NewRedactor([]string{sentinel})
		out := r.String(text)
		require.Equal(t, out, r.String(out), "idempotent")
		// A sentinel can only survive as part of a mask's own text: one
		// holding a bracket can straddle a mask, one inside "[REDACTED:
		// sentinel]" is in every mask.
		if sentinel != "" && !strings.ContainsAny(sentinel, "[]") && !strings.Contains(maskWords, sentinel) {
			require.NotContains(t, out, sentinel)
		}
		if again := NewRedactor(nil).pass(out); again != out {
			t.Fatalf("a secret survived in %q: %q", out, again)
		}
	})
}

// maskWords is every word a mask is spelled with.
const maskWords = "[REDACTED:sentinel] [REDACTED:api-key] [REDACTED:secret] [REDACTED:bearer] [REDACTED:private-key] [REDACTED:jwt]"

func BenchmarkRedact(b *testing.B) {
	r := NewRedactor([]string{testSentinel, "another-canary-value"})
	line := "2025-01-01 INFO handler served /v1/invoices in 12ms status=200 user=alice tokens: 1234 key=value\n"
	clean := strings.Repeat(line, (1<<20)/len(line))
	dirty := clean[:len(clean)/2] + fakeOpenAI + " " + testSentinel + " " + fakePEM + clean[len(clean)/2:]
	for _, c := range []struct{ name, s string }{{"clean-1MB", clean}, {"secrets-1MB", dirty}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				_ = r.String(c.s)
			}
		})
	}
}
