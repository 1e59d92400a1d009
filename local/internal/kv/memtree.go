package kv

import (
	"bytes"
	"sort"
)

// memTree is an ordered map kept as a list of sorted blocks: binary search
// over the blocks' last keys, then within a block. Blocks are never empty
// and split when they grow past max entries, so inserts move little memory.
//
// Keys and values are copied into chunks the tree owns, and entries name
// them by position: an entry holds no pointer, so the collector neither
// scans the blocks (a data file's overlay holds a checkpoint's worth of
// entries, a bulk load's collections run every few megabytes) nor pays a
// write barrier for the entries an insert moves. Slices the tree hands out
// point into its chunks, which are never written again: they stay valid
// after the key is replaced or deleted, and callers must not change them.
// Bytes of replaced and deleted entries stay in their chunks until the
// tree is copied into new ones (compact), once they outweigh the rest.
type memTree struct {
	blocks [][]memEntry
	max    int
	chunks [][]byte
	fill   int // the chunk small entries go to; past chunks or full: a new one
	live   int // bytes of the entries in blocks
	dead   int // bytes of replaced and deleted entries left in chunks
}

// memEntry is a key and its value, stored one after the other in chunk c
// from off; vlen is tombLen for the tombstone.
type memEntry struct {
	c, off, klen, vlen uint32
}

const (
	// chunkSize is the largest chunk small entries share; a tree holding
	// less gets chunks as large as what it holds, from minChunk up.
	chunkSize = 64 << 10
	minChunk  = 256
	// ownChunkOver is the entry size past which an entry gets a chunk of
	// its own size: a shared chunk ends with less than that unused.
	ownChunkOver = chunkSize / 8
	// compactAfter is the dead bytes past which, when they also outweigh
	// the live ones, a tree is copied into new chunks. Every tree of a
	// store may hold that much dead, so it is small; a compaction copies
	// fewer bytes than died since the last one, so it costs a smaller tree
	// less per replace (BenchmarkMemTreeReplace).
	compactAfter = 256 << 10
	tombLen      = ^uint32(0)
)

// defaultBlockMax is the entries of a block; tests pass fewer to exercise
// splits with few keys. An insert moves half a block of entries: a small
// block is cheaper to insert into, and the searches it adds are few
// (BenchmarkMemTreePut).
const defaultBlockMax = 64

func newTree(max int) *memTree { return &memTree{max: max} }

func (t *memTree) key(e memEntry) []byte {
	end := e.off + e.klen
	return t.chunks[e.c][e.off:end:end]
}

func (t *memTree) value(e memEntry) []byte {
	if e.vlen == tombLen {
		return tombstone
	}
	from := e.off + e.klen
	end := from + e.vlen
	return t.chunks[e.c][from:end:end]
}

func (e memEntry) size() int {
	if e.vlen == tombLen {
		return int(e.klen)
	}
	return int(e.klen + e.vlen)
}

// store copies key and value into the chunks and returns their entry: a
// small entry into the fill chunk (a new one when it has no room), a large
// one into a chunk of its own, which the fill chunk outlives.
func (t *memTree) store(key, value []byte) memEntry {
	tomb := isTombstone(value)
	if tomb {
		value = nil
	}
	n := len(key) + len(value)
	ci := t.fill
	switch {
	case n > ownChunkOver:
		ci = len(t.chunks)
		t.chunks = append(t.chunks, make([]byte, 0, n))
	case ci >= len(t.chunks) || cap(t.chunks[ci])-len(t.chunks[ci]) < n:
		ci = len(t.chunks)
		t.chunks = append(t.chunks, make([]byte, 0, max(n, min(chunkSize, max(minChunk, t.live)))))
		t.fill = ci
	}
	c := t.chunks[ci]
	e := memEntry{c: uint32(ci), off: uint32(len(c)), klen: uint32(len(key)), vlen: uint32(len(value))}
	if tomb {
		e.vlen = tombLen
	}
	t.chunks[ci] = append(append(c, key...), value...)
	t.live += n
	return e
}

