package kv

import (
	"bytes"
	"cmp"
	"slices"
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
// tree gives up its deadest chunks (reclaim), once they are over half the
// live ones.
type memTree struct {
	blocks [][]memEntry
	max    int
	chunks [][]byte // nil: given up, its index in free
	fill   int      // the chunk small entries go to; -1 or full: a new one
	live   int      // bytes of the entries in blocks
	dead   int      // bytes of replaced and deleted entries left in chunks
	// chunkDead is the dead bytes of each chunk, and free the indexes of
	// chunks given up, for new ones.
	chunkDead []int
	free      []uint32
	reclaims  int // times reclaim gave chunks up
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
	// reclaimAfter is the dead bytes past which, when they are also over
	// half the live ones, a tree gives up its deadest chunks (reclaim).
	// Every tree of a store may hold that much dead, so it is small.
	reclaimAfter = 256 << 10
	tombLen      = ^uint32(0)
)

// defaultBlockMax is the entries of a block; tests pass fewer to exercise
// splits with few keys. An insert moves half a block of entries: a small
// block is cheaper to insert into, and the searches it adds are few
// (BenchmarkMemTreePut).
const defaultBlockMax = 64

// newTree returns an empty tree. It has no fill chunk yet: index 0 may go
// to a large entry's own chunk, which must stay free to give up.
func newTree(max int) *memTree { return &memTree{max: max, fill: -1} }

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
		ci = t.newChunk(n)
	case ci < 0 || cap(t.chunks[ci])-len(t.chunks[ci]) < n:
		ci = t.newChunk(max(n, min(chunkSize, max(minChunk, t.live))))
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

// newChunk adds an empty chunk of capacity size, at the index of one given
// up if there is one, and returns its index.
func (t *memTree) newChunk(size int) int {
	c := make([]byte, 0, size)
	if n := len(t.free); n > 0 {
		ci := t.free[n-1]
		t.free = t.free[:n-1]
		t.chunks[ci], t.chunkDead[ci] = c, 0
		return int(ci)
	}
	t.chunks, t.chunkDead = append(t.chunks, c), append(t.chunkDead, 0)
	return len(t.chunks) - 1
}

// drop counts e's bytes dead, and reclaims chunks while they are over
// reclaimAfter and half the live bytes (each reclaim frees half of them,
// unless only the fill chunk holds dead bytes).
func (t *memTree) drop(e memEntry) {
	t.live -= e.size()
	t.dead += e.size()
	t.chunkDead[e.c] += e.size()
	for t.dead > reclaimAfter && 2*t.dead > t.live && t.reclaim() {
	}
}

// reclaim gives up the chunks with the largest share of dead bytes, at
// least half the dead bytes in all, after copying their live entries into
// the fill chunk, never the whole tree at once: where those chunks are
// more than half dead it copies fewer bytes than it frees, and at worst
// (every chunk a third dead, the least that starts a reclaim) about two
// bytes for each freed, paid once for every quarter of the live bytes that
// die. A given-up chunk is left to the slices handed out from it.
// Entries keep their places in the blocks. It reports whether it gave up
// any chunk.
func (t *memTree) reclaim() bool {
	var victims []int
	for ci, d := range t.chunkDead {
		if d > 0 && ci != t.fill {
			victims = append(victims, ci)
		}
	}
	// Deadest share first: they cost the least copying per byte freed.
	slices.SortFunc(victims, func(a, b int) int {
		return cmp.Compare(t.chunkDead[b]*len(t.chunks[a]), t.chunkDead[a]*len(t.chunks[b]))
	})
	freed, n := 0, 0
	for n < len(victims) && 2*freed < t.dead {
		freed += t.chunkDead[victims[n]]
		n++
	}
	victims = victims[:n]
	if len(victims) == 0 {
		return false
	}
	victim := make([]bool, len(t.chunks))
	for _, ci := range victims {
		victim[ci] = true
	}
	for _, blk := range t.blocks {
		for i, e := range blk {
			if victim[e.c] {
				t.live -= e.size()
				blk[i] = t.store(t.key(e), t.value(e))
			}
		}
	}
	t.reclaims++
	for _, ci := range victims {
		t.dead -= t.chunkDead[ci]
		t.chunks[ci], t.chunkDead[ci] = nil, 0
		t.free = append(t.free, uint32(ci))
	}
	return true
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
