package card

import "errors"

// Sentinel errors of Build and Compare, so the command line can map a
// refusal to its exit status and hint. Each returned error wraps one of
// these with a message that says why and what to do.
var (
	// ErrNoTraces: the run has no traces; zeros are not a result.
	ErrNoTraces = errors.New("no traces")
	// ErrMissingControls: a frozen control is not set.
	ErrMissingControls = errors.New("controls missing")
	// ErrUnresolved: some traces are leftovers nobody has labelled.
	ErrUnresolved = errors.New("unresolved leftovers")
	// ErrUntrusted: the taxonomy has not been shown to be trusted.
	ErrUntrusted = errors.New("taxonomy not trusted")
	// ErrBadInput: the input breaks an invariant (no taxonomy, a label
	// outside the taxonomy, a duplicate class).
	ErrBadInput = errors.New("bad input")
	// ErrNewBenchmark: two cards have different dataset hashes.
	ErrNewBenchmark = errors.New("different benchmark")
	// ErrBadCard: a card file cannot be read as a card.
	ErrBadCard = errors.New("bad card")
)