// drop counts e's bytes dead, and copies the tree into new chunks once
// they outweigh the live ones.
func (t *memTree) drop(e memEntry) {
	t.live -= e.size()
	t.dead += e.size()
	if t.dead > compactAfter && t.dead > t.live {
		t.compact()
	}
}

// compact copies every entry into new chunks, leaving the old ones to the
// slices handed out from them.
func (t *memTree) compact() {
	old := *t
	t.chunks, t.fill, t.live, t.dead = nil, 0, 0, 0
	for _, blk := range t.blocks {
		for i, e := range blk {
			blk[i] = t.store(old.key(e), old.value(e))
		}
	}
}

// all calls fn with every key and value in order, stopping at its first
// error.
func (t *memTree) all(fn func(k, v []byte) error) error {
	for _, blk := range t.blocks {
		for _, e := range blk {
			if err := fn(t.key(e), t.value(e)); err != nil {
				return err
			}
		}
	}
	return nil
}

// firstKey is the smallest key, nil when the tree is empty.
func (t *memTree) firstKey() []byte {
	if len(t.blocks) == 0 {
		return nil
	}
	return t.key(t.blocks[0][0])
}

// find returns the position of the first key >= key (bi == len(blocks) when
// every key is smaller) and whether it equals key.
func (t *memTree) find(key []byte) (bi, i int, found bool) {
	// Keys written in order (a bulk load, a sequential key) land after the
	// last one: answer that with one comparison instead of two searches.
	if n := len(t.blocks); n > 0 {
		last := t.blocks[n-1]
		if bytes.Compare(t.key(last[len(last)-1]), key) < 0 {
			return n, 0, false
		}
	}
	bi = sort.Search(len(t.blocks), func(j int) bool {
		b := t.blocks[j]
		return bytes.Compare(t.key(b[len(b)-1]), key) >= 0
	})
	if bi == len(t.blocks) {
		return bi, 0, false
	}
	b := t.blocks[bi]
	i = sort.Search(len(b), func(j int) bool { return bytes.Compare(t.key(b[j]), key) >= 0 })
	return bi, i, bytes.Equal(t.key(b[i]), key)
}

func (t *memTree) get(key []byte) ([]byte, bool) {
	bi, i, found := t.find(key)
	if !found {
		return nil, false
	}
	return t.value(t.blocks[bi][i]), true
}

// put stores a copy of value under a copy of key and returns the value it
// replaced, searching the tree once.
func (t *memTree) put(key, value []byte) (old []byte, had bool) {
	bi, i, found := t.find(key)
	if found {
		e := t.blocks[bi][i]
		old = t.value(e)
		t.blocks[bi][i] = t.store(key, value)
		t.drop(e)
		return old, true
	}
	e := t.store(key, value)
	if bi == len(t.blocks) {
		if bi == 0 {
			t.blocks = append(t.blocks, []memEntry{e})
			return nil, false
		}
		bi--
		i = len(t.blocks[bi])
	}
	b := append(t.blocks[bi], memEntry{})
	copy(b[i+1:], b[i:])
	b[i] = e
	if len(b) <= t.max {
		t.blocks[bi] = b
		return nil, false
	}
	// Split: the left half keeps the block's memory, only the right half
	// is new.
	half := len(b) / 2
	right := append(make([]memEntry, 0, t.max+1), b[half:]...)
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
	e := b[i]
	copy(b[i:], b[i+1:])
	b = b[:len(b)-1]
	if len(b) > 0 {
		t.blocks[bi] = b
	} else {
		copy(t.blocks[bi:], t.blocks[bi+1:])
		t.blocks[len(t.blocks)-1] = nil
		t.blocks = t.blocks[:len(t.blocks)-1]
	}
	t.drop(e)
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
	return c.t.key(e), c.t.value(e)
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
