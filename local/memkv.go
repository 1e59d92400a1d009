package local

import (
	"bytes"
	"errors"
	"sort"
	"sync"
)

// memKV is the store of InMemory engines: ordered maps in memory behind the
// same interface as bbolt. Nothing has to survive Close, so it skips what a
// file needs (copy-on-write pages, page writes, fsync) and is several times
// faster; writes are still atomic (an undo log rolls a failed transaction
// back) and isolated (one writer at a time, readers wait for it).
type memKV struct {
	mu      sync.RWMutex
	buckets map[string]*memTree
}

func newMemKV() *memKV { return &memKV{buckets: map[string]*memTree{}} }

func (m *memKV) Update(fn func(kvTx) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	tx := &memTx{kv: m, writable: true}
	return runOrRollback(tx.rollback, func() error { return fn(tx) })
}

// runOrRollback runs a transaction's body and calls rollback unless it
// succeeds — on an error, and on a panic, which must not leave half a
// transaction behind for the next one to see.
func runOrRollback(rollback func(), body func() error) error {
	ok := false
	defer func() {
		if !ok {
			rollback()
		}
	}()
	if err := body(); err != nil {
		return err
	}
	ok = true
	return nil
}

// Commit is Update: nothing in memory waits for a disk.
func (m *memKV) Commit(fn func(kvTx) error) (func() error, error) {
	return noWait, m.Update(fn)
}

func noWait() error { return nil }

func (m *memKV) View(fn func(kvTx) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return fn(&memTx{kv: m})
}

func (m *memKV) Close() error {
	m.mu.Lock()
	m.buckets = map[string]*memTree{}
	m.mu.Unlock()
	return nil
}

var (
	errReadOnly    = errors.New("write in a read-only transaction")
	errBucketExist = errors.New("bucket already exists")
)

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
	kv       *memKV
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
			delete(tx.kv.buckets, u.name)
		case undoDrop:
			tx.kv.buckets[u.name] = u.tree
		}
	}
	tx.undo = nil
}

func (tx *memTx) Bucket(name []byte) kvBucket {
	t := tx.kv.buckets[string(name)]
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

func (tx *memTx) CreateBucket(name []byte) (kvBucket, error) {
	if !tx.writable {
		return nil, errReadOnly
	}
	if err := checkBucketName(name); err != nil {
		return nil, err
	}
	if tx.kv.buckets[string(name)] != nil {
		return nil, errBucketExist
	}
	t := &memTree{}
	tx.kv.buckets[string(name)] = t
	tx.undo = append(tx.undo, undoRec{op: undoCreate, name: string(name)})
	return &memBucket{tx: tx, t: t}, nil
}

func (tx *memTx) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	if b := tx.Bucket(name); b != nil {
		return b, nil
	}
	return tx.CreateBucket(name)
}

