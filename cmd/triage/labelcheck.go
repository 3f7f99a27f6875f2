package main

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// checkLabelClasses refuses an imported label whose primary class the
// taxonomy does not have: stored, it would count under a class no card
// lists. The usual cause is importing under another taxonomy than the
// labels were made with, so the message says how to name it. Secondary
// tags are not checked: stores hold free-form tags the picker kept.
func checkLabelClasses(tax *triage.Taxonomy, e triage.LabelEvent) error {
	if e.Primary != "" && !tax.Has(e.Primary) {
		return fmt.Errorf("primary %q: not a class of taxonomy %s (%s); import under the taxonomy the labels were made with (--taxonomy FILE)",
			e.Primary, tax.Name, strings.Join(tax.Codes(), ", "))
	}
	return nil
}
