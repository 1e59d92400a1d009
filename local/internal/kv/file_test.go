package kv

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adjl/adjl/local/internal/testkit"
	"pgregory.net/rapid"
)

// openTestWAL opens a File on path whose logs checkpoint after limit bytes.
func openTestWAL(t testing.TB, path string, limit int64) *File {
	t.Helper()
	return openTestFile(t, path, Options{CheckpointBytes: limit})
}

// openTestFile opens a File on path with opt, waiting up to 5 s for its lock.
func openTestFile(t testing.TB, path string, opt Options) *File {
	t.Helper()
	opt.LockTimeout = 5 * time.Second
	kv, err := OpenFile(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// updateOrAbort runs ops in an Update of db that rolls back when abort is
// set, and reports whether it committed; a transaction that should commit
// and fails fails rt.
func updateOrAbort(rt *rapid.T, db DB, abort bool, ops func(tx Tx)) bool {
	err := db.Update(func(tx Tx) error {
		ops(tx)
		if abort {
			return errors.New("abort")
		}
		return nil
	})
	if abort {
		return false
	}
	if err != nil {
		rt.Fatal(err)
	}
	return true
}

// walModel is what the store should hold: bucket -> key -> value.
type walModel map[string]map[string]string

func (m walModel) clone() walModel {
	c := walModel{}
	for b, kvs := range m {
		c[b] = map[string]string{}
		for k, v := range kvs {
			c[b][k] = v
		}
	}
	return c
}

// TestWALMatchesModel drives walKV with random transactions over several
// buckets — puts, deletes, bucket creates and drops, aborts — with a log
// limit so small that checkpoints run in the background all the time (and
// sometimes write each entry in a bbolt transaction of its own), and
// reopens or "crashes" it now and then; after every step each bucket must
// read back as the model says, through Get and through cursor walks in both
// directions from random seeks.
func TestWALMatchesModel(t *testing.T) {
	testkit.SetFlagDefault(t, "rapid.nofailfile", "true")
	testkit.SetFlagDefault(t, "rapid.steps", "30")
	dir := t.TempDir()
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		path := filepath.Join(dir, fmt.Sprintf("p%d.db", run))
		limit := int64(rapid.SampledFrom([]int{64, 512, 1 << 20}).Draw(rt, "limit"))
		// Blocks of 4 entries: overlay trees split and merge often. A step
		// of 1 byte commits a checkpoint's transaction after every entry.
		step := int64(rapid.SampledFrom([]int{1, 1 << 20}).Draw(rt, "step"))
		opt := Options{CheckpointBytes: limit, blockMax: 4, stepBytes: step}
		kv := openTestFile(t, path, opt)
		defer func() { kv.Close() }()
		model := walModel{}
		buckets := []string{"a", "b", "c"}
		keyGen := rapid.StringMatching(`[a-e]{1,3}`)
		steps := rapid.IntRange(1, 60).Draw(rt, "steps")
		for s := 0; s < steps; s++ {
			switch rapid.IntRange(0, 19).Draw(rt, "what") {
			case 0:
				if err := kv.Close(); err != nil {
					rt.Fatal(err)
				}
				kv = openTestFile(t, path, opt)
				continue
			case 1:
				kv.Crash()
				kv = openTestFile(t, path, opt)
				continue
			}
			abort := rapid.IntRange(0, 7).Draw(rt, "abort") == 0
			next := model.clone()
			ops := rapid.IntRange(1, 6).Draw(rt, "ops")
			committed := updateOrAbort(rt, kv, abort, func(tx Tx) {
				for i := 0; i < ops; i++ {
					name := rapid.SampledFrom(buckets).Draw(rt, "bucket")
					b := tx.Bucket([]byte(name))
					if (b == nil) != (next[name] == nil) {
						rt.Fatalf("bucket %s: exists %v, model %v", name, b != nil, next[name] != nil)
					}
					switch op := rapid.IntRange(0, 9).Draw(rt, "op"); {
					case b == nil || op == 0:
						if b != nil {
							if err := tx.DeleteBucket([]byte(name)); err != nil {
								rt.Fatal(err)
							}
							delete(next, name)
						}
						if _, err := tx.CreateBucket([]byte(name)); err != nil {
							rt.Fatal(err)
						}
						next[name] = map[string]string{}
					case op == 1:
						if err := tx.DeleteBucket([]byte(name)); err != nil {
							rt.Fatal(err)
						}
						delete(next, name)
					case op < 6:
						k, v := keyGen.Draw(rt, "k"), fmt.Sprint(s, ".", i)
						if err := b.Put([]byte(k), []byte(v)); err != nil {
							rt.Fatal(err)
						}
						next[name][k] = v
					default:
						k := keyGen.Draw(rt, "k")
						if err := b.Delete([]byte(k)); err != nil {
							rt.Fatal(err)
						}
						delete(next[name], k)
					}
				}
			})
			if committed {
				model = next
			}
			checkWAL(rt, kv, buckets, model, keyGen)
		}
	})
}

