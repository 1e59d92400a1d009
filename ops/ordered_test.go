package ops

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// engineLacksMultiAttribute is why the multi-attribute layout is not run on
// the embedded engine yet.
const engineLacksMultiAttribute = "the embedded engine does not implement DynamoDB's multi-attribute GSI keys yet (CreateTable with several HASH/RANGE elements, their Query key conditions); see docs/ordered-engine-contract.md"

// orderedSocial is social(shards) with follow ordered by since, newest first.
func orderedSocial(shards int, index schema.SortIndex) func() *schema.Schema {
	return func() *schema.Schema {
		sc := social(shards)
		rel := sc.Relations[0]
		rel.Attributes = []schema.Attribute{{Name: "since", Kind: schema.KindDate}}
		rel.Sort = &schema.Sort{By: "since", Kind: schema.KindDate, Desc: true, Index: index, DefaultNow: true}
		return sc
	}
}

// eachOrderedStore runs fn on every layout of an ordered relation (both
// index layouts, unsharded and 4 shards) on the engine and the reference
// server.
func eachOrderedStore(t *testing.T, fn func(t *testing.T, st *Store)) {
	for _, index := range []schema.SortIndex{schema.SortComposite, schema.SortMultiAttribute} {
		for _, shards := range []int{1, 4} {
			sc := orderedSocial(shards, index)
			t.Run(fmt.Sprintf("%s/shards=%d", index, shards), func(t *testing.T) {
				t.Run("embedded", func(t *testing.T) {
					if index == schema.SortMultiAttribute {
						t.Skip(engineLacksMultiAttribute)
					}
					st, _ := engineStore(t, sc(), nil)
					fn(t, st)
				})
				t.Run("endpoint", func(t *testing.T) { fn(t, endpointStore(t, sc())) })
			})
		}
	}
}

type follower struct{ key, since string }

// importFollowers links n random users to bob at random dates (with
// repeats, so ties by date happen) through Import.
func importFollowers(t *testing.T, st *Store, n int) []follower {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var fs []follower
	for i := range n {
		fs = append(fs, follower{fmt.Sprintf("ACTOR#u%05d", i), base.AddDate(0, 0, rng.IntN(400)).Format(time.DateOnly)})
	}
	rel := st.schema.Relations[0]
	i := 0
	src := func() (rowfile.Row, error) {
		if i == len(fs) {
			return rowfile.Row{}, io.EOF
		}
		f := fs[i]
		i++
		return rowfile.Row{Line: i + 1, From: f.key, To: "TARGET#bob", Attrs: []rowfile.Attr{{Name: "since", Value: f.since}}}, nil
	}
	if _, err := st.Import(ctx, rel, nil, src, ImportOptions{Workers: 4, Fresh: FreshYes, Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	return fs
}

// newestFirst is the order of a desc list: since, then key, both descending.
func newestFirst(fs []follower) []follower {
	out := slices.Clone(fs)
	slices.SortFunc(out, func(a, b follower) int {
		return -cmp.Or(strings.Compare(a.since, b.since), strings.Compare(a.key, b.key))
	})
	return out
}

func keysOfPage(p *Page) []string {
	var out []string
	for _, it := range p.Items {
		out = append(out, sOf(it, "PK"))
	}
	return out
}

func keysOfFollowers(fs []follower) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.key)
	}
	return out
}

// TestOrderedFollowersDoneWhen is issue 28's scenario: 3,000 follows of
// bob at random dates read back newest first, oldest first, by range and
// by count, with one Query per shard and no filter, on every layout.
func TestOrderedFollowersDoneWhen(t *testing.T) {
	eachOrderedStore(t, func(t *testing.T, st *Store) {
		rel := st.schema.Relations[0]
		fs := importFollowers(t, st, 3000)
		want := newestFirst(fs)
		q := ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Limit: 10}
		page := must[*Page](t)(st.List(ctx, q))
		eq(t, "10 newest", strings.Join(keysOfPage(page), " "), strings.Join(keysOfFollowers(want[:10]), " "))
		q.Ascending = true
		page = must[*Page](t)(st.List(ctx, q))
		oldest := slices.Clone(want)
		slices.Reverse(oldest)
		eq(t, "10 oldest", strings.Join(keysOfPage(page), " "), strings.Join(keysOfFollowers(oldest[:10]), " "))

		lo, hi := "2025-03-01", "2025-05-31"
		where, err := rel.ParseWhere(fmt.Sprintf("since between %s and %s", lo, hi))
		if err != nil {
			t.Fatal(err)
		}
		inRange := slices.DeleteFunc(slices.Clone(want), func(f follower) bool { return f.since < lo || f.since > hi })
		n := must[int64](t)(st.Count(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Where: &where}))
		eq(t, "count in range", n, int64(len(inRange)))

		// Every page of the range, through the cursor, in order (pages of
		// 300: a reference server's Query reads its whole table).
		var got []string
		rq := ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Limit: 300, Where: &where}
		for {
			page := must[*Page](t)(st.List(ctx, rq))
			got = append(got, keysOfPage(page)...)
			if page.Next == "" {
				break
			}
			rq.Cursor = page.Next
		}
		eq(t, "range pages", strings.Join(got, " "), strings.Join(keysOfFollowers(inRange), " "))
	})
}

