package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// cacheKiB is the page cache of every connection (PRAGMA cache_size), and
// bulkCacheKiB that of a connection while it imports or runs the rules.
//
// A bulk write reads and writes each page about once: an import appends
// rows, bodies and verdicts in id order, and `rules run` reads the bodies
// in id order and appends verdicts. A large cache buys it nothing but its
// cost: modernc's allocator gives each page of the cache (4 KiB and its
// header) a slot of 8 KiB, so 16 MiB of cache touched about 30 MiB, a
// quarter of the resident set; every page the kernel first maps costs a
// fault; and closing the store freed the cache page by page, the
// allocator handing each emptied region back with madvise, 0.18-0.29 s of
// CPU at the end of every import and rules run of 100,000 rows. At 2 MiB
// (SQLite's own default) an import of 100,000 rows takes 18-24 % less
// CPU, a rules run 23-29 %, `import --rules` 14-23 %, each about 27 MiB
// less memory, and they write the same store (docs/PERFORMANCE.md, issue
// 27). Reads keep 16 MiB: the review screen goes back to pages it has
// read. Rows in no key order are the exception (growCache).
const (
	cacheKiB     = 16384
	bulkCacheKiB = 2048
)

// pinBulk takes a connection of its own for one bulk write and gives it
// bulkCacheKiB of cache; unpinBulk gives it back with the usual cache.
// The pragma is not transactional: set before the transaction begins, it
// holds until unpinBulk, whatever the transaction's end.
func (s *DB) pinBulk(ctx context.Context) (*sql.Conn, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, mapErr(err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, bulkCacheKiB)); err != nil {
		conn.Close()
		return nil, mapErr(err)
	}
	return conn, nil
}

// unpinBulk restores the connection's cache and returns it to the pool.
// It runs even when the caller's context is done: the pool's next user
// expects the usual cache.
func unpinBulk(conn *sql.Conn) {
	conn.ExecContext(context.Background(), fmt.Sprintf(`PRAGMA cache_size = -%d`, cacheKiB))
	conn.Close()
}

// keyDescents counts the descents in a batch's keys in the order added: how
// many keys are below the one before.
func keyDescents(batch []Added) int {
	n := 0
	for i := 1; i < len(batch); i++ {
		if keyLess(keyOf(batch[i].Trace), keyOf(batch[i-1].Trace)) {
			n++
		}
	}
	return n
}

// keyLess orders keys as the traces' unique index does: SQLite compares
// TEXT by its bytes (BINARY), as Go compares strings.
func keyLess(a, b traceKey) bool {
	if a.run != b.run {
		return a.run < b.run
	}
	if a.task != b.task {
		return a.task < b.task
	}
	return a.seed < b.seed
}

// maxDescents is the share of a batch's keys that may come below the one
// before (1 in maxDescents) while the import keeps its small cache.
const maxDescents = 16

// sweepRows is how many traces an import writes with the small cache
// before a descent in its keys grows it back: a sweep that comes back
// over keys already written (the next seed over the same tasks) lands
// each key beside an earlier one, all over the index. Up to 100,000
// rows the kernel's page cache absorbs the small cache's misses (the
// one-run shape keeps its gain), but at a million (a sweep of 1,000
// tasks a seed) `import --rules` took 20.0 s, 9.3 s of it in the
// kernel, against the 16 MiB cache's 11.2 s and 2.3 s; growing the
// cache at the first descent past 100,000 rows gives 10.7 s and 2.3 s.
// At 50,000 the 100,000-row one-run import lost its gain (1.40 -> 1.8 s).
const sweepRows = 100_000

// growCache gives the import the usual page cache for the rest of its
// transaction once a batch's keys come in no order. The small cache
// (pinBulk) is right for rows in key order, or in a few long ascending
// sweeps, the way harnesses and gentraces write them (the one-run shape
// is seed after seed, each over the 1,000 tasks: 99 descents in 100,000
// rows): each new key lands next to the one before in the traces' unique
// index, on a page already in the cache. Rows in no order put each key
// on a page of the index of its own: with 2 MiB of cache for the index
// of a million traces (about 25 MB) nearly every insert read a page back
// and wrote one out, and a shuffled million-row `import --rules` took
// 33 s of CPU against the 16 MiB cache's 24 s (docs/PERFORMANCE.md). So
// the first batch with more than one descent in maxDescents grows the
// cache back, for good, and so does any descent once the import has
// written sweepRows traces; an import in order never pays for it.
func (im *Import) growCache(ctx context.Context, descents, n int) error {
	im.written += n
	if im.grown || (descents*maxDescents <= n && (descents == 0 || im.written <= im.sweepRows)) {
		return nil
	}
	if _, err := im.tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, cacheKiB)); err != nil {
		return mapErr(err)
	}
	im.grown = true
	return nil
}
