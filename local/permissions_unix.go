//go:build unix

package local

import (
	"io/fs"
	"syscall"
)

// ownerOf returns the uid owning the file fi describes.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
