package kv

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"pgregory.net/rapid"
)

// TestMemKVMatchesSortedMap drives memKV with random puts, deletes, seeks and
// walks, and aborted transactions, against a plain map.
func TestMemKVMatchesSortedMap(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		kv := newMem(4) // blocks of 4 entries: split and merge often
		model := map[string]string{}
		name := []byte("b")
		if err := kv.Update(func(tx Tx) error { _, err := tx.CreateBucket(name); return err }); err != nil {
			rt.Fatal(err)
		}
		keyGen := rapid.StringMatching(`[a-d]{1,3}`) // bbolt, and so memKV, refuse empty keys
		steps := rapid.IntRange(1, 400).Draw(rt, "steps")
		for s := 0; s < steps; s++ {
			abort := rapid.IntRange(0, 9).Draw(rt, "abort") == 0
			staged := map[string]*string{}
			ops := rapid.IntRange(1, 5).Draw(rt, "ops")
			committed := updateOrAbort(rt, kv, abort, func(tx Tx) {
				b := tx.Bucket(name)
				for i := 0; i < ops; i++ {
					k := keyGen.Draw(rt, "k")
					if rapid.Bool().Draw(rt, "put") {
						v := fmt.Sprint(s, i)
						b.Put([]byte(k), []byte(v))
						staged[k] = &v
					} else {
						b.Delete([]byte(k))
						staged[k] = nil
					}
				}
			})
			if committed {
				for k, v := range staged {
					if v == nil {
						delete(model, k)
					} else {
						model[k] = *v
					}
				}
			}
			checkMemKV(rt, kv, name, model, keyGen.Draw(rt, "seek"))
		}
	})
}

func checkMemKV(rt *rapid.T, kv *Mem, name []byte, model map[string]string, seek string) {
	keys := slices.Sorted(maps.Keys(model))
	kv.View(func(tx Tx) error {
		b := tx.Bucket(name)
		var fwd, back []string
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if model[string(k)] != string(v) {
				rt.Fatalf("value of %q = %q, model %q", k, v, model[string(k)])
			}
			fwd = append(fwd, string(k))
		}
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			back = append([]string{string(k)}, back...)
		}
		if fmt.Sprint(fwd) != fmt.Sprint(keys) || fmt.Sprint(back) != fmt.Sprint(keys) {
			rt.Fatalf("forward %v backward %v, model %v", fwd, back, keys)
		}
		i := sort.SearchStrings(keys, seek)
		k, _ := c.Seek([]byte(seek))
		if i == len(keys) && k != nil || i < len(keys) && !bytes.Equal(k, []byte(keys[i])) {
			rt.Fatalf("Seek(%q) = %q, model %v", seek, k, keys)
		}
		return nil
	})
}

// A failed transaction whose replaces made a tree give up chunks rolls back
// exactly: the undo log's old values point into chunks left as they were.
func TestRollbackAcrossCompaction(t *testing.T) {
	stores := map[string]func(t *testing.T) DB{
		"mem": func(*testing.T) DB { return newMem(4) },
		"file": func(t *testing.T) DB {
			kv := openTestWAL(t, filepath.Join(t.TempDir(), "data.db"), 64<<20)
			t.Cleanup(func() { kv.Close() })
			return kv
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			key := func(i int) []byte { return fmt.Appendf(nil, "k%02d", i) }
			if err := db.Update(func(tx Tx) error {
				b, err := tx.CreateBucket([]byte("b"))
				for i := range 40 {
					if err == nil {
						err = b.Put(key(i), fmt.Appendf(nil, "committed %d", i))
					}
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			big := make([]byte, 1<<20)
			err := db.Update(func(tx Tx) error {
				b := tx.Bucket([]byte("b"))
				for i := range 40 {
					b.Put(key(i), fmt.Appendf(nil, "rolled back %d", i))
				}
				for i := 0; i < 40; i += 4 {
					b.Delete(key(i))
				}
				for range 6 { // 5 MiB replaced: reclaims
					b.Put([]byte("z"), big)
				}
				for i := 1; i < 40; i += 4 {
					b.Put(key(i), []byte("rolled back again"))
				}
				return errors.New("abort")
			})
			if err == nil {
				t.Fatal("the aborted transaction committed")
			}
			db.View(func(tx Tx) error {
				b := tx.Bucket([]byte("b"))
				n := 0
				c := b.Cursor()
				for k, v := c.First(); k != nil; k, v = c.Next() {
					if want := fmt.Sprintf("committed %d", n); string(k) != string(key(n)) || string(v) != want {
						t.Errorf("entry %d: %q = %q, want %q = %q", n, k, v, key(n), want)
					}
					n++
				}
				if n != 40 {
					t.Errorf("%d entries, want 40", n)
				}
				return nil
			})
		})
	}
}
