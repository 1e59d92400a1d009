package kv

import (
	"bytes"
	"sync"
)

// Mem is the in-memory store: ordered maps in memory behind the same
// contract as File. Nothing has to survive Close, so it skips what a file
// needs (copy-on-write pages, page writes, fsync) and is several times
// faster; writes are still atomic (an undo log rolls a failed transaction
// back) and isolated (one writer at a time, readers wait for it). Its
// trees keep copies of what Put is given (memtree.go).
type Mem struct {
	mu       sync.RWMutex
	buckets  map[string]*memTree
	blockMax int
}

// NewMem returns an empty in-memory store holding the current format
// record, as a new data file does.
func NewMem() *Mem { return newMem(defaultBlockMax) }

func newMem(blockMax int) *Mem {
	m := &Mem{buckets: map[string]*memTree{}, blockMax: blockMax}
	m.Update(writeFormat) // cannot fail: a fresh bucket and a valid key
	return m
}

func (m *Mem) Update(fn func(Tx) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	tx := &memTx{store: m, writable: true}
	return runOrRollback(tx.rollback, func() error { return fn(tx) })
}

// Commit is Update: nothing in memory waits for a disk.
func (m *Mem) Commit(fn func(Tx) error) (func() error, error) {
	return noWait, m.Update(fn)
}

func (m *Mem) View(fn func(Tx) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return fn(&memTx{store: m})
}

// Close drops the data.
func (m *Mem) Close() error {
	m.mu.Lock()
	m.buckets = map[string]*memTree{}
	m.mu.Unlock()
	return nil
}

type undoOp uint8

const (
	undoPut undoOp = iota
	undoDelete
	undoCreate
	undoDrop
)

type undoRec struct {
	op   undoOp
	name string
	tree *memTree
	key  []byte
	old  []byte
	had  bool
}

type memTx struct {
	store    *Mem
	writable bool
	undo     []undoRec
	open     []*memBucket // handles already given out, reused by Bucket
}

func (tx *memTx) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		u := tx.undo[i]
		switch u.op {
		case undoPut:
			if u.had {
				u.tree.put(u.key, u.old)
			} else {
				u.tree.del(u.key)
			}
		case undoDelete:
			u.tree.put(u.key, u.old)
		case undoCreate:
			delete(tx.store.buckets, u.name)
		case undoDrop:
			tx.store.buckets[u.name] = u.tree
		}
	}
	tx.undo = nil
}

func (tx *memTx) Bucket(name []byte) Bucket {
	t := tx.store.buckets[string(name)]
	if t == nil {
		return nil
	}
	// A write looks its buckets up once per item and index: hand out one
	// handle per tree rather than allocate one per call.
	for _, b := range tx.open {
		if b.t == t {
			return b
		}
	}
	b := &memBucket{tx: tx, t: t}
	tx.open = append(tx.open, b)
	return b
}

func (tx *memTx) CreateBucket(name []byte) (Bucket, error) {
	if !tx.writable {
		return nil, errReadOnly
	}
	if err := checkBucketName(name); err != nil {
		return nil, err
	}
	if tx.store.buckets[string(name)] != nil {
		return nil, errBucketExist
	}
	t := newTree(tx.store.blockMax)
	tx.store.buckets[string(name)] = t
	tx.undo = append(tx.undo, undoRec{op: undoCreate, name: string(name)})
	return &memBucket{tx: tx, t: t}, nil
}

func (tx *memTx) CreateBucketIfNotExists(name []byte) (Bucket, error) {
	if b := tx.Bucket(name); b != nil {
		return b, nil
	}
	return tx.CreateBucket(name)
}

func (tx *memTx) DeleteBucket(name []byte) error {
	if !tx.writable {
		return errReadOnly
	}
	t := tx.store.buckets[string(name)]
	if t == nil {
		return ErrNoBucket
	}
	delete(tx.store.buckets, string(name))
	tx.undo = append(tx.undo, undoRec{op: undoDrop, name: string(name), tree: t})
	return nil
}

type memBucket struct {
	tx *memTx
	t  *memTree
}

func (b *memBucket) Get(key []byte) []byte {
	v, _ := b.t.get(key)
	return v
}

func (b *memBucket) Put(key, value []byte) error {
	if !b.tx.writable {
		return errReadOnly
	}
	if err := checkPut(key, value); err != nil { // as the file stores refuse
		return err
	}
	old, had := b.t.put(key, value)
	b.tx.undo = append(b.tx.undo, undoRec{op: undoPut, tree: b.t, key: key, old: old, had: had})
	return nil
}

func (b *memBucket) Delete(key []byte) error {
	if !b.tx.writable {
		return errReadOnly
	}
	old, had := b.t.get(key)
	if !had {
		return nil
	}
	k := bytes.Clone(key)
	b.t.del(k)
	b.tx.undo = append(b.tx.undo, undoRec{op: undoDelete, tree: b.t, key: k, old: old, had: true})
	return nil
}

func (b *memBucket) Cursor() Cursor { return &memCursor{t: b.t, bi: -1} }

func (b *memBucket) ForEach(fn func(k, v []byte) error) error { return b.t.all(fn) }
