//go:build !linux

package pack

import (
	"io/fs"
	"time"
)

// fileExtra is what a stat holds beyond fs.FileInfo.
type fileExtra struct {
	ctime    time.Time
	ino, dev uint64
}

// statExtra has nothing beyond fs.FileInfo to read here: the stat check
// is size and modification time only.
func statExtra(fs.FileInfo) fileExtra { return fileExtra{} }
