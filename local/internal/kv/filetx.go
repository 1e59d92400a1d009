package kv

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// walTx is a transaction of File: a bbolt read transaction for the file's
// state, the frozen overlay (if a checkpoint is running) over it, and the
// active overlay on top, which a writable transaction changes.
type walTx struct {
	store    *File
	btx      *bolt.Tx
	frozen   overlay
	writable bool
	undo     []walUndo
	open     []*walBucket // handles already given out, reused by Bucket
}

func (s *File) newTx(btx *bolt.Tx, writable bool) *walTx {
	tx := &walTx{store: s, btx: btx, frozen: s.frozen, writable: writable}
	if writable {
		// One writer at a time: its undo log reuses the last one's memory.
		tx.undo, s.undo = s.undo[:0], nil
	}
	return tx
}

// done hands the undo log's memory back for the next writer, holding on to
// none of its entries.
func (tx *walTx) done() {
	clear(tx.undo)
	tx.store.undo = tx.undo[:0]
}

// walUndo reverses one change to the active overlay: a bucket-level change
// (bucket set; prev is what File.over[name] was) or a key-level one.
type walUndo struct {
	bucket bool
	name   string
	prev   *overBucket
	ob     *overBucket
	key    []byte
	old    []byte
	had    bool
}

func (tx *walTx) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		u := tx.undo[i]
		switch {
		case u.bucket && u.prev == nil:
			delete(tx.store.over, u.name)
		case u.bucket:
			tx.store.over[u.name] = u.prev
		case u.had:
			u.ob.t.put(u.key, u.old)
		default:
			u.ob.t.del(u.key)
		}
	}
	tx.undo = nil
	tx.open = nil
}

func (tx *walTx) Bucket(name []byte) Bucket {
	if b := tx.bucket(name); b != nil {
		return b
	}
	return nil
}

// bucket resolves name through the layers, newest first; a fresh overlay
// bucket hides everything beneath it.
func (tx *walTx) bucket(name []byte) *walBucket {
	for _, b := range tx.open {
		if b.name == string(name) {
			return b
		}
	}
	b := &walBucket{tx: tx, name: string(name)}
	b.ob = tx.store.over[b.name]
	if b.ob != nil && b.ob.fresh {
		if !b.ob.exists {
			return nil
		}
	} else {
		fo := tx.frozen[b.name]
		if fo != nil {
			b.frozen = fo.t
		}
		if fo != nil && fo.fresh {
			if !fo.exists {
				return nil
			}
		} else if b.base = tx.btx.Bucket(name); b.base == nil {
			return nil
		}
	}
	tx.open = append(tx.open, b)
	return b
}

func (tx *walTx) CreateBucket(name []byte) (Bucket, error) {
	if !tx.writable {
		return nil, errReadOnly
	}
	if err := checkBucketName(name); err != nil {
		return nil, err
	}
	if tx.bucket(name) != nil {
		return nil, errBucketExist
	}
	tx.changeBucket(name, true)
	return tx.bucket(name), nil
}

func (tx *walTx) CreateBucketIfNotExists(name []byte) (Bucket, error) {
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
		return ErrNoBucket
	}
	tx.changeBucket(name, false)
	return nil
}

func (tx *walTx) changeBucket(name []byte, exists bool) {
	n := string(name)
	tx.undo = append(tx.undo, walUndo{bucket: true, name: n, prev: tx.store.over[n]})
	tx.store.setBucket(n, exists)
	op := opDrop
	if exists {
		op = opCreate
	}
	tx.store.rec = appendOp(tx.store.rec, op, name, nil, nil)
	// Handles to the old bucket are stale now, as in bbolt.
	for i, b := range tx.open {
		if b.name == n {
			tx.open = append(tx.open[:i], tx.open[i+1:]...)
			break
		}
	}
}

// walBucket is one bucket seen through the layers.
type walBucket struct {
	tx     *walTx
	name   string
	ob     *overBucket  // active overlay; nil until the bucket's first change
	frozen *memTree     // frozen overlay's entries, or nil
	base   *bolt.Bucket // the file's bucket; nil when an overlay hides it
}

func (b *walBucket) Get(key []byte) []byte {
	if b.ob != nil {
		if v, ok := b.ob.t.get(key); ok {
			return live(v)
		}
	}
	if b.frozen != nil {
		if v, ok := b.frozen.get(key); ok {
			return live(v)
		}
	}
	if b.base != nil {
		b.tx.store.read(b.tx.btx, 1)
		return b.base.Get(key)
	}
	return nil
}

func live(v []byte) []byte {
	if isTombstone(v) {
		return nil
	}
	return v
}

func (b *walBucket) Put(key, value []byte) error {
	return b.set(opPut, key, value)
}

func (b *walBucket) Delete(key []byte) error {
	return b.set(opDel, bytes.Clone(key), tombstone)
}

// set records a put or delete in the active overlay (which copies key and
// value), the undo log (which keeps key until the transaction ends) and the
// record.
func (b *walBucket) set(op byte, key, value []byte) error {
	tx := b.tx
	if !tx.writable {
		return errReadOnly
	}
	if err := checkPut(key, value); err != nil {
		return err
	}
	if b.ob == nil {
		ob, created := tx.store.bucketForWrite(b.name)
		if created {
			tx.undo = append(tx.undo, walUndo{bucket: true, name: b.name})
		}
		b.ob = ob
	}
	old, had := putKey(b.ob, key, value)
	tx.undo = append(tx.undo, walUndo{ob: b.ob, key: key, old: old, had: had})
	var v []byte
	if op == opPut {
		v = value
	}
	tx.store.rec = appendOp(tx.store.rec, op, []byte(b.name), key, v)
	return nil
}

func (b *walBucket) Cursor() Cursor {
	if b.base != nil {
		b.tx.store.read(b.tx.btx, cursorReads)
	}
	var src []Cursor
	if b.ob != nil && len(b.ob.t.blocks) > 0 {
		src = append(src, &memCursor{t: b.ob.t, bi: -1})
	}
	if b.frozen != nil && len(b.frozen.blocks) > 0 {
		src = append(src, &memCursor{t: b.frozen, bi: -1})
	}
	if len(src) == 0 && b.base != nil {
		return b.base.Cursor() // nothing to merge: bbolt's own cursor
	}
	if b.base != nil {
		src = append(src, b.base.Cursor())
	}
	return newMergeCursor(src)
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
