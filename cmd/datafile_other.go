//go:build !unix

package cmd

// lockedByAnother cannot tell here; the command waits without a notice.
func lockedByAnother(string) bool { return false }

// processAlive cannot tell here; the server's answer decides.
func processAlive(pid int) bool { return pid > 0 }
