package kv

import (
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// bbolt reads the data file through a shared read-only mapping, and every
// page a read or a checkpoint touches stays mapped — counted in the
// process's resident memory — until it is unmapped: a bulk load, whose
// checkpoints and counter reads sweep the whole file, would end up holding
// all of it. The store therefore drops the mapped pages after each
// checkpoint transaction and, for reads, whenever the process's resident
// file-backed pages have grown by mappedSlack since the last drop, looking
// every mappedCheckReads reads of the file. Dropped pages stay in the
// kernel's page cache; the next access maps them again with a minor fault.

const (
	// mappedSlack is how far the process's resident file-backed pages (the
	// data file's and the program's own) may grow before a drop.
	mappedSlack = 8 << 20
	// mappedCheckReads is how many reads of the bbolt file (a Get, a cursor
	// counting for cursorReads) pass between looks at the resident pages:
	// a random read maps up to faultAround, so this bounds the growth
	// between looks to about 8 MiB.
	mappedCheckReads = 128
	cursorReads      = 16
)

// mappedPages tracks the reads that may have left pages mapped.
type mappedPages struct {
	reads atomic.Int64 // reads since the last look
	base  atomic.Int64 // resident file-backed bytes after the last drop
	size  atomic.Int64 // the largest committed file size: all mapped
}

// read notes n reads made in btx, and every mappedCheckReads drops the
// mapped pages if they have grown by mappedSlack.
func (s *File) read(btx *bolt.Tx, n int64) {
	if s.mapped.reads.Add(n) < mappedCheckReads {
		return
	}
	s.mapped.reads.Store(0)
	if cur, ok := residentFileBytes(); ok && cur >= s.mapped.base.Load()+mappedSlack {
		s.dropMapped(btx)
	}
}

// dropMapped drops the bbolt file's pages from the process's memory map.
// btx, open, holds bbolt's mapping in place (a remap waits for every
// reader), and the mapping covers every size a commit has given the file,
// so the range is bbolt's mapping and nothing else.
func (s *File) dropMapped(btx *bolt.Tx) {
	size := max(btx.Size(), s.mapped.size.Load())
	s.mapped.size.Store(size)
	dontNeed(s.db.Info().Data, uintptr(size))
	if n, ok := residentFileBytes(); ok {
		s.mapped.base.Store(n)
	}
}

// releaseMapped drops the mapped pages from a read transaction of its own
// (the caller holds none).
func (s *File) releaseMapped() {
	s.db.View(func(tx *bolt.Tx) error {
		s.dropMapped(tx)
		return nil
	})
}
