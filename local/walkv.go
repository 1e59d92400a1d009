package local

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// walKV is the store of data-file engines: a bbolt file, two write-ahead
// logs beside it (<file>-wal0, <file>-wal1) and in-memory overlays of the
// changes the logs hold. Why: a bbolt commit costs two fsyncs of scattered
// pages (measured ~1.7 ms + 0.45 ms here), which capped durable ingest near
// 25,000 items/s; appending a transaction's changes to a log costs one fsync
// of sequential bytes, and group commit shares it between concurrent writers.
//
//   - commit: the transaction's changes go to the active overlay (with an
//     undo log for rollback) and, framed and checksummed, to the active log;
//     the caller is answered once that log is fsynced (see Commit).
//   - read: overlay entries shadow the bbolt file's; deletes are tombstones.
//   - checkpoint: when the active log passes checkpointBytes, its overlay is
//     frozen and the other log becomes active; a background goroutine writes
//     the frozen overlay into bbolt in one ordinary (fsynced) transaction and
//     then retires its log by giving it a new epoch. Readers and writers go
//     on meanwhile, seeing active over frozen over file. Close and Open (after
//     a crash: both logs replayed oldest epoch first) checkpoint in place.
//
// Each checkpoint records in the bbolt file, in the same transaction, the
// newest log epoch it now holds; replay skips logs no newer than that, and a
// log is retired only after bbolt's commit, so a crash at any point loses
// nothing acknowledged and never replays old records over newer state. Concurrency within a process is
// memKV's: one writer at a time, readers wait for it. Other processes are
// kept out by bbolt's file lock, which also guards the logs.
type walKV struct {
	mu     sync.RWMutex
	db     *bolt.DB
	log    *walLog   // active: takes new records
	spare  *walLog   // holds the frozen overlay's records, or none
	over   overlay   // changes since the active log's epoch began
	frozen overlay   // being written into the bbolt file; nil when none
	rec    []byte    // the record being built, reused between commits
	undo   []walUndo // the undo log's memory, reused between commits
	broken error     // a log write or checkpoint failed: see usable

	epochs   atomic.Uint64 // the newest epoch given to a log
	ckptMu   sync.Mutex    // one checkpoint at a time
	flushing chan struct{} // closed when the background checkpoint ends

	checkpointBytes int64
	// othersWriting, when set, reports whether other requests (reads too)
	// are being served, so that writers may be about to commit: a sync then
	// yields first so that it covers them (syncTo).
	othersWriting func() bool
}

// overlay maps bucket names to their changes.
type overlay map[string]*overBucket

// overBucket is one bucket's changes. Values are stored as given;
// tombstone marks a key deleted from what lies beneath.
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

// defaultCheckpointBytes bounds each log, and so the overlays' memory and
// the replay after a crash.
const defaultCheckpointBytes = 16 << 20

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

// flushFault, when set by a test, makes background checkpoints fail.
var flushFault error

// initialMmapSize is address space, not memory: mapping 1 GiB up front
// spares a growing file bbolt's remaps, each of which copies every node a
// checkpoint has touched out of the old mapping first.
const initialMmapSize = 1 << 30

// fileGrowBytes is how much the bbolt file grows by when it is full.
const fileGrowBytes = 1 << 20

// dataPageSize is the bbolt page size of new data files (an existing file
// keeps the size it was created with). A checkpoint of a bulk load dirties
// most index leaves, and bbolt writes each dirty page with its own pwrite:
// with 4 KiB pages a 100,000-edge ingest made 11,806 writes and its final
// checkpoint took 290–380 ms here; with 64 KiB pages, 705 writes and
// 180–230 ms. A one-edge command costs the same (22 ms), and a new file
// starts at 1.5 MB instead of 1.1 MB.
const dataPageSize = 64 << 10

