package kv

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// dontNeed tells the kernel that the mapped range [addr, addr+size) is not
// needed: its pages leave the process's resident set. For a shared file
// mapping the next access reads the file's current contents again.
func dontNeed(addr, size uintptr) {
	// The address is passed as a number: the range is bbolt's mapping, not
	// memory of Go's.
	syscall.Syscall(syscall.SYS_MADVISE, addr, size, syscall.MADV_DONTNEED)
}

// residentFileBytes is how much of the process's resident memory is file
// pages mapped into it (RssFile plus RssShmem): the third field of
// /proc/self/statm, in pages.
func residentFileBytes() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil {
		return 0, false
	}
	return n * int64(os.Getpagesize()), true
}
