package kv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// File is the store of data files: a bbolt file, two write-ahead logs
// beside it (<file>-wal0, <file>-wal1) and in-memory overlays of the
// changes the logs hold. A bbolt commit costs two fsyncs of scattered
// pages; appending a transaction's changes to a log costs one fsync of
// sequential bytes, and group commit shares it between concurrent writers
// (bench/results/ has the figures).
//
//   - commit: the transaction's changes go to the active overlay (with an
//     undo log for rollback) and, framed and checksummed, to the active log;
//     the caller is answered once that log is fsynced (see Commit).
//   - read: overlay entries shadow the bbolt file's; deletes are tombstones.
//   - checkpoint: when the active log passes checkpointBytes, its overlay is
//     frozen and the other log becomes active; a background goroutine writes
//     the frozen overlay into bbolt in ordinary (fsynced) transactions of
//     bounded size (applyOverlay) and then retires its log by giving it a new
//     epoch. Readers and writers go on meanwhile, seeing active over frozen
//     over file. Close and Open (after a crash: both logs replayed oldest
//     epoch first) checkpoint in place.
//
// Each checkpoint records in the bbolt file, in its last transaction, the
// newest log epoch it now holds; replay skips logs no newer than that, and a
// log is retired only after that commit, so a crash at any point loses
// nothing acknowledged and never replays old records over newer state
// (replaying a log over a file that holds part of it ends in the same
// state, see applyOverlay).
// Within a process one writer runs at a time and readers wait for it. Other
// processes are kept out by bbolt's file lock, which also guards the logs.
type File struct {
	mu     sync.RWMutex
	db     *bolt.DB
	log    *walLog   // active: takes new records
	spare  *walLog   // holds the frozen overlay's records, or none
	over   overlay   // changes since the active log's epoch began
	frozen overlay   // being written into the bbolt file; nil when none
	rec    []byte    // the record being built, reused between commits
	undo   []walUndo // the undo log's memory, reused between commits
	broken error     // a log write or checkpoint failed: see usable

	mapped   mappedPages   // how much of the bbolt file may be mapped in
	epochs   atomic.Uint64 // the newest epoch given to a log
	ckptMu   sync.Mutex    // one checkpoint at a time
	flushing chan struct{} // closed when the background checkpoint ends

	checkpointBytes int64
	stepBytes       int64       // bounds one transaction of a checkpoint (applyOverlay)
	busy            func() bool // Options.Busy
	blockMax        int         // entries per overlay tree block
	flushFault      error       // Options.flushFault
	stepFault       func(int) error
}

// Options configures OpenFile.
type Options struct {
	// LockTimeout bounds the wait for another process's lock on the file
	// (then *LockedError).
	LockTimeout time.Duration
	// CheckpointBytes is the log size that starts a checkpoint (default
	// 16 MiB): it bounds the overlays' memory and the replay after a crash.
	CheckpointBytes int64
	// Busy, when set, reports whether other requests (reads too) are being
	// served, so that writers may be about to commit: a log sync then
	// yields first so that it covers them (walLog.syncTo).
	Busy func() bool

	blockMax  int   // entries per overlay tree block (tests: few, to split often)
	stepBytes int64 // bounds a checkpoint's transactions (tests: small, to commit often)
	// stepFault, when set, is called after each transaction of a
	// checkpoint but the last, before its pages are released (tests: a
	// checkpoint that fails part way, the pages a step mapped).
	stepFault  func(commits int) error
	flushFault error // tests: background checkpoints fail with it
}

// LockedError reports that another process holds the data file for longer
// than Options.LockTimeout. Its message tells the user how to share one
// engine instead.
type LockedError struct {
	Path    string
	Timeout time.Duration
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("data file %s is locked: another adjl process holds the data file (waited %s); "+
		"to share one engine between processes run `adjl local serve` and use --endpoint http://127.0.0.1:8000",
		e.Path, e.Timeout)
}

