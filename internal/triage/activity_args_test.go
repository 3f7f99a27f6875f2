package triage

import (
	"encoding/json"
	"reflect"
	"testing"
)

// callArgCases are tool-call arguments of every shape readCallArgs must
// read as json.Unmarshal does: the plain ones it scans itself, and those
// it leaves to json.Unmarshal (escapes, other cases of a key, duplicates,
// wrong types, bad JSON).
var callArgCases = []string{
	`{}`, ` { } `, `{"cmd":"pytest -q"}`, `{"command":["bash","-lc","go test ./..."]}`,
	`{"path":"src/a.py","old_str":"x","new_str":"y","command":"str_replace"}`,
	`{"file_path":"/repo/a.py","content":{"nested":[1,2.5e3,-0.1,true,false,null,"s"]}}`,
	`{"input":"*** Begin Patch\n*** Update File: b.py\n*** End Patch"}`,
	`{"patch":"a\u00e9b","path":"caf\u00e9.py"}`, `{"path":"caf` + "\xc3\xa9" + `.py"}`,
	`{"path":"bad` + "\xff" + `utf8"}`, `{"Path":"upper","path":"lower"}`, `{"CMD":"x"}`,
	`{"path":"a","path":"b"}`, `{"path":"a","path":null}`, `{"path":"a","path":1}`,
	`{"path":1}`, `{"cmd":null}`, `{"command":null,"cmd":"ls"}`, `{"cmd":"a"} x`, `{"cmd":"a",}`,
	`{"cmd" "a"}`, `{"cmd":"a"`, `{"cmd":tru}`, `{"cmd":01}`, `{"cmd":"\x01"}`, `{"c\u006dd":"ls"}`,
	`{"cmd":"ls","x":[[[[[[]]]]]]}`, `{"cmd":"ls","x":-}`, `{"cmd":"ls","x":1.}`, `{"cmd":"ls","x":1e}`,
	`{"cmd":"\"quoted\""}`, `{"command":{"a":1},"path":"p"}`, `{"file_path":"a\"b"}`, `{"k":"\u12"}`,
	`{"path":"p"}` + "\n", "{\t\"path\" :\r\n\"p\" }", `{"ﬁle_path":"ligature"}`, `{"ſcmd":"long s"}`,
}

func TestReadCallArgs(t *testing.T) {
	t.Parallel()
	for _, c := range callArgCases {
		checkCallArgs(t, []byte(c))
	}
}

func checkCallArgs(t *testing.T, raw []byte) {
	t.Helper()
	var want callArgs
	_ = json.Unmarshal(raw, &want)
	args := readCallArgs(raw)
	got := args.decoded()
	if !reflect.DeepEqual(normArgs(got), normArgs(want)) {
		t.Errorf("%q: got %+v, want %+v (json.Unmarshal)", raw, got, want)
	}
	if argText(got.Cmd) != argText(want.Cmd) || argText(got.Command) != argText(want.Command) {
		t.Errorf("%q: argText differs", raw)
	}
}

// normArgs treats an empty RawMessage and nil alike (json.Unmarshal never
// sets an empty one).
func normArgs(a callArgs) callArgs {
	if len(a.Command) == 0 {
		a.Command = nil
	}
	if len(a.Cmd) == 0 {
		a.Cmd = nil
	}
	return a
}

func FuzzReadCallArgs(f *testing.F) {
	for _, c := range callArgCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || raw[0] != '{' {
			return // readStep reads only objects
		}
		checkCallArgs(t, raw)
	})
}
