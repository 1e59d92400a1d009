package ops

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func TestLinkSendsOneTransactionWithConditionalPutAndCounters(t *testing.T) {
	st, m, rel := schoolStore(t)
	out, k, err := st.Link(ctx, rel, "a91", "CRS#math204", map[string]any{"grade": "A", "credits": schema.Number("5")})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "outcome", out, Created)
	eq(t, "keys", k, schema.Keys{PK: "STU#a91", SK: "ENROLL#CRS#math204", IndexPK: "CRS#math204", IndexSK: "STU#a91"})
	last := m.calls[len(m.calls)-1]
	in := last.Input.(*dynamodb.TransactWriteItemsInput)
	if len(in.TransactItems) != 3 {
		t.Fatalf("transaction has %d items, want 3", len(in.TransactItems))
	}
	put := in.TransactItems[0].Put
	eq(t, "put condition", render(put.ConditionExpression, put.ExpressionAttributeNames, put.ExpressionAttributeValues), "attribute_not_exists (PK)")
	// An unsharded relation's edge carries no shard stamp.
	eq(t, "edge item", itemString(put.Item),
		`GSI1PK="CRS#math204" GSI1SK="STU#a91" PK="STU#a91" SK="ENROLL#CRS#math204" credits=5 grade="A" type="enrollment"`)
	for i, want := range []struct{ key, upd string }{
		{"STU#a91", `ADD courseCount 1, ADJL#changes#courseCount 1
SET GSI1PK = "STU#a91", GSI1SK = "STU#a91", type = if_not_exists(type, "student"), ADJL#shards#enrollment = 1`},
		{"CRS#math204", `ADD studentCount 1, ADJL#changes#studentCount 1
SET GSI1PK = "CRS#math204", GSI1SK = "CRS#math204", type = if_not_exists(type, "course"), ADJL#shards#enrollment = 1`},
	} {
		u := in.TransactItems[i+1].Update
		eq(t, "update key", itemString(u.Key), `PK="`+want.key+`" SK="`+want.key+`"`)
		eq(t, "update expression", render(u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues), want.upd)
		// The layout check: the item records no shard count, or the schema's.
		eq(t, "update condition", render(u.ConditionExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues),
			"(attribute_not_exists (ADJL#shards#enrollment)) OR (ADJL#shards#enrollment = 1)")
	}
	// The stored state: edge and two counter items.
	eq(t, "student count", nOf(m.get("STU#a91", "STU#a91"), "courseCount"), "1")
	eq(t, "course count", nOf(m.get("CRS#math204", "CRS#math204"), "studentCount"), "1")
	eq(t, "course type", sOf(m.get("CRS#math204", "CRS#math204"), "type"), "course")
}

func TestLinkRepeatIsUnchangedAndCountsOnce(t *testing.T) {
	st, m, rel := schoolStore(t)
	must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil)))
	m.reset()
	out := must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil)))
	eq(t, "outcome", out, Unchanged)
	eq(t, "ops", strings.Join(m.ops(), ","), "TransactWriteItems")
	eq(t, "count", nOf(m.get("STU#a91", "STU#a91"), "courseCount"), "1")
	eq(t, "count", nOf(m.get("CRS#math204", "CRS#math204"), "studentCount"), "1")
}

func TestLinkExistingEdgeWithAttributesUpdatesWithoutCounters(t *testing.T) {
	st, m, rel := schoolStore(t)
	must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "B"})))
	m.reset()
	out := must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "A"})))
	eq(t, "outcome", out, Updated)
	eq(t, "ops", strings.Join(m.ops(), ","), "TransactWriteItems,UpdateItem")
	u := m.calls[1].Input.(*dynamodb.UpdateItemInput)
	eq(t, "update", render(u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues), `SET grade = "A"`)
	eq(t, "condition", render(u.ConditionExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues), "attribute_exists (PK)")
	eq(t, "return values", string(u.ReturnValues), "ALL_OLD")
	eq(t, "grade", sOf(m.get("STU#a91", "ENROLL#CRS#math204"), "grade"), "A")
	eq(t, "count", nOf(m.get("STU#a91", "STU#a91"), "courseCount"), "1")

	out = must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "A"})))
	eq(t, "same value again", out, Unchanged)
	out = must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"tags": []string{"x", "y", "x"}})))
	eq(t, "new attribute", out, Updated)
	eq(t, "set stored deduplicated", avString(m.get("STU#a91", "ENROLL#CRS#math204")["tags"]), `SS["x" "y"]`)
}

