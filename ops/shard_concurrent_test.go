package ops

import (
	"fmt"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// TestShardedPagingWithConcurrentLinks pages a sharded reverse list while
// other goroutines link and unlink through the same Store: every edge present
// throughout is returned exactly once, pages stay in order, and nothing is
// returned twice.
func TestShardedPagingWithConcurrentLinks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		shards := rapid.IntRange(2, 9).Draw(t, "shards")
		sc := socialCounterShards(shards, rapid.IntRange(1, 8).Draw(t, "counterShards"))
		rel := sc.Relations[0]
		st, _ := recordedStore(t, sc, Options{Parallel: rapid.IntRange(1, 4).Draw(t, "parallel")})
		n := rapid.IntRange(0, 30).Draw(t, "stable")
		var stable []string
		for i := range n {
			id := fmt.Sprintf("s%03d", i)
			if _, _, err := st.Link(ctx, rel, id, "bob", nil); err != nil {
				t.Fatal(err)
			}
			stable = append(stable, "ACTOR#"+id)
		}
		writers := rapid.IntRange(1, 3).Draw(t, "writers")
		limit := int32(rapid.IntRange(1, 9).Draw(t, "limit"))
		done := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 15 { // bounded: the writers must not starve the reader
					select {
					case <-done:
						return
					default:
					}
					id := fmt.Sprintf("c%d-%03d", w, i%10)
					var err error
					if i%3 == 2 {
						_, _, err = st.Unlink(ctx, rel, id, "bob")
					} else {
						_, _, err = st.Link(ctx, rel, id, "bob", nil)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		var got []string
		q := ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Limit: limit}
		for pages := 0; ; pages++ {
			p, err := st.List(ctx, q)
			if err != nil {
				close(done)
				wg.Wait()
				t.Fatal(err)
			}
			for _, it := range p.Items {
				got = append(got, sOf(it, "GSI1SK"))
			}
			if p.Next == "" || pages > 10000 {
				break
			}
			q.Cursor = p.Next
		}
		close(done)
		wg.Wait()
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		inOrderOnce(t, got, stable)
	})
}
