package kv

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

// TestMemTreeSplitsShareNoMemory: after splits that keep the left
// half in place, random puts, deletes and rolled-back transactions must
// leave every block with its own backing array, sorted, matching a map.
func TestMemTreeSplitsShareNoMemory(t *testing.T) {
	for _, max := range []int{2, 3, 4, 7} {
		kv := newMem(max)
		name := []byte("b")
		if err := kv.Update(func(tx Tx) error { _, err := tx.CreateBucket(name); return err }); err != nil {
			t.Fatal(err)
		}
		model := map[string]string{}
		rng := rand.New(rand.NewPCG(uint64(max), 1))
		errAbort := errors.New("abort")
		for step := range 1500 {
			abort := rng.IntN(5) == 0
			staged := map[string]*string{}
			err := kv.Update(func(tx Tx) error {
				b := tx.Bucket(name)
				for i := range 1 + rng.IntN(12) {
					k := fmt.Sprintf("%03d", rng.IntN(200))
					if rng.IntN(3) > 0 {
						v := fmt.Sprint(step, i)
						if err := b.Put([]byte(k), []byte(v)); err != nil {
							return err
						}
						staged[k] = &v
					} else {
						if err := b.Delete([]byte(k)); err != nil {
							return err
						}
						staged[k] = nil
					}
				}
				if abort {
					return errAbort
				}
				return nil
			})
			if abort != (err != nil) {
				t.Fatalf("step %d: err %v", step, err)
			}
			if !abort {
				for k, v := range staged {
					if v == nil {
						delete(model, k)
					} else {
						model[k] = *v
					}
				}
			}
			tree := kv.buckets["b"]
			type span struct{ lo, hi uintptr }
			var spans []span
			n := 0
			var prev []byte
			for bi, blk := range tree.blocks {
				if len(blk) == 0 || len(blk) > max {
					t.Fatalf("max %d step %d: block %d has %d entries", max, step, bi, len(blk))
				}
				full := blk[:cap(blk)]
				lo := uintptr(unsafe.Pointer(&full[0]))
				hi := lo + uintptr(cap(blk))*unsafe.Sizeof(full[0])
				for _, o := range spans {
					if lo < o.hi && o.lo < hi {
						t.Fatalf("max %d step %d: block %d shares memory with an earlier block", max, step, bi)
					}
				}
				spans = append(spans, span{lo, hi})
				for _, en := range blk {
					k, v := tree.key(en), tree.value(en)
					if prev != nil && string(prev) >= string(k) {
						t.Fatalf("max %d step %d: keys out of order: %q then %q", max, step, prev, k)
					}
					prev = k
					if model[string(k)] != string(v) {
						t.Fatalf("max %d step %d: %q = %q, want %q", max, step, k, v, model[string(k)])
					}
					n++
				}
			}
			if n != len(model) {
				t.Fatalf("max %d step %d: %d entries, want %d", max, step, n, len(model))
			}
		}
	}
}

