//go:build !unix

package cmd

import "os"

// processAlive cannot tell here; the server's answer decides.
func processAlive(pid int) bool { return pid > 0 }

// writtenByThisUserOnly cannot tell here; the server's answer decides.
func writtenByThisUserOnly(os.FileInfo) bool { return true }
