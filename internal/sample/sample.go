// Package sample holds the demo's data, embedded in the binary: a task
// pack of ten invoice-API tasks in the spirit of the seed articles, fifty
// traces that between them show every class and every typed outcome, and
// the frozen controls the demo run uses. README.md says which trace shows
// what. traces.jsonl is generated from gen/ by `go generate`.
package sample

import (
	"embed"
	"io/fs"

	"github.com/triage-dev/triage/internal/pack"
	"github.com/triage-dev/triage/internal/triage"
)

//go:generate go run ./gen -pack pack/tasks -o traces.jsonl

// The all: prefix keeps files such as __init__.py, which embed skips by
// default; the pack hash must see every file find sees.
//
//go:embed all:pack/tasks
var packFS embed.FS

//go:embed traces.jsonl
var traces []byte

// RunID is the run the demo imports the sample into.
const RunID = "demo"

// Pack returns the sample pack, rooted so that tasks/ is at its top: pass
// it to pack.LoadFS(Pack(), ".") or pack.HashFS(Pack(), ".").
func Pack() fs.FS {
	sub, err := fs.Sub(packFS, "pack")
	if err != nil {
		// fs.Sub fails only on an invalid name; "pack" is valid.
		panic(err)
	}
	return sub
}

// Traces returns the sample traces as JSONL, one trace a line, in the
// format of DESIGN §2. The slice is a copy the caller may keep.
func Traces() []byte { return append([]byte(nil), traces...) }

// TracesName is the name to give the traces in import reports.
const TracesName = "sample/traces.jsonl"

// Controls returns the frozen controls of the demo run (seed 000's card
// values). DatasetSHA256 is the hash of the embedded pack, computed on each
// call; it is empty only if the embedded files cannot be read, which then
// makes card export refuse rather than publish a wrong hash. CreatedAt is
// left zero for the caller to stamp.
func Controls() triage.Controls {
	wall := 180.0
	maxOut := int64(4096)
	maxCalls := int64(12)
	network := false
	sum, err := pack.HashFS(Pack(), ".")
	if err != nil {
		sum = ""
	}
	return triage.Controls{
		RunID:           RunID,
		DatasetID:       "invoice-client-v3",
		DatasetSHA256:   sum,
		PackDir:         "(embedded sample)",
		Scorer:          "pytest -q --tb=no",
		WallS:           &wall,
		MaxOutputTokens: &maxOut,
		MaxToolCalls:    &maxCalls,
		ImageDigest:     "sha256:4f1c0e9a7d52b8e36a0c91d7e2b5f8a3c6d9e0f1a2b3c4d5e6f708192a3b4c5d",
		Network:         &network,
		PromptID:        "p1",
	}
}