// TestMemTreeDefaultBlockSizeMatchesModel: at the block size the stores
// use, loads in order (find's shortcut past the last key), in reverse and
// at random, deletes of whole runs of keys (which empty blocks) and cursor
// walks that cross block boundaries both ways keep the tree equal to a
// sorted model.
func TestMemTreeDefaultBlockSizeMatchesModel(t *testing.T) {
	const n = 20 * defaultBlockMax
	key := func(i int) []byte { return fmt.Appendf(nil, "k%06d", i) }
	tr := newTree(defaultBlockMax)
	model := map[int]string{}
	put := func(i int, v string) {
		old, had := tr.put(key(i), []byte(v))
		if mv, ok := model[i]; had != ok || string(old) != mv {
			t.Fatalf("put %d: replaced %q (%v), model %q (%v)", i, old, had, mv, ok)
		}
		model[i] = v
	}
	del := func(i int) {
		tr.del(key(i))
		delete(model, i)
	}
	check := func(stage string) {
		t.Helper()
		keys := slices.Sorted(maps.Keys(model))
		for bi, b := range tr.blocks {
			if len(b) == 0 || len(b) > defaultBlockMax {
				t.Fatalf("%s: block %d has %d entries", stage, bi, len(b))
			}
		}
		c := &memCursor{t: tr, bi: -1}
		var fwd []string
		for k, v := c.First(); k != nil; k, v = c.Next() {
			fwd = append(fwd, string(k)+"="+string(v))
		}
		var back []string
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			back = append(back, string(k)+"="+string(v))
		}
		slices.Reverse(back)
		var want []string
		for _, k := range keys {
			want = append(want, string(key(k))+"="+model[k])
		}
		if !slices.Equal(fwd, want) || !slices.Equal(back, want) {
			t.Fatalf("%s: forward walk %d entries, backward %d, model %d", stage, len(fwd), len(back), len(want))
		}
		// From every key, one step each way lands on its neighbours,
		// across block boundaries too.
		for j, k := range keys {
			if got, _ := c.Seek(key(k)); string(got) != string(key(k)) {
				t.Fatalf("%s: Seek(%s) = %q", stage, key(k), got)
			}
			next, _ := c.Next()
			if j+1 < len(keys) && string(next) != string(key(keys[j+1])) || j+1 == len(keys) && next != nil {
				t.Fatalf("%s: after %s Next = %q", stage, key(k), next)
			}
			c.Seek(key(k))
			prev, _ := c.Prev()
			if j > 0 && string(prev) != string(key(keys[j-1])) || j == 0 && prev != nil {
				t.Fatalf("%s: before %s Prev = %q", stage, key(k), prev)
			}
			if v, ok := tr.get(key(k)); !ok || string(v) != model[k] {
				t.Fatalf("%s: get %s = %q, %v; model %q", stage, key(k), v, ok, model[k])
			}
		}
		if k, _ := c.Seek([]byte("l")); k != nil { // after every "k..." key
			t.Fatalf("%s: Seek past the last key = %q", stage, k)
		}
	}

	for i := 0; i < n; i += 2 { // in order: every put past the last key
		put(i, "a")
	}
	check("even keys in order")
	for i := n - 1; i > 0; i -= 2 { // in reverse, between them
		put(i, "b")
	}
	check("odd keys in reverse")
	for lo := 3 * defaultBlockMax; lo < n; lo += 5 * defaultBlockMax { // runs of two blocks' worth
		for i := lo; i < lo+2*defaultBlockMax; i++ {
			del(i)
		}
	}
	check("runs deleted")
	rng := rand.New(rand.NewPCG(3, 4))
	for step := range 4 * n {
		if i := rng.IntN(n + defaultBlockMax); rng.IntN(3) == 0 {
			del(i)
		} else {
			put(i, fmt.Sprint(step))
		}
	}
	check("random puts and deletes")
	for i := range n + defaultBlockMax {
		del(i)
	}
	if len(tr.blocks) != 0 {
		t.Fatalf("every key deleted: %d blocks left", len(tr.blocks))
	}
	check("empty")
}

// The tree keeps copies: a caller's buffers may be reused after a put, and
// slices the tree handed out keep their bytes after the key is replaced,
// deleted or the tree is copied into new chunks.
func TestMemTreeKeepsCopiesAndHandsOutStableSlices(t *testing.T) {
	tr := newTree(4)
	key, val := []byte("k001"), []byte("first")
	tr.put(key, val)
	copy(key, "XXXX")
	copy(val, "XXXXX")
	got, ok := tr.get([]byte("k001"))
	if !ok || string(got) != "first" {
		t.Fatalf("after the caller reused its buffers: %q, %v", got, ok)
	}
	big := make([]byte, 64<<10)
	for i := range 200 { // replaced values outweigh the live ones: reclaims
		for j := range big {
			big[j] = byte(i)
		}
		tr.put([]byte("k002"), big)
	}
	old, had := tr.put([]byte("k001"), []byte("second"))
	if !had || string(old) != "first" || string(got) != "first" {
		t.Fatalf("replaced value %q (had %v); the slice handed out before reads %q", old, had, got)
	}
	tr.del([]byte("k001"))
	if string(old) != "first" {
		t.Fatalf("after the delete the replaced value reads %q", old)
	}
	if v, _ := tr.get([]byte("k002")); len(v) != len(big) || v[0] != 199 || v[len(v)-1] != 199 {
		t.Fatalf("k002 holds %d bytes starting %d", len(v), v[0])
	}
	held := 0
	for _, c := range tr.chunks {
		held += cap(c)
	}
	if limit := 2*tr.live + reclaimAfter + 2*chunkSize; held > limit {
		t.Errorf("chunks hold %d bytes for %d live: over %d", held, tr.live, limit)
	}
}

