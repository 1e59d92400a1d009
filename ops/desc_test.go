package ops

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"pgregory.net/rapid"
)

// TestDescendingPagingProperty: with Descending, random shard counts
// (1 = unsharded) and random page sizes, the pages are the whole list last
// first, each edge exactly once, and a page never holds more than asked.
func TestDescendingPagingProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		st, _, rel, ids := followersOfBob(t, 4)
		q := ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Descending: true, WithEntity: rapid.Bool().Draw(t, "entity")}
		got := listPages(t, st, q, "GSI1SK", func() int32 { return int32(rapid.IntRange(1, 7).Draw(t, "limit")) }, nil)
		want := prefixed("ACTOR#", ids)
		sort.Sort(sort.Reverse(sort.StringSlice(want)))
		if !slices.Equal(got, want) {
			t.Fatalf("pages %v\nwant  %v", got, want)
		}
	})
}

// TestDescendingBothDirections pages forward and reverse lists of an
// unsharded relation last first, with the entity item and another
// relation's edges in the same partitions, at every page size.
func TestDescendingBothDirections(t *testing.T) {
	st, m, rel := schoolStore(t)
	seedEntity(m, "STU#a")
	seedEntity(m, "CRS#c")
	var want []string
	for i := range 13 {
		seedEdge(m, rel, "STU#a", fmt.Sprintf("CRS#%03d", i))
		seedEdge(m, rel, fmt.Sprintf("STU#%03d", i), "CRS#c")
		want = append(want, fmt.Sprintf("%03d", i))
	}
	slices.Reverse(want)
	for _, n := range []int32{1, 2, 5, 12, 13, 14} {
		for _, we := range []bool{false, true} {
			got := pageThrough(t, st, ListQuery{Relation: rel, Direction: Forward, Key: "a", WithEntity: we, Descending: true}, n, "SK")
			eq(t, fmt.Sprintf("forward n=%d entity=%v", n, we), strings.Join(got, ","), strings.Join(prefixed("ENROLL#CRS#", want), ","))
			got = pageThrough(t, st, ListQuery{Relation: rel, Direction: Reverse, Key: "c", WithEntity: we, Descending: true}, n, "PK")
			eq(t, fmt.Sprintf("reverse n=%d entity=%v", n, we), strings.Join(got, ","), strings.Join(prefixed("STU#", want), ","))
		}
	}
	var all []string
	_, err := st.ListAll(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "c", Descending: true, Limit: 4},
		func(it Item) error { all = append(all, sOf(it, "PK")); return nil })
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "ListAll descending", strings.Join(all, ","), strings.Join(prefixed("STU#", want), ","))
}

// TestCursorBoundToDirection: a cursor of an ascending list is refused by
// the descending one and the other way round; the query says
// ScanIndexForward false only when descending.
func TestCursorBoundToDirection(t *testing.T) {
	sc := social(4)
	st, m := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	for i := range 5 {
		seedEdge(m, rel, fmt.Sprintf("ACTOR#u%d", i), "TARGET#bob")
	}
	for _, desc := range []bool{false, true} {
		p, err := st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Limit: 2, Descending: desc})
		if err != nil || p.Next == "" {
			t.Fatalf("desc=%v: %v, next %q", desc, err, p.Next)
		}
		_, err = st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Limit: 2, Descending: !desc, Cursor: p.Next})
		var in *InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), "different query") {
			t.Errorf("a desc=%v cursor used with desc=%v: %v", desc, !desc, err)
		}
	}
	for _, desc := range []bool{false, true} {
		m.reset()
		if _, err := st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Descending: desc}); err != nil {
			t.Fatal(err)
		}
		for _, c := range m.calls {
			in := c.Input.(*dynamodb.QueryInput)
			if desc != (in.ScanIndexForward != nil && !*in.ScanIndexForward) {
				t.Errorf("desc=%v: ScanIndexForward %v", desc, in.ScanIndexForward)
			}
		}
		if len(m.calls) != 4 {
			t.Errorf("desc=%v: %d queries, want one per shard", desc, len(m.calls))
		}
	}
}
