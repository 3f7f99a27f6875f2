package pack

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
)

// A full dataset hash reads every byte of the pack: 3.5 GB for 100k tasks
// of 1,000 allowlist globs, on every `rules run` and `import --rules`
// (issue 27). CachedHash reads the pack's stats instead and takes the hash
// of the last full read when they are the same: the way git trusts its
// index. What the stats cover, and what they cannot, is said on
// CachedHash.

// statPrint is the digest of a pack's files' stats: for each regular file,
// in hash order, its name, size, modification and change times (to the
// nanosecond), inode, device and mode. newest is the latest of the
// times seen.
type statPrint struct {
	h      hash.Hash
	line   []byte
	newest time.Time
}

func newStatPrint() *statPrint { return &statPrint{h: sha256.New()} }

func (s *statPrint) add(name string, info fs.FileInfo) {
	x := statExtra(info)
	l := append(s.line[:0], name...)
	l = append(l, 0)
	l = strconv.AppendInt(l, info.Size(), 10)
	l = append(l, ' ')
	l = strconv.AppendInt(l, info.ModTime().UnixNano(), 10)
	l = append(l, ' ')
	l = strconv.AppendInt(l, x.ctime.UnixNano(), 10)
	l = append(l, ' ')
	l = strconv.AppendUint(l, x.ino, 10)
	l = append(l, ' ')
	l = strconv.AppendUint(l, x.dev, 10)
	l = append(l, ' ')
	l = strconv.AppendUint(l, uint64(info.Mode()), 10)
	l = append(l, '\n')
	s.h.Write(l)
	s.line = l
	for _, t := range []time.Time{info.ModTime(), x.ctime} {
		if t.After(s.newest) {
			s.newest = t
		}
	}
}

func (s *statPrint) sum() string { return hex.EncodeToString(s.h.Sum(nil)) }

// statOf returns the stat digest of the pack at dir without reading any
// file, and the number of files.
func statOf(dir string) (string, int, error) {
	r, tasks, err := openDir(dir)
	if err != nil {
		return "", 0, err
	}
	defer r.Close()
	st := newStatPrint()
	n := 0
	err = walkSorted(rootTree(r), tasks, func(f packFile, e *walkEntry) error {
		info, err := e.de.Info()
		if err != nil {
			return err
		}
		st.add(f.name, info)
		n++
		return nil
	})
	return st.sum(), n, err
}

// settleTime is how recent a file's time may be for its stat to stand
// for its content: a file written again within the clock tick of the
// last write (coarse file-system times: 2 s on FAT) keeps its stat, so a
// stat that recent is not recorded, and the next load reads the pack
// again.
const settleTime = 2 * time.Second

// hashRecord is what the cache keeps of a pack's last full read.
type hashRecord struct {
	Dir    string    `json:"dir"`
	Stat   string    `json:"stat"`
	SHA256 string    `json:"sha256"`
	Files  int       `json:"files"`
	At     time.Time `json:"hashed_at"`
}

// cacheDir is where the records of full reads are kept ("": nowhere,
// every CachedHash reads the whole pack). The package keeps none unless
// told (SetCacheDir): the command sets it, a library test does not
// write to the user's cache.
var cacheDir atomic.Pointer[string]

// SetCacheDir sets the directory of the records CachedHash trusts (""
// for none). The command line uses triage/packs under the user's cache
// directory, or $TRIAGE_CACHE_DIR.
func SetCacheDir(dir string) { cacheDir.Store(&dir) }

// cacheFile returns the cache file of the pack at abs, or "" when there
// is no cache.
func cacheFile(abs string) string {
	dir := cacheDir.Load()
	if dir == nil || *dir == "" {
		return ""
	}
	key := sha256.Sum256([]byte(abs))
	return filepath.Join(*dir, hex.EncodeToString(key[:16])+".json")
}

// fullHash reads the whole pack at dir and records its hash and stats
// for CachedHash (unless a file is too recent, see settleTime).
func fullHash(dir string) (string, error) {
	r, tasks, err := openDir(dir)
	if err != nil {
		return "", fmt.Errorf("pack hash: %w", err)
	}
	defer r.Close()
	start := time.Now()
	st := newStatPrint()
	// The files are read through the Root itself, not its fs.FS: io/fs
	// refuses a name that is not UTF-8 ("invalid argument"), and the
	// seed's shell pipeline hashes such names like any other (issue 17).
	sum, n, err := hashWalk(rootTree(r), tasks, st)
	if err != nil {
		return "", err
	}
	if st.newest.Before(start.Add(-settleTime)) {
		record(dir, hashRecord{Stat: st.sum(), SHA256: sum, Files: n, At: start.UTC()})
	}
	return sum, nil
}

// record writes rec for the pack at dir. A cache that cannot be written
// costs the next load a full read, nothing else, so its error is dropped.
func record(dir string, rec hashRecord) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	f := cacheFile(abs)
	if f == "" {
		return
	}
	rec.Dir = abs
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(f), ".pack-*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), f) != nil {
		os.Remove(tmp.Name())
	}
}

// recorded returns the cache's record of the pack at dir.
func recorded(dir string) (hashRecord, bool) {
	var rec hashRecord
	abs, err := filepath.Abs(dir)
	if err != nil {
		return rec, false
	}
	f := cacheFile(abs)
	if f == "" {
		return rec, false
	}
	data, err := os.ReadFile(f)
	if err != nil || json.Unmarshal(data, &rec) != nil || rec.Dir != abs {
		return rec, false
	}
	return rec, true
}

// HashSource says how CachedHash got its answer.
type HashSource int

// The ways CachedHash answers.
const (
	// HashRead: every file was read (no record, or the stats changed).
	HashRead HashSource = iota
	// HashRecorded: the stats are those of the last full read, whose hash
	// this is; no file was read.
	HashRecorded
)

// CachedHash returns the dataset hash of the pack at dir, as Hash does,
// reading every file only when it must. It walks the pack and takes each
// regular file's stat (name, size, modification and change time to the
// nanosecond, inode, device, mode); when they are exactly those of the
// last full read of this directory (card init, pack hash, pack check,
// card verify, or a CachedHash that had to read), that read's hash is the
// answer. Otherwise it reads the whole pack, as Hash does, and records it.
//
// What it does not see: a file rewritten with the same size while its
// modification time, change time and inode all stay the same. The change
// time cannot be set back by touch or any other call (only by moving the
// system clock, or by writing the disk under the file system), so an
// edit, a copy over, a rename or a file added or removed always shows. A
// record is only made when every file is older than settleTime, so that
// two writes in one clock tick cannot share a stat. Outside Linux (where no
// change time or inode is read) the stats are size and
// modification time only. With no cache directory (SetCacheDir) every
// call reads the whole pack.
func CachedHash(dir string) (string, HashSource, error) {
	if rec, ok := recorded(dir); ok {
		st, n, err := statOf(dir)
		if err != nil {
			return "", HashRead, fmt.Errorf("pack hash: %w", err)
		}
		if st == rec.Stat && n == rec.Files {
			return rec.SHA256, HashRecorded, nil
		}
	}
	sum, err := fullHash(dir)
	return sum, HashRead, err
}