// overlay maps bucket names to their changes.
type overlay map[string]*overBucket

// overBucket is one bucket's changes, copied into its tree; tombstone
// marks a key deleted from what lies beneath.
type overBucket struct {
	t *memTree
	// fresh: the bucket was dropped (and perhaps created again), so what lies
	// beneath (older overlay, bbolt file) is not part of it; exists says
	// whether it exists now. A bucket that is not fresh exists beneath.
	fresh, exists bool
}

// tombstone is the overlay value of a deleted key, recognised by identity:
// no value written by a caller or read from a log shares its array.
var tombstone = make([]byte, 1)

func isTombstone(v []byte) bool { return len(v) == 1 && &v[0] == &tombstone[0] }

// defaultCheckpointBytes is Options.CheckpointBytes's default.
const defaultCheckpointBytes = 16 << 20

// checkpointStepBytes bounds the pages one transaction of a checkpoint
// holds in memory until it commits (applyOverlay).
const checkpointStepBytes = 8 << 20

// walStateBucket is the bbolt bucket of the log state; a name no table
// bucket can have ("d/…", "x/…").
var walStateBucket, appliedKey = []byte("wal"), []byte("applied")

func setAppliedEpoch(tx *bolt.Tx, epoch uint64) error {
	b, err := tx.CreateBucketIfNotExists(walStateBucket)
	if err != nil {
		return err
	}
	return b.Put(appliedKey, binary.BigEndian.AppendUint64(nil, epoch))
}

// appliedEpoch is the newest log epoch whose records are in the bbolt file.
func appliedEpoch(db *bolt.DB) (epoch uint64, err error) {
	err = db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(walStateBucket); b != nil {
			if v := b.Get(appliedKey); len(v) == 8 {
				epoch = binary.BigEndian.Uint64(v)
			}
		}
		return nil
	})
	return epoch, err
}

// initialMmapSize is address space, not memory: mapping 1 GiB up front
// spares a growing file bbolt's remaps, each of which copies every node a
// checkpoint has touched out of the old mapping first.
const initialMmapSize = 1 << 30

// fileGrowBytes is how much the bbolt file grows by when it is full.
const fileGrowBytes = 1 << 20

// dataPageSize is the bbolt page size of new data files (an existing file
// keeps the size it was created with). A checkpoint rewrites every leaf it
// puts a key into, and a bulk load's index keys land in most leaves: with
// 16 KiB pages a 1,000,000-edge import writes 2.2 GB instead of 2.5 GB and
// spends less time moving entries within a leaf than with 64 KiB pages,
// while bbolt's own 4 KiB default would mean four times the pages, writes
// and branch entries (bench/results/2026-12-01-bulk.md has the figures).
const dataPageSize = 16 << 10