func TestLinkCounterOnOneSideOnly(t *testing.T) {
	sc := school()
	m := newEngine(t, sc)
	rel := sc.Relations[0]
	rel.Counters = schema.Counters{To: "studentCount"}
	st := New(m, sc, Options{})
	must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil)))
	in := m.calls[len(m.calls)-1].Input.(*dynamodb.TransactWriteItemsInput)
	if len(in.TransactItems) != 2 || in.TransactItems[1].Update == nil || sOf(in.TransactItems[1].Update.Key, "PK") != "CRS#math204" {
		t.Fatalf("want Put + Update of the course only, got %+v", in.TransactItems)
	}
	if m.get("STU#a91", "STU#a91") != nil {
		t.Error("student item was created although it has no counter")
	}
	must[Outcome](t)(first(st.Unlink(ctx, rel, "a91", "math204")))
	eq(t, "count after unlink", nOf(m.get("CRS#math204", "CRS#math204"), "studentCount"), "0")
}

func TestLinkWithoutCountersIsConditionalPut(t *testing.T) {
	sc := school()
	m := newEngine(t, sc)
	rel := sc.Relations[0]
	rel.Counters = schema.Counters{}
	st := New(m, sc, Options{})
	eq(t, "first", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil))), Created)
	m.reset()
	eq(t, "second", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", nil))), Unchanged)
	eq(t, "ops", strings.Join(m.ops(), ","), "PutItem")
	p := m.calls[0].Input.(*dynamodb.PutItemInput)
	eq(t, "condition", render(p.ConditionExpression, p.ExpressionAttributeNames, p.ExpressionAttributeValues), "attribute_not_exists (PK)")
	m.reset()
	eq(t, "unlink", must[Outcome](t)(first(st.Unlink(ctx, rel, "a91", "math204"))), Deleted)
	eq(t, "unlink again", must[Outcome](t)(first(st.Unlink(ctx, rel, "a91", "math204"))), Unchanged)
	eq(t, "ops", strings.Join(m.ops(), ","), "DeleteItem,DeleteItem")
	d := m.calls[0].Input.(*dynamodb.DeleteItemInput)
	eq(t, "condition", render(d.ConditionExpression, d.ExpressionAttributeNames, d.ExpressionAttributeValues), "attribute_exists (PK)")
}

func TestUnlinkDecrementsInTheSameTransaction(t *testing.T) {
	sc := social(1)
	st, m := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	must[Outcome](t)(first(st.Link(ctx, rel, "alice", "bob", nil)))
	edge := m.get("ACTOR#alice", "TARGET#bob")
	eq(t, "social edge", itemString(edge), `GSI1PK="TARGET#bob" GSI1SK="ACTOR#alice" PK="ACTOR#alice" SK="TARGET#bob" type="follow"`)
	eq(t, "role item", sOf(m.get("ACTOR#alice", "ACTOR#alice"), "GSI1PK"), "ACTOR#alice")
	m.reset()
	out, k, err := st.Unlink(ctx, rel, "ACTOR#alice", "TARGET#bob")
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "outcome", out, Deleted)
	eq(t, "keys", k.SK, "TARGET#bob")
	in := m.calls[0].Input.(*dynamodb.TransactWriteItemsInput)
	del := in.TransactItems[0].Delete
	eq(t, "delete condition", render(del.ConditionExpression, del.ExpressionAttributeNames, del.ExpressionAttributeValues), "attribute_exists (PK)")
	u := in.TransactItems[2].Update
	eq(t, "decrement", render(u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues),
		`ADD followerCount -1, ADJL#changes#followerCount 1
SET GSI1PK = "TARGET#bob", GSI1SK = "TARGET#bob", type = if_not_exists(type, "user")`)
	eq(t, "followers", nOf(m.get("TARGET#bob", "TARGET#bob"), "followerCount"), "0")
	eq(t, "following", nOf(m.get("ACTOR#alice", "ACTOR#alice"), "followingCount"), "0")
	out = must[Outcome](t)(first(st.Unlink(ctx, rel, "alice", "bob")))
	eq(t, "missing edge", out, Unchanged)
	eq(t, "followers still", nOf(m.get("TARGET#bob", "TARGET#bob"), "followerCount"), "0")
}

