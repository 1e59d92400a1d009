package ops

import (
	"errors"
	"slices"
	"testing"
)

// TestGetWholeEntityAddsRoleCounters: a user's counts live on its role
// items (followingCount on ACTOR#, a sharded followerCount under TARGET#);
// the entity key reads them with one BatchGetItem and one counter Query.
func TestGetWholeEntityAddsRoleCounters(t *testing.T) {
	sc := socialCounterShards(4, 2)
	st, m := recordedStore(t, sc, Options{})
	user := sc.Entity("user")
	rel := sc.Relations[0]
	must[Outcome](t)(st.PutEntity(ctx, user, "taylor", map[string]any{"name": "Taylor"}))
	for _, who := range []string{"alice", "bob"} {
		if _, _, err := st.Link(ctx, rel, who, "taylor", nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := st.Link(ctx, rel, "taylor", "alice", nil); err != nil {
		t.Fatal(err)
	}
	m.reset()
	it := must[Item](t)(st.GetWholeEntity(ctx, "USER#taylor", false))
	eq(t, "whole", itemString(it), `GSI1PK="USER#taylor" GSI1SK="USER#taylor" PK="USER#taylor" SK="USER#taylor" followerCount=2 followingCount=1 name="Taylor" type="user"`)
	if got := m.ops(); !slices.Equal(got, []string{"BatchGetItem", "Query"}) {
		t.Errorf("requests %v, want one BatchGetItem and the counter Query", got)
	}
	// The role key is the role item alone, as get has always read it.
	m.reset()
	it = must[Item](t)(st.GetWholeEntity(ctx, "ACTOR#taylor", false))
	eq(t, "role item", nOf(it, "followingCount"), "1")
	if _, ok := it["name"]; ok {
		t.Errorf("the role key shows the entity's attributes: %s", itemString(it))
	}
	eq(t, "role item requests", len(m.ops()), 1)
}

// TestGetWholeEntityWithoutItsItem: counts on role items show under the
// entity key even where no entity item was put; nothing at all is
// ErrItemNotFound.
func TestGetWholeEntityWithoutItsItem(t *testing.T) {
	sc := social(1)
	st, _ := recordedStore(t, sc, Options{})
	if _, _, err := st.Link(ctx, sc.Relations[0], "alice", "bob", nil); err != nil {
		t.Fatal(err)
	}
	it := must[Item](t)(st.GetWholeEntity(ctx, "USER#bob", false))
	eq(t, "bob", itemString(it), `GSI1PK="USER#bob" GSI1SK="USER#bob" PK="USER#bob" SK="USER#bob" followerCount=1 type="user"`)
	if _, err := st.GetWholeEntity(ctx, "USER#nobody", false); !errors.Is(err, ErrItemNotFound) {
		t.Errorf("nobody: %v, want ErrItemNotFound", err)
	}
}

// TestGetWholeEntityWithoutRolesIsOneGetItem: an entity whose counters are
// on its own item is read as get always read it.
func TestGetWholeEntityWithoutRolesIsOneGetItem(t *testing.T) {
	st, m, rel := schoolStore(t)
	if _, _, err := st.Link(ctx, rel, "a91", "math204", nil); err != nil {
		t.Fatal(err)
	}
	m.reset()
	it := must[Item](t)(st.GetWholeEntity(ctx, "STU#a91", true))
	eq(t, "courseCount", nOf(it, "courseCount"), "1")
	if got := m.ops(); !slices.Equal(got, []string{"GetItem"}) {
		t.Errorf("requests %v, want one GetItem", got)
	}
}
