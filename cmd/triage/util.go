package main

import (
	"encoding/json"
	"io"

	"github.com/triage-dev/triage/internal/triage"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(triage.InertJSON(w))
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
