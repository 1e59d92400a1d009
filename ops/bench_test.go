package ops

import (
	"testing"
)

// benchListAll streams 100,000 reverse edges over the given shard count from
// a synthetic backend, so the time is adjl's (merge, paging), not a server's.
func benchListAll(b *testing.B, shards int) {
	const total = 100_000
	sc := social(shards)
	api := &synthAPI{engineAPI: newEngine(b, sc), perShard: total / shards}
	api.engineAPI.put(Item{"PK": str(MetaKey), "SK": str(MetaKey)})
	st := New(api, sc, Options{})
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := st.ListAll(ctx, ListQuery{Relation: sc.Relations[0], Direction: Reverse, Key: "bob"}, func(Item) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != total {
			b.Fatalf("streamed %d", n)
		}
	}
}

func BenchmarkListAllUnsharded(b *testing.B) { benchListAll(b, 1) }
func BenchmarkListAllShards8(b *testing.B)   { benchListAll(b, 8) }
