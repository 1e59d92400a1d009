package ops

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestUpdateEdgeIfWritesWhatWasShown: the update is one UpdateItem whose
// condition names every attribute shown, with its old value or its absence.
func TestUpdateEdgeIfWritesWhatWasShown(t *testing.T) {
	st, m, rel := schoolStore(t)
	must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "A"})))
	m.reset()
	written, err := st.UpdateEdgeIf(ctx, rel, "a91", "math204", Expect{"grade": str("A"), "tags": nil}, map[string]any{"grade": "C"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "returned", avString(written["grade"]), `"C"`)
	in := m.calls[0].Input.(*dynamodb.UpdateItemInput)
	eq(t, "condition", render(in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues),
		`((attribute_exists (PK)) AND (grade = "A")) AND (attribute_not_exists (tags))`)
	eq(t, "grade", avString(m.get("STU#a91", "ENROLL#CRS#math204")["grade"]), `"C"`)
	eq(t, "studentCount unchanged", nOf(m.get("CRS#math204", "CRS#math204"), "studentCount"), "1")
}

// TestUpdateEdgeIfRefusesAChangedItem: on every backend, an edge changed
// since it was shown is left as it is, and the error says what changed.
func TestUpdateEdgeIfRefusesAChangedItem(t *testing.T) {
	eachStore(t, school, func(t *testing.T, st *Store) {
		rel := st.schema.Relations[0]
		must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "A"})))
		must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "B"}))) // another shell
		_, err := st.UpdateEdgeIf(ctx, rel, "a91", "math204", Expect{"grade": str("A"), "tags": nil}, map[string]any{"grade": "C"}, nil)
		var ce *ChangedError
		if !errors.As(err, &ce) {
			t.Fatalf("err = %v, want a ChangedError", err)
		}
		var conflict *ConflictError
		if !errors.As(err, &conflict) {
			t.Errorf("a ChangedError is no ConflictError (its exit code): %v", err)
		}
		if len(ce.Changes) != 1 || ce.Changes[0].Name != "grade" || !strings.Contains(err.Error(), `grade is "B" (was "A")`) {
			t.Errorf("changes %+v: %v", ce.Changes, err)
		}
		it := must[Item](t)(first(st.Check(ctx, rel, "a91", "math204", true)))
		eq(t, "grade kept", avString(it["grade"]), `"B"`)
		must[Outcome](t)(first(st.Unlink(ctx, rel, "a91", "math204")))
		_, err = st.UpdateEdgeIf(ctx, rel, "a91", "math204", Expect{"grade": str("B")}, map[string]any{"grade": "C"}, nil)
		if !errors.As(err, &ce) || !ce.Gone {
			t.Errorf("a removed edge: %v", err)
		}
		if _, found, _ := st.Check(ctx, rel, "a91", "math204", true); found {
			t.Error("the update of a removed edge wrote it again")
		}
	})
}

// TestUpdateEntityIfCreatesOrUpdates: the entity item is created whole
// where it was not stored, and then updated on its shown values; a counter
// on it is kept.
func TestUpdateEntityIfCreatesOrUpdates(t *testing.T) {
	st, m, rel := schoolStore(t)
	stu := st.schema.Entity("student")
	must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil)))
	m.remove("STU#a91", "STU#a91")
	if _, err := st.UpdateEntityIf(ctx, stu, "a91", Expect{"name": nil}, map[string]any{"name": "Ana"}, nil); err != nil {
		t.Fatal(err)
	}
	eq(t, "created", itemString(m.get("STU#a91", "STU#a91")), `GSI1PK="STU#a91" GSI1SK="STU#a91" PK="STU#a91" SK="STU#a91" name="Ana" type="student"`)
	_, err := st.UpdateEntityIf(ctx, stu, "a91", Expect{"name": nil}, map[string]any{"name": "Bo"}, nil)
	var ce *ChangedError
	if !errors.As(err, &ce) || len(ce.Changes) != 1 {
		t.Fatalf("a second create: %v", err)
	}
	must[Outcome](t)(first(st.Link(ctx, rel, "a91", "phy101", nil)))
	if _, err := st.UpdateEntityIf(ctx, stu, "a91", Expect{"name": str("Ana")}, nil, []string{"name"}); err != nil {
		t.Fatal(err)
	}
	it := m.get("STU#a91", "STU#a91")
	if _, ok := it["name"]; ok || nOf(it, "courseCount") != "1" {
		t.Errorf("name removed, counter kept: %s", itemString(it))
	}
	if _, err := st.UpdateEntityIf(ctx, stu, "a91", Expect{"name": nil}, nil, []string{"PK"}); err == nil {
		t.Error("removing a key attribute was sent")
	}
	if _, err := st.UpdateEntityIf(ctx, stu, "a91", nil, map[string]any{"name": "Cy"}, nil); err == nil {
		t.Error("an update conditioned on nothing was sent")
	}
}

// TestUpdateEdgeIfMovesAnOrderedEdge: an edit of an ordered relation's
// sort attribute moves the edge in the relation's order, as a link does;
// the attribute cannot be removed.
func TestUpdateEdgeIfMovesAnOrderedEdge(t *testing.T) {
	eachOrderedStore(t, func(t *testing.T, st *Store) {
		rel := st.schema.Relations[0]
		for who, since := range map[string]string{"alice": "2026-01-01", "carol": "2026-02-01"} {
			must[Outcome](t)(first(st.Link(ctx, rel, who, "bob", map[string]any{"since": since})))
		}
		_, err := st.UpdateEdgeIf(ctx, rel, "alice", "bob", Expect{"since": str("2026-01-01")}, map[string]any{"since": "2026-03-01"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		page := must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob"}))
		eq(t, "newest first", strings.Join(otherKeys(page, "PK", "SK", Reverse), " "), "ACTOR#alice ACTOR#carol")
		if _, err := st.UpdateEdgeIf(ctx, rel, "alice", "bob", Expect{"since": str("2026-03-01")}, nil, []string{"since"}); err == nil {
			t.Error("the sort attribute was removed")
		}
	})
}
