package kv

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// startCheckpoint freezes the active overlay and writes it into the bbolt
// file in the background. If the previous background checkpoint is still
// running it waits for it: that is the writers' backpressure. A failure
// leaves the store broken (see usable), which fails later writes and Close.
func (s *File) startCheckpoint() {
	defer s.lockForCheckpoint()()
	if s.usable() != nil || s.log.end-logHeaderSize < s.checkpointBytes {
		return // broken already, or another writer got here first
	}
	// The frozen records must be durable before their log stops being the
	// one readers wait for (a failed sync marks the log failed).
	if s.log.syncTo(s.log.written.Load(), false) != nil {
		return
	}
	if err := s.spare.writeHeader(s.epochs.Add(1)); err != nil {
		s.broken = err
		return
	}
	s.frozen, s.over = s.over, overlay{}
	s.log, s.spare = s.spare, s.log
	done := make(chan struct{})
	s.flushing = done
	go s.flush(s.frozen, s.spare, done)
}

// lockForCheckpoint waits for a running background checkpoint and takes the
// checkpoint and write locks; the function it returns releases them.
func (s *File) lockForCheckpoint() (unlock func()) {
	s.ckptMu.Lock()
	if s.flushing != nil {
		<-s.flushing // it takes s.mu to finish: not held yet
		s.flushing = nil
	}
	s.mu.Lock()
	return func() {
		s.mu.Unlock()
		s.ckptMu.Unlock()
	}
}

// flush is the background checkpoint: frozen into the bbolt file, then its
// log retired. Readers keep seeing frozen until it is dropped, so no state
// is ever missing; bbolt's snapshots keep readers that began before the
// commit consistent.
func (s *File) flush(frozen overlay, log *walLog, done chan struct{}) {
	defer close(done)
	err := s.flushFault
	if err == nil {
		err = s.applyOverlay(frozen, log.epoch)
	}
	if err == nil {
		err = log.writeHeader(s.epochs.Add(1))
	}
	s.mu.Lock()
	if err != nil {
		s.broken = fmt.Errorf("checkpoint: %w", err)
	} else {
		s.frozen = nil
	}
	s.mu.Unlock()
}

// checkpointNow writes everything into the bbolt file before it returns.
func (s *File) checkpointNow() error {
	defer s.lockForCheckpoint()()
	// Broken first: a failed background checkpoint leaves records that only
	// a reopen can bring back, even when nothing was written since.
	if err := s.usable(); err != nil {
		return err
	}
	if len(s.over) == 0 && s.log.end == logHeaderSize {
		return nil
	}
	if err := s.applyOverlay(s.over, s.log.epoch); err != nil {
		return err
	}
	if err := s.log.writeHeader(s.epochs.Add(1)); err != nil {
		return err
	}
	s.log.allDurable() // in the bbolt file now, whatever the log's state
	s.over = overlay{}
	return nil
}

// applyOverlay writes o into the bbolt file and records, in the last of
// its transactions, that the log records of epochs up to epoch are in it: a
// replay never applies them again over newer state.
//
// A transaction's dirty pages are held in memory until it commits, so o is
// written in as many transactions as it needs to keep each one's pages (its
// materialised nodes and the bytes put into them) within s.stepBytes: the
// memory of a checkpoint does not grow with the data file. Each commit is
// an ordinary, fsynced bbolt commit. Until the last one, the file may hold
// part of o without its epoch: the log still holds all of o then, and a
// replay over such a file ends in the same state as over the file before
// the checkpoint — a put or delete sets its key whatever it held, a bucket
// the log drops or creates is dropped or created again, and keys o does not
// touch are untouched by both — so a crash between them loses nothing.
// After each commit the pages the checkpoint read through bbolt's mapping
// are released (releaseMapped).
func (s *File) applyOverlay(o overlay, epoch uint64) (err error) {
	c := &ckptTx{s: s, nodeBytes: max(int64(s.db.Info().PageSize), faultAround)}
	defer c.rollback()
	for _, name := range slices.Sorted(maps.Keys(o)) {
		if err := c.bucket([]byte(name), o[name]); err != nil {
			return fmt.Errorf("checkpoint bucket %q: %w", name, err)
		}
	}
	if err := c.begin(); err != nil {
		return err
	}
	if err := setAppliedEpoch(c.tx, epoch); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return c.commit(true)
}