func checkWAL(rt *rapid.T, kv *File, buckets []string, model walModel, keyGen *rapid.Generator[string]) {
	err := kv.View(func(tx Tx) error {
		for _, name := range buckets {
			b := tx.Bucket([]byte(name))
			want := model[name]
			if (b == nil) != (want == nil) {
				rt.Fatalf("bucket %s: exists %v, model %v", name, b != nil, want != nil)
			}
			if b == nil {
				continue
			}
			keys := slices.Sorted(maps.Keys(want))
			var got []string
			b.ForEach(func(k, v []byte) error {
				if want[string(k)] != string(v) {
					rt.Fatalf("%s/%s = %q, model %q", name, k, v, want[string(k)])
				}
				got = append(got, string(k))
				return nil
			})
			if fmt.Sprint(got) != fmt.Sprint(keys) {
				rt.Fatalf("bucket %s walks %v, model %v", name, got, keys)
			}
			for _, k := range []string{keyGen.Draw(rt, "get")} {
				if v, ok := want[k]; (b.Get([]byte(k)) != nil) != ok || ok && string(b.Get([]byte(k))) != v {
					rt.Fatalf("Get %s/%s = %q, model %q", name, k, b.Get([]byte(k)), v)
				}
			}
			walkCursor(rt, b.Cursor(), keys, keyGen.Draw(rt, "seek"), rapid.SliceOfN(rapid.Bool(), 0, 8).Draw(rt, "moves"))
		}
		return nil
	})
	if err != nil {
		rt.Fatal(err)
	}
}

// walkCursor seeks and then moves (true: Next, false: Prev), comparing each
// answer with the sorted keys; it stops when the walk leaves the keys.
func walkCursor(rt *rapid.T, c Cursor, keys []string, seek string, moves []bool) {
	i := sort.SearchStrings(keys, seek)
	k, _ := c.Seek([]byte(seek))
	for step := 0; ; step++ {
		if i < 0 || i >= len(keys) {
			if k != nil {
				rt.Fatalf("walk step %d: got %q, model has no key there", step, k)
			}
			return
		}
		if string(k) != keys[i] {
			rt.Fatalf("walk step %d: got %q, model %q", step, k, keys[i])
		}
		if step == len(moves) {
			return
		}
		if moves[step] {
			k, _ = c.Next()
			i++
		} else {
			k, _ = c.Prev()
			i--
		}
	}
}

