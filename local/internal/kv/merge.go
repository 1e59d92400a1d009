package kv

import "bytes"

// mergeCursor walks a bucket through its layers (src, newest first: active
// overlay, frozen overlay, bbolt file): keys in order, the newest layer's
// entry winning a tie, tombstones hiding the key in every older layer. Each
// source stays on its entry at or beyond the current key in the direction of
// travel; a change of direction re-seeks them around the current key.
type mergeCursor struct {
	src []Cursor
	pos []cursorEntry // each source's entry; k nil when it is exhausted
	fwd bool
	key []byte // the key returned last; nil once exhausted
}

type cursorEntry struct{ k, v []byte }

func newMergeCursor(src []Cursor) *mergeCursor {
	return &mergeCursor{src: src, pos: make([]cursorEntry, len(src))}
}

func (c *mergeCursor) each(move func(Cursor) ([]byte, []byte)) {
	for i, s := range c.src {
		c.pos[i].k, c.pos[i].v = move(s)
	}
}

func (c *mergeCursor) First() ([]byte, []byte) {
	c.each(Cursor.First)
	c.fwd = true
	return c.settle()
}

func (c *mergeCursor) Last() ([]byte, []byte) {
	c.each(Cursor.Last)
	c.fwd = false
	return c.settle()
}

func (c *mergeCursor) Seek(key []byte) ([]byte, []byte) {
	c.each(func(s Cursor) ([]byte, []byte) { return s.Seek(key) })
	c.fwd = true
	return c.settle()
}

func (c *mergeCursor) Next() ([]byte, []byte) {
	if c.key == nil {
		return nil, nil
	}
	key := c.key
	if !c.fwd {
		c.each(func(s Cursor) ([]byte, []byte) { return s.Seek(key) })
		c.fwd = true
	}
	c.skip(key)
	return c.settle()
}

func (c *mergeCursor) Prev() ([]byte, []byte) {
	if c.key == nil {
		return nil, nil
	}
	key := c.key
	if c.fwd {
		c.each(func(s Cursor) ([]byte, []byte) { return seekAtOrBefore(s, key) })
		c.fwd = false
	}
	c.skip(key)
	return c.settle()
}

// skip moves every source that is on key one step on.
func (c *mergeCursor) skip(key []byte) {
	for i, s := range c.src {
		if c.pos[i].k != nil && bytes.Equal(c.pos[i].k, key) {
			if c.fwd {
				c.pos[i].k, c.pos[i].v = s.Next()
			} else {
				c.pos[i].k, c.pos[i].v = s.Prev()
			}
		}
	}
}

// seekAtOrBefore positions cur on the last key <= key.
func seekAtOrBefore(cur Cursor, key []byte) ([]byte, []byte) {
	k, v := cur.Seek(key)
	if k == nil {
		return cur.Last()
	}
	if bytes.Equal(k, key) {
		return k, v
	}
	return cur.Prev()
}

// settle returns the entry the sources point at in the direction of travel,
// stepping over tombstones and the older entries they hide.
func (c *mergeCursor) settle() ([]byte, []byte) {
	for {
		best := -1
		for i, p := range c.pos {
			if p.k == nil {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			// Strictly before only: on a tie the newer (lower) source wins.
			if cmp := bytes.Compare(p.k, c.pos[best].k); cmp != 0 && (cmp < 0) == c.fwd {
				best = i
			}
		}
		if best < 0 {
			c.key = nil
			return nil, nil
		}
		e := c.pos[best]
		if isTombstone(e.v) {
			c.skip(e.k)
			continue
		}
		c.key = e.k
		return e.k, e.v
	}
}
