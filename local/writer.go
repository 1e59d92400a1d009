package local

import (
	"fmt"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

// getItem reads and decodes the item stored under key, nil when absent.
func getItem(tx kv.Tx, t *table, key []byte) (attr.Item, error) {
	b := tx.Bucket(t.bucket)
	if b == nil {
		return nil, resourceNotFound()
	}
	v := b.Get(key)
	if v == nil {
		return nil, nil
	}
	it, err := attr.DecodeItem(v)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	return it, nil
}

// writer applies item writes inside one bbolt write transaction, keeping
// every index and the item counts in step, so one request is one commit.
type writer struct {
	e      *Engine
	tx     kv.Tx
	deltas map[statsID]counts
	arena  []byte
	writes int // puts and deletes so far, to tell a clean failure from a partial one
}

// alloc appends an encoding to the arena and returns it (nil if enc wrote
// nothing or returned nil). Earlier results stay valid: a full arena is
// replaced, never reused. The stores copy what Put is given, so the arena
// is garbage once the transaction ends.
func (w *writer) alloc(enc func(dst []byte) []byte) []byte {
	if cap(w.arena)-len(w.arena) < 512 {
		n := 2 * cap(w.arena)
		if n < 2048 {
			n = 2048
		} else if n > 256<<10 {
			n = 256 << 10
		}
		w.arena = make([]byte, 0, n)
	}
	start := len(w.arena)
	out := enc(w.arena)
	if out == nil {
		return nil
	}
	if len(out) > start && &out[0] == &w.arena[:start+1][0] && cap(out) == cap(w.arena) {
		w.arena = out
		return out[start:len(out):len(out)]
	}
	// enc outgrew the arena and reallocated: out is its own memory now.
	return out[start:len(out):len(out)]
}

func newWriter(e *Engine, tx kv.Tx) *writer {
	return &writer{e: e, tx: tx, deltas: map[statsID]counts{}}
}

// fresh returns the current cached form of t: a request resolved its table
// before taking the writer lock, and an UpdateTable may have added or removed
// an index since. A table deleted (or re-created) meanwhile is not found.
func (w *writer) fresh(t *table) (*table, error) {
	cur := w.e.lookup(t.name)
	if cur == nil || cur.stored.Desc.TableId != t.stored.Desc.TableId {
		return nil, resourceNotFound()
	}
	return cur, nil
}

// statsID names the counts of a table (index "") or of one of its indexes;
// as a map key it costs no allocation, unlike the encoded statsKey.
type statsID struct{ table, index string }

// itemBucket returns the current form of t and the bucket of its items.
func (w *writer) itemBucket(t *table) (*table, kv.Bucket, error) {
	t, err := w.fresh(t)
	if err != nil {
		return nil, nil, err
	}
	b := w.tx.Bucket(t.bucket)
	if b == nil {
		return nil, nil, resourceNotFound()
	}
	return t, b, nil
}

func (w *writer) add(id statsID, items, bytes int64) {
	c := w.deltas[id]
	c.items += items
	c.bytes += bytes
	w.deltas[id] = c
}

// put stores item under pk, replacing old (nil when there was none).
func (w *writer) put(t *table, pk primaryKey, old, item attr.Item) error {
	t, b, err := w.itemBucket(t)
	if err != nil {
		return err
	}
	// A store needs what Put is given unchanged until the transaction
	// ends (its undo log keeps the key), so every encoding gets fresh
	// memory from the append-only arena.
	val := w.alloc(func(dst []byte) []byte { return attr.AppendItem(dst, item) })
	w.writes++
	if err := b.Put(pk.enc, val); err != nil {
		return fmt.Errorf("put item: %w", err)
	}
	size := attr.ItemSize(item)
	oldSize := 0
	if old == nil {
		w.add(statsID{t.name, ""}, 1, int64(size))
	} else {
		oldSize = attr.ItemSize(old)
		w.add(statsID{t.name, ""}, 0, int64(size-oldSize))
	}
	return w.reindex(t, pk, old, item, oldSize, size)
}

// del removes the item old stored under pk.
func (w *writer) del(t *table, pk primaryKey, old attr.Item) error {
	if old == nil {
		return nil
	}
	t, b, err := w.itemBucket(t)
	if err != nil {
		return err
	}
	w.writes++
	if err := b.Delete(pk.enc); err != nil {
		return fmt.Errorf("delete item: %w", err)
	}
	oldSize := attr.ItemSize(old)
	w.add(statsID{t.name, ""}, -1, -int64(oldSize))
	return w.reindex(t, pk, old, nil, oldSize, 0)
}

// reindex moves the item's entries in every index from old to item; the
// caller passes the items' sizes, which an ALL projection stores whole.
func (w *writer) reindex(t *table, pk primaryKey, old, item attr.Item, oldItemSize, itemSize int) error {
	for _, x := range t.indexes {
		var oldKey, newKey []byte
		if old != nil {
			oldKey = x.indexKey(nil, old, pk.enc)
		}
		if item != nil {
			newKey = w.alloc(func(dst []byte) []byte { return x.indexKey(dst, item, pk.enc) })
		}
		sk := statsID{t.name, x.name}
		var oldSize, newSize int64
		if oldKey != nil {
			oldSize = int64(x.projectedSizeOf(t, old, oldItemSize))
		}
		if newKey != nil {
			newSize = int64(x.projectedSizeOf(t, item, itemSize))
		}
		switch {
		case oldKey != nil && newKey != nil:
			w.add(sk, 0, newSize-oldSize)
		case oldKey != nil:
			w.add(sk, -1, -oldSize)
		case newKey != nil:
			w.add(sk, 1, newSize)
		}
		if oldKey != nil && newKey != nil && string(oldKey) == string(newKey) {
			continue
		}
		xb := w.tx.Bucket(x.bucket)
		if xb == nil {
			return fmt.Errorf("index %s of table %s has no bucket", x.name, t.name)
		}
		if oldKey != nil {
			if err := xb.Delete(oldKey); err != nil {
				return fmt.Errorf("update index %s: %w", x.name, err)
			}
		}
		if newKey != nil {
			if err := xb.Put(newKey, indexEntryValue); err != nil {
				return fmt.Errorf("update index %s: %w", x.name, err)
			}
		}
	}
	return nil
}

// flush writes the accumulated item-count changes; call once before commit.
func (w *writer) flush() error {
	for id, d := range w.deltas {
		if err := addCounts(w.tx, statsKey(id.table, id.index), d); err != nil {
			return fmt.Errorf("update table statistics: %w", err)
		}
	}
	return nil
}

// projectedSize is the DynamoDB size of the part of it stored in index x.
func (x *index) projectedSize(t *table, it attr.Item) int {
	return x.projectedSizeOf(t, it, -1)
}

// projectedSizeOf is projectedSize for an item whose whole size is known
// (itemSize), so an ALL projection costs nothing; itemSize < 0 means unknown.
func (x *index) projectedSizeOf(t *table, it attr.Item, itemSize int) int {
	if x.projType == "ALL" {
		if itemSize >= 0 {
			return itemSize
		}
		return attr.ItemSize(it)
	}
	n := 0
	for k, v := range it {
		if x.projects(t, k) {
			n += len(k) + attr.Size(v)
		}
	}
	return n
}

// project returns the attributes of it that index x stores.
func (x *index) project(t *table, it attr.Item) attr.Item {
	if x.projType == "ALL" {
		return it
	}
	out := make(attr.Item, 4)
	for k, v := range it {
		if x.projects(t, k) {
			out[k] = v
		}
	}
	return out
}
