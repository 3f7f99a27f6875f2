package pack

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// TasksDir is the conventional name of a pack's directory of tasks. The
// dataset hash always names files "tasks/…", whatever the directory is
// called on disk, so that a renamed copy of a pack keeps its hash.
const TasksDir = "tasks"

// Hash returns the dataset hash of the pack at dir: exactly the hex digest
// that
//
//	find tasks -type f | LC_ALL=C sort | xargs sha256sum | sha256sum
//
// prints when run from the pack's parent directory, whatever the current
// working directory is.
//
// dir is either the tasks directory itself or a directory that contains
// tasks/ (when dir is not named "tasks" and holds a "tasks" sub-directory,
// that sub-directory is the pack). Files are named "tasks/<path>" in the
// hash even when the directory has another name.
//
// Like find -type f, only regular files count: symbolic links, devices and
// directories do not. Names that the literal pipeline mangles (xargs splits
// on blanks and interprets quotes) are hashed as the NUL-safe pipeline
// (find -print0 | sort -z | xargs -0) hashes them; names containing a
// backslash, newline or carriage return are escaped as GNU sha256sum 9.x
// escapes them. An empty pack hashes as the pipeline does: xargs runs
// sha256sum once on empty standard input.
func Hash(dir string) (string, error) {
	// The read is recorded for CachedHash.
	return fullHash(dir)
}

// HashFS is Hash over a file system, for packs that are not on disk (the
// embedded sample). root is the tasks directory inside fsys, or a
// directory containing tasks/, with the same rule as Hash; "." is the top.
func HashFS(fsys fs.FS, root string) (string, error) {
	tasks, err := tasksRoot(fsys, root)
	if err != nil {
		return "", fmt.Errorf("pack hash: %w", err)
	}
	return hashTasks(fsTree(fsys), tasks)
}

// hashTasks hashes the resolved tasks directory of t.
func hashTasks(t tree, tasks string) (string, error) {
	sum, _, err := hashWalk(t, tasks, nil)
	return sum, err
}

// hashWalk hashes the tasks directory of t as it walks it, in the order
// the pipeline sorts the names, holding one directory's entries a level
// and never the list of every file (a list of the 300k files of a 100k-task
// pack was most of card init's 143 MiB, issue 27). With st, each file's
// stat (taken before it is read) goes into st too. It returns the hash and
// the number of files.
func hashWalk(t tree, tasks string, st *statPrint) (string, int, error) {
	outer := sha256.New()
	inner := sha256.New()
	buf := make([]byte, 64<<10)
	line := make([]byte, 0, 256)
	n := 0
	err := walkSorted(t, tasks, func(f packFile, e *walkEntry) error {
		if st != nil {
			info, err := e.de.Info()
			if err != nil {
				return err
			}
			st.add(f.name, info)
		}
		sum, err := hashFile(t.open, f.fsPath, inner, buf)
		if err != nil {
			return err
		}
		line = appendSumLine(line[:0], sum, f.name)
		outer.Write(line)
		n++
		return nil
	})
	if err != nil {
		return "", 0, fmt.Errorf("pack hash: %w", err)
	}
	if n == 0 {
		// xargs runs sha256sum once with no argument; it reads the empty
		// standard input and prints the digest of nothing, named "-".
		sum := sha256.Sum256(nil)
		fmt.Fprintf(outer, "%x  -\n", sum)
	}
	return hex.EncodeToString(outer.Sum(nil)), n, nil
}

// packFile is a regular file of the pack: its path in the file system and
// its name as find prints it ("tasks/…").
type packFile struct {
	fsPath string
	name   string
}

// tree is how the hash reads a pack: an fs.FS, or an os.Root on disk,
// which takes names io/fs refuses (not UTF-8) as the shell does.
type tree struct {
	open    func(name string) (io.ReadCloser, error)
	readDir func(name string) ([]fs.DirEntry, error)
}

func fsTree(fsys fs.FS) tree {
	return tree{
		open:    func(name string) (io.ReadCloser, error) { return fsys.Open(name) },
		readDir: func(name string) ([]fs.DirEntry, error) { return fs.ReadDir(fsys, name) },
	}
}

func rootTree(r *os.Root) tree {
	return tree{
		open: func(name string) (io.ReadCloser, error) { return r.Open(name) },
		readDir: func(name string) ([]fs.DirEntry, error) {
			f, err := r.Open(name)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return f.ReadDir(-1)
		},
	}
}

