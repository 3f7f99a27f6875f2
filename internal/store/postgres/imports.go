package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/triage"
)

// importBatch is how many traces one COPY writes; a batch also ends once
// its bodies pass importBatchBytes.
const (
	importBatch      = 4096
	importBatchBytes = 16 << 20
)

// Import is one import transaction: traces are staged through COPY into
// a temporary table, moved into traces with ON CONFLICT DO NOTHING (so a
// key stored already, by an earlier import or another writer, is looked
// up and reported as a duplicate or a conflict, never overwritten), and
// their bodies with them. It holds the bulk lock: imports and
// rules runs take turns, label writes go on beside it. A lost connection
// rolls the whole transaction back, so a file lands whole or not at all.
type Import struct {
	s        *DB
	tx       pgx.Tx
	onResult func(store.Added) error
	stamp    string
	runs     map[string]bool
	imports  map[string]int64
	pending  []store.Added
	bytes    int
	label    *importLabel
	closed   bool
}

type importLabel struct {
	label                         store.ImportLabel
	taxonomyVersion, rulesVersion string
}

// BeginImport implements store.Imports.
func (s *DB) BeginImport(ctx context.Context, onResult func(store.Added) error) (store.Import, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, s.fail("begin import", err)
	}
	if err := s.lockBulk(ctx, tx); err != nil {
		tx.Rollback(context.Background())
		return nil, s.fail("begin import", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE triage_stage (
		ord integer, run_id text, task_id text, seed integer, model text, agent text, prompt_id text, exit_code integer,
		outcome text, n_tool_calls integer, wall_s double precision, tokens_in bigint, tokens_out bigint, cost_usd double precision,
		source text, content_hash text, import_id bigint, line integer, raw bytea, norm bytea) ON COMMIT DROP`); err != nil {
		tx.Rollback(context.Background())
		return nil, s.fail("begin import", err)
	}
	return &Import{s: s, tx: tx, onResult: onResult, stamp: s.stamp(), runs: map[string]bool{}, imports: map[string]int64{}}, nil
}

// Whole implements store.Import: a PostgreSQL import is always one
// transaction (MVCC lets readers and label writers go on beside it).
func (im *Import) Whole() {}

// LabelWith implements store.Import.
func (im *Import) LabelWith(taxonomyVersion, rulesVersion string, label store.ImportLabel) {
	im.label = &importLabel{label, taxonomyVersion, rulesVersion}
}

// Add implements store.Import.
func (im *Import) Add(ctx context.Context, t *triage.Trace, norm []byte, file string, line int) error {
	if !im.runs[t.RunID] {
		if _, err := im.tx.Exec(ctx, `INSERT INTO runs (id, created_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, t.RunID, im.stamp); err != nil {
			return im.s.fail("import", err)
		}
		im.runs[t.RunID] = true
	}
	importID, ok := im.imports[file]
	if !ok {
		if err := im.tx.QueryRow(ctx, `INSERT INTO imports (file, imported_at) VALUES ($1, $2) RETURNING id`, file, im.stamp).Scan(&importID); err != nil {
			return im.s.fail("import", err)
		}
		im.imports[file] = importID
	}
	im.pending = append(im.pending, store.Added{Trace: t, Norm: norm, File: file, Line: line, ImportID: importID})
	im.bytes += len(t.Raw) + len(norm)
	if len(im.pending) >= importBatch || im.bytes >= importBatchBytes {
		return im.Flush(ctx)
	}
	return nil
}

type key struct {
	run, task string
	seed      int
}

func keyOf(t *triage.Trace) key { return key{t.RunID, t.TaskID, t.Seed} }

// Flush implements store.Import.
func (im *Import) Flush(ctx context.Context) error {
	if len(im.pending) == 0 {
		return nil
	}
	batch := im.pending
	im.pending, im.bytes = nil, 0
	if err := im.write(ctx, batch); err != nil {
		return im.s.fail("import", err)
	}
	for _, a := range batch {
		if err := im.onResult(a); err != nil {
			return err
		}
	}
	return nil
}

