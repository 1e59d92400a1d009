package kv

import (
	"errors"
	"fmt"
	"math/rand/v2"
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
					if prev != nil && string(prev) >= string(en.k) {
						t.Fatalf("max %d step %d: keys out of order: %q then %q", max, step, prev, en.k)
					}
					prev = en.k
					if model[string(en.k)] != string(en.v) {
						t.Fatalf("max %d step %d: %q = %q, want %q", max, step, en.k, en.v, model[string(en.k)])
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