func (tx *memTx) DeleteBucket(name []byte) error {
	if !tx.writable {
		return errReadOnly
	}
	t := tx.kv.buckets[string(name)]
	if t == nil {
		return errNoBucket
	}
	delete(tx.kv.buckets, string(name))
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
	// The slices are kept, not copied: like bbolt until commit, memKV needs
	// them unchanged for ever, and every caller passes fresh memory.
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

func (b *memBucket) Cursor() kvCursor { return &memCursor{t: b.t, bi: -1} }

func (b *memBucket) ForEach(fn func(k, v []byte) error) error {
	for _, blk := range b.t.blocks {
		for _, e := range blk {
			if err := fn(e.k, e.v); err != nil {
				return err
			}
		}
	}
	return nil
}

// memTree is an ordered map kept as a list of sorted blocks: binary search
// over the blocks' last keys, then within a block. Blocks are never empty
// and split when they grow past memBlockMax, so inserts move little memory.
type memTree struct {
	blocks [][]memEntry
}

type memEntry struct{ k, v []byte }

// memBlockMax is a variable so tests can exercise splits with few keys.
var memBlockMax = 256

// find returns the position of the first key >= key (bi == len(blocks) when
// every key is smaller) and whether it equals key.
func (t *memTree) find(key []byte) (bi, i int, found bool) {
	// Keys written in order (a bulk load, a sequential key) land after the
	// last one: answer that with one comparison instead of two searches.
	if n := len(t.blocks); n > 0 {
		last := t.blocks[n-1]
		if bytes.Compare(last[len(last)-1].k, key) < 0 {
			return n, 0, false
		}
	}
	bi = sort.Search(len(t.blocks), func(j int) bool {
		b := t.blocks[j]
		return bytes.Compare(b[len(b)-1].k, key) >= 0
	})
	if bi == len(t.blocks) {
		return bi, 0, false
	}
	b := t.blocks[bi]
	i = sort.Search(len(b), func(j int) bool { return bytes.Compare(b[j].k, key) >= 0 })
	return bi, i, bytes.Equal(b[i].k, key)
}

func (t *memTree) get(key []byte) ([]byte, bool) {
	bi, i, found := t.find(key)
	if !found {
		return nil, false
	}
	return t.blocks[bi][i].v, true
}

// put stores value under key and returns the value it replaced, searching
// the tree once.
func (t *memTree) put(key, value []byte) (old []byte, had bool) {
	bi, i, found := t.find(key)
	if found {
		old = t.blocks[bi][i].v
		t.blocks[bi][i].v = value
		return old, true
	}
	if bi == len(t.blocks) {
		if bi == 0 {
			t.blocks = append(t.blocks, []memEntry{{key, value}})
			return nil, false
		}
		bi--
		i = len(t.blocks[bi])
	}
	b := append(t.blocks[bi], memEntry{})
	copy(b[i+1:], b[i:])
	b[i] = memEntry{key, value}
	if len(b) <= memBlockMax {
		t.blocks[bi] = b
		return nil, false
	}
	// Split: the left half keeps the block's memory, only the right half
	// is new.
	half := len(b) / 2
	right := append(make([]memEntry, 0, memBlockMax+1), b[half:]...)
	clear(b[half:])
	t.blocks[bi] = b[:half]
	t.blocks = append(t.blocks, nil)
	copy(t.blocks[bi+2:], t.blocks[bi+1:])
	t.blocks[bi+1] = right
	return nil, false
}

func (t *memTree) del(key []byte) {
	bi, i, found := t.find(key)
	if !found {
		return
	}
	b := t.blocks[bi]
	copy(b[i:], b[i+1:])
	b[len(b)-1] = memEntry{}
	b = b[:len(b)-1]
	if len(b) > 0 {
		t.blocks[bi] = b
		return
	}
	copy(t.blocks[bi:], t.blocks[bi+1:])
	t.blocks[len(t.blocks)-1] = nil
	t.blocks = t.blocks[:len(t.blocks)-1]
}

// memCursor walks a memTree; bi == -1 means "not positioned".
type memCursor struct {
	t     *memTree
	bi, i int
}

func (c *memCursor) at() ([]byte, []byte) {
	if c.bi < 0 || c.bi >= len(c.t.blocks) || c.i < 0 || c.i >= len(c.t.blocks[c.bi]) {
		c.bi = -1
		return nil, nil
	}
	e := c.t.blocks[c.bi][c.i]
	return e.k, e.v
}

func (c *memCursor) First() ([]byte, []byte) {
	c.bi, c.i = 0, 0
	return c.at()
}

func (c *memCursor) Last() ([]byte, []byte) {
	c.bi = len(c.t.blocks) - 1
	if c.bi >= 0 {
		c.i = len(c.t.blocks[c.bi]) - 1
	}
	return c.at()
}

func (c *memCursor) Seek(key []byte) ([]byte, []byte) {
	c.bi, c.i, _ = c.t.find(key)
	return c.at()
}

func (c *memCursor) Next() ([]byte, []byte) {
	if c.bi < 0 {
		return nil, nil
	}
	c.i++
	if c.i >= len(c.t.blocks[c.bi]) {
		c.bi, c.i = c.bi+1, 0
	}
	return c.at()
}

func (c *memCursor) Prev() ([]byte, []byte) {
	if c.bi < 0 {
		return nil, nil
	}
	c.i--
	if c.i < 0 {
		c.bi--
		if c.bi < 0 {
			return nil, nil
		}
		c.i = len(c.t.blocks[c.bi]) - 1
	}
	return c.at()
}