// openFileKV opens (creating it) the bbolt file at path, waiting up to
// timeout for another process's lock (then *LockedError), and its logs.
func openFileKV(path string, timeout time.Duration) (*walKV, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, FreelistType: bolt.FreelistMapType, InitialMmapSize: initialMmapSize, PageSize: dataPageSize})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, &LockedError{Path: path, Timeout: timeout}
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
	kv, err := openWAL(db, path)
	if err != nil {
		db.Close()
		return nil, err
	}
	return kv, nil
}

// checkFileFormat refuses a file of a newer format before its logs are
// replayed (a newer engine may frame their records differently; replaying
// them here would retire what this engine cannot read) and records the
// current format in the bbolt file itself when it is older or missing —
// one bbolt commit when a file is created or upgraded, none otherwise.
func checkFileFormat(db *bolt.DB, path string) error {
	format := 1
	if err := db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(versionBucket); b != nil {
			format = formatOf(b.Get(formatKey))
		}
		return nil
	}); err != nil {
		return fmt.Errorf("read data file %s: %w", path, err)
	}
	switch {
	case format > dataFormat:
		return &FormatError{Path: path, Format: format, Supported: dataFormat}
	case format == dataFormat:
		return nil
	}
	err := db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(versionBucket)
		if err != nil {
			return err
		}
		return b.Put(formatKey, formatRecord())
	})
	if err != nil {
		return fmt.Errorf("record data file format in %s: %w", path, err)
	}
	return nil
}

// openWAL opens the logs of an already opened (and locked) bbolt file and
// recovers from a crash: the records of logs newer than the file's applied
// epoch are replayed, oldest epoch first, and checkpointed.
func openWAL(db *bolt.DB, path string) (*walKV, error) {
	kv := &walKV{db: db, over: overlay{}, checkpointBytes: defaultCheckpointBytes}
	applied, err := appliedEpoch(db)
	if err != nil {
		return nil, fmt.Errorf("read data file: %w", err)
	}
	kv.epochs.Store(applied)
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
		kv.epochs.Store(max(kv.epochs.Load(), l.epoch))
	}
	if err := kv.recover(logs, records, applied); err != nil {
		logs[0].f.Close()
		logs[1].f.Close()
		return nil, fmt.Errorf("recover from write-ahead logs %s-wal0 and -wal1: %w", path, err)
	}
	return kv, nil
}

// recover replays the logs the bbolt file does not have yet, writes them
// into it, and leaves the active log (the newer) in a fresh epoch, so that
// every record written from now on is newer than the file's applied epoch.
func (kv *walKV) recover(logs [2]*walLog, records [2][]byte, applied uint64) error {
	older, newer := 0, 1
	if logs[1].epoch < logs[0].epoch {
		older, newer = 1, 0
	}
	kv.log, kv.spare = logs[newer], logs[older]
	var replayed []*walLog
	for _, i := range []int{older, newer} {
		if len(records[i]) > 0 && logs[i].epoch > applied {
			kv.replay(records[i])
			replayed = append(replayed, logs[i])
		}
	}
	if len(replayed) > 0 {
		last := replayed[len(replayed)-1].epoch
		if err := kv.db.Update(func(tx *bolt.Tx) error { return applyOverlay(tx, kv.over, last) }); err != nil {
			return err
		}
		kv.over = overlay{}
	}
	// Retire what was replayed, oldest first; give the active log a fresh
	// epoch if its own is not newer than what the file has.
	for _, l := range replayed {
		if err := l.writeHeader(kv.epochs.Add(1)); err != nil {
			return err
		}
	}
	if kv.log.epoch <= applied || kv.log.end > logHeaderSize {
		return kv.log.writeHeader(kv.epochs.Add(1))
	}
	return nil
}

// replay applies whole, checked records to the active overlay.
func (kv *walKV) replay(records []byte) {
	for len(records) > 0 {
		n := int(binary.LittleEndian.Uint32(records))
		eachOp(records[8:8+n], func(o logOp) {
			switch o.op {
			case opCreate, opDrop:
				kv.setBucket(string(o.name), o.op == opCreate)
			case opPut:
				ob, _ := kv.bucketForWrite(string(o.name))
				putKey(ob, o.key, o.value)
			case opDel:
				ob, _ := kv.bucketForWrite(string(o.name))
				putKey(ob, o.key, tombstone)
			}
		})
		records = records[8+n:]
	}
}

