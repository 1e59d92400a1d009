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
		for step := range 3000 {
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
	for i := range 200 { // replaced values outweigh the live ones: compactions
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
	if limit := 2*tr.live + compactAfter + 2*chunkSize; held > limit {
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
