//go:build unix

package cmd

import (
	"os"
	"strconv"
	"syscall"
)

// processAlive reports whether pid is a live process of this user. Only
// this user's serve records are read (writtenByThisUserOnly), so the server
// that wrote one ran as this user: a process of another user with its id
// is not that server but the id reused since, and another user may be the
// one answering on the recorded address.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil {
		return false // gone, or another user's (EPERM)
	}
	// Root may signal every process: where /proc is, its owner tells.
	var st syscall.Stat_t
	if syscall.Stat("/proc/"+strconv.Itoa(pid), &st) == nil {
		return int(st.Uid) == os.Getuid()
	}
	return true
}

// writtenByThisUserOnly reports whether the file belongs to this user and
// no one else may write it.
func writtenByThisUserOnly(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid() && st.Mode().Perm()&0o022 == 0
}
