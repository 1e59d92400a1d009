//go:build unix

package cmd

import (
	"errors"
	"os"
	"syscall"
)

// processAlive reports whether a process with pid exists.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// writtenByThisUserOnly reports whether the file belongs to this user and
// no one else may write it.
func writtenByThisUserOnly(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid() && st.Mode().Perm()&0o022 == 0
}