func TestMemTreeKeepsTombstonesByIdentity(t *testing.T) {
	tr := newTree(4)
	tr.put([]byte("a"), tombstone)
	tr.put([]byte("b"), []byte{0}) // one byte, like the tombstone, but a value
	if v, _ := tr.get([]byte("a")); !isTombstone(v) {
		t.Errorf("a tombstone put reads back as %v", v)
	}
	if v, _ := tr.get([]byte("b")); isTombstone(v) || len(v) != 1 {
		t.Errorf("a one-byte value reads back as a tombstone")
	}
	c := &memCursor{t: tr, bi: -1}
	if k, v := c.First(); string(k) != "a" || !isTombstone(v) {
		t.Errorf("the cursor reads %q = %v", k, v)
	}
}

// An entry holds no pointer: blocks are not scanned by the collector and
// moving entries costs no write barrier.
func TestMemEntryHoldsNoPointers(t *testing.T) {
	typ := reflect.TypeFor[memEntry]()
	for i := range typ.NumField() {
		switch typ.Field(i).Type.Kind() {
		case reflect.Uint32, reflect.Uint64, reflect.Int, reflect.Int32, reflect.Int64:
		default:
			t.Errorf("memEntry.%s is a %s", typ.Field(i).Name, typ.Field(i).Type)
		}
	}
}

// Every slice the tree hands out ends where its bytes end: appending to
// one allocates instead of writing over the chunk's next entry or the
// space later puts fill.
func TestMemTreeHandsOutSlicesCappedAtTheirLength(t *testing.T) {
	tr := newTree(4)
	for i := range 20 {
		tr.put(fmt.Appendf(nil, "k%02d", i), fmt.Appendf(nil, "v%02d", i))
	}
	capped := func(what string, s []byte) {
		t.Helper()
		if cap(s) != len(s) {
			t.Errorf("%s: len %d, cap %d", what, len(s), cap(s))
		}
	}
	v, _ := tr.get([]byte("k05"))
	capped("get", v)
	capped("firstKey", tr.firstKey())
	c := &memCursor{t: tr, bi: -1}
	for k, v := c.First(); k != nil; k, v = c.Next() {
		capped("cursor key "+string(k), k)
		capped("cursor value of "+string(k), v)
	}
	tr.all(func(k, v []byte) error {
		capped("all: key "+string(k), k)
		capped("all: value of "+string(k), v)
		return nil
	})
	old, _ := tr.put([]byte("k19"), []byte("new"))
	capped("put's replaced value", old)
	last, _ := tr.get([]byte("k19")) // the chunk's last bytes: free space follows
	_ = append(last, "XXXXXXXX"...)
	_ = append(v, "XXXXXXXX"...)
	tr.put([]byte("k20"), []byte("v20"))
	for i := range 21 {
		want := fmt.Sprintf("v%02d", i)
		if i == 19 {
			want = "new"
		}
		if got, _ := tr.get(fmt.Appendf(nil, "k%02d", i)); string(got) != want {
			t.Errorf("k%02d = %q after appends to handed-out values, want %q", i, got, want)
		}
	}
}

