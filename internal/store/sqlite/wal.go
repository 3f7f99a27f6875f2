package sqlite

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// ErrWALLost says the store's write-ahead log was deleted or replaced
// while this process had the store open. SQLite goes on writing into the
// file it has open, which no other process can see any more and which is
// gone when this process closes, so what it committed since may be lost:
// an import reported "40000 imported" (exit 0) of which the store held
// 30000, and check found nothing wrong, since what remains is sound.
var ErrWALLost = errors.New("the store's write-ahead log was deleted or replaced")

// walWatch remembers the WAL file this process writes through, to notice
// when the file at the WAL's path is no longer it.
type walWatch struct {
	mu sync.Mutex
	fi os.FileInfo
}

// walIntact checks, after a commit, that the WAL at the store's path is
// still the one this process opened. The first check after open records
// it (the WAL is made by the first connection that reads the store). A
// connection of this process keeps the store open throughout, and SQLite
// deletes the WAL only when the last connection closes, so only another
// program can have removed it meanwhile.
func (s *DB) walIntact() error {
	if s.readOnly || s.queue.path == "" {
		return nil // a read-only or in-memory store, or a file: URI
	}
	wal := s.path + "-wal"
	fi, err := os.Stat(wal)
	s.wal.mu.Lock()
	defer s.wal.mu.Unlock()
	if s.wal.fi == nil {
		if err == nil {
			s.wal.fi = fi
		}
		return nil
	}
	if err == nil && os.SameFile(s.wal.fi, fi) {
		return nil
	}
	what := "deleted"
	if err == nil {
		what = "replaced by another file"
	}
	return fmt.Errorf("%w: %s was %s while this process wrote to the store (another program removed it): what it committed since may not be in the store, and what it reported since does not count; run the command again, which adds what is missing", ErrWALLost, wal, what)
}

// committed checks the WAL after a commit: a commit that succeeded into
// a WAL no one else can see is reported as lost.
func (s *DB) committed(err error) error {
	if err != nil {
		return mapErr(err)
	}
	return s.walIntact()
}
