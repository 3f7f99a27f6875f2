package triage

import "time"

// Controls are a run's frozen controls (seed 000): what must not move
// between runs for their cards to be comparable.
type Controls struct {
	RunID           string    `json:"run_id"`
	DatasetID       string    `json:"dataset_id,omitempty"`
	DatasetSHA256   string    `json:"dataset_sha256,omitempty"`
	PackDir         string    `json:"pack_dir,omitempty"`
	Scorer          string    `json:"scorer,omitempty"`
	WallS           *float64  `json:"wall_s,omitempty"`
	MaxOutputTokens *int64    `json:"max_output_tokens,omitempty"`
	MaxToolCalls    *int64    `json:"max_tool_calls,omitempty"`
	ImageDigest     string    `json:"image_digest,omitempty"`
	Network         *bool     `json:"network,omitempty"`
	PromptID        string    `json:"prompt_id,omitempty"`
	CreatedAt       time.Time `json:"created_at"`
}

// Missing lists the controls a card needs that are not set.
func (c *Controls) Missing() []string {
	var m []string
	if c.DatasetID == "" {
		m = append(m, "dataset_id (--dataset-id)")
	}
	if c.DatasetSHA256 == "" {
		m = append(m, "dataset_sha256 (--pack)")
	}
	if c.Scorer == "" {
		m = append(m, "scorer (--scorer)")
	}
	if c.WallS == nil {
		m = append(m, "budgets.wall_s (--wall-s)")
	}
	if c.MaxOutputTokens == nil {
		m = append(m, "budgets.max_output_tokens (--max-output-tokens)")
	}
	if c.MaxToolCalls == nil {
		m = append(m, "budgets.max_tool_calls (--max-tool-calls)")
	}
	if c.ImageDigest == "" {
		m = append(m, "env.image_digest (--image-digest)")
	}
	if c.Network == nil {
		m = append(m, "env.network (--network)")
	}
	return m
}
