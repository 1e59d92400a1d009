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
		err = s.db.Update(func(tx *bolt.Tx) error { return applyOverlay(tx, frozen, log.epoch) })
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
	if err := s.db.Update(func(tx *bolt.Tx) error { return applyOverlay(tx, s.over, s.log.epoch) }); err != nil {
		return err
	}
	if err := s.log.writeHeader(s.epochs.Add(1)); err != nil {
		return err
	}
	s.log.allDurable() // in the bbolt file now, whatever the log's state
	s.over = overlay{}
	return nil
}

// applyOverlay writes o into the bbolt file and records, in the same
// transaction, that the log records of epochs up to epoch are in it: a
// replay never applies them again over newer state.
func applyOverlay(tx *bolt.Tx, o overlay, epoch uint64) error {
	if err := setAppliedEpoch(tx, epoch); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(o)) {
		if err := checkpointBucket(tx, []byte(name), o[name]); err != nil {
			return fmt.Errorf("checkpoint bucket %q: %w", name, err)
		}
	}
	return nil
}

func checkpointBucket(tx *bolt.Tx, name []byte, ob *overBucket) error {
	var b *bolt.Bucket
	if ob.fresh {
		if err := tx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		if !ob.exists {
			return nil
		}
		var err error
		if b, err = tx.CreateBucket(name); err != nil {
			return err
		}
	} else if b = tx.Bucket(name); b == nil {
		// The overlay only changes buckets the file has.
		return errors.New("bucket missing from the data file")
	}
	if appendsOnly(b, ob.t) {
		// Keys arrive in order past the last one (a new bucket, a growing
		// sequence): fill pages instead of splitting them half full, as bbolt
		// does for keys it expects between existing ones.
		b.FillPercent = 1.0
	}
	for _, blk := range ob.t.blocks {
		for _, e := range blk {
			var err error
			if isTombstone(e.v) {
				err = b.Delete(e.k)
			} else {
				err = b.Put(e.k, e.v)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// appendsOnly reports whether every key of t sorts after b's last key.
func appendsOnly(b *bolt.Bucket, t *memTree) bool {
	if len(t.blocks) == 0 {
		return false
	}
	last, _ := b.Cursor().Last()
	return last == nil || bytes.Compare(t.blocks[0][0].k, last) > 0
}
