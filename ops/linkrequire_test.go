package ops

import (
	"errors"
	"testing"

	"github.com/adjl/adjl/schema"
)

func TestLinkRequiringEntities(t *testing.T) {
	eachStore(t, school, func(t *testing.T, st *Store) {
		rel := st.schema.Relations[0]
		req := LinkOptions{RequireEntities: true}
		_, _, err := st.LinkWith(ctx, rel, "a91", "math204", nil, req)
		var missing *MissingEntityError
		if !errors.As(err, &missing) || !errors.Is(err, ErrItemNotFound) || missing.Key != "STU#a91" || missing.Entity != "student" {
			t.Fatalf("link without entities: %v", err)
		}
		if _, linked, _ := st.Check(ctx, rel, "a91", "math204", true); linked {
			t.Fatal("refused link wrote the edge")
		}
		must[Outcome](t)(st.PutEntity(ctx, st.schema.Entity("student"), "a91", nil))
		_, _, err = st.LinkWith(ctx, rel, "a91", "math204", nil, req)
		if !errors.As(err, &missing) || missing.Key != "CRS#math204" {
			t.Fatalf("link without the course: %v", err)
		}
		must[Outcome](t)(st.PutEntity(ctx, st.schema.Entity("course"), "math204", nil))
		eq(t, "link", must[Outcome](t)(first(st.LinkWith(ctx, rel, "a91", "math204", nil, req))), Created)
		eq(t, "counter", nOf(must[Item](t)(st.GetEntity(ctx, "CRS#math204", true)), "studentCount"), "1")
		// The default does not require them: the link creates the counter items.
		eq(t, "default", must[Outcome](t)(first(st.Link(ctx, rel, "b02", "math204", nil))), Created)
	})
}

// TestLinkRequiringEntitiesWithRoles checks the entity items themselves
// (USER#...), which a link with role prefixes never writes: a ConditionCheck
// each, in the link's transaction.
func TestLinkRequiringEntitiesWithRoles(t *testing.T) {
	eachStore(t, func() *schema.Schema {
		sc := social(4)
		sc.Relations[0].RequireEntities = true
		return sc
	}, func(t *testing.T, st *Store) {
		rel := st.schema.Relations[0]
		user := st.schema.Entity("user")
		must[Outcome](t)(st.PutEntity(ctx, user, "alice", nil))
		_, _, err := st.Link(ctx, rel, "alice", "bob", nil)
		var missing *MissingEntityError
		if !errors.As(err, &missing) || missing.Key != "USER#bob" {
			t.Fatalf("link to a missing user: %v", err)
		}
		must[Outcome](t)(st.PutEntity(ctx, user, "bob", nil))
		eq(t, "link", must[Outcome](t)(first(st.Link(ctx, rel, "alice", "bob", nil))), Created)
		// A self-edge checks its one entity once.
		eq(t, "self", must[Outcome](t)(first(st.Link(ctx, rel, "alice", "alice", nil))), Created)
	})
}