// A reclaim copies the live entries of the chunks it gives up into others
// and leaves those chunks as they are: values read, replaced or deleted
// before it keep their bytes.
func TestMemTreeReclaimKeepsHandedOutBytes(t *testing.T) {
	tr := newTree(4)
	key := func(i int) []byte { return fmt.Appendf(nil, "k%03d", i) }
	var held [][]byte
	var want []string
	hold := func(v []byte) {
		held = append(held, v)
		want = append(want, string(v))
	}
	for i := range 100 {
		tr.put(key(i), fmt.Appendf(nil, "first value of %d", i))
	}
	for i := range 100 {
		v, _ := tr.get(key(i))
		hold(v)
	}
	for i := range 100 {
		old, _ := tr.put(key(i), fmt.Appendf(nil, "second %d", i))
		hold(old)
	}
	for i := 0; i < 100; i += 3 {
		v, _ := tr.get(key(i))
		hold(v)
		tr.del(key(i))
	}
	big := make([]byte, 1<<20)
	for range 6 { // 5 MiB replaced, 1 MiB live: reclaims
		tr.put([]byte("z"), big)
	}
	for i := range 100 { // small replaces leave the first chunks mostly dead
		tr.put(key(i+200), make([]byte, 3000))
		tr.del(key(i + 200))
	}
	kept := func(v []byte) bool { // v lies in a chunk the tree still has
		p := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
		for _, c := range tr.chunks {
			if lo := uintptr(unsafe.Pointer(unsafe.SliceData(c))); c != nil && p >= lo && p < lo+uintptr(cap(c)) {
				return true
			}
		}
		return false
	}
	if !slices.ContainsFunc(held, func(v []byte) bool { return !kept(v) }) {
		t.Fatalf("%d reclaims gave up no chunk holding a value handed out", tr.reclaims)
	}
	for i, v := range held {
		if string(v) != want[i] {
			t.Errorf("handed out %q, reads %q after the reclaims", want[i], v)
		}
	}
	for i := range 100 {
		v, ok := tr.get(key(i))
		if i%3 == 0 && ok || i%3 != 0 && string(v) != fmt.Sprintf("second %d", i) {
			t.Errorf("%s = %q, %v after the reclaims", key(i), v, ok)
		}
	}
}

// The tree's byte counts match its entries through puts, replaces,
// tombstones, deletes and reclaims: live is the bytes of the entries (a
// tombstone's value counts nothing), live and dead together are the bytes
// written into the chunks kept, and dead bytes never stay above both the
// threshold and half the live ones.
func TestMemTreeCountsLiveAndDeadBytes(t *testing.T) {
	tr := newTree(8)
	model := map[string]string{}
	rng := rand.New(rand.NewPCG(5, 6))
	for step := range 1500 {
		k := fmt.Sprintf("k%03d", rng.IntN(200))
		switch op := rng.IntN(10); {
		case op < 2:
			tr.del([]byte(k))
			delete(model, k)
		case op < 4:
			tr.put([]byte(k), tombstone)
			model[k] = "<tombstone>"
		default:
			v := make([]byte, 1+rng.IntN(32<<10))
			v[0] = byte(step)
			tr.put([]byte(k), v)
			model[k] = string(v)
		}
		live, written := 0, 0
		n := 0
		err := tr.all(func(k, v []byte) error {
			n++
			got := string(v)
			if isTombstone(v) {
				got = "<tombstone>"
			} else {
				live += len(v)
			}
			live += len(k)
			if got != model[string(k)] {
				return fmt.Errorf("%s holds %d bytes, model %d", k, len(got), len(model[string(k)]))
			}
			return nil
		})
		if err != nil || n != len(model) {
			t.Fatalf("step %d: %v; %d entries, model %d", step, err, n, len(model))
		}
		for _, c := range tr.chunks {
			written += len(c)
		}
		if tr.live != live || tr.live+tr.dead != written {
			t.Fatalf("step %d: live %d dead %d; entries hold %d, chunks %d", step, tr.live, tr.dead, live, written)
		}
		if tr.dead > reclaimAfter && 2*tr.dead > tr.live {
			t.Fatalf("step %d: %d dead bytes left beside %d live", step, tr.dead, tr.live)
		}
		for ci, c := range tr.chunks {
			if c == nil && !slices.Contains(tr.free, uint32(ci)) || c != nil && slices.Contains(tr.free, uint32(ci)) {
				t.Fatalf("step %d: chunk %d given up %v, in the free list %v", step, ci, c == nil, slices.Contains(tr.free, uint32(ci)))
			}
		}
	}
	if tr.reclaims < 2 {
		t.Fatalf("%d reclaims ran", tr.reclaims)
	}
}

