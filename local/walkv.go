package local

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// walKV is the store of data-file engines: a bbolt file plus a write-ahead
// log beside it (<file>-wal) and an in-memory overlay of the changes the log
// holds. Why: a bbolt commit costs two fsyncs of scattered pages (measured
// ~1.7 ms + 0.45 ms here), which capped durable ingest near 25,000 items/s;
// appending a transaction's changes to a log costs one fsync of sequential
// bytes. A checkpoint writes the overlay into bbolt in one ordinary (fsynced)
// bbolt transaction and empties the log, so between checkpoints the bbolt
// file is never written and is always a consistent, complete older state.
//
//   - commit: the transaction's changes go to the overlay (with an undo log
//     for rollback) and, framed and checksummed, to the log; fdatasync; ack.
//   - read: overlay entries shadow the bbolt file's; deletes are tombstones.
//   - checkpoint: when the log passes checkpointBytes, on Close, and on Open
//     after a crash (replaying the log first). The log is emptied only after
//     bbolt's commit, and replaying a log over a bbolt file that already has
//     its changes gives the same state, so a crash at any point loses
//     nothing acknowledged.
//
// Concurrency is memKV's: one writer at a time, readers wait for it (the
// engine's group commit makes each writer a whole round of requests).
// Other processes are kept out by bbolt's file lock, which also guards the
// log: only the lock holder opens it.
type walKV struct {
	mu     sync.RWMutex
	db     *bolt.DB
	log    *walLog
	over   map[string]*overBucket
	rec    []byte // the record being built, reused between commits
	broken error  // a log write failed: see usable

	checkpointBytes int64
}

// overBucket is the overlay of one bucket. Values are stored as given;
// tombstone marks a key deleted from the bbolt file's bucket.
type overBucket struct {
	t *memTree
	// fresh: the bucket was dropped (and perhaps created again) since the
	// last checkpoint, so the bbolt file's bucket of that name is not part of
	// it; exists says whether it exists now. A bucket that is not fresh
	// exists in the bbolt file.
	fresh, exists bool
}

// tombstone is the overlay value of a deleted key, recognised by identity:
// no value written by a caller or read from the log shares its array.
var tombstone = make([]byte, 1)

func isTombstone(v []byte) bool { return len(v) == 1 && &v[0] == &tombstone[0] }

// defaultCheckpointBytes bounds the log, and so the overlay's memory and the
// replay after a crash.
const defaultCheckpointBytes = 32 << 20

// openWAL opens the log of an already opened (and locked) bbolt file and
// recovers from a crash: the log's records are replayed and checkpointed.
func openWAL(db *bolt.DB, path string) (*walKV, error) {
	log, records, err := openLog(path + "-wal")
	if err != nil {
		return nil, err
	}
	kv := &walKV{db: db, log: log, over: map[string]*overBucket{}, checkpointBytes: defaultCheckpointBytes}
	if len(records) == 0 {
		return kv, nil
	}
	kv.replay(records)
	if err := kv.checkpoint(); err != nil {
		log.f.Close()
		return nil, fmt.Errorf("recover from write-ahead log %s-wal: %w", path, err)
	}
	return kv, nil
}