func (kv *walKV) Update(fn func(kvTx) error) error {
	durable, err := kv.Commit(fn)
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
func (kv *walKV) Commit(fn func(kvTx) error) (durable func() error, err error) {
	log, lsn, full, err := kv.commitLocked(fn)
	if err != nil {
		return nil, err
	}
	if full {
		// The commit stands whatever happens here: a failed checkpoint
		// marks the store broken (usable) and fails later writes and Close.
		kv.startCheckpoint()
	}
	return func() error { return log.syncTo(lsn, kv.company()) }, nil
}

// commitLocked is Commit's part under the write lock. lsn is the end of the
// transaction's record, or, for a transaction that wrote nothing, of the log
// it read: it must not answer before what it saw is durable either.
func (kv *walKV) commitLocked(fn func(kvTx) error) (log *walLog, lsn int64, full bool, err error) {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	log = kv.log
	err = kv.db.View(func(btx *bolt.Tx) error {
		if err := kv.usable(); err != nil {
			return err
		}
		tx := kv.newTx(btx, true)
		defer tx.done()
		kv.rec = kv.rec[:0]
		return runOrRollback(tx.rollback, func() error {
			if err := fn(tx); err != nil {
				return err
			}
			if len(kv.rec) == 0 {
				lsn = log.written.Load()
				return nil
			}
			var err error
			if lsn, err = log.write(kv.rec); err != nil {
				kv.broken = err
			}
			return err
		})
	})
	return log, lsn, log.end-logHeaderSize >= kv.checkpointBytes, err
}

// company reports whether a sync should yield to other writers first.
func (kv *walKV) company() bool { return kv.othersWriting != nil && kv.othersWriting() }

// usable reports why writes are refused: a log write or sync, or a
// checkpoint, failed, after which the overlays and the files may disagree
// until the file is reopened (which replays exactly what the logs hold).
func (kv *walKV) usable() error {
	err := kv.broken
	if err == nil {
		err = kv.log.failed()
	}
	if err != nil {
		return fmt.Errorf("%w (reopen the data file to recover)", err)
	}
	return nil
}

// View runs fn on the current state and then waits until every record that
// state includes is on disk, so a read never reports a write that a power
// cut could still take back. (A frozen overlay's log was synced when it
// was frozen.)
func (kv *walKV) View(fn func(kvTx) error) error {
	log, lsn, err := kv.viewLocked(fn)
	if serr := log.syncTo(lsn, kv.company()); err == nil {
		err = serr
	}
	return err
}

func (kv *walKV) viewLocked(fn func(kvTx) error) (log *walLog, lsn int64, err error) {
	kv.mu.RLock()
	defer kv.mu.RUnlock()
	log = kv.log
	lsn = log.written.Load()
	err = kv.db.View(func(btx *bolt.Tx) error { return fn(kv.newTx(btx, false)) })
	return log, lsn, err
}

// Close checkpoints, so the bbolt file alone holds everything, and releases
// the files and the lock. The logs stay, retired, for the next opener.
func (kv *walKV) Close() error {
	err := kv.checkpointNow()
	for _, l := range []*walLog{kv.log, kv.spare} {
		if err == nil {
			err = l.close()
		} else {
			l.f.Close()
		}
	}
	if cerr := kv.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// startCheckpoint freezes the active overlay and writes it into the bbolt
// file in the background. If the previous background checkpoint is still
// running it waits for it: that is the writers' backpressure. A failure
// leaves the store broken (see usable), which fails later writes and Close.
func (kv *walKV) startCheckpoint() {
	defer kv.lockForCheckpoint()()
	if kv.usable() != nil || kv.log.end-logHeaderSize < kv.checkpointBytes {
		return // broken already, or another writer got here first
	}
	// The frozen records must be durable before their log stops being the
	// one readers wait for (a failed sync marks the log failed).
	if kv.log.syncTo(kv.log.written.Load(), false) != nil {
		return
	}
	if err := kv.spare.writeHeader(kv.epochs.Add(1)); err != nil {
		kv.broken = err
		return
	}
	kv.frozen, kv.over = kv.over, overlay{}
	kv.log, kv.spare = kv.spare, kv.log
	done := make(chan struct{})
	kv.flushing = done
	go kv.flush(kv.frozen, kv.spare, done)
}

// lockForCheckpoint waits for a running background checkpoint and takes the
// checkpoint and write locks; the function it returns releases them.
func (kv *walKV) lockForCheckpoint() (unlock func()) {
	kv.ckptMu.Lock()
	if kv.flushing != nil {
		<-kv.flushing // it takes kv.mu to finish: not held yet
		kv.flushing = nil
	}
	kv.mu.Lock()
	return func() {
		kv.mu.Unlock()
		kv.ckptMu.Unlock()
	}
}

// flush is the background checkpoint: frozen into the bbolt file, then its
// log retired. Readers keep seeing frozen until it is dropped, so no state
// is ever missing; bbolt's snapshots keep readers that began before the
// commit consistent.
func (kv *walKV) flush(frozen overlay, log *walLog, done chan struct{}) {
	defer close(done)
	err := flushFault
	if err == nil {
		err = kv.db.Update(func(tx *bolt.Tx) error { return applyOverlay(tx, frozen, log.epoch) })
	}
	if err == nil {
		err = log.writeHeader(kv.epochs.Add(1))
	}
	kv.mu.Lock()
	if err != nil {
		kv.broken = fmt.Errorf("checkpoint: %w", err)
	} else {
		kv.frozen = nil
	}
	kv.mu.Unlock()
}

// checkpointNow writes everything into the bbolt file before it returns.
func (kv *walKV) checkpointNow() error {
	defer kv.lockForCheckpoint()()
	// Broken first: a failed background checkpoint leaves records that only
	// a reopen can bring back, even when nothing was written since.
	if err := kv.usable(); err != nil {
		return err
	}
	if len(kv.over) == 0 && kv.log.end == logHeaderSize {
		return nil
	}
	if err := kv.db.Update(func(tx *bolt.Tx) error { return applyOverlay(tx, kv.over, kv.log.epoch) }); err != nil {
		return err
	}
	if err := kv.log.writeHeader(kv.epochs.Add(1)); err != nil {
		return err
	}
	kv.log.allDurable() // in the bbolt file now, whatever the log's state
	kv.over = overlay{}
	return nil
}

// applyOverlay writes o into the bbolt file and records, in the same
// transaction, that the log records of epochs up to epoch are in it: a
// replay never applies them again over newer state.
func applyOverlay(tx *bolt.Tx, o overlay, epoch uint64) error {
	if err := setAppliedEpoch(tx, epoch); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	names := make([]string, 0, len(o))
	for name := range o {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := checkpointBucket(tx, []byte(name), o[name]); err != nil {
			return fmt.Errorf("checkpoint bucket %q: %w", name, err)
		}
	}
	return nil
}

func checkpointBucket(tx *bolt.Tx, name []byte, ob *overBucket) error {
	var b *bolt.Bucket
	if ob.fresh {
		if err := tx.DeleteBucket(name); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
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

// overlay operations, shared by live transactions (which keep undo records)
// and log replay.

func (kv *walKV) bucketForWrite(name string) (ob *overBucket, created bool) {
	if ob = kv.over[name]; ob == nil {
		ob = &overBucket{t: &memTree{}}
		kv.over[name] = ob
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

func (kv *walKV) setBucket(name string, exists bool) {
	kv.over[name] = &overBucket{t: &memTree{}, fresh: true, exists: exists}
}