// A reclaim changes no entry's place in the blocks: a cursor open on the
// tree steps on from where it was, and what it returned keeps its bytes.
func TestMemTreeCursorKeepsItsPlaceAcrossReclaims(t *testing.T) {
	tr := newTree(4)
	for i := range 40 {
		tr.put(fmt.Appendf(nil, "k%02d", i), fmt.Appendf(nil, "v%02d", i))
	}
	c := &memCursor{t: tr, bi: -1}
	k, v := c.Seek([]byte("k17"))
	big := make([]byte, 1<<20)
	for range 6 {
		tr.put([]byte("k30"), big)
	}
	if tr.reclaims == 0 {
		t.Fatal("no reclaim")
	}
	if string(k) != "k17" || string(v) != "v17" {
		t.Errorf("the cursor returned %q = %q, reads %q = %q after the reclaims", "k17", "v17", k, v)
	}
	if k, v := c.Next(); string(k) != "k18" || string(v) != "v18" {
		t.Errorf("Next after the reclaims: %q = %q", k, v)
	}
	if k, _ := c.Prev(); string(k) != "k17" {
		t.Errorf("Prev after the reclaims: %q", k)
	}
	if _, v := c.Seek([]byte("k30")); len(v) != len(big) {
		t.Errorf("k30 holds %d bytes", len(v))
	}
}

// The chunks hold little beyond the entries they were given: an entry too
// large to share a chunk well gets one of its exact size without closing
// the chunk small entries fill, and a small tree gets small chunks.
func TestMemTreeChunksHoldLittleBeyondTheirEntries(t *testing.T) {
	held := func(tr *memTree) (n int) {
		for _, c := range tr.chunks {
			n += cap(c)
		}
		return n
	}
	sizes := map[string][]int{
		"100 B": {100}, "1000 B": {1000}, "7 KiB": {7 << 10}, "9 KiB": {9 << 10},
		"20 KiB": {20 << 10}, "33 KiB": {33 << 10}, "40 KiB": {40 << 10}, "70 KiB": {70 << 10},
		"70 KiB and 200 B": {70 << 10, 200}, "33 KiB and 100 B": {33 << 10, 100},
	}
	for name, vs := range sizes {
		tr := newTree(defaultBlockMax)
		for i := range 300 {
			tr.put(fmt.Appendf(nil, "k%04d", i), make([]byte, vs[i%len(vs)]))
		}
		if h, limit := held(tr), tr.live+tr.live/7+2*chunkSize; h > limit {
			t.Errorf("values of %s: chunks hold %d bytes for %d of entries (%.2f times)", name, h, tr.live, float64(h)/float64(tr.live))
		}
	}
	tr := newTree(defaultBlockMax)
	tr.put([]byte("key"), []byte("value"))
	if h := held(tr); h > 1<<10 {
		t.Errorf("one entry of 8 bytes: chunks hold %d bytes", h)
	}
}

// A small tree updated in place stays small: an in-memory store holds a
// tree per table and index, and the bytes their replaced values leave
// behind add up over every tree. A reclaim copies fewer bytes than it
// frees, so reclaiming small trees costs no more per byte than large ones.
func TestMemTreeSmallTreeUpdatedInPlaceStaysSmall(t *testing.T) {
	tr := newTree(defaultBlockMax)
	rng := rand.New(rand.NewPCG(7, 8))
	peak := 0
	for i := range 50_000 {
		tr.put(fmt.Appendf(nil, "k%03d", rng.IntN(100)), make([]byte, 200))
		if i%100 == 0 {
			held := 0
			for _, c := range tr.chunks {
				held += cap(c)
			}
			peak = max(peak, held)
		}
	}
	if limit := tr.live + 512<<10; peak > limit {
		t.Errorf("100 entries of %d bytes updated in place: chunks held up to %d bytes, over %d", tr.live/100, peak, limit)
	}
}

