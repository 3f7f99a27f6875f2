package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

// FuzzParseLabelRow feeds arbitrary lines to the labels-file decoder that
// `labels import` runs before it touches the store: no input may panic,
// an accepted row satisfies every check the decoder promises, and what
// `labels export` would write back for it decodes to the same row.
func FuzzParseLabelRow(f *testing.F) {
	f.Add([]byte(`{"run_id":"r1","task_id":"T01","seed":0,"content_hash":"ab12","reviewer":"ana","kind":"human","primary":"PASS_WEAK","secondary":["tool-misuse"],"note":"ok","taxonomy_version":"v1","created_at":"2025-01-02T03:04:05Z"}`))
	f.Add([]byte(`{"reviewer":"b","kind":"undo","created_at":"2025-01-02T03:04:05.123456789+14:00","secondary":null}`))
	f.Add([]byte(`{"reviewer":"b","kind":"skip","created_at":"0001-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"kind":"adjudication","reviewer":"\u001b]0;x\u0007","created_at":"9999-12-31T23:59:59Z","seed":1e3}`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		row, err := parseLabelRow(b)
		if err != nil {
			require.NotEmpty(t, err.Error())
			require.Equal(t, labelRow{}, row, "a rejected row returns no half-filled value")
			return
		}
		switch triage.LabelKind(row.Kind) {
		case triage.KindHuman, triage.KindAdjudication, triage.KindSkip, triage.KindUndo:
		default:
			t.Fatalf("accepted kind %q", row.Kind)
		}
		require.NotEmpty(t, row.Reviewer)
		require.False(t, row.CreatedAt.IsZero())

		out, err := json.Marshal(row)
		require.NoError(t, err, "an accepted row must export again")
		again, err := parseLabelRow(out)
		require.NoError(t, err, "an exported row must import again: %s", out)
		require.True(t, row.CreatedAt.Equal(again.CreatedAt))
		row.CreatedAt = again.CreatedAt // Equal above; the location may differ.
		require.Equal(t, row, again)
	})
}
