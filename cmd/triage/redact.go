package main

import (
	"context"
	"fmt"

	"github.com/triage-dev/triage/internal/card"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// redactFlagUsage is the one help line every --redact flag shares.
const redactFlagUsage = "mask task sentinels and secrets (API keys, bearer tokens, private keys, JWTs) in trace text and notes"

// storeRedactor returns the Redactor for --redact: the sentinels of every
// run's task pack in the store, and every secret shape. Output may mix
// runs (a report over all of them, a label file), and masking another
// pack's canary costs nothing. A pack that cannot be read is an error:
// its sentinels would go out unmasked while the user asked for them not
// to. Without --redact it returns nil, the identity.
func storeRedactor(ctx context.Context, db *store.DB, redact bool) (*triage.Redactor, error) {
	if !redact {
		return nil, nil
	}
	runs, err := db.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("--redact: %w", err)
	}
	var pk packs
	var sentinels []string
	for _, r := range runs {
		p, err := pk.load(r.Controls)
		if err != nil {
			return nil, fmt.Errorf("--redact: %w (its sentinels could not be masked)", err)
		}
		if p == nil {
			continue
		}
		for _, t := range p.Tasks {
			sentinels = append(sentinels, t.Sentinels...)
		}
	}
	return triage.NewRedactor(sentinels), nil
}

// redactCardInput masks the text of a card's input that came from people
// or the controls: the controls' free text and the agreement's reasons.
// cardInput masks each trace's model, agent and prompt id as it streams
// them. Run and task ids stay: they name what is counted. Every report
// format and the card are built from the input, so masking it once covers
// them all.
func redactCardInput(in card.Input, r *triage.Redactor) card.Input {
	if r == nil {
		return in
	}
	in.Controls.DatasetID = r.String(in.Controls.DatasetID)
	in.Controls.Scorer = r.String(in.Controls.Scorer)
	in.Controls.ImageDigest = r.String(in.Controls.ImageDigest)
	in.Controls.PromptID = r.String(in.Controls.PromptID)
	in.Controls.PackDir = r.String(in.Controls.PackDir)
	if in.Agreement != nil {
		ag := *in.Agreement
		ag.Reasons = make([]string, len(in.Agreement.Reasons))
		for i, s := range in.Agreement.Reasons {
			ag.Reasons[i] = r.String(s)
		}
		in.Agreement = &ag
	}
	return in
}
