package ops

import (
	"fmt"
	"slices"
	"testing"

	"github.com/adjl/adjl/schema"
)

// TestIntegrationCounterShardsAndReshard runs counter shards and a reshard
// against ADJL_TEST_ENDPOINT: a reference server's Scan, Select
// COUNT and conditional UpdateItem semantics.
func TestIntegrationCounterShardsAndReshard(t *testing.T) {
	sc := socialCounterShards(2, 4)
	st := endpointStore(t, sc)
	rel := sc.Relations[0]
	var want []string
	for i := range 30 {
		id := fmt.Sprintf("u%02d", i)
		must[Outcome](t)(first(st.Link(ctx, rel, id, "bob", nil)))
		want = append(want, "ACTOR#"+id)
	}
	must[Outcome](t)(first(st.Link(ctx, rel, "u00", "carol", nil)))
	must[Outcome](t)(first(st.Unlink(ctx, rel, "u29", "bob")))
	want = want[:29]
	it := must[Item](t)(st.GetEntity(ctx, "TARGET#bob", true))
	eq(t, "summed followers", nOf(it, "followerCount"), "29")
	eq(t, "type", sOf(it, "type"), "user")

	// 2 -> 5 shards, with a Scan page smaller than the table.
	nsc := socialCounterShards(5, 4)
	nsc.Table.Name = sc.Table.Name
	ns := New(st.api, nsc, Options{Parallel: 3})
	rep, err := ns.Reshard(ctx, nsc.Relations[0], ReshardOptions{To: 5, PageSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	if rep.From != 2 || rep.Edges != 30 || rep.Before != 30 || rep.After != 30 || rep.Moved != rep.ToMove || rep.Moved == 0 {
		t.Errorf("report %+v", rep)
	}
	eq(t, "keys", fmt.Sprint(rep.Keys), "[{TARGET#bob 29 29} {TARGET#carol 1 1}]")
	got := pageThrough(t, ns, ListQuery{Relation: nsc.Relations[0], Direction: Reverse, Key: "bob"}, 4, "GSI1SK")
	if !slices.Equal(got, want) {
		t.Errorf("followers after reshard: %v", got)
	}
	if _, _, err := New(st.api, sc, Options{}).Link(ctx, rel, "x", "bob", nil); err == nil {
		t.Error("the old shard count was not refused")
	}
	rep, err = ns.Reshard(ctx, nsc.Relations[0], ReshardOptions{To: 5})
	if err != nil || rep.Moved != 0 || rep.After != 30 {
		t.Errorf("re-run: %+v %v", rep, err)
	}
	// Deleting the celebrity removes its counter items too.
	del := must[DeleteReport](t)(ns.DeleteEntity(ctx, "USER#bob", true))
	eq(t, "cascade", del.EdgesRemoved, 29)
	items, err := ns.counterItems(ctx, "TARGET#bob", true)
	if err != nil || len(items) != 0 {
		t.Errorf("counter items left: %v %v", items, err)
	}
	eq(t, "u00 following", nOf(must[Item](t)(ns.GetEntity(ctx, "ACTOR#u00", true)), "followingCount"), "1")
	_ = schema.CounterSKPrefix
}