// OpenFile opens (creating it) the bbolt file at path and its logs, and
// recovers what the logs hold after a crash. It waits up to
// opt.LockTimeout for another process's lock (then *LockedError) and
// refuses a file of a newer format (*FormatError) before reading its logs.
func OpenFile(path string, opt Options) (*File, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opt.LockTimeout, FreelistType: bolt.FreelistMapType, InitialMmapSize: initialMmapSize, PageSize: dataPageSize})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, &LockedError{Path: path, Timeout: opt.LockTimeout}
		}
		return nil, fmt.Errorf("open data file %s: %w", path, err)
	}
	// With the large initial mapping bbolt would grow the file 16 MiB at
	// a time; 1 MiB keeps a small data file small.
	db.AllocSize = fileGrowBytes
	if err := checkFileFormat(db, path); err != nil {
		db.Close()
		return nil, err
	}
	s, err := openWAL(db, path, opt)
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// openWAL opens the logs of an already opened (and locked) bbolt file and
// recovers from a crash: the records of logs newer than the file's applied
// epoch are replayed, oldest epoch first, and checkpointed.
func openWAL(db *bolt.DB, path string, opt Options) (*File, error) {
	if opt.CheckpointBytes <= 0 {
		opt.CheckpointBytes = defaultCheckpointBytes
	}
	if opt.blockMax <= 0 {
		opt.blockMax = defaultBlockMax
	}
	if opt.stepBytes <= 0 {
		opt.stepBytes = checkpointStepBytes
	}
	s := &File{db: db, over: overlay{}, checkpointBytes: opt.CheckpointBytes, stepBytes: opt.stepBytes, busy: opt.Busy, blockMax: opt.blockMax, flushFault: opt.flushFault, stepFault: opt.stepFault}
	applied, err := appliedEpoch(db)
	if err != nil {
		return nil, fmt.Errorf("read data file: %w", err)
	}
	s.epochs.Store(applied)
	var logs [2]*walLog
	var records [2][]byte
	for i := range logs {
		l, recs, err := openLog(fmt.Sprintf("%s-wal%d", path, i))
		if err != nil {
			for _, o := range logs[:i] {
				o.f.Close()
			}
			return nil, err
		}
		logs[i], records[i] = l, recs
		s.epochs.Store(max(s.epochs.Load(), l.epoch))
	}
	if err := s.recover(logs, records, applied); err != nil {
		logs[0].f.Close()
		logs[1].f.Close()
		return nil, fmt.Errorf("recover from write-ahead logs %s-wal0 and -wal1: %w", path, err)
	}
	return s, nil
}

// recover replays the logs the bbolt file does not have yet, writes them
// into it, and leaves the active log (the newer) in a fresh epoch, so that
// every record written from now on is newer than the file's applied epoch.
func (s *File) recover(logs [2]*walLog, records [2][]byte, applied uint64) error {
	older, newer := 0, 1
	if logs[1].epoch < logs[0].epoch {
		older, newer = 1, 0
	}
	s.log, s.spare = logs[newer], logs[older]
	var replayed []*walLog
	for _, i := range []int{older, newer} {
		if len(records[i]) > 0 && logs[i].epoch > applied {
			s.replay(records[i])
			replayed = append(replayed, logs[i])
		}
	}
	if len(replayed) > 0 {
		last := replayed[len(replayed)-1].epoch
		if err := s.applyOverlay(s.over, last); err != nil {
			return err
		}
		s.over = overlay{}
	}
	// Retire what was replayed, oldest first; give the active log a fresh
	// epoch if its own is not newer than what the file has.
	for _, l := range replayed {
		if err := l.writeHeader(s.epochs.Add(1)); err != nil {
			return err
		}
	}
	if s.log.epoch <= applied || s.log.end > logHeaderSize {
		return s.log.writeHeader(s.epochs.Add(1))
	}
	return nil
}

// replay applies whole, checked records to the active overlay.
func (s *File) replay(records []byte) {
	for len(records) > 0 {
		n := int(binary.LittleEndian.Uint32(records))
		eachOp(records[8:8+n], func(o logOp) {
			switch o.op {
			case opCreate, opDrop:
				s.setBucket(string(o.name), o.op == opCreate)
			case opPut:
				ob, _ := s.bucketForWrite(string(o.name))
				putKey(ob, o.key, o.value)
			case opDel:
				ob, _ := s.bucketForWrite(string(o.name))
				putKey(ob, o.key, tombstone)
			}
		})
		records = records[8+n:]
	}
}

func (s *File) Update(fn func(Tx) error) error {
	durable, err := s.Commit(fn)
	if err != nil {
		return err
	}
	return durable()
}

// Commit runs fn and writes its record to the log under the write lock, and
// returns a function that waits until the record is on disk. The group
// committer hands the lock to the next round before waiting, so one round's
// work overlaps the previous round's fsync; nothing is acknowledged, and no
// read answered (see View), before the records it depends on are durable.
func (s *File) Commit(fn func(Tx) error) (durable func() error, err error) {
	log, lsn, full, err := s.commitLocked(fn)
	if err != nil {
		return nil, err
	}
	if full {
		// The commit stands whatever happens here: a failed checkpoint
		// marks the store broken (usable) and fails later writes and Close.
		s.startCheckpoint()
	}
	return func() error { return log.syncTo(lsn, s.company()) }, nil
}

