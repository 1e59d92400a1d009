package kv

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/adjl/adjl/local/internal/attr"
)

// edgeItem is one enrolment edge as adjl's import writes it: the item of
// local's edgeItem (bench_test.go).
func edgeItem(i int) attr.Item {
	from, to := fmt.Sprintf("STU#%07d", i), fmt.Sprintf("CRS#%04d", i%5000)
	return attr.Item{"PK": attr.String(from), "SK": attr.String("ENROLL#" + to), "GSI1PK": attr.String(to), "GSI1SK": attr.String(from),
		"grade": attr.String("A"), "enrolledOn": attr.String("2026-09-01")}
}

// BenchmarkRawBboltIngest writes the keys and bytes (item, index entry) of
// local's BenchmarkBatchWriteIngest straight into bbolt, 25 items per
// transaction: the ceiling the engine's ingest is measured against (bench/
// runs both and reports their ratio).
func BenchmarkRawBboltIngest(b *testing.B) {
	for _, mem := range []bool{false, true} {
		name := "file"
		if mem {
			name = "memory"
		}
		b.Run(name, func(b *testing.B) { benchRawIngest(b, mem) })
	}
}

func benchRawIngest(b *testing.B, nosync bool) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, &bolt.Options{FreelistType: bolt.FreelistMapType, NoSync: nosync, NoFreelistSync: nosync})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.Update(func(tx *bolt.Tx) error {
		tx.CreateBucket([]byte("d"))
		tx.CreateBucket([]byte("x"))
		return nil
	})
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		items := make([]attr.Item, 25)
		for j := range items {
			items[j] = edgeItem(n)
			n++
		}
		err := db.Update(func(tx *bolt.Tx) error {
			d, x := tx.Bucket([]byte("d")), tx.Bucket([]byte("x"))
			for _, it := range items {
				k := attr.AppendKey(attr.AppendKey(nil, it["PK"]), it["SK"])
				if err := d.Put(k, attr.AppendItem(nil, it)); err != nil {
					return err
				}
				xk := attr.AppendKey(attr.AppendKey(nil, it["GSI1PK"]), it["GSI1SK"])
				if err := x.Put(append(xk, k...), []byte{}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkMemTreePut inserts 150,000 index keys in random order (the
// overlay of one checkpoint's worth of a bulk load into a global index)
// into memTrees of several block sizes, with the collector idle and with it
// marking all the time (a bulk load under the engine's memory limit): an
// insert copies the key and value into a chunk and moves half a block of
// entries, which hold no pointers, so the collector costs it no write
// barriers.
func BenchmarkMemTreePut(b *testing.B) {
	keys := make([][]byte, 150_000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "CRS#c%05d\x00\x01STU#s%07d\x00\x01", r.IntN(2500), i)
	}
	live := make([][]byte, 300_000) // a heap for the collector to mark
	for i := range live {
		live[i] = make([]byte, 64)
	}
	for _, collecting := range []bool{false, true} {
		for _, max := range []int{256, 128, 64} {
			b.Run(fmt.Sprintf("collecting=%v/block=%d", collecting, max), func(b *testing.B) {
				stop, done := make(chan struct{}), make(chan struct{})
				go func() {
					defer close(done)
					for collecting {
						select {
						case <-stop:
							return
						default:
							runtime.GC()
						}
					}
				}()
				for b.Loop() {
					t := newTree(max)
					for _, k := range keys {
						t.put(k, k)
					}
				}
				close(stop)
				<-done
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/put")
			})
		}
	}
	runtime.KeepAlive(live)
}

// BenchmarkMemTreeReplace replaces random keys of a tree in place (an
// in-memory table whose items are updated), which leaves the old values
// dead in the chunks until a reclaim copies the live ones of the deadest
// chunks and gives those up.
func BenchmarkMemTreeReplace(b *testing.B) {
	for _, keys := range []int{100, 1000, 100_000} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			t := newTree(defaultBlockMax)
			key := func(i int) []byte { return fmt.Appendf(nil, "key%08d", i) }
			v := make([]byte, 1000)
			for i := range keys {
				t.put(key(i), v)
			}
			r := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				t.put(key(r.IntN(keys)), v)
			}
		})
	}
}