// TestWALTornTail: a record cut short or corrupted by a crash is not
// replayed, and neither is anything after it; every record before it is.
func TestWALTornTail(t *testing.T) {
	for _, damage := range []string{"cut", "flip", "garbage"} {
		t.Run(damage, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.db")
			kv := openTestWAL(t, path, 1<<20)
			for i := 0; i < 3; i++ {
				err := kv.Update(func(tx Tx) error {
					b, err := tx.CreateBucketIfNotExists([]byte("b"))
					if err != nil {
						return err
					}
					return b.Put([]byte(fmt.Sprint("k", i)), []byte("v"))
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			end, active := kv.log.end, kv.log.f.Name()
			kv.Crash()
			f, err := os.OpenFile(active, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			switch damage {
			case "cut":
				err = f.Truncate(end - 3)
			case "flip":
				var b [1]byte
				f.ReadAt(b[:], end-2)
				b[0] ^= 0xFF
				_, err = f.WriteAt(b[:], end-2)
			case "garbage":
				_, err = f.WriteAt(bytes.Repeat([]byte{0xA5}, 100), end)
			}
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			kv = openTestWAL(t, path, 1<<20)
			defer kv.Close()
			want := map[string]bool{"k0": true, "k1": true, "k2": damage == "garbage"}
			kv.View(func(tx Tx) error {
				for k, present := range want {
					if got := tx.Bucket([]byte("b")).Get([]byte(k)) != nil; got != present {
						t.Errorf("%s present %v, want %v", k, got, present)
					}
				}
				return nil
			})
		})
	}
}

// TestWALConcurrentCheckpoints moves units between keys from several
// writers while readers check the total, with a log limit that keeps
// background checkpoints running throughout: every reader must see a
// consistent state, whichever layers it reads through.
func TestWALConcurrentCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	kv := openTestWAL(t, path, 512)
	const keys, total = 16, 1600
	err := kv.Update(func(tx Tx) error {
		b, err := tx.CreateBucket([]byte("acct"))
		if err != nil {
			return err
		}
		for i := 0; i < keys; i++ {
			if err := b.Put([]byte(fmt.Sprintf("k%02d", i)), []byte(fmt.Sprint(total/keys))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sum := func(tx Tx) (n int) {
		tx.Bucket([]byte("acct")).ForEach(func(k, v []byte) error {
			var x int
			fmt.Sscan(string(v), &x)
			n += x
			return nil
		})
		return n
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 4 {
		wg.Go(func() {
			for i := 0; i < 60; i++ {
				err := kv.Update(func(tx Tx) error {
					b := tx.Bucket([]byte("acct"))
					from, to := []byte(fmt.Sprintf("k%02d", (w+i)%keys)), []byte(fmt.Sprintf("k%02d", (w*7+i*3+1)%keys))
					var a, c int
					fmt.Sscan(string(b.Get(from)), &a)
					fmt.Sscan(string(b.Get(to)), &c)
					if bytes.Equal(from, to) || a == 0 {
						return nil
					}
					if err := b.Put(from, []byte(fmt.Sprint(a-1))); err != nil {
						return err
					}
					return b.Put(to, []byte(fmt.Sprint(c+1)))
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	var readers sync.WaitGroup
	for r := 0; r < 2; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				kv.View(func(tx Tx) error {
					if n := sum(tx); n != total {
						t.Errorf("reader saw a total of %d, want %d", n, total)
					}
					return nil
				})
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	// Each checkpoint gives a log a new epoch: make sure they ran.
	if n := kv.epochs.Load(); n < 10 {
		t.Fatalf("only %d log epochs: the checkpoints this test is about did not run", n)
	}
	if err := kv.Close(); err != nil {
		t.Fatal(err)
	}
	kv = openTestWAL(t, path, 512)
	defer kv.Close()
	kv.View(func(tx Tx) error {
		if n := sum(tx); n != total {
			t.Errorf("after reopen the total is %d, want %d", n, total)
		}
		return nil
	})
}

// TestWALFailedWriteStopsWrites: once a log write fails, the write is
// rolled back and refused, and so is every later write until the file is
// reopened; reopening recovers everything acknowledged before.
func TestWALFailedWriteStopsWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	kv := openTestWAL(t, path, 1<<20)
	put := func(k string) error {
		return kv.Update(func(tx Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("b"))
			if err != nil {
				return err
			}
			return b.Put([]byte(k), []byte("v"))
		})
	}
	if err := put("before"); err != nil {
		t.Fatal(err)
	}
	if err := kv.Failure(); err != nil {
		t.Fatalf("Failure before any failure: %v", err)
	}
	kv.log.f.Close() // the next write to the log fails
	if err := put("lost"); err == nil {
		t.Fatal("write with a failed log succeeded")
	}
	if err := kv.Failure(); err == nil || !errors.Is(err, os.ErrClosed) {
		t.Errorf("Failure after the failed log write: %v", err)
	}
	err := put("after")
	if err == nil || !strings.Contains(err.Error(), "reopen the data file") {
		t.Fatalf("write after a failed log write: %v", err)
	}
	kv.View(func(tx Tx) error {
		if tx.Bucket([]byte("b")).Get([]byte("lost")) != nil {
			t.Error("the failed write is visible")
		}
		return nil
	})
	kv.spare.f.Close()
	kv.db.Close()
	kv = openTestWAL(t, path, 1<<20)
	defer kv.Close()
	kv.View(func(tx Tx) error {
		b := tx.Bucket([]byte("b"))
		if b.Get([]byte("before")) == nil || b.Get([]byte("lost")) != nil {
			t.Errorf("after reopen: before=%q lost=%q", b.Get([]byte("before")), b.Get([]byte("lost")))
		}
		return nil
	})
}
