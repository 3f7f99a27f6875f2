package triage

import (
	"encoding/json"
	"testing"
)

// FuzzAppendJSONString holds the quoting to json.Marshal's, byte for
// byte: the stored rows and verdicts written with it must equal what
// json.Marshal wrote before them.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&</a>", "tab\tnl\nret\r\b\f\x00\x1f\x7f", "\u2028\u2029", "bad \xff\xfe utf8", "é 漢 🙂", `back\slash "quote"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendJSONString(%q) = %s, json.Marshal = %s", s, got, want)
		}
	})
}
