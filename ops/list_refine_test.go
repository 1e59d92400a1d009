package ops

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// otherKeys are the other side's keys of a page's edges.
func otherKeys(p *Page, pk, sk string, dir Direction) []string {
	var out []string
	for _, it := range p.Items {
		if dir == Forward {
			out = append(out, strings.TrimPrefix(sOf(it, sk), "ENROLL#"))
		} else {
			out = append(out, sOf(it, pk))
		}
	}
	return out
}

// pagedKeys lists q page by page to its end: the other side's keys of a
// reverse list, space-separated.
func pagedKeys(t *testing.T, st *Store, q ListQuery) string {
	t.Helper()
	var got []string
	for {
		page := must[*Page](t)(st.List(ctx, q))
		got = append(got, otherKeys(page, "PK", "SK", Reverse)...)
		if page.Next == "" {
			return strings.Join(got, " ")
		}
		q.Cursor = page.Next
	}
}

// TestListFromStartsAtAKey: From starts the first page at a key (bare or
// prefixed, present or not) in both directions and both orders, and the
// page's cursor continues the plain list.
func TestListFromStartsAtAKey(t *testing.T) {
	eachStore(t, school, func(t *testing.T, st *Store) {
		rel := st.schema.Relations[0]
		for i := range 9 {
			must[Outcome](t)(first(st.Link(ctx, rel, fmt.Sprintf("s%02d", i), "math204", nil)))
			must[Outcome](t)(first(st.Link(ctx, rel, "a91", fmt.Sprintf("c%02d", i), nil)))
		}
		page := must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "math204", Limit: 3, From: "s04"}))
		eq(t, "reverse from s04", strings.Join(otherKeys(page, "PK", "SK", Reverse), " "), "STU#s04 STU#s05 STU#s06")
		page = must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "math204", Limit: 3, Cursor: page.Next}))
		eq(t, "and on", strings.Join(otherKeys(page, "PK", "SK", Reverse), " "), "STU#s07 STU#s08")
		page = must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Direction: Forward, Key: "a91", Limit: 2, From: "CRS#c035"}))
		eq(t, "forward from a missing key", strings.Join(otherKeys(page, "PK", "SK", Forward), " "), "CRS#c04 CRS#c05")
		page = must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Direction: Forward, Key: "a91", Limit: 2, From: "c03", Descending: true}))
		eq(t, "descending", strings.Join(otherKeys(page, "PK", "SK", Forward), " "), "CRS#c03 CRS#c02")
		page = must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Direction: Forward, Key: "a91", Limit: 2, Cursor: page.Next, Descending: true}))
		eq(t, "descending on", strings.Join(otherKeys(page, "PK", "SK", Forward), " "), "CRS#c01 CRS#c00")
		if _, err := st.List(ctx, ListQuery{Relation: rel, Direction: Forward, Key: "a91", From: "STU#x"}); err == nil {
			t.Error("From with the wrong side's prefix was sent")
		}
	})
}

// TestListFromShardedMerges: From starts every shard of a sharded reverse
// list at the key; the merged pages go on in order to the end.
func TestListFromShardedMerges(t *testing.T) {
	sc := social(4)
	st, m := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	for i := range 12 {
		must[Outcome](t)(first(st.Link(ctx, rel, fmt.Sprintf("u%02d", i), "bob", nil)))
	}
	m.reset()
	got := pagedKeys(t, st, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Limit: 3, From: "u05"})
	eq(t, "followers from u05", got, "ACTOR#u05 ACTOR#u06 ACTOR#u07 ACTOR#u08 ACTOR#u09 ACTOR#u10 ACTOR#u11")
	var conds []string
	for _, c := range m.calls[:4] {
		in := c.Input.(*dynamodb.QueryInput)
		conds = append(conds, render(in.KeyConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues))
	}
	slices.Sort(conds)
	for k, cond := range conds {
		eq(t, "first page's query", cond, fmt.Sprintf(`(GSI1PK = "TARGET#bob#%d") AND (GSI1SK BETWEEN "ACTOR#u05" AND "ACTOR$")`, k))
	}
}

// TestListFromKeepsTheFilter: a list from a key keeps its filter, and
// PreviewList shows the Query it sends without sending it.
func TestListFromKeepsTheFilter(t *testing.T) {
	eachStore(t, school, func(t *testing.T, st *Store) {
		rel := st.schema.Relations[0]
		for i := range 8 {
			grade := []string{"A", "B"}[i%2]
			must[Outcome](t)(first(st.Link(ctx, rel, fmt.Sprintf("s%02d", i), "math204", map[string]any{"grade": grade})))
		}
		filter := must[[]schema.Condition](t)(rel.ParseFilter("grade = B"))
		got := pagedKeys(t, st, ListQuery{Relation: rel, Direction: Reverse, Key: "math204", Limit: 2, Filter: filter, From: "s02"})
		eq(t, "grade B from s02", got, "STU#s03 STU#s05 STU#s07")
	})
	st, m, rel := schoolStore(t)
	filter := must[[]schema.Condition](t)(rel.ParseFilter("grade >= B"))
	pv := must[QueryPreview](t)(st.PreviewList(ListQuery{Relation: rel, Direction: Reverse, Key: "math204", Filter: filter, From: "s03"}))
	eq(t, "key condition", render(&pv.KeyCondition, pv.Names, pv.Values), `(GSI1PK = "CRS#math204") AND (GSI1SK BETWEEN "STU#s03" AND "STU$")`)
	eq(t, "filter", render(&pv.Filter, pv.Names, pv.Values), `grade >= "B"`)
	eq(t, "requests sent", len(m.ops()), 0)
}
