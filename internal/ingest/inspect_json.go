package ingest

import (
	"context"
	"encoding/json"
	"fmt"
)

// decodeInspectJSON walks an EvalLog with the decoder's token API: header
// keys are decoded as they come, and the samples array is read one sample
// at a time, so memory is bounded by the largest sample, not the file.
// Inspect writes the header (version, status, eval, …) before samples; a
// hand-made log with samples first gets tasks named after the file.
func decodeInspectJSON(ctx context.Context, src Source, emit func(Record) error) error {
	cr := &countingReader{r: src.R}
	dec := json.NewDecoder(cr)
	var hdr inspectHeader
	var emitErr error
	n := 0
	err := walkObject(ctx, dec, "eval log", func(key string) error {
		switch key {
		case "eval":
			return dec.Decode(&hdr.Eval)
		case "samples":
			return walkArray(ctx, dec, "samples", func(int) error {
				start := dec.InputOffset()
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return err
				}
				n++
				emitErr = emitInspectSample(src, &hdr, n, fmt.Sprintf("byte %d", start), raw, emit)
				return emitErr
			})
		}
		return skipValue(dec)
	})
	if emitErr != nil {
		return emitErr // as is, not placed in the file like a read error
	}
	if err != nil {
		return walkFailed(ctx, src, dec, cr, err, emit)
	}
	if n == 0 {
		return emit(fileReject(src, "the eval log holds no samples (was it written with log_samples off?)"))
	}
	return nil
}