// A large tree updated in place holds at most about one and a half times
// its live bytes, and never copies the whole tree at once: a reclaim gives
// up the deadest chunks, copying their live entries only.
func TestMemTreeLargeTreeUpdatedInPlaceStaysNearItsLiveBytes(t *testing.T) {
	tr := newTree(defaultBlockMax)
	key := func(i int) []byte { return fmt.Appendf(nil, "k%05d", i) }
	for i := range 4000 {
		tr.put(key(i), make([]byte, 1000))
	}
	rng := rand.New(rand.NewPCG(9, 10))
	peak := 0
	for range 40_000 {
		tr.put(key(rng.IntN(4000)), make([]byte, 1000))
		held := 0
		for _, c := range tr.chunks {
			held += cap(c)
		}
		peak = max(peak, held)
	}
	if limit := tr.live + tr.live/2 + reclaimAfter + 2*chunkSize; peak > limit {
		t.Errorf("%d live bytes updated in place: chunks held up to %d, over %d", tr.live, peak, limit)
	}
	if tr.reclaims < 10 {
		t.Errorf("%d reclaims", tr.reclaims)
	}
}

// checkChunks fails unless every entry lies inside a chunk the tree keeps,
// each chunk's bytes are its entries' plus its dead ones, the counts add
// up, and the fill index names a kept shared chunk or none.
func checkChunks(t *testing.T, tr *memTree, when string) {
	t.Helper()
	used := make([]int, len(tr.chunks))
	live := 0
	for _, blk := range tr.blocks {
		for _, e := range blk {
			if int(e.c) >= len(tr.chunks) || tr.chunks[e.c] == nil {
				t.Fatalf("%s: an entry names chunk %d, given up or past the %d chunks", when, e.c, len(tr.chunks))
			}
			if int(e.off)+e.size() > len(tr.chunks[e.c]) {
				t.Fatalf("%s: an entry ends at %d in chunk %d of %d bytes", when, int(e.off)+e.size(), e.c, len(tr.chunks[e.c]))
			}
			used[e.c] += e.size()
			live += e.size()
		}
	}
	dead := 0
	for ci, c := range tr.chunks {
		if used[ci]+tr.chunkDead[ci] != len(c) {
			t.Fatalf("%s: chunk %d holds %d bytes, %d live and %d dead", when, ci, len(c), used[ci], tr.chunkDead[ci])
		}
		dead += tr.chunkDead[ci]
	}
	if live != tr.live || dead != tr.dead {
		t.Fatalf("%s: live %d dead %d counted, entries hold %d, chunks %d dead", when, tr.live, tr.dead, live, dead)
	}
	if tr.fill >= 0 && tr.fill < len(tr.chunks) {
		if c := tr.chunks[tr.fill]; c == nil {
			t.Fatalf("%s: the fill chunk %d was given up", when, tr.fill)
		}
	}
	if tr.dead > reclaimAfter && 2*tr.dead > tr.live {
		t.Fatalf("%s: %d dead bytes left beside %d live", when, tr.dead, tr.live)
	}
}

