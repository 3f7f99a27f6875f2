//go:build linux

package pack

import (
	"io/fs"
	"syscall"
	"time"
)

// fileExtra is what a stat holds beyond fs.FileInfo.
type fileExtra struct {
	ctime    time.Time
	ino, dev uint64
}

// statExtra reads the change time, inode and device of info.
func statExtra(info fs.FileInfo) fileExtra {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileExtra{}
	}
	return fileExtra{ctime: time.Unix(st.Ctim.Sec, st.Ctim.Nsec), ino: st.Ino, dev: uint64(st.Dev)}
}
