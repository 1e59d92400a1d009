package ops

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/adjl/adjl/internal/backendtest"
	"github.com/adjl/adjl/schema"
)

// endpointStore returns a Store on ADJL_TEST_ENDPOINT (moto, the embedded
// engine served on loopback, ...) with a fresh table, or skips.
func endpointStore(t *testing.T, sc *schema.Schema) *Store {
	t.Helper()
	client := backendtest.Endpoint()
	if client == nil {
		t.Skip("ADJL_TEST_ENDPOINT not set")
	}
	sc.Table.Name = fmt.Sprintf("ops_%s_%d", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "_")), time.Now().UnixNano())
	st := New(client, sc, Options{Parallel: 4})
	created, err := st.CreateTable(ctx, true)
	if err != nil || !created {
		t.Fatalf("create table: %v %v", created, err)
	}
	t.Cleanup(func() { st.DeleteTable(ctx, false) })
	return st
}

func TestIntegrationLinkUnlinkCounters(t *testing.T) {
	sc := school()
	st := endpointStore(t, sc)
	rel := sc.Relations[0]
	if created, err := st.CreateTable(ctx, false); err != nil || created {
		t.Fatalf("create again: %v %v", created, err)
	}
	eq(t, "link", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "B"}))), Created)
	eq(t, "repeat", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil))), Unchanged)
	eq(t, "regrade", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "A"}))), Updated)
	eq(t, "same grade", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "A"}))), Unchanged)
	it := must[Item](t)(st.GetEntity(ctx, "CRS#math204", true))
	eq(t, "student count", nOf(it, "studentCount"), "1")
	edge, ok, err := st.Check(ctx, rel, "a91", "math204", true)
	if err != nil || !ok {
		t.Fatalf("check: %v %v", ok, err)
	}
	eq(t, "edge", itemString(edge), `GSI1PK="CRS#math204" GSI1SK="STU#a91" PK="STU#a91" SK="ENROLL#CRS#math204" grade="A" type="enrollment"`)
	_, err = st.DeleteEntity(ctx, "CRS#math204", false)
	var he *HasEdgesError
	if !errors.As(err, &he) {
		t.Errorf("delete with edges: %v", err)
	}
	eq(t, "unlink", must[Outcome](t)(first(st.Unlink(ctx, rel, "a91", "math204"))), Deleted)
	eq(t, "unlink again", must[Outcome](t)(first(st.Unlink(ctx, rel, "a91", "math204"))), Unchanged)
	it = must[Item](t)(st.GetEntity(ctx, "STU#a91", true))
	eq(t, "course count", nOf(it, "courseCount"), "0")
	if _, ok, _ := st.Check(ctx, rel, "a91", "math204", true); ok {
		t.Error("edge still there")
	}
}

func TestIntegrationShardedPaging(t *testing.T) {
	sc := social(4)
	st := endpointStore(t, sc)
	rel := sc.Relations[0]
	var want []string
	for i := range 40 {
		id := fmt.Sprintf("u%03d", i)
		must[Outcome](t)(first(st.Link(ctx, rel, id, "bob", nil)))
		must[Outcome](t)(first(st.Link(ctx, rel, "bob", id, nil)))
		want = append(want, "ACTOR#"+id)
	}
	sort.Strings(want)
	for _, n := range []int32{1, 7, 39, 40, 100} {
		got := pageThrough(t, st, ListQuery{Relation: rel, Direction: Reverse, Key: "bob"}, n, "GSI1SK")
		if !slices.Equal(got, want) {
			t.Errorf("reverse pages of %d: %d items %v", n, len(got), got)
		}
		got = pageThrough(t, st, ListQuery{Relation: rel, Key: "bob", Consistent: true}, n, "SK")
		if len(got) != 40 || !sort.StringsAreSorted(got) {
			t.Errorf("forward pages of %d: %v", n, got)
		}
	}
	var all []string
	ent, err := st.ListAll(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", WithEntity: true, Limit: 9},
		func(it Item) error { all = append(all, sOf(it, "GSI1SK")); return nil })
	if err != nil || !slices.Equal(all, want) {
		t.Fatalf("list all: %v %v", err, all)
	}
	eq(t, "followers", nOf(ent, "followerCount"), "40")
	rep := must[DeleteReport](t)(st.DeleteEntity(ctx, "USER#bob", true))
	eq(t, "cascade", rep.EdgesRemoved, 80)
	eq(t, "u000 following", nOf(must[Item](t)(st.GetEntity(ctx, "ACTOR#u000", true)), "followingCount"), "0")
	eq(t, "u000 followers", nOf(must[Item](t)(st.GetEntity(ctx, "TARGET#u000", true)), "followerCount"), "0")
}

func TestIntegrationMissingTable(t *testing.T) {
	sc := school()
	st := endpointStore(t, sc)
	if err := st.DeleteTable(ctx, true); err != nil {
		t.Fatal(err)
	}
	_, _, err := New(st.api, sc, Options{}).Link(ctx, sc.Relations[0], "a", "b", nil)
	var nf *TableNotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("link on a missing table: %v", err)
	}
}
