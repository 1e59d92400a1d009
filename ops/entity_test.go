package ops

import (
	"errors"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func TestPutEntityCreatesUpdatesAndKeepsCounters(t *testing.T) {
	sc := school()
	st, m := recordedStore(t, sc, Options{})
	stu := sc.Entity("student")
	eq(t, "create", must[Outcome](t)(st.PutEntity(ctx, stu, "a91", map[string]any{"name": "Ana"})), Created)
	u := m.calls[0].Input.(*dynamodb.UpdateItemInput)
	eq(t, "key", itemString(u.Key), `PK="STU#a91" SK="STU#a91"`)
	eq(t, "update", render(u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues),
		`SET GSI1PK = "STU#a91", GSI1SK = "STU#a91", type = "student", name = "Ana"`)
	eq(t, "same again", must[Outcome](t)(st.PutEntity(ctx, stu, "STU#a91", map[string]any{"name": "Ana"})), Unchanged)
	must[Outcome](t)(first(st.Link(ctx, sc.Relations[0], "a91", "m", nil)))
	eq(t, "update", must[Outcome](t)(st.PutEntity(ctx, stu, "a91", map[string]any{"name": "Ana B"})), Updated)
	it := must[Item](t)(st.GetEntity(ctx, "STU#a91", true))
	// The item as stored: the link recorded the relation's shard count on it.
	eq(t, "item", itemString(it), `ADJL#changes#courseCount=1 ADJL#shards#enrollment=1 GSI1PK="STU#a91" GSI1SK="STU#a91" PK="STU#a91" SK="STU#a91" courseCount=1 name="Ana B" type="student"`)
	if _, err := st.PutEntity(ctx, stu, "CRS#x", nil); err == nil {
		t.Error("wrong prefix accepted")
	}
}

func TestGetEntityResolvesPrefixes(t *testing.T) {
	sc := social(1)
	st, m := recordedStore(t, sc, Options{})
	must[Outcome](t)(first(st.Link(ctx, sc.Relations[0], "alice", "bob", nil)))
	it := must[Item](t)(st.GetEntity(ctx, "TARGET#bob", false))
	eq(t, "role item", nOf(it, "followerCount"), "1")
	_, err := st.GetEntity(ctx, "USER#nobody", false)
	if !errors.Is(err, ErrItemNotFound) {
		t.Errorf("missing: %v", err)
	}
	m.reset()
	_, err = st.GetEntity(ctx, "bob", false)
	var ke *schema.KeyError
	if !errors.As(err, &ke) || len(m.calls) != 0 {
		t.Errorf("bare id: %v, sent %v", err, m.ops())
	}
}

func TestDeleteEntityRefusesWithEdgesAndCascades(t *testing.T) {
	sc := social(3)
	st, m := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	must[Outcome](t)(st.PutEntity(ctx, sc.Entity("user"), "bob", map[string]any{"name": "Bob"}))
	for _, f := range []string{"alice", "carol", "dan"} {
		must[Outcome](t)(first(st.Link(ctx, rel, f, "bob", nil)))
	}
	must[Outcome](t)(first(st.Link(ctx, rel, "bob", "alice", nil)))
	must[Outcome](t)(first(st.Link(ctx, rel, "bob", "bob", nil))) // self-follow: found from both sides

	_, err := st.DeleteEntity(ctx, "USER#bob", false)
	var he *HasEdgesError
	if !errors.As(err, &he) || he.Key != "USER#bob" || he.Count < 1 {
		t.Fatalf("delete with edges: %v", err)
	}
	if m.get("USER#bob", "USER#bob") == nil {
		t.Fatal("refused delete removed the item")
	}
	// The probes are Queries of bob's ACTOR# partition and each TARGET# shard.
	var probes []string
	for _, c := range m.calls {
		if q, ok := c.Input.(*dynamodb.QueryInput); ok {
			probes = append(probes, render(q.KeyConditionExpression, q.ExpressionAttributeNames, q.ExpressionAttributeValues))
		}
	}
	if len(probes) == 0 || !strings.Contains(probes[0], `PK = "ACTOR#bob"`) {
		t.Errorf("probes: %v", probes)
	}

	rep, err := st.DeleteEntity(ctx, "TARGET#bob", true)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "edges removed", rep.EdgesRemoved, 5)
	eq(t, "report key", rep.Key, "USER#bob")
	for _, k := range []string{"USER#bob", "ACTOR#bob", "TARGET#bob"} {
		if m.get(k, k) != nil {
			t.Errorf("%s still exists", k)
		}
	}
	for _, f := range []string{"alice", "carol", "dan"} {
		eq(t, f+" following", nOf(m.get("ACTOR#"+f, "ACTOR#"+f), "followingCount"), "0")
	}
	eq(t, "alice followers", nOf(m.get("TARGET#alice", "TARGET#alice"), "followerCount"), "0")
	for _, it := range m.items() {
		if sOf(it, "PK") == "ACTOR#bob" || sOf(it, "SK") == "TARGET#bob" {
			t.Errorf("edge %s left", itemString(it))
		}
	}
	_, err = st.DeleteEntity(ctx, "USER#bob", false)
	if !errors.Is(err, ErrItemNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

func TestDeleteEntityCounterOnOneSide(t *testing.T) {
	sc := school()
	m := newEngine(t, sc)
	rel := sc.Relations[0]
	rel.Counters = schema.Counters{From: "courseCount"}
	st := New(m, sc, Options{})
	must[Outcome](t)(st.PutEntity(ctx, sc.Entity("course"), "m", nil))
	must[Outcome](t)(first(st.Link(ctx, rel, "a", "m", nil)))
	must[Outcome](t)(first(st.Link(ctx, rel, "b", "m", nil)))
	rep := must[DeleteReport](t)(st.DeleteEntity(ctx, "CRS#m", true))
	eq(t, "removed", rep.EdgesRemoved, 2)
	eq(t, "a count", nOf(m.get("STU#a", "STU#a"), "courseCount"), "0")
	// Deleting a student with no counter on the course side: the edge's
	// removal decrements the student's own courseCount.
	must[Outcome](t)(first(st.Link(ctx, rel, "a", "x", nil)))
	m.reset()
	rep = must[DeleteReport](t)(st.DeleteEntity(ctx, "STU#a", true))
	eq(t, "removed", rep.EdgesRemoved, 1)
	// One forward Query, the edge's removal with courseCount decremented,
	// then the student's item read, the look for edges linked meanwhile,
	// and its delete on condition that none was.
	eq(t, "ops", strings.Join(m.ops(), ","), "Query,TransactWriteItems,BatchGetItem,Query,TransactWriteItems")
	if m.get("STU#a", "ENROLL#CRS#x") != nil {
		t.Error("edge left")
	}
}

// TestDeleteCascadeStopsAtACounterThatIsNoNumber: a cascading delete
// decrements the edge's counters with each edge it removes; where a
// hand edit left that counter holding no number, the refusal says so (as a
// link's or unlink's does), and that the edge and the entity stay.
func TestDeleteCascadeStopsAtACounterThatIsNoNumber(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	st, raw := engineStore(t, sc, nil)
	must[Outcome](t)(first(st.Link(ctx, rel, "a1", "c1", nil)))
	setAttr(t, raw, "school", "CRS#c1", "CRS#c1", "studentCount", str("x"))
	_, err := st.DeleteEntity(ctx, "STU#a1", true)
	var nn *CounterNotNumberError
	var rejected *RejectedError
	if !errors.As(err, &nn) || !errors.As(err, &rejected) {
		t.Fatalf("delete --cascade: %v, want a CounterNotNumberError that is a RejectedError", err)
	}
	eq(t, "message", err.Error(), "delete --cascade stopped at edge STU#a1 ENROLL#CRS#c1, which it did not remove (edges removed before it stay removed): "+
		"studentCount of CRS#c1 holds x (a string, not a number), which cannot be added to; run `adjl counters repair enrollment` to set it to its count")
	if getItem(t, raw, "school", "STU#a1", "ENROLL#CRS#c1") == nil || getItem(t, raw, "school", "STU#a1", "STU#a1") == nil {
		t.Error("refused delete removed the edge or the entity")
	}
}

// TestDeleteCascadeExplainShowsPerEdgeRequests: the requests a cascading
// delete sends for each edge and each counter item it finds are listed
// once, marked as sent per item, with <id> for the other side.
func TestDeleteCascadeExplainShowsPerEdgeRequests(t *testing.T) {
	var reqs []Request
	st := New(newEngine(t), socialCounterShards(4, 8), Options{Explain: func(r Request) { reqs = append(reqs, r) }})
	if _, err := st.DeleteEntity(ctx, "USER#carol", true); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reqs {
		op := r.Operation
		if r.When != "" {
			op += "*"
		}
		got = append(got, op)
	}
	eq(t, "requests", strings.Join(got, ","),
		"Query,TransactWriteItems*,Query,Query,Query,Query,TransactWriteItems*,BatchGetItem,Query,Query,Query,Query,Query,TransactWriteItems,Query,DeleteItem*")
	for _, r := range reqs {
		if in, ok := r.Input.(*dynamodb.TransactWriteItemsInput); ok && r.When != "" {
			d := in.TransactItems[0].Delete.Key
			if pk, sk := sOf(d, "PK"), sOf(d, "SK"); pk+" "+sk != "ACTOR#carol TARGET#<id>" && pk+" "+sk != "ACTOR#<id> TARGET#carol" {
				t.Errorf("edge template %s %s", pk, sk)
			}
		}
	}
}

// TestDeleteLooksForForwardEdgesConsistently: the look for edges that
// follows the read of a delete's guard reads the base table strongly
// consistent, so it finds every forward edge whose link that read saw.
func TestDeleteLooksForForwardEdgesConsistently(t *testing.T) {
	st, m := recordedStore(t, school(), Options{})
	must[Outcome](t)(st.PutEntity(ctx, st.schema.Entities[0], "a", nil))
	must[DeleteReport](t)(st.DeleteEntity(ctx, "STU#a", false))
	eq(t, "ops", strings.Join(m.ops(), ","), "UpdateItem,BatchGetItem,Query,TransactWriteItems")
	q := m.calls[2].Input.(*dynamodb.QueryInput)
	if q.IndexName != nil || !aws.ToBool(q.ConsistentRead) {
		t.Errorf("forward look: index %v, consistent %v; want the base table, consistent", aws.ToString(q.IndexName), aws.ToBool(q.ConsistentRead))
	}
}