func (im *Import) write(ctx context.Context, batch []store.Added) error {
	var verdicts []*triage.Verdict
	var labelDone chan error
	if im.label != nil {
		labelDone = make(chan error, 1)
		go func() {
			var err error
			verdicts, err = im.label.label(batch)
			if err == nil && len(verdicts) != len(batch) {
				err = fmt.Errorf("label import: %d verdicts for %d traces", len(verdicts), len(batch))
			}
			labelDone <- err
		}()
	}
	// The first trace of each key in the batch is staged; a repeat in
	// the batch is its duplicate or conflict.
	first := make(map[key]int, len(batch))
	rows := make([][]any, 0, len(batch))
	for i := range batch {
		t := batch[i].Trace
		k := keyOf(t)
		if _, ok := first[k]; ok {
			continue
		}
		first[k] = i
		var exit *int32
		if t.ExitCode != nil {
			e := int32(*t.ExitCode)
			exit = &e
		}
		var tin, tout *int64
		if t.Tokens != nil {
			tin, tout = &t.Tokens.Input, &t.Tokens.Output
		}
		rows = append(rows, []any{int32(i), t.RunID, t.TaskID, int32(t.Seed), t.Model, t.Agent, t.PromptID, exit, string(t.Outcome),
			int32(len(t.ToolCalls)), t.WallS, tin, tout, t.CostUSD, t.Source, t.ContentHash, batch[i].ImportID, int32(batch[i].Line),
			store.PackRow(t.Raw), store.PackRow(batch[i].Norm)})
	}
	if _, err := im.tx.Exec(ctx, `TRUNCATE triage_stage`); err != nil {
		return err
	}
	if _, err := im.tx.CopyFrom(ctx, pgx.Identifier{"triage_stage"}, []string{"ord", "run_id", "task_id", "seed", "model", "agent", "prompt_id", "exit_code",
		"outcome", "n_tool_calls", "wall_s", "tokens_in", "tokens_out", "cost_usd", "source", "content_hash", "import_id", "line", "raw", "norm"}, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	res, err := im.tx.Query(ctx, `INSERT INTO traces (run_id, task_id, seed, model, agent, prompt_id, exit_code, outcome, n_tool_calls, wall_s, tokens_in, tokens_out, cost_usd, source, content_hash, import_id, line, raw, norm)
		SELECT run_id, task_id, seed, model, agent, prompt_id, exit_code, outcome, n_tool_calls, wall_s, tokens_in, tokens_out, cost_usd, source, content_hash, import_id, line, raw, norm
		FROM triage_stage ORDER BY ord
		ON CONFLICT (run_id, task_id, seed) DO NOTHING RETURNING id, run_id, task_id, seed`)
	if err != nil {
		return err
	}
	ours := map[key]int64{}
	var k key
	var id int64
	if _, err := pgx.ForEachRow(res, []any{&id, &k.run, &k.task, &k.seed}, func() error { ours[k] = id; return nil }); err != nil {
		return err
	}
	// What the store held already under the other keys.
	type held struct {
		id   int64
		hash string
	}
	stored := map[key]held{}
	if len(ours) < len(rows) {
		res, err := im.tx.Query(ctx, `SELECT t.id, t.run_id, t.task_id, t.seed, t.content_hash FROM traces t JOIN triage_stage s
			USING (run_id, task_id, seed)`)
		if err != nil {
			return err
		}
		var hash string
		if _, err := pgx.ForEachRow(res, []any{&id, &k.run, &k.task, &k.seed, &hash}, func() error { stored[k] = held{id, hash}; return nil }); err != nil {
			return err
		}
	}
	var labelIdx []int
	ids := make([]int64, len(batch))
	for i := range batch {
		t := batch[i].Trace
		k := keyOf(t)
		id, mine := ours[k]
		switch {
		case first[k] == i && mine:
			batch[i].Result, batch[i].ID = store.Imported, id
			ids[i] = id
			labelIdx = append(labelIdx, i)
		case mine && t.ContentHash == batch[first[k]].Trace.ContentHash:
			batch[i].Result, batch[i].ID = store.Duplicate, id
		case mine:
			batch[i].Result = store.Conflict
		case stored[k].hash == t.ContentHash:
			batch[i].Result, batch[i].ID = store.Duplicate, stored[k].id
		default:
			batch[i].Result = store.Conflict
		}
	}
	if labelDone != nil {
		if err := <-labelDone; err != nil {
			return err
		}
		vrows := make([][]any, 0, len(labelIdx))
		for _, i := range labelIdx {
			v := verdicts[i]
			if v == nil {
				return fmt.Errorf("label import: no verdict for %s", batch[i].Trace.Key())
			}
			vrows = append(vrows, verdictRow(ids[i], triage.ActorRules, im.stamp, v))
		}
		if len(vrows) > 0 {
			if _, err := im.tx.CopyFrom(ctx, pgx.Identifier{"rule_verdicts"}, verdictColumns, pgx.CopyFromRows(vrows)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Reject implements store.Import.
func (im *Import) Reject(ctx context.Context, r store.Reject) error {
	sum := sha256.Sum256(r.Raw)
	raw, reason := r.Raw, r.Reason
	if raw == nil {
		raw = []byte{}
	}
	if len(raw) > store.MaxRejectRaw {
		reason = fmt.Sprintf("%s (the line is %d bytes; its first %d are kept)", reason, len(raw), store.MaxRejectRaw)
		raw = raw[:store.MaxRejectRaw]
	}
	_, err := im.tx.Exec(ctx, `INSERT INTO rejects (file, line, reason, raw, raw_sha256, created_at) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT DO NOTHING`,
		r.File, r.Line, reason, raw, hex.EncodeToString(sum[:]), im.stamp)
	return im.s.fail("file a reject", err)
}

// Commit implements store.Import.
func (im *Import) Commit(ctx context.Context) error {
	if im.closed {
		return errors.New("import already closed")
	}
	if err := im.Flush(ctx); err != nil {
		im.Rollback()
		return err
	}
	im.closed = true
	return im.s.fail("commit import", im.tx.Commit(ctx))
}

// Rollback implements store.Import; it is safe after Commit.
func (im *Import) Rollback() error {
	if im.closed {
		return nil
	}
	im.closed = true
	return im.tx.Rollback(context.Background())
}