// ckptTx is the bbolt transaction a checkpoint is writing, committed and
// replaced whenever its pages reach the step's bound.
type ckptTx struct {
	s         *File
	tx        *bolt.Tx // nil between transactions
	put       int64    // key and value bytes put in tx
	commits   int      // transactions committed so far
	nodeBytes int64    // what a materialised node counts for: a page, at least faultAround
}

// faultAround is how much of a mapped file Linux maps around a page fault
// (fault_around_bytes), when those pages are in the page cache.
const faultAround = 64 << 10

func (c *ckptTx) begin() error {
	if c.tx != nil {
		return nil
	}
	tx, err := c.s.db.Begin(true)
	if err != nil {
		return err
	}
	c.tx, c.put = tx, 0
	return nil
}

// commit commits tx and releases the pages it mapped; last says whether it
// is the checkpoint's last transaction.
func (c *ckptTx) commit(last bool) error {
	tx := c.tx
	c.tx = nil
	if err := tx.Commit(); err != nil {
		return err
	}
	c.commits++
	var err error
	if f := c.s.stepFault; f != nil && !last {
		err = f(c.commits)
	}
	c.s.releaseMapped()
	return err
}

func (c *ckptTx) rollback() {
	if c.tx != nil {
		c.tx.Rollback()
		c.tx = nil
	}
}

// full reports whether tx holds a step's worth of pages: every node it
// materialised (a page read, to be written anew) and the bytes put. A node
// counts at least faultAround: reading a page through the mapping maps
// that much of the file around it.
func (c *ckptTx) full() bool {
	st := c.tx.Stats()
	return st.GetNodeCount()*c.nodeBytes+c.put >= c.s.stepBytes
}

// bucket writes one bucket's changes, committing along the way as full
// asks.
func (c *ckptTx) bucket(name []byte, ob *overBucket) error {
	if err := c.begin(); err != nil {
		return err
	}
	var b *bolt.Bucket
	if ob.fresh {
		if err := c.tx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		if !ob.exists {
			return nil
		}
		var err error
		if b, err = c.tx.CreateBucket(name); err != nil {
			return err
		}
	} else if b = c.tx.Bucket(name); b == nil {
		// The overlay only changes buckets the file has.
		return errors.New("bucket missing from the data file")
	}
	b.FillPercent = checkpointFill
	if appendsOnly(b, ob.t) {
		// Keys arrive in order past the last one (a new bucket, a growing
		// sequence): fill pages instead of splitting them short, as bbolt
		// does for keys it expects between existing ones. What is left of
		// them after a commit still lies past the last key.
		b.FillPercent = 1.0
	}
	fill := b.FillPercent
	return ob.t.all(func(k, v []byte) error {
		if c.full() {
			if err := c.commit(false); err != nil {
				return err
			}
			if err := c.begin(); err != nil {
				return err
			}
			// The bucket exists now, fresh or not.
			if b = c.tx.Bucket(name); b == nil {
				return errors.New("bucket missing from the data file")
			}
			b.FillPercent = fill
		}
		if isTombstone(v) {
			return b.Delete(k)
		}
		c.put += int64(len(k) + len(v))
		return b.Put(k, v)
	})
}

// checkpointFill is how full a checkpoint fills the pages it splits, where
// bbolt's default is half: a bulk load's index keys land between existing
// ones in every checkpoint, and half-full pages made its data file 37%
// larger and its checkpoints write 11% more for the same items, while
// fuller still (95%) leaves the remainder of each split nearly empty
// (bench/results/2026-12-01-bulk.md has the figures).
const checkpointFill = 0.8

// appendsOnly reports whether every key of t sorts after b's last key.
func appendsOnly(b *bolt.Bucket, t *memTree) bool {
	first := t.firstKey()
	if first == nil {
		return false
	}
	last, _ := b.Cursor().Last()
	return last == nil || bytes.Compare(first, last) > 0
}
