package local

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

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
// Replaying a log over a bbolt file that already has its changes gives the
// same state, and a log is retired only after bbolt's commit, so a crash at
// any point loses nothing acknowledged. Concurrency within a process is
// memKV's: one writer at a time, readers wait for it. Other processes are
// kept out by bbolt's file lock, which also guards the logs.
type walKV struct {
	mu     sync.RWMutex
	db     *bolt.DB
	log    *walLog // active: takes new records
	spare  *walLog // holds the frozen overlay's records, or none
	over   overlay // changes since the active log's epoch began
	frozen overlay // being written into the bbolt file; nil when none
	rec    []byte  // the record being built, reused between commits
	broken error   // a log write or checkpoint failed: see usable

	epochs   atomic.Uint64 // the newest epoch given to a log
	ckptMu   sync.Mutex    // one checkpoint at a time
	flushing chan struct{} // closed when the background checkpoint ends

	checkpointBytes int64
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

// initialMmapSize is address space, not memory: mapping 1 GiB up front
// spares a growing file bbolt's remaps, each of which copies every node a
// checkpoint has touched out of the old mapping first.
const initialMmapSize = 1 << 30

// fileGrowBytes is how much the bbolt file grows by when it is full.
const fileGrowBytes = 1 << 20

// openWAL opens the logs of an already opened (and locked) bbolt file and
// recovers from a crash: the logs' records are replayed, oldest epoch
// first, and checkpointed.
func openWAL(db *bolt.DB, path string) (*walKV, error) {
	kv := &walKV{db: db, over: overlay{}, checkpointBytes: defaultCheckpointBytes}
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
	kv.log, kv.spare = logs[0], logs[1]
	if len(records[0])+len(records[1]) == 0 {
		return kv, nil
	}
	first := 0
	if logs[1].epoch < logs[0].epoch {
		first = 1
	}
	kv.replay(records[first])
	kv.replay(records[1-first])
	err := kv.checkpointNow()
	if err == nil {
		err = kv.spare.writeHeader(kv.epochs.Add(1))
	}
	if err != nil {
		logs[0].f.Close()
		logs[1].f.Close()
		return nil, fmt.Errorf("recover from write-ahead logs %s-wal0 and -wal1: %w", path, err)
	}
	return kv, nil
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
	kv.mu.Lock()
	var lsn int64
	log := kv.log
	err = kv.db.View(func(btx *bolt.Tx) error {
		if err := kv.usable(); err != nil {
			return err
		}
		tx := kv.newTx(btx, true)
		kv.rec = kv.rec[:0]
		if err := fn(tx); err != nil {
			tx.rollback()
			return err
		}
		if len(kv.rec) == 0 {
			return nil
		}
		var err error
		if lsn, err = log.write(kv.rec); err != nil {
			tx.rollback()
			kv.broken = err
			return err
		}
		return nil
	})
	full := log.end-logHeaderSize >= kv.checkpointBytes
	kv.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if full {
		if err := kv.startCheckpoint(); err != nil {
			return nil, err
		}
	}
	return func() error { return log.syncTo(lsn) }, nil
}

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
	kv.mu.RLock()
	log := kv.log
	lsn := log.written.Load()
	err := kv.db.View(func(btx *bolt.Tx) error { return fn(kv.newTx(btx, false)) })
	kv.mu.RUnlock()
	if serr := log.syncTo(lsn); err == nil {
		err = serr
	}
	return err
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
// running it waits for it: that is the writers' backpressure.
func (kv *walKV) startCheckpoint() error {
	defer kv.lockForCheckpoint()()
	if err := kv.usable(); err != nil {
		return err
	}
	if kv.log.end-logHeaderSize < kv.checkpointBytes {
		return nil // another writer got here first
	}
	// The frozen records must be durable before their log stops being the
	// one readers wait for.
	if err := kv.log.syncTo(kv.log.written.Load()); err != nil {
		return err
	}
	if err := kv.spare.writeHeader(kv.epochs.Add(1)); err != nil {
		kv.broken = err
		return err
	}
	kv.frozen, kv.over = kv.over, overlay{}
	kv.log, kv.spare = kv.spare, kv.log
	done := make(chan struct{})
	kv.flushing = done
	go kv.flush(kv.frozen, kv.spare, done)
	return nil
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
	err := kv.db.Update(func(tx *bolt.Tx) error { return applyOverlay(tx, frozen) })
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
	if len(kv.over) == 0 && kv.log.end == logHeaderSize {
		return nil
	}
	if err := kv.usable(); err != nil {
		return err
	}
	if err := kv.db.Update(func(tx *bolt.Tx) error { return applyOverlay(tx, kv.over) }); err != nil {
		return err
	}
	if err := kv.log.writeHeader(kv.epochs.Add(1)); err != nil {
		return err
	}
	kv.log.allDurable() // in the bbolt file now, whatever the log's state
	kv.over = overlay{}
	return nil
}

func applyOverlay(tx *bolt.Tx, o overlay) error {
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
