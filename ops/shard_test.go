package ops

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"pgregory.net/rapid"
)

// TestShardedPagingProperty: random edges, random shard counts and random
// page sizes — the concatenated pages are the full list in GSI1SK order,
// without duplicates or gaps; with links and unlinks between pages, every
// edge present throughout is returned exactly once.
func TestShardedPagingProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		st, m, rel, ids := followersOfBob(t, 4)
		churn := rapid.Bool().Draw(t, "churn")
		stable := map[string]bool{}
		for _, id := range ids {
			stable["ACTOR#"+id] = true
		}
		q := ListQuery{Relation: rel, Direction: Reverse, Key: "bob", WithEntity: rapid.Bool().Draw(t, "entity")}
		got := listPages(t, st, q, "GSI1SK", func() int32 { return int32(rapid.IntRange(1, 7).Draw(t, "limit")) }, func(*Page) {
			if !churn {
				return
			}
			// Concurrent writers: a new follower, and one unfollow.
			id := "ACTOR#" + rapid.StringMatching(`[a-z0-9]{1,6}`).Draw(t, "new")
			if !stable[id] {
				seedEdge(m, rel, id, "TARGET#bob")
			}
			if len(ids) > 0 {
				gone := "ACTOR#" + ids[rapid.IntRange(0, len(ids)-1).Draw(t, "gone")]
				if stable[gone] {
					m.remove(gone, "TARGET#bob")
					delete(stable, gone)
				}
			}
		})
		inOrderOnce(t, got, slices.Collect(maps.Keys(stable)))
		if !churn {
			want := prefixed("ACTOR#", ids)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Fatalf("pages %v\nwant  %v", got, want)
			}
		}
	})
}

// followersOfBob draws a social schema of 1 to 9 shards and a Store over it
// (Parallel 1 to maxParallel), and seeds bob's user item and edges from
// distinct random followers to bob and to other, a partition no test lists.
// It returns the followers' ids, without the prefix.
func followersOfBob(t *rapid.T, maxParallel int) (*Store, *engineAPI, *schema.Relation, []string) {
	sc := social(rapid.IntRange(1, 9).Draw(t, "shards"))
	rel := sc.Relations[0]
	st, m := recordedStore(t, sc, Options{Parallel: rapid.IntRange(1, maxParallel).Draw(t, "parallel")})
	ids := rapid.SliceOfDistinct(rapid.StringMatching(`[a-z0-9]{1,6}`), func(s string) string { return s }).Draw(t, "followers")
	seedEntity(m, "TARGET#bob")
	for _, id := range ids {
		seedEdge(m, rel, "ACTOR#"+id, "TARGET#bob")
		seedEdge(m, rel, "ACTOR#"+id, "TARGET#other")
	}
	return st, m, rel, ids
}

// inOrderOnce checks the GSI1SKs got of a list paged while edges changed:
// in order, none twice, and every edge of present (those there throughout)
// among them.
func inOrderOnce(t *rapid.T, got, present []string) {
	if !sort.StringsAreSorted(got) {
		t.Fatalf("pages out of GSI1SK order: %v", got)
	}
	if len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Fatalf("an edge was returned twice: %v", got)
	}
	for _, id := range present {
		if _, ok := slices.BinarySearch(got, id); !ok {
			t.Fatalf("edge %s, present throughout, was not returned", id)
		}
	}
}

// TestShardedListAllProperty: the k-way streaming merge returns the same
// sorted list as paging.
func TestShardedListAllProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		st, _, rel, ids := followersOfBob(t, 9)
		var got []string
		_, err := st.ListAll(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Limit: int32(rapid.IntRange(1, 5).Draw(t, "chunk"))},
			func(it Item) error { got = append(got, sOf(it, "GSI1SK")); return nil })
		if err != nil {
			t.Fatal(err)
		}
		want := prefixed("ACTOR#", ids)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Fatalf("streamed %v\nwant     %v", got, want)
		}
	})
}

func TestShardedReverseQueriesEveryShard(t *testing.T) {
	sc := social(4)
	m := newEngine(t, sc)
	rel := sc.Relations[0]
	var reqs []Request
	st := New(m, sc, Options{Explain: func(r Request) { reqs = append(reqs, r) }})
	p, err := st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", WithEntity: true})
	if err != nil || len(p.Items) != 0 {
		t.Fatalf("explain list: %v %v", p, err)
	}
	var conds []string
	for _, r := range reqs {
		switch in := r.Input.(type) {
		case *dynamodb.QueryInput:
			conds = append(conds, render(in.KeyConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues))
		case *dynamodb.GetItemInput:
			conds = append(conds, "GetItem "+itemString(in.Key))
		}
	}
	var want []string
	for k := range 4 {
		want = append(want, fmt.Sprintf(`(GSI1PK = "TARGET#bob#%d") AND (begins_with (GSI1SK, "ACTOR#"))`, k))
	}
	want = append(want, `GetItem PK="TARGET#bob" SK="TARGET#bob"`)
	eq(t, "requests", strings.Join(conds, "\n"), strings.Join(want, "\n"))
	if len(m.calls) != 0 {
		t.Errorf("explain sent %v", m.ops())
	}
	// The edge itself lands on its stable shard.
	_, k, _ := st.Link(ctx, rel, "alice", "bob", nil)
	eq(t, "edge GSI1PK", k.IndexPK, fmt.Sprintf("TARGET#bob#%d", rel.Shard("ACTOR#alice")))
	_ = aws.String
}
