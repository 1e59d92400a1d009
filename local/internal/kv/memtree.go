package kv

import (
	"bytes"
	"sort"
)

// memTree is an ordered map kept as a list of sorted blocks: binary search
// over the blocks' last keys, then within a block. Blocks are never empty
// and split when they grow past max entries, so inserts move little memory.
type memTree struct {
	blocks [][]memEntry
	max    int
}

type memEntry struct{ k, v []byte }

// defaultBlockMax is the entries of a block; tests pass fewer to exercise
// splits with few keys. An insert moves half a block of entries, which hold
// pointers: while the collector marks, that costs a write barrier per
// pointer, so a small block is cheaper to insert into, and the searches it
// adds are few (BenchmarkMemTreePut).
const defaultBlockMax = 64

func newTree(max int) *memTree { return &memTree{max: max} }

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
	if len(b) <= t.max {
		t.blocks[bi] = b
		return nil, false
	}
	// Split: the left half keeps the block's memory, only the right half
	// is new.
	half := len(b) / 2
	right := append(make([]memEntry, 0, t.max+1), b[half:]...)
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
