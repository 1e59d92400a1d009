package local

import "bytes"

// mergeCursor walks a bucket's overlay (o) over its bbolt-file entries (b,
// nil when the overlay replaces the bucket): keys in order, the overlay's
// entry winning a tie, tombstones hiding both. Both sub-cursors are kept on
// the entry at or beyond the current key in the direction of travel; a
// change of direction re-seeks them around the current key.
type mergeCursor struct {
	o      *memCursor
	b      kvCursor
	ok, ov []byte // overlay's position (ok nil: exhausted)
	bk, bv []byte // file's position
	fwd    bool
	key    []byte // the entry returned last; nil once exhausted
}

func (c *mergeCursor) First() ([]byte, []byte) {
	c.ok, c.ov = c.o.First()
	if c.b != nil {
		c.bk, c.bv = c.b.First()
	}
	c.fwd = true
	return c.settle()
}

func (c *mergeCursor) Last() ([]byte, []byte) {
	c.ok, c.ov = c.o.Last()
	if c.b != nil {
		c.bk, c.bv = c.b.Last()
	}
	c.fwd = false
	return c.settle()
}

func (c *mergeCursor) Seek(key []byte) ([]byte, []byte) {
	c.ok, c.ov = c.o.Seek(key)
	if c.b != nil {
		c.bk, c.bv = c.b.Seek(key)
	}
	c.fwd = true
	return c.settle()
}

func (c *mergeCursor) Next() ([]byte, []byte) {
	if c.key == nil {
		return nil, nil
	}
	if !c.fwd {
		c.ok, c.ov = c.o.Seek(c.key)
		if c.b != nil {
			c.bk, c.bv = c.b.Seek(c.key)
		}
		c.fwd = true
	}
	if c.ok != nil && bytes.Equal(c.ok, c.key) {
		c.ok, c.ov = c.o.Next()
	}
	if c.bk != nil && bytes.Equal(c.bk, c.key) {
		c.bk, c.bv = c.b.Next()
	}
	return c.settle()
}

func (c *mergeCursor) Prev() ([]byte, []byte) {
	if c.key == nil {
		return nil, nil
	}
	if c.fwd {
		c.ok, c.ov = seekAtOrBefore(c.o, c.key)
		if c.b != nil {
			c.bk, c.bv = seekAtOrBefore(c.b, c.key)
		}
		c.fwd = false
	}
	if c.ok != nil && bytes.Equal(c.ok, c.key) {
		c.ok, c.ov = c.o.Prev()
	}
	if c.bk != nil && bytes.Equal(c.bk, c.key) {
		c.bk, c.bv = c.b.Prev()
	}
	return c.settle()
}

// seekAtOrBefore positions cur on the last key <= key.
func seekAtOrBefore(cur kvCursor, key []byte) ([]byte, []byte) {
	k, v := cur.Seek(key)
	if k == nil {
		return cur.Last()
	}
	if bytes.Equal(k, key) {
		return k, v
	}
	return cur.Prev()
}

// settle returns the entry the sub-cursors point at in the direction of
// travel, stepping over tombstones and the file entries they hide.
func (c *mergeCursor) settle() ([]byte, []byte) {
	for {
		useO, useB := false, false
		switch {
		case c.ok == nil && c.bk == nil:
			c.key = nil
			return nil, nil
		case c.ok == nil:
			useB = true
		case c.bk == nil:
			useO = true
		default:
			switch cmp := bytes.Compare(c.ok, c.bk); {
			case cmp == 0:
				useO, useB = true, true
			case (cmp < 0) == c.fwd:
				useO = true
			default:
				useB = true
			}
		}
		if useO && isTombstone(c.ov) {
			c.ok, c.ov = c.step(c.o)
			if useB {
				c.bk, c.bv = c.step(c.b)
			}
			continue
		}
		if useO {
			c.key = c.ok
			return c.ok, c.ov
		}
		c.key = c.bk
		return c.bk, c.bv
	}
}

func (c *mergeCursor) step(cur kvCursor) ([]byte, []byte) {
	if c.fwd {
		return cur.Next()
	}
	return cur.Prev()
}