// Reclaims move live entries out of the chunks they give up: after every
// put and delete of small and large entries, each entry lies in a chunk
// the tree keeps and the byte counts match the chunks, chunk by chunk.
func TestMemTreeReclaimMovesLiveEntriesIntoKeptChunks(t *testing.T) {
	tr := newTree(8)
	model := map[string]string{}
	rng := rand.New(rand.NewPCG(11, 12))
	at := map[string]memEntry{} // where each key's last put stored it
	for step := range 6000 {
		k := fmt.Sprintf("k%04d", rng.IntN(1000))
		switch op := rng.IntN(20); {
		case op < 3:
			tr.del([]byte(k))
			delete(model, k)
			delete(at, k)
		case op < 4:
			tr.put([]byte(k), tombstone)
			model[k] = "<tombstone>"
			bi, i, _ := tr.find([]byte(k))
			at[k] = tr.blocks[bi][i]
		default:
			n := 1 + rng.IntN(600)
			if op == 4 {
				n = ownChunkOver + rng.IntN(64<<10)
			}
			v := make([]byte, n)
			v[0], v[n-1] = byte(step), byte(step>>8)
			tr.put([]byte(k), v)
			model[k] = string(v)
			bi, i, _ := tr.find([]byte(k))
			at[k] = tr.blocks[bi][i]
		}
		checkChunks(t, tr, fmt.Sprintf("step %d", step))
	}
	moved := 0
	err := tr.all(func(k, v []byte) error {
		got := string(v)
		if isTombstone(v) {
			got = "<tombstone>"
		}
		if got != model[string(k)] {
			return fmt.Errorf("%s holds %d bytes, model %d", k, len(got), len(model[string(k)]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, blk := range tr.blocks {
		for _, e := range blk {
			if e != at[string(tr.key(e))] {
				moved++
			}
		}
	}
	if tr.reclaims < 5 || moved == 0 {
		t.Fatalf("%d reclaims moved %d live entries", tr.reclaims, moved)
	}
}

// Deleting a large entry can leave the dead bytes over both limits after
// the reclaim that gives up its chunk: the tree reclaims again, right away.
func TestMemTreeReclaimsAgainWhileDeadBytesOutweighHalfTheLive(t *testing.T) {
	tr := newTree(defaultBlockMax)
	key := func(i int) []byte { return fmt.Appendf(nil, "k%05d", i) }
	for i := range 1500 { // 1.5 MB live in shared chunks
		tr.put(key(i), make([]byte, 1000))
	}
	tr.put([]byte("big"), make([]byte, 3<<19))
	for i := range 1500 { // 1 MB dead, two thirds of each shared chunk
		if i%3 != 2 {
			tr.put(key(i), make([]byte, 1000))
		}
	}
	if tr.reclaims != 0 || tr.dead < 1_000_000 {
		t.Fatalf("before the delete: %d reclaims, %d dead", tr.reclaims, tr.dead)
	}
	// Giving up the large entry's chunk, the deadest, frees over half the
	// dead bytes and leaves 1 MB dead beside 1.5 MB live.
	tr.del([]byte("big"))
	checkChunks(t, tr, "after deleting the large entry")
	if tr.reclaims < 2 {
		t.Errorf("%d reclaims after deleting the large entry", tr.reclaims)
	}
}

// A tree whose first entry has a chunk of its own gives that chunk up once
// the entry is replaced, like any other: the chunk is not taken for the
// one small entries fill.
func TestMemTreeGivesUpTheFirstEntrysOwnChunk(t *testing.T) {
	tr := newTree(defaultBlockMax)
	big := make([]byte, 300<<10)
	for i := range 4 {
		big[0] = byte(i)
		tr.put([]byte("a"), big)
		checkChunks(t, tr, fmt.Sprintf("put %d", i))
	}
	held := 0
	for _, c := range tr.chunks {
		held += cap(c)
	}
	if held > 2*len(big) {
		t.Errorf("one entry of %d bytes: chunks hold %d", len(big), held)
	}
}

// The chunk being filled is never given up, even when it is the deadest:
// a reclaim copies live entries into it.
func TestMemTreeReclaimKeepsTheChunkBeingFilled(t *testing.T) {
	tr := newTree(defaultBlockMax)
	key := func(i int) []byte { return fmt.Appendf(nil, "k%05d", i) }
	for i := range 600 {
		tr.put(key(i), make([]byte, 1000))
	}
	for i := range 250 { // half of the first chunks dead
		tr.put(key(2*i), make([]byte, 1000))
	}
	for i := 0; tr.reclaims == 0; i++ { // one key replaced: the fill chunk is the deadest
		tr.put(key(1), make([]byte, 1000))
		checkChunks(t, tr, fmt.Sprintf("replace %d", i))
	}
}
