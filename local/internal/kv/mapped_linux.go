package kv

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
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

// statm is /proc/self/statm, opened once: each look is then one pread.
var statm = sync.OnceValue(func() *os.File {
	f, _ := os.Open("/proc/self/statm")
	return f
})

// residentFileBytes is how much of the process's resident memory is file
// pages mapped into it (RssFile plus RssShmem): the third field of
// /proc/self/statm, in pages.
func residentFileBytes() (int64, bool) {
	f := statm()
	if f == nil {
		return 0, false
	}
	var buf [128]byte
	n, err := f.ReadAt(buf[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	fields := bytes.Fields(buf[:n])
	if len(fields) < 3 {
		return 0, false
	}
	pages, err := strconv.ParseInt(string(fields[2]), 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
