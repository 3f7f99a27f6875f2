package agreement_test

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/agreement"
)

// Example shows the path `triage agree --ratings FILE` takes: parse,
// compute with the declared categories, read the verdict.
func Example() {
	in := `unit,rater,label
t1,ann,PASS_CONTRACT
t1,bob,PASS_CONTRACT
t2,ann,ASSUMED_API
t2,bob,ASSUMED_API
t3,ann,TOOL_LOOP
t3,bob,ASSUMED_API
`
	ratings, err := agreement.ParseRatings(strings.NewReader(in), "ratings.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := agreement.Compute(ratings, agreement.Options{
		Categories: []string{"PASS_CONTRACT", "ASSUMED_API", "TOOL_LOOP"},
		Seed:       1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("kappa", r.CohenKappa, "alpha", r.KrippendorffAlpha)
	fmt.Println(r.Verdict.Status, "-", r.Verdict.Reasons[0])
	// Output:
	// kappa 0.500 alpha 0.545
	// insufficient - only 3 units carry two or more ratings; at least 20 are needed
}