// TestOrderedListExplainSendsKeyConditionOnly: --where on the sort
// attribute is the key condition of one Query per shard, with no filter.
func TestOrderedListExplainSendsKeyConditionOnly(t *testing.T) {
	for _, index := range []schema.SortIndex{schema.SortComposite, schema.SortMultiAttribute} {
		t.Run(string(index), func(t *testing.T) {
			sc := orderedSocial(4, index)()
			var reqs []Request
			st := New(nil, sc, Options{Explain: func(r Request) { reqs = append(reqs, r) }})
			where, err := sc.Relations[0].ParseWhere("since >= 2025-03-01")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.List(ctx, ListQuery{Relation: sc.Relations[0], Direction: Reverse, Key: "bob", Where: &where}); err != nil {
				t.Fatal(err)
			}
			eq(t, "queries", len(reqs), 4)
			for _, r := range reqs {
				in := r.Input.(*dynamodb.QueryInput)
				if in.FilterExpression != nil {
					t.Errorf("filter sent: %s", aws.ToString(in.FilterExpression))
				}
				kc := render(in.KeyConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
				want := map[schema.SortIndex]string{
					schema.SortComposite:      `GSI1 (GSI1PK = "TARGET#bob#K") AND (GSI1SK BETWEEN "ACTOR#2025-03-01" AND "ACTOR$")`,
					schema.SortMultiAttribute: `GSI1-by-since (GSI1PK = "TARGET#bob#K") AND (type = "follow") AND (since >= "2025-03-01")`,
				}[index]
				got := aws.ToString(in.IndexName) + " " + kc
				for k := range 4 {
					got = strings.Replace(got, fmt.Sprintf("TARGET#bob#%d", k), "TARGET#bob#K", 1)
				}
				eq(t, "query", got, want)
			}
		})
	}
}

// TestOrderedRelinkMovesEdge: a link that changes the sort value moves the
// edge in the order, in one update, and leaves the counters alone; a link
// without the value keeps the edge where it is.
func TestOrderedRelinkMovesEdge(t *testing.T) {
	eachOrderedStore(t, func(t *testing.T, st *Store) {
		rel := st.schema.Relations[0]
		for i, since := range []string{"2025-01-01", "2025-02-01", "2025-03-01"} {
			if _, _, err := st.Link(ctx, rel, fmt.Sprintf("u%d", i), "bob", map[string]any{"since": since}); err != nil {
				t.Fatal(err)
			}
		}
		list := func() string {
			p := must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob"}))
			return strings.Join(keysOfPage(p), " ")
		}
		eq(t, "before", list(), "ACTOR#u2 ACTOR#u1 ACTOR#u0")
		eq(t, "relink", must[Outcome](t)(first(st.Link(ctx, rel, "u0", "bob", map[string]any{"since": "2025-04-01"}))), Updated)
		eq(t, "moved", list(), "ACTOR#u0 ACTOR#u2 ACTOR#u1")
		eq(t, "repeat", must[Outcome](t)(first(st.Link(ctx, rel, "u1", "bob", nil))), Unchanged)
		eq(t, "kept", list(), "ACTOR#u0 ACTOR#u2 ACTOR#u1")
		it := must[Item](t)(st.GetEntity(ctx, "TARGET#bob", true))
		eq(t, "follower count", nOf(it, "followerCount"), "3")
	})
}

// TestOrderBackfillResumesAndOrders: a table whose follow edges were
// written in key order, then given sort in the schema, is planned as a
// backfill; apply rewrites the keys, survives being stopped midway (the
// next apply resumes from the saved position) and the list reads in order.
func TestOrderBackfillResumesAndOrders(t *testing.T) {
	plain := social(4)
	plain.Relations[0].Attributes = []schema.Attribute{{Name: "since", Kind: schema.KindDate}}
	m := newEngine(t)
	old := New(m, plain, Options{})
	if _, err := old.CreateTable(ctx, true); err != nil {
		t.Fatal(err)
	}
	fs := importFollowers(t, old, 2500)
	sc := orderedSocial(4, schema.SortComposite)()
	st := New(m, sc, Options{})
	plan := must[*TablePlan](t)(st.PlanTable(ctx))
	if len(plan.Changes) != 1 || plan.Changes[0].Field != "relation follow order" {
		t.Fatalf("plan: %+v", plan.Changes)
	}
	_, err := st.List(ctx, ListQuery{Relation: sc.Relations[0], Direction: Reverse, Key: "bob"})
	if tm := (*TableMismatchError)(nil); !errors.As(err, &tm) || !strings.Contains(tm.Hint, "adjl table apply") {
		t.Fatalf("list before the backfill: %v", err)
	}
	var updates atomic.Int64
	m.inject = func(op string, in any) error {
		if op == "UpdateItem" && sOf(in.(*dynamodb.UpdateItemInput).Key, "PK") != MetaKey {
			if updates.Add(1) > 1500 {
				return fmt.Errorf("killed")
			}
		}
		return nil
	}
	if err := st.ApplyTable(ctx, plan, nil); err == nil {
		t.Fatal("apply went through the kill")
	}
	m.inject = nil
	plan = must[*TablePlan](t)(st.PlanTable(ctx))
	if len(plan.Changes) != 1 || !strings.Contains(plan.Changes[0].Action, "resumes") {
		t.Fatalf("plan after the kill: %+v", plan.Changes)
	}
	var said []string
	if err := st.ApplyTable(ctx, plan, func(s string) { said = append(said, s) }); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(said, "\n"); !strings.Contains(got, "rewritten") {
		t.Errorf("progress: %s", got)
	}
	page := must[*Page](t)(st.List(ctx, ListQuery{Relation: sc.Relations[0], Direction: Reverse, Key: "bob", Limit: 25}))
	eq(t, "newest", strings.Join(keysOfPage(page), " "), strings.Join(keysOfFollowers(newestFirst(fs)[:25]), " "))
	eq(t, "plan after", len(must[*TablePlan](t)(st.PlanTable(ctx)).Changes), 0)
}