// commitLocked is Commit's part under the write lock. lsn is the end of the
// transaction's record, or, for a transaction that wrote nothing, of the log
// it read: it must not answer before what it saw is durable either.
func (s *File) commitLocked(fn func(Tx) error) (log *walLog, lsn int64, full bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	log = s.log
	err = s.db.View(func(btx *bolt.Tx) error {
		if err := s.usable(); err != nil {
			return err
		}
		tx := s.newTx(btx, true)
		defer tx.done()
		s.rec = s.rec[:0]
		return runOrRollback(tx.rollback, func() error {
			if err := fn(tx); err != nil {
				return err
			}
			if len(s.rec) == 0 {
				lsn = log.written.Load()
				return nil
			}
			var err error
			if lsn, err = log.write(s.rec); err != nil {
				s.broken = err
			}
			return err
		})
	})
	return log, lsn, log.end-logHeaderSize >= s.checkpointBytes, err
}

// company reports whether a sync should yield to other writers first.
func (s *File) company() bool { return s.busy != nil && s.busy() }

// usable reports why writes are refused: a log write or sync, or a
// checkpoint, failed, after which the overlays and the files may disagree
// until the file is reopened (which replays exactly what the logs hold).
func (s *File) usable() error {
	err := s.broken
	if err == nil {
		err = s.log.failed()
	}
	if err != nil {
		return fmt.Errorf("%w (reopen the data file to recover)", err)
	}
	return nil
}

// Failure is the storage failure that stops writes until the file is
// reopened (a log write or sync, or a checkpoint, failed: a full disk, an
// I/O error), or nil. Nothing answered is lost: every acknowledged write is
// in a log, which the next open replays.
func (s *File) Failure() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.broken != nil {
		return s.broken
	}
	return s.log.failed()
}

// View runs fn on the current state and then waits until every record that
// state includes is on disk, so a read never reports a write that a power
// cut could still take back. (A frozen overlay's log was synced when it
// was frozen.)
func (s *File) View(fn func(Tx) error) error {
	log, lsn, err := s.viewLocked(fn)
	if serr := log.syncTo(lsn, s.company()); err == nil {
		err = serr
	}
	return err
}

func (s *File) viewLocked(fn func(Tx) error) (log *walLog, lsn int64, err error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	log = s.log
	lsn = log.written.Load()
	err = s.db.View(func(btx *bolt.Tx) error { return fn(s.newTx(btx, false)) })
	return log, lsn, err
}

// Close checkpoints, so the bbolt file alone holds everything, and releases
// the files and the lock. The logs stay, retired, for the next opener.
func (s *File) Close() error {
	err := s.checkpointNow()
	for _, l := range []*walLog{s.log, s.spare} {
		if err == nil {
			err = l.close()
		} else {
			l.f.Close()
		}
	}
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// overlay operations, shared by live transactions (which keep undo records)
// and log replay.

func (s *File) bucketForWrite(name string) (ob *overBucket, created bool) {
	if ob = s.over[name]; ob == nil {
		ob = &overBucket{t: newTree(s.blockMax)}
		s.over[name] = ob
		created = true
	}
	return ob, created
}

// putKey sets key in the overlay; for a delete value is tombstone, and in a
// fresh bucket (nothing beneath it) the entry is simply removed.
func putKey(ob *overBucket, key, value []byte) (old []byte, had bool) {
	if isTombstone(value) && ob.fresh {
		old, had = ob.t.get(key)
		if had {
			ob.t.del(key)
		}
		return old, had
	}
	return ob.t.put(key, value)
}

func (s *File) setBucket(name string, exists bool) {
	s.over[name] = &overBucket{t: newTree(s.blockMax), fresh: true, exists: exists}
}
