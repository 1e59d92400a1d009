package kv

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestMappedPagesReleased: reading or checkpointing a data file far larger
// than the slack leaves only about the slack of it mapped into the process
// (resident file pages), not the file.
func TestMappedPagesReleased(t *testing.T) {
	const keys, size = 24 << 10, 4 << 10 // 96 MiB of values
	path := filepath.Join(t.TempDir(), "data.db")
	base, ok := residentFileBytes()
	if !ok {
		t.Skip("no /proc/self/statm")
	}
	peak := int64(0)
	note := func() {
		if n, _ := residentFileBytes(); n-base > peak {
			peak = n - base
		}
	}
	kv := openTestFile(t, path, Options{CheckpointBytes: 1 << 30, stepFault: func(int) error { note(); return nil }})
	defer kv.Close()
	// Written in order, then overwritten in a scattered order: the second
	// checkpoint reads every leaf of the file.
	for round, step := range []int{1, 7919} {
		val := strings.Repeat(fmt.Sprint(round), size)
		for i := 0; i < keys; i += 1024 {
			err := kv.Update(func(tx Tx) error {
				b, err := tx.CreateBucketIfNotExists([]byte("b"))
				if err != nil {
					return err
				}
				for j := i; j < i+1024; j++ {
					if err := b.Put([]byte(fmt.Sprintf("k%06d", j*step%keys)), []byte(val)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		peak = 0
		if err := kv.Checkpoint(); err != nil {
			t.Fatal(err)
		}
		note()
	}
	const bound = 32 << 20 // slack, the reads between looks, and room
	if peak > bound {
		t.Errorf("checkpoint of %d MiB left %d MiB of file pages mapped, want < %d", keys*size>>20, peak>>20, bound>>20)
	}
	peak = 0
	err := kv.View(func(tx Tx) error {
		b := tx.Bucket([]byte("b"))
		for i := range keys {
			if len(b.Get([]byte(fmt.Sprintf("k%06d", i)))) != size {
				return fmt.Errorf("k%06d: wrong value", i)
			}
			if i%256 == 0 {
				note()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	note()
	if peak > bound {
		t.Errorf("reading %d MiB left %d MiB of file pages mapped, want < %d", keys*size>>20, peak>>20, bound>>20)
	}
}