func TestSelfFollowTouchesEachItemOnce(t *testing.T) {
	sc := social(1)
	m := newEngine(t, sc)
	rel := sc.Relations[0]
	rel.From.Prefix, rel.To.Prefix, rel.Edge = "USER#", "USER#", "FOLLOWS#"
	st := New(m, sc, Options{})
	must[Outcome](t)(first(st.Link(ctx, rel, "alice", "alice", nil)))
	it := m.get("USER#alice", "USER#alice")
	eq(t, "both counters on one item", nOf(it, "followingCount")+","+nOf(it, "followerCount"), "1,1")
}

func TestBadKeysSendNothing(t *testing.T) {
	st, m, rel := schoolStore(t)
	for _, c := range [][2]string{{"CRS#math204", "STU#a91"}, {"", "math"}, {"a91", ""}, {strings.Repeat("x", 1100), "m"}} {
		_, _, err := st.Link(ctx, rel, c[0], c[1], nil)
		var ke *schema.KeyError
		if !errors.As(err, &ke) {
			t.Errorf("link %q %q: got %v, want *schema.KeyError", c[0], c[1], err)
		}
		_, _, err = st.Unlink(ctx, rel, c[0], c[1])
		if !errors.As(err, &ke) {
			t.Errorf("unlink %q %q: got %v, want *schema.KeyError", c[0], c[1], err)
		}
		_, _, err = st.Check(ctx, rel, c[0], c[1], false)
		if !errors.As(err, &ke) {
			t.Errorf("check %q %q: got %v, want *schema.KeyError", c[0], c[1], err)
		}
	}
	_, _, err := st.Link(ctx, rel, "a", "b", map[string]any{"PK": "x"})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Errorf("setting PK: got %v, want *InputError", err)
	}
	_, _, err = st.Link(ctx, rel, "a", "b", map[string]any{"tags": []string{}})
	if !errors.As(err, &ie) {
		t.Errorf("empty set: got %v, want *InputError", err)
	}
	if len(m.calls) != 0 {
		t.Errorf("requests were sent: %v", m.ops())
	}
}

func TestCheckIsGetItem(t *testing.T) {
	st, m, rel := schoolStore(t)
	_, ok, err := st.Check(ctx, rel, "a91", "math204", true)
	if err != nil || ok {
		t.Fatalf("check before link: %v %v", ok, err)
	}
	g := m.calls[0].Input.(*dynamodb.GetItemInput)
	eq(t, "key", itemString(g.Key), `PK="STU#a91" SK="ENROLL#CRS#math204"`)
	eq(t, "consistent", aws.ToBool(g.ConsistentRead), true)
	must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "C"})))
	it, ok, err := st.Check(ctx, rel, "a91", "math204", false)
	if err != nil || !ok || sOf(it, "grade") != "C" {
		t.Fatalf("check after link: %v %v %v", it, ok, err)
	}
	if g := m.calls[len(m.calls)-1].Input.(*dynamodb.GetItemInput); g.ConsistentRead != nil {
		t.Error("eventually consistent check sent ConsistentRead")
	}
	if !slices.Contains(m.ops(), "GetItem") {
		t.Error("no GetItem")
	}
}

func first[A, B any](a A, _ B, err error) (A, error) { return a, err }