// replay applies whole, checked records to the overlay.
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
	defer kv.mu.Unlock()
	var lsn int64
	err = kv.db.View(func(btx *bolt.Tx) error {
		if err := kv.usable(); err != nil {
			return err
		}
		tx := &walTx{kv: kv, btx: btx, writable: true}
		kv.rec = kv.rec[:0]
		if err := fn(tx); err != nil {
			tx.rollback()
			return err
		}
		if len(kv.rec) == 0 {
			return nil
		}
		var err error
		if lsn, err = kv.log.write(kv.rec); err != nil {
			tx.rollback()
			kv.broken = err
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Outside the read transaction: bbolt's writer may need to remap the
	// file, which waits for every read transaction to end.
	if kv.log.end-logHeaderSize >= kv.checkpointBytes {
		if err := kv.checkpoint(); err != nil {
			return nil, err
		}
	}
	return func() error { return kv.log.syncTo(lsn) }, nil
}

// usable reports why writes are refused: a log write or sync failed, after
// which the overlay and the file may disagree until the file is reopened
// (which replays exactly what the log holds).
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
// cut could still take back.
func (kv *walKV) View(fn func(kvTx) error) error {
	kv.mu.RLock()
	lsn := kv.log.written.Load()
	err := kv.db.View(func(btx *bolt.Tx) error { return fn(&walTx{kv: kv, btx: btx}) })
	kv.mu.RUnlock()
	if serr := kv.log.syncTo(lsn); err == nil {
		err = serr
	}
	return err
}

// Close checkpoints, so the bbolt file alone holds everything, and releases
// the file and its lock. The empty log file stays for the next opener.
func (kv *walKV) Close() error {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	err := kv.checkpoint()
	if err == nil {
		err = kv.log.close()
	} else {
		kv.log.f.Close()
	}
	if cerr := kv.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkpoint writes the overlay into the bbolt file, then retires the log's
// records. The caller holds kv.mu for writing.
func (kv *walKV) checkpoint() error {
	if kv.log.end == logHeaderSize && len(kv.over) == 0 {
		return nil
	}
	if err := kv.usable(); err != nil {
		return err
	}
	names := make([]string, 0, len(kv.over))
	for name := range kv.over {
		names = append(names, name)
	}
	sort.Strings(names)
	err := kv.db.Update(func(tx *bolt.Tx) error {
		for _, name := range names {
			if err := checkpointBucket(tx, []byte(name), kv.over[name]); err != nil {
				return fmt.Errorf("checkpoint bucket %q: %w", name, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := kv.log.writeHeader(kv.log.epoch + 1); err != nil {
		return err
	}
	kv.log.allDurable() // in the bbolt file now, whatever the log's state
	kv.over = map[string]*overBucket{}
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

// walTx is a transaction: a bbolt read transaction for the file's state and
// the overlay on top.
type walTx struct {
	kv       *walKV
	btx      *bolt.Tx
	writable bool
	undo     []walUndo
	open     []*walBucket // handles already given out, reused by Bucket
}

type walUndo struct {
	name    string
	prev    *overBucket // bucket-level change: what kv.over[name] was
	bucket  bool
	ob      *overBucket // key-level change
	key     []byte
	old     []byte
	had     bool
	removed bool // the key was removed from a fresh bucket, not set
}

func (tx *walTx) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		u := tx.undo[i]
		switch {
		case u.bucket && u.prev == nil:
			delete(tx.kv.over, u.name)
		case u.bucket:
			tx.kv.over[u.name] = u.prev
		case u.had:
			u.ob.t.put(u.key, u.old)
		default:
			u.ob.t.del(u.key)
		}
	}
	tx.undo = nil
	tx.open = nil
}

func (tx *walTx) Bucket(name []byte) kvBucket {
	if b := tx.bucket(name); b != nil {
		return b
	}
	return nil
}

func (tx *walTx) bucket(name []byte) *walBucket {
	for _, b := range tx.open {
		if string(b.name) == string(name) {
			return b
		}
	}
	b := &walBucket{tx: tx, name: string(name)}
	b.ob = tx.kv.over[b.name]
	if b.ob != nil && b.ob.fresh {
		if !b.ob.exists {
			return nil
		}
	} else if b.base = tx.btx.Bucket(name); b.base == nil {
		return nil
	}
	tx.open = append(tx.open, b)
	return b
}

func (tx *walTx) CreateBucket(name []byte) (kvBucket, error) {
	if !tx.writable {
		return nil, errReadOnly
	}
	if tx.bucket(name) != nil {
		return nil, errBucketExist
	}
	tx.changeBucket(name, true)
	return tx.bucket(name), nil
}

func (tx *walTx) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	if b := tx.bucket(name); b != nil {
		return b, nil
	}
	return tx.CreateBucket(name)
}

func (tx *walTx) DeleteBucket(name []byte) error {
	if !tx.writable {
		return errReadOnly
	}
	if tx.bucket(name) == nil {
		return errNoBucket
	}
	tx.changeBucket(name, false)
	return nil
}

func (tx *walTx) changeBucket(name []byte, exists bool) {
	n := string(name)
	tx.undo = append(tx.undo, walUndo{name: n, prev: tx.kv.over[n], bucket: true})
	tx.kv.setBucket(n, exists)
	op := opDrop
	if exists {
		op = opCreate
	}
	tx.kv.rec = appendOp(tx.kv.rec, op, name, nil, nil)
	// Handles to the old bucket are stale now, as in bbolt.
	for i, b := range tx.open {
		if b.name == n {
			tx.open = append(tx.open[:i], tx.open[i+1:]...)
			break
		}
	}
}

type walBucket struct {
	tx   *walTx
	name string
	ob   *overBucket  // nil until the bucket's first change since the checkpoint
	base *bolt.Bucket // nil when the bucket is fresh
}

func (b *walBucket) Get(key []byte) []byte {
	if b.ob != nil {
		if v, ok := b.ob.t.get(key); ok {
			if isTombstone(v) {
				return nil
			}
			return v
		}
	}
	if b.base != nil {
		return b.base.Get(key)
	}
	return nil
}

func (b *walBucket) Put(key, value []byte) error {
	return b.set(opPut, key, value)
}

func (b *walBucket) Delete(key []byte) error {
	return b.set(opDel, bytes.Clone(key), tombstone)
}

// set records a put or delete in the overlay, the undo log and the record.
// Like memKV it keeps key and value (callers pass memory they never reuse).
func (b *walBucket) set(op byte, key, value []byte) error {
	tx := b.tx
	if !tx.writable {
		return errReadOnly
	}
	if b.ob == nil {
		ob, created := tx.kv.bucketForWrite(b.name)
		if created {
			tx.undo = append(tx.undo, walUndo{name: b.name, bucket: true})
		}
		b.ob = ob
	}
	old, had := putKey(b.ob, key, value)
	tx.undo = append(tx.undo, walUndo{ob: b.ob, key: key, old: old, had: had})
	var v []byte
	if op == opPut {
		v = value
	}
	tx.kv.rec = appendOp(tx.kv.rec, op, []byte(b.name), key, v)
	return nil
}

func (b *walBucket) Cursor() kvCursor {
	if b.ob == nil || len(b.ob.t.blocks) == 0 {
		if b.base != nil {
			return b.base.Cursor()
		}
		return &memCursor{t: &memTree{}, bi: -1}
	}
	c := &mergeCursor{o: &memCursor{t: b.ob.t, bi: -1}}
	if b.base != nil {
		c.b = b.base.Cursor()
	}
	return c
}

func (b *walBucket) ForEach(fn func(k, v []byte) error) error {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// initialMmapSize is address space, not memory: mapping 1 GiB up front
// spares a growing file bbolt's remaps, each of which copies every node a
// checkpoint has touched out of the old mapping first.
const initialMmapSize = 1 << 30
