package card

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/triage-dev/triage/internal/triage"
)

// WriteJSON writes the report as indented JSON. It always carries
// primary_counts (every trace counted once by its current label, certain
// or not) and leftovers (count and RUN/TASK#SEED keys).
func WriteJSON(w io.Writer, r *ReportData) error {
	enc := json.NewEncoder(triage.InertJSON(w))
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
