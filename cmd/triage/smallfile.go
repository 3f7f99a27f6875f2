package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// Limits on the files triage reads whole: a 1 GB config.toml took 4.6 GB
// of memory to refuse, /dev/zero 1.9 GB before it failed, and a FIFO named
// as config.toml hung every command.
const (
	// maxSettingsBytes bounds a config, taxonomy or key map file: each is
	// a few KB written by hand.
	maxSettingsBytes = 4 << 20
	// maxCardBytes bounds a card given to card verify or compare.
	maxCardBytes = 64 << 20
)

// readSmallFile reads a whole file that must be a regular file of at most
// limit bytes. It is opened without blocking, so a FIFO is refused rather
// than waited on, and a device (/dev/zero) is refused before any read.
// Errors are *os.PathError values, so fs.ErrNotExist still matches.
func readSmallFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file (%s)", fileKind(fi.Mode()))}
	}
	if fi.Size() > limit {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("%d bytes is more than the %d MiB such a file may hold", fi.Size(), limit>>20)}
	}
	// The size can grow while it is read: read one byte past the limit
	// to tell.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("more than the %d MiB such a file may hold", limit>>20)}
	}
	return data, nil
}

// fileKind names what a non-regular file is, for the refusal.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}
