package local

import (
	"bytes"
	"fmt"

	"github.com/adjl/adjl/local/internal/attr"
)

// getItem reads and decodes the item stored under key, nil when absent.
func getItem(tx kvTx, t *table, key []byte) (attr.Item, error) {
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
	tx     kvTx
	deltas map[string]counts
	arena  []byte
	writes int // puts and deletes so far, to tell a clean failure from a partial one
	exact  bool
}

// alloc appends an encoding to the arena and returns it (nil if enc wrote
// nothing or returned nil). Earlier results stay valid: a full arena is
// replaced, never reused.
func (w *writer) alloc(enc func(dst []byte) []byte) []byte {
	if w.exact {
		// memKV keeps what it is given for good: encode into scratch space
		// and keep an exact-size copy, so no arena chunk stays pinned.
		out := enc(w.arena[:0])
		if out == nil {
			return nil
		}
		w.arena = out[:0]
		return bytes.Clone(out)
	}
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

func newWriter(e *Engine, tx kvTx) *writer {
	_, mem := e.db.(*memKV)
	return &writer{e: e, tx: tx, deltas: map[string]counts{}, exact: mem}
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

func (w *writer) add(key []byte, items, bytes int64) {
	c := w.deltas[string(key)]
	c.items += items
	c.bytes += bytes
	w.deltas[string(key)] = c
}

// put stores item under pk, replacing old (nil when there was none).
func (w *writer) put(t *table, pk primaryKey, old, item attr.Item) error {
	t, err := w.fresh(t)
	if err != nil {
		return err
	}
	b := w.tx.Bucket(t.bucket)
	if b == nil {
		return resourceNotFound()
	}
	// bbolt keeps references to keys and values until commit, so every
	// encoding gets fresh memory from the append-only arena.
	val := w.alloc(func(dst []byte) []byte { return attr.AppendItem(dst, item) })
	w.writes++
	if err := b.Put(pk.enc, val); err != nil {
		return fmt.Errorf("put item: %w", err)
	}
	size := int64(attr.ItemSize(item))
	if old == nil {
		w.add(statsKey(t.name, ""), 1, size)
	} else {
		w.add(statsKey(t.name, ""), 0, size-int64(attr.ItemSize(old)))
	}
	return w.reindex(t, pk, old, item)
}

// del removes the item old stored under pk.
func (w *writer) del(t *table, pk primaryKey, old attr.Item) error {
	if old == nil {
		return nil
	}
	t, err := w.fresh(t)
	if err != nil {
		return err
	}
	b := w.tx.Bucket(t.bucket)
	if b == nil {
		return resourceNotFound()
	}
	w.writes++
	if err := b.Delete(pk.enc); err != nil {
		return fmt.Errorf("delete item: %w", err)
	}
	w.add(statsKey(t.name, ""), -1, -int64(attr.ItemSize(old)))
	return w.reindex(t, pk, old, nil)
}

// reindex moves the item's entries in every index from old to item.
func (w *writer) reindex(t *table, pk primaryKey, old, item attr.Item) error {
	for _, x := range t.indexes {
		var oldKey, newKey []byte
		if old != nil {
			oldKey = x.indexKey(nil, old, pk.enc)
		}
		if item != nil {
			newKey = w.alloc(func(dst []byte) []byte { return x.indexKey(dst, item, pk.enc) })
		}
		sk := statsKey(t.name, x.name)
		var oldSize, newSize int64
		if oldKey != nil {
			oldSize = int64(x.projectedSize(t, old))
		}
		if newKey != nil {
			newSize = int64(x.projectedSize(t, item))
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
			if err := xb.Put(newKey, pk.enc); err != nil {
				return fmt.Errorf("update index %s: %w", x.name, err)
			}
		}
	}
	return nil
}

// flush writes the accumulated item-count changes; call once before commit.
func (w *writer) flush() error {
	for k, d := range w.deltas {
		if err := addCounts(w.tx, []byte(k), d); err != nil {
			return fmt.Errorf("update table statistics: %w", err)
		}
	}
	return nil
}

// projectedSize is the DynamoDB size of the part of it stored in index x.
func (x *index) projectedSize(t *table, it attr.Item) int {
	if x.projType == "ALL" {
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