// walkEntry is a directory entry the walk keeps while it is inside that
// directory: key is the name, with a "/" after a directory's, so that
// sorting the keys of one directory sorts the whole paths under it as
// LC_ALL=C sort does ("a.txt" < "a/b" because '.' < '/'; a name holds no
// "/", so no other key can tie or interleave). de is kept for a regular
// file's stat only.
type walkEntry struct {
	key string
	de  fs.DirEntry
}

func (e *walkEntry) dir() bool { return strings.HasSuffix(e.key, "/") }

// walkHeld counts the entries walkSorted holds at once and the most it
// has held, for the test that holds the hash's memory to a directory's
// entries and the depth, not the pack's files.
var walkHeld struct {
	sync.Mutex
	on        bool
	now, peak int
}

func noteHeld(d int) {
	walkHeld.Lock()
	if walkHeld.on {
		walkHeld.now += d
		walkHeld.peak = max(walkHeld.peak, walkHeld.now)
	}
	walkHeld.Unlock()
}

// walkSorted calls fn with every regular file under tasks, in C locale
// order of the whole name (byte order, as LC_ALL=C sort does). Like find,
// it does not follow symbolic links. It holds the entries of the
// directories from tasks down to the one it is in, nothing else.
func walkSorted(t tree, tasks string, fn func(f packFile, e *walkEntry) error) error {
	var walk func(dir, rel string) error
	walk = func(dir, rel string) error {
		des, err := t.readDir(dir)
		if err != nil {
			return err
		}
		entries := make([]walkEntry, 0, len(des))
		for _, de := range des {
			switch {
			case de.IsDir():
				entries = append(entries, walkEntry{key: de.Name() + "/"})
			case de.Type().IsRegular():
				entries = append(entries, walkEntry{key: de.Name(), de: de})
			}
		}
		des = nil
		noteHeld(len(entries))
		defer noteHeld(-len(entries))
		slices.SortFunc(entries, func(a, b walkEntry) int { return strings.Compare(a.key, b.key) })
		for i := range entries {
			e := &entries[i]
			if e.dir() {
				name := e.key[:len(e.key)-1]
				if err := walk(path.Join(dir, name), rel+"/"+name); err != nil {
					return err
				}
				continue
			}
			if err := fn(packFile{fsPath: path.Join(dir, e.key), name: TasksDir + rel + "/" + e.key}, e); err != nil {
				return err
			}
			e.de = nil
		}
		return nil
	}
	return walk(tasks, "")
}

// hashFile streams one file through h and returns its digest.
func hashFile(open func(string) (io.ReadCloser, error), name string, h hash.Hash, buf []byte) ([]byte, error) {
	f, err := open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h.Reset()
	if _, err := io.CopyBuffer(h, onlyReader{f}, buf); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return h.Sum(nil), nil
}

// onlyReader hides WriterTo so io.CopyBuffer uses the shared buffer.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// appendSumLine appends the line sha256sum prints for one file. GNU
// sha256sum marks a name holding a backslash, newline or carriage return
// with a leading backslash and escapes those characters.
func appendSumLine(dst, sum []byte, name string) []byte {
	escape := strings.ContainsAny(name, "\\\n\r")
	if escape {
		dst = append(dst, '\\')
	}
	dst = hex.AppendEncode(dst, sum)
	dst = append(dst, ' ', ' ')
	if !escape {
		dst = append(dst, name...)
		return append(dst, '\n')
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '\n')
}

// openDir opens dir confined to it (symbolic links cannot lead outside)
// and returns the file system with the tasks directory inside it. The
// caller closes the Root.
func openDir(dir string) (*os.Root, string, error) {
	if dir == "" {
		return nil, "", errors.New("no directory given")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, "", err
	}
	if !fi.IsDir() {
		return nil, "", fmt.Errorf("%s: not a directory", dir)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", err
	}
	if filepath.Base(filepath.Clean(dir)) == TasksDir {
		return r, ".", nil
	}
	tasks, err := tasksRoot(r.FS(), ".")
	if err != nil {
		r.Close()
		return nil, "", err
	}
	return r, tasks, nil
}

// tasksRoot resolves root to the tasks directory inside fsys: root itself
// when it is named "tasks" or has no "tasks" sub-directory, else
// root/tasks.
func tasksRoot(fsys fs.FS, root string) (string, error) {
	if root == "" {
		root = "."
	}
	root = path.Clean(root)
	fi, err := fs.Stat(fsys, root)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s: not a directory", root)
	}
	if path.Base(root) == TasksDir {
		return root, nil
	}
	sub := path.Join(root, TasksDir)
	if fi, err := fs.Stat(fsys, sub); err == nil && fi.IsDir() {
		return sub, nil
	}
	return root, nil
}
