package kv

import "errors"

// What the engine's tests and benchmarks observe and steer in a File, so
// that they need neither its fields nor bbolt.

// FileStats counts what a File has done since it was opened.
type FileStats struct {
	LogSyncs int64  // fsyncs of the logs made for records
	Epoch    uint64 // the newest log epoch: each checkpoint begins one
	PageSize int    // the bbolt file's page size
}

// Stats returns the store's counts.
func (s *File) Stats() FileStats {
	return FileStats{
		LogSyncs: s.log.syncs.Load() + s.spare.syncs.Load(),
		Epoch:    s.epochs.Load(),
		PageSize: s.db.Info().PageSize,
	}
}

// SetCheckpointBytes changes Options.CheckpointBytes of an open store.
func (s *File) SetCheckpointBytes(n int64) {
	s.mu.Lock()
	s.checkpointBytes = n
	s.mu.Unlock()
}

// Checkpoint writes everything the logs hold into the bbolt file before it
// returns.
func (s *File) Checkpoint() error { return s.checkpointNow() }

// Crash closes the files without a checkpoint, as kill -9 leaves them once
// every fsync has returned (a running background checkpoint finishes
// first: in-process, its bbolt transaction cannot be cut short). The next
// OpenFile recovers from the logs.
func (s *File) Crash() {
	s.waitFlush()
	s.log.f.Close()
	s.spare.f.Close()
	s.db.Close()
}

// waitFlush waits for a running background checkpoint to end.
func (s *File) waitFlush() {
	s.ckptMu.Lock()
	if s.flushing != nil {
		<-s.flushing
	}
	s.ckptMu.Unlock()
}

// HoldCheckpoint freezes the active overlay and starts its checkpoint,
// which then waits until release is called: meanwhile reads go through
// three layers (the new active overlay, the frozen one and the bbolt file)
// and writes go to the new active overlay. release returns once the
// checkpoint has ended. The active log must hold a record.
func (s *File) HoldCheckpoint() (release func(), err error) {
	btx, err := s.db.Begin(true) // bbolt's writer lock: the checkpoint waits for it
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	limit := s.checkpointBytes
	s.checkpointBytes = 1
	s.mu.Unlock()
	s.startCheckpoint()
	s.mu.Lock()
	s.checkpointBytes = limit
	frozen := s.frozen != nil
	s.mu.Unlock()
	if !frozen {
		btx.Rollback()
		return nil, errors.New("no overlay was frozen: the active log holds no record")
	}
	return func() {
		btx.Rollback()
		s.waitFlush()
	}, nil
}

// BreakLog closes the active log's file under the store, so that its later
// writes and fsyncs fail as on a failing disk.
func (s *File) BreakLog() {
	s.mu.RLock()
	defer s.mu.RUnlock()
	s.log.f.Close()
}
