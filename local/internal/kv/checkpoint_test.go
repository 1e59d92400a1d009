package kv

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckpointCrashBetweenSteps: a checkpoint written in many bbolt
// transactions that stops part way (a failure, then a crash) leaves the data
// file holding some of the log's changes without the log's epoch; the
// reopen replays the whole log over them and ends in the state every write
// acknowledged — overwritten and deleted keys of the file, a bucket dropped
// and one dropped and created again included.
func TestCheckpointCrashBetweenSteps(t *testing.T) {
	for _, failAfter := range []int{1, 3, 10} {
		t.Run(fmt.Sprintf("after%d", failAfter), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.db")
			val := func(round, i int) string { return strings.Repeat(fmt.Sprintf("r%d.%05d.", round, i), 20) }
			// The file holds round 0 of buckets a, b and c.
			kv := openTestWAL(t, path, 1<<30)
			for _, b := range []string{"a", "b", "c"} {
				for i := range 200 {
					mustPut(t, kv, b, fmt.Sprintf("k%05d", i), val(0, i))
				}
			}
			if err := kv.Close(); err != nil {
				t.Fatal(err)
			}
			// Round 1 in the log: a's keys overwritten and every third one
			// deleted, b dropped and created again with fewer keys, c dropped.
			steps := 0
			kv = openTestFile(t, path, Options{CheckpointBytes: 1 << 30, stepBytes: 2048, stepFault: func(n int) error {
				steps = n
				if n == failAfter {
					return errors.New("injected failure between checkpoint steps")
				}
				return nil
			}})
			err := kv.Update(func(tx Tx) error {
				a := tx.Bucket([]byte("a"))
				for i := range 200 {
					var err error
					if i%3 == 0 {
						err = a.Delete([]byte(fmt.Sprintf("k%05d", i)))
					} else {
						err = a.Put([]byte(fmt.Sprintf("k%05d", i)), []byte(val(1, i)))
					}
					if err != nil {
						return err
					}
				}
				if err := tx.DeleteBucket([]byte("b")); err != nil {
					return err
				}
				b, err := tx.CreateBucket([]byte("b"))
				if err != nil {
					return err
				}
				for i := range 50 {
					if err := b.Put([]byte(fmt.Sprintf("k%05d", i)), []byte(val(1, i))); err != nil {
						return err
					}
				}
				return tx.DeleteBucket([]byte("c"))
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := kv.Checkpoint(); err == nil || steps != failAfter {
				t.Fatalf("checkpoint: %v after %d steps, want the injected failure after %d", err, steps, failAfter)
			}
			kv.Crash()
			for round := range 2 { // the replay, then a clean reopen
				kv = openTestWAL(t, path, 1<<30)
				for i := range 200 {
					want := val(1, i)
					if i%3 == 0 {
						want = "<nil>"
					}
					if got := walGet(t, kv, "a", fmt.Sprintf("k%05d", i)); got != want {
						t.Fatalf("reopen %d: a/k%05d = %.20q, want %.20q", round, i, got, want)
					}
					want = "<nil>"
					if i < 50 {
						want = val(1, i)
					}
					if got := walGet(t, kv, "b", fmt.Sprintf("k%05d", i)); got != want {
						t.Fatalf("reopen %d: b/k%05d = %.20q, want %.20q", round, i, got, want)
					}
				}
				if got := walGet(t, kv, "c", "k00000"); got != "<no bucket>" {
					t.Fatalf("reopen %d: dropped bucket c reads %.20q", round, got)
				}
				if err := kv.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestCheckpointStepsBoundTransactions: a checkpoint of a large overlay is
// written in several bbolt transactions, none holding much more than a
// step's worth of pages.
func TestCheckpointStepsBoundTransactions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	commits := 0
	kv := openTestFile(t, path, Options{CheckpointBytes: 1 << 30, stepBytes: 1 << 20, stepFault: func(n int) error {
		commits = n
		return nil
	}})
	defer kv.Close()
	// 8 MiB in random order: every value lands on its own leaf.
	for i := range 2048 {
		mustPut(t, kv, "b", fmt.Sprintf("k%05d", (i*7919)%2048), strings.Repeat("v", 4096))
	}
	if err := kv.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if commits < 7 {
		t.Errorf("8 MiB checkpointed in %d intermediate commits of 1 MiB steps, want at least 7", commits)
	}
	for i := range 2048 {
		if got := walGet(t, kv, "b", fmt.Sprintf("k%05d", i)); len(got) != 4096 {
			t.Fatalf("k%05d: %d bytes", i, len(got))
		}
	}
}
