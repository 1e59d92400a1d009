package ops

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"pgregory.net/rapid"
)

func num(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// socialCounterShards is social(shards) with followerCount spread over n
// counter items.
func socialCounterShards(shards, n int) *schema.Schema {
	sc := social(shards)
	sc.Relations[0].Counters.ToShards = n
	return sc
}

func TestLinkWithCounterShardsAddsToOneShardItem(t *testing.T) {
	sc := socialCounterShards(4, 8)
	st, m := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	must[Outcome](t)(first(st.Link(ctx, rel, "alice", "bob", nil)))
	must[Outcome](t)(first(st.Unlink(ctx, rel, "alice", "bob")))
	m.reset()
	eq(t, "link", must[Outcome](t)(first(st.Link(ctx, rel, "alice", "bob", nil))), Created)
	eq(t, "ops", strings.Join(m.ops(), ","), "TransactWriteItems")
	tx := m.calls[0].Input.(*dynamodb.TransactWriteItemsInput)
	if len(tx.TransactItems) != 3 {
		t.Fatalf("%d transact items, want 3", len(tx.TransactItems))
	}
	j := rel.CounterShard(schema.ToEnd, "ACTOR#alice")
	actor, shard := tx.TransactItems[1].Update, tx.TransactItems[2].Update
	eq(t, "actor key", itemString(actor.Key), `PK="ACTOR#alice" SK="ACTOR#alice"`)
	eq(t, "shard key", itemString(shard.Key), fmt.Sprintf(`PK="TARGET#bob" SK="ADJL#COUNT#followerCount#%d"`, j))
	eq(t, "shard update", render(shard.UpdateExpression, shard.ExpressionAttributeNames, shard.ExpressionAttributeValues), "ADD followerCount 1, ADJL#changes#followerCount 1\nSET ADJL#shards#follow = 4")
	eq(t, "shard condition", render(shard.ConditionExpression, shard.ExpressionAttributeNames, shard.ExpressionAttributeValues),
		"(attribute_not_exists (ADJL#shards#follow)) OR (ADJL#shards#follow = 4)")
	// The celebrity's role item is not written at all: it is the hot item.
	if it := m.get("TARGET#bob", "TARGET#bob"); it != nil {
		t.Errorf("role item written: %v", itemString(it))
	}
	eq(t, "shard item", itemString(m.get("TARGET#bob", schema.CounterSK("followerCount", j))),
		fmt.Sprintf(`ADJL#changes#followerCount=3 ADJL#shards#follow=4 PK="TARGET#bob" SK="ADJL#COUNT#followerCount#%d" followerCount=1`, j))
	// A repeat changes nothing; unlink decrements the same shard.
	eq(t, "repeat", must[Outcome](t)(first(st.Link(ctx, rel, "alice", "bob", nil))), Unchanged)
	eq(t, "unlink", must[Outcome](t)(first(st.Unlink(ctx, rel, "alice", "bob"))), Deleted)
	eq(t, "after unlink", nOf(m.get("TARGET#bob", schema.CounterSK("followerCount", j)), "followerCount"), "0")
}

func TestGetEntitySumsCounterShardsWithOneQuery(t *testing.T) {
	sc := socialCounterShards(4, 8)
	st, m := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	used := map[int]bool{}
	for i := range 200 {
		from := fmt.Sprintf("u%03d", i)
		must[Outcome](t)(first(st.Link(ctx, rel, from, "bob", nil)))
		used[rel.CounterShard(schema.ToEnd, "ACTOR#"+from)] = true
	}
	must[Outcome](t)(first(st.Link(ctx, rel, "u000", "bob", nil))) // repeat: counted once
	must[Outcome](t)(first(st.Unlink(ctx, rel, "u001", "bob")))
	must[Outcome](t)(first(st.Unlink(ctx, rel, "u001", "bob"))) // repeat: counted once
	if len(used) != 8 {
		t.Errorf("200 followers used %d of 8 counter shards", len(used))
	}
	m.reset()
	it := must[Item](t)(st.GetEntity(ctx, "TARGET#bob", true))
	eq(t, "requests", strings.Join(m.ops(), ","), "GetItem,Query")
	q := m.calls[1].Input.(*dynamodb.QueryInput)
	eq(t, "counter query", render(q.KeyConditionExpression, q.ExpressionAttributeNames, q.ExpressionAttributeValues),
		`(PK = "TARGET#bob") AND (begins_with (SK, "ADJL#COUNT#"))`)
	if q.IndexName != nil || q.ConsistentRead == nil || !*q.ConsistentRead {
		t.Errorf("counter query should read the base table consistently: index %v consistent %v", q.IndexName, q.ConsistentRead)
	}
	// Exactly the item the unsharded layout would show.
	eq(t, "item", itemString(it), `GSI1PK="TARGET#bob" GSI1SK="TARGET#bob" PK="TARGET#bob" SK="TARGET#bob" followerCount=199 type="user"`)
	// The unsharded side is unchanged: one GetItem, no Query.
	m.reset()
	eq(t, "actor", nOf(must[Item](t)(st.GetEntity(ctx, "ACTOR#u000", false)), "followingCount"), "1")
	eq(t, "actor requests", strings.Join(m.ops(), ","), "GetItem")
	// An existing item keeps its attributes and gets the sum.
	seedEntity(m, "TARGET#bob")
	legacy := m.get("TARGET#bob", "TARGET#bob")
	legacy["followerCount"] = num("5") // from before sharding
	m.put(legacy)
	eq(t, "legacy + shards", nOf(must[Item](t)(st.GetEntity(ctx, "TARGET#bob", false)), "followerCount"), "204")
	// Nothing at all is still not found.
	if _, err := st.GetEntity(ctx, "TARGET#nobody", false); !errors.Is(err, ErrItemNotFound) {
		t.Errorf("missing: %v", err)
	}
}

func TestListWithEntityShowsSummedCounter(t *testing.T) {
	sc := socialCounterShards(3, 4)
	st, _ := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	for i := range 30 {
		must[Outcome](t)(first(st.Link(ctx, rel, fmt.Sprintf("u%02d", i), "bob", nil)))
	}
	p, err := st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", WithEntity: true, Limit: 7})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "page entity", nOf(p.Entity, "followerCount"), "30")
	ent, err := st.ListAll(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", WithEntity: true}, func(Item) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "stream entity", nOf(ent, "followerCount"), "30")
}

func TestCascadeAndDeleteWithCounterShards(t *testing.T) {
	sc := socialCounterShards(2, 4)
	st, m := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	for _, f := range []string{"alice", "carol", "dan", "erin"} {
		must[Outcome](t)(first(st.Link(ctx, rel, f, "bob", nil)))
	}
	must[Outcome](t)(first(st.Link(ctx, rel, "alice", "zoe", nil)))
	// Deleting a follower decrements bob's counter shard of that follower.
	rep, err := st.DeleteEntity(ctx, "USER#alice", true)
	if err != nil || rep.EdgesRemoved != 2 {
		t.Fatalf("delete alice: %+v %v", rep, err)
	}
	eq(t, "bob after alice", nOf(must[Item](t)(st.GetEntity(ctx, "TARGET#bob", true)), "followerCount"), "3")
	eq(t, "zoe after alice", nOf(must[Item](t)(st.GetEntity(ctx, "TARGET#zoe", true)), "followerCount"), "0")
	// Deleting the celebrity removes its edges, its counter items and fixes
	// the followers' own counters.
	if _, err := st.DeleteEntity(ctx, "USER#bob", false); err == nil {
		t.Fatal("delete with edges accepted")
	}
	rep, err = st.DeleteEntity(ctx, "USER#bob", true)
	if err != nil || rep.EdgesRemoved != 3 {
		t.Fatalf("delete bob: %+v %v", rep, err)
	}
	for _, it := range m.items() {
		if sOf(it, "PK") == "TARGET#bob" {
			t.Errorf("left behind: %v", itemString(it))
		}
	}
	eq(t, "carol", nOf(must[Item](t)(st.GetEntity(ctx, "ACTOR#carol", true)), "followingCount"), "0")
	if _, err := st.GetEntity(ctx, "TARGET#bob", true); !errors.Is(err, ErrItemNotFound) {
		t.Errorf("bob after delete: %v", err)
	}
	// A celebrity that only ever had counter items is still found to delete.
	must[Outcome](t)(first(st.Link(ctx, rel, "carol", "yan", nil)))
	must[Outcome](t)(first(st.Unlink(ctx, rel, "carol", "yan")))
	if _, err := st.DeleteEntity(ctx, "USER#yan", false); err != nil {
		t.Errorf("delete yan (counter items only): %v", err)
	}
}

func TestExplainGetEntityShowsCounterQuery(t *testing.T) {
	sc := socialCounterShards(4, 8)
	m := newEngine(t, sc)
	var ops []string
	st := New(m, sc, Options{Explain: func(r Request) { ops = append(ops, r.Operation) }})
	if _, err := st.GetEntity(ctx, "TARGET#bob", false); err != nil {
		t.Fatal(err)
	}
	eq(t, "explained", strings.Join(ops, ","), "GetItem,Query")
	if len(m.calls) != 0 {
		t.Errorf("explain sent %v", m.ops())
	}
}

// TestCounterShardsProperty: any sequence of links and unlinks (repeats
// included) leaves every counter equal to the number of edges, whatever the
// number of counter shards.
func TestCounterShardsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := socialCounterShards(rapid.IntRange(1, 5).Draw(t, "shards"), rapid.IntRange(1, 16).Draw(t, "counterShards"))
		sc.Relations[0].Counters.FromShards = rapid.IntRange(1, 3).Draw(t, "fromShards")
		rel := sc.Relations[0]
		st, _ := recordedStore(t, sc, Options{})
		users := []string{"a", "b", "c", "d", "e"}
		edges := map[[2]string]bool{}
		for _, step := range rapid.SliceOfN(rapid.IntRange(0, 49), 1, 60).Draw(t, "steps") {
			from, to := users[step%5], users[(step/5)%5]
			if step/25 == 0 {
				if _, _, err := st.Link(ctx, rel, from, to, nil); err != nil {
					t.Fatal(err)
				}
				edges[[2]string{from, to}] = true
			} else {
				if _, _, err := st.Unlink(ctx, rel, from, to); err != nil {
					t.Fatal(err)
				}
				delete(edges, [2]string{from, to})
			}
		}
		for _, u := range users {
			followers, following := 0, 0
			for e := range edges {
				if e[1] == u {
					followers++
				}
				if e[0] == u {
					following++
				}
			}
			if it, err := st.GetEntity(ctx, "TARGET#"+u, true); err == nil {
				if got := nOf(it, "followerCount"); got != strconv.Itoa(followers) {
					t.Fatalf("followers of %s = %s, want %d", u, got, followers)
				}
			} else if !errors.Is(err, ErrItemNotFound) || followers != 0 {
				t.Fatalf("followers of %s: %v (want %d)", u, err, followers)
			}
			if it, err := st.GetEntity(ctx, "ACTOR#"+u, true); err == nil {
				if got := nOf(it, "followingCount"); got != strconv.Itoa(following) {
					t.Fatalf("following of %s = %s, want %d", u, got, following)
				}
			} else if !errors.Is(err, ErrItemNotFound) || following != 0 {
				t.Fatalf("following of %s: %v (want %d)", u, err, following)
			}
		}
	})
}

// TestVerifyShowsStoredCountersThatAreNotWholeNumbers: a counter part that
// is no whole number is reported as stored, with what is wrong with it;
// Stored sums the parts that are numbers, and a repair keeps the text.
func TestVerifyShowsStoredCountersThatAreNotWholeNumbers(t *testing.T) {
	sc := socialCounterShards(1, 4)
	rel := sc.Relations[0]
	st, api := engineStore(t, sc, nil)
	for _, f := range []string{"ann", "ben", "cid", "dee"} {
		must[Outcome](t)(first(st.Link(ctx, rel, f, "bob", nil)))
	}
	must[Outcome](t)(first(st.Link(ctx, rel, "ann", "eve", nil)))
	setAttr(t, api, "social", "ACTOR#ann", "ACTOR#ann", "followingCount", num("10.5"))
	setAttr(t, api, "social", "ACTOR#ben", "ACTOR#ben", "followingCount", &types.AttributeValueMemberS{Value: "x"})
	setAttr(t, api, "social", "ACTOR#cid", "ACTOR#cid", "followingCount", num("99999999999999999999"))
	setAttr(t, api, "social", "ACTOR#dee", "ACTOR#dee", "followingCount", &types.AttributeValueMemberBOOL{Value: true})
	shard := schema.CounterSK("followerCount", rel.CounterShard(schema.ToEnd, "ACTOR#ben"))
	setAttr(t, api, "social", "TARGET#bob", shard, "followerCount", &types.AttributeValueMemberS{Value: "1"})
	want := []string{
		"ACTOR#ann followingCount 0 10.5 (not a whole number) 2",
		"ACTOR#ben followingCount 0 x (a string, not a number) 1",
		"ACTOR#cid followingCount 0 99999999999999999999 (out of range) 1",
		"ACTOR#dee followingCount 0 true (a boolean, not a number) 1",
		// bob's four shards hold a 1 each, one of them the string "1".
		"TARGET#bob followerCount 3 1 + 1 + 1 + 1 (a string, not a number) 4",
	}
	for _, repair := range []bool{false, true} {
		vr, err := st.VerifyCounters(ctx, VerifyOptions{Repair: repair})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range vr.Wrong {
			got = append(got, fmt.Sprintf("%s %s %d %s (%s) %d", w.Key, w.Counter, w.Stored, w.StoredValue, w.StoredProblem, w.Actual))
			if repair != w.Fixed {
				t.Errorf("repair=%t: %+v", repair, w)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("repair=%t: got\n%s", repair, strings.Join(got, "\n"))
		}
		for i := range want {
			eq(t, fmt.Sprintf("repair=%t", repair), got[i], want[i])
		}
		// bob's shards, in shard order: the three links' 1s and the string "1".
	}
	vr, err := st.VerifyCounters(ctx, VerifyOptions{})
	if err != nil || len(vr.Wrong) != 0 {
		t.Fatalf("after repair: %+v %v", vr.Wrong, err)
	}
}

// TestRepairRewritesEveryPartOfAShardedCounterThatIsNotANumber: a repair
// of a counter spread over shards writes its difference to shard 0, so a
// part elsewhere that is no whole number (another shard, or the side item
// holding a value from before the counter was sharded) must be rewritten
// too, or the counter stays wrong however often it is repaired.
func TestRepairRewritesEveryPartOfAShardedCounterThatIsNotANumber(t *testing.T) {
	eachFixMode(t, func(t *testing.T, batch bool) {
		sc := socialCounterShards(1, 4)
		rel := sc.Relations[0]
		st, api := engineStore(t, sc, nil)
		followers := []string{"ann", "ben", "cid", "dee", "eve", "fay"}
		for _, f := range followers {
			must[Outcome](t)(first(st.Link(ctx, rel, f, "bob", nil)))
		}
		eq(t, "ben's shard", rel.CounterShard(schema.ToEnd, "ACTOR#ben"), 0)
		for _, f := range []string{"ann", "cid", "dee"} {
			if rel.CounterShard(schema.ToEnd, "ACTOR#"+f) == 0 {
				t.Fatalf("%s's edge counts on shard 0: the test needs parts other than shard 0", f)
			}
		}
		// Every part but shard 0 holds something that is no whole number.
		setAttr(t, api, "social", "TARGET#bob", schema.CounterSK("followerCount", rel.CounterShard(schema.ToEnd, "ACTOR#ann")), "followerCount", &types.AttributeValueMemberS{Value: "x"})
		setAttr(t, api, "social", "TARGET#bob", schema.CounterSK("followerCount", rel.CounterShard(schema.ToEnd, "ACTOR#cid")), "followerCount", num("1.5"))
		setAttr(t, api, "social", "TARGET#bob", schema.CounterSK("followerCount", rel.CounterShard(schema.ToEnd, "ACTOR#dee")), "followerCount", num("99999999999999999999"))
		setAttr(t, api, "social", "TARGET#bob", "TARGET#bob", "followerCount", &types.AttributeValueMemberBOOL{Value: true})
		repair := func() []CounterResult {
			t.Helper()
			vr, err := st.VerifyCounters(ctx, VerifyOptions{Repair: true, BatchFixes: func() bool { return batch }})
			if err != nil {
				t.Fatal(err)
			}
			return vr.Wrong
		}
		if w := repair(); len(w) != 1 || !w[0].Fixed || w[0].Actual != int64(len(followers)) {
			t.Fatalf("repair: %+v", w)
		}
		if w := repair(); len(w) != 0 {
			t.Errorf("a second repair still finds: %+v", w)
		}
		eq(t, "bob", counter(t, st, "TARGET#bob", "followerCount"), "6")
		// Links go on counting from the repaired parts.
		must[Outcome](t)(first(st.Link(ctx, rel, "gus", "bob", nil)))
		eq(t, "bob after a link", counter(t, st, "TARGET#bob", "followerCount"), "7")
	})
}

// TestGetEntityShowsASumOfFractionsAsADecimal: counter shards are summed
// exactly; a sum that is no whole number (shards written by hand) is shown
// as the decimal it is, as DynamoDB would store it, not as a fraction.
func TestGetEntityShowsASumOfFractionsAsADecimal(t *testing.T) {
	sc := socialCounterShards(1, 4)
	rel := sc.Relations[0]
	st, api := engineStore(t, sc, nil)
	must[Outcome](t)(first(st.Link(ctx, rel, "ben", "bob", nil))) // shard 0
	for shard, v := range map[int]string{1: "1.5", 2: "0.25", 3: "-0.05"} {
		setAttr(t, api, "social", "TARGET#bob", schema.CounterSK("followerCount", shard), "followerCount", num(v))
	}
	eq(t, "bob", counter(t, st, "TARGET#bob", "followerCount"), "2.7")
	setAttr(t, api, "social", "TARGET#bob", schema.CounterSK("followerCount", 3), "followerCount", num("0.25"))
	eq(t, "bob, whole again", counter(t, st, "TARGET#bob", "followerCount"), "3")
}

// TestGetEntityShowsACounterWithAPartThatIsNoNumberAsStored: a counter
// spread over shards, one of which a hand edit left holding no number, has
// no sum; get shows its parts as stored, as verify does, rather than the
// sum of the others, which would look like a count and is none. So does
// the entity's own item holding such a value.
func TestGetEntityShowsACounterWithAPartThatIsNoNumberAsStored(t *testing.T) {
	sc := socialCounterShards(1, 4)
	rel := sc.Relations[0]
	st, api := engineStore(t, sc, nil)
	for i := range 6 {
		must[Outcome](t)(first(st.Link(ctx, rel, fmt.Sprint("f", i), "bob", nil)))
	}
	eq(t, "bob", counter(t, st, "TARGET#bob", "followerCount"), "6")
	for _, c := range []struct {
		sk    string
		value types.AttributeValue
	}{
		{schema.CounterSK("followerCount", 2), str("x")},
		{"TARGET#bob", &types.AttributeValueMemberBOOL{Value: true}},
	} {
		setAttr(t, api, "social", "TARGET#bob", c.sk, "followerCount", c.value)
		it, err := st.GetEntity(ctx, "TARGET#bob", true)
		if err != nil {
			t.Fatal(err)
		}
		vr, err := st.VerifyCounters(ctx, VerifyOptions{})
		if err != nil || len(vr.Wrong) != 1 || vr.Wrong[0].StoredValue == "" {
			t.Fatalf("verify after %s: %+v %v, want the counter shown as stored", c.sk, vr.Wrong, err)
		}
		got, ok := it["followerCount"].(*types.AttributeValueMemberS)
		if !ok || got.Value != vr.Wrong[0].StoredValue {
			t.Errorf("get after %s: followerCount %v, want %q as verify shows it", c.sk, it["followerCount"], vr.Wrong[0].StoredValue)
		}
	}
}

// TestCounterAfterItsShardsAreReduced: a counter spread over 8 items and
// then declared over 4 keeps counts on items 4 to 7 that no link changes
// any more. What a counter holds must be the same sum for every reader:
// a repair must leave get showing the edges, and verify must not call a
// counter exact that get shows wrong.
func TestCounterAfterItsShardsAreReduced(t *testing.T) {
	sc := socialCounterShards(1, 8)
	rel := sc.Relations[0]
	st, api := engineStore(t, sc, nil)
	for i := range 20 {
		must[Outcome](t)(first(st.Link(ctx, rel, fmt.Sprint("f", i), "bob", nil)))
	}
	high := 0
	for i := range 20 {
		if rel.CounterShard(schema.ToEnd, fmt.Sprint("ACTOR#f", i)) >= 4 {
			high++
		}
	}
	if high == 0 {
		t.Fatal("no follower counts on items 4 to 7: the test needs some that do")
	}
	fewer := New(api, socialCounterShards(1, 4), Options{})
	rel = fewer.schema.Relations[0]
	setAttr(t, api, "social", "TARGET#bob", schema.CounterSK("followerCount", 0), "followerCount", num("100")) // drift
	if _, err := fewer.VerifyCounters(ctx, VerifyOptions{Repair: true}); err != nil {
		t.Fatal(err)
	}
	eq(t, "bob after the repair", counter(t, fewer, "TARGET#bob", "followerCount"), "20")
	vr, err := fewer.VerifyCounters(ctx, VerifyOptions{})
	if err != nil || len(vr.Wrong) != 0 {
		t.Fatalf("verify after the repair: %+v %v", vr.Wrong, err)
	}
	must[Outcome](t)(first(fewer.Link(ctx, rel, "g", "bob", nil)))
	must[Outcome](t)(first(fewer.Unlink(ctx, rel, "f0", "bob")))
	eq(t, "bob after a link and an unlink", counter(t, fewer, "TARGET#bob", "followerCount"), "20")
	// An import recounts it the same way.
	if _, err := fewer.Import(ctx, rel, nil, rows(edgeRow("ACTOR#h", "TARGET#bob", nil)), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	eq(t, "bob after an import", counter(t, fewer, "TARGET#bob", "followerCount"), "21")
	wantExactCounters(t, "after the import", fewer)
}

// TestLinkAndUnlinkRefuseACounterThatIsNoNumber: ADD cannot add to a
// counter, or its changes attribute, that a hand edit left holding
// something else; the link or unlink writes nothing and names the
// attribute and the way out. verify reports either as wrong, and the
// repair it names sets both, so links work again.
func TestLinkAndUnlinkRefuseACounterThatIsNoNumber(t *testing.T) {
	for _, c := range []struct {
		attr  string
		value types.AttributeValue
		want  string
	}{
		{"studentCount", str("x"), "link refused, nothing written: studentCount of CRS#c1 holds x (a string, not a number), which cannot be added to; run `adjl counters repair enrollment` to set it to its count"},
		{schema.Changes("studentCount"), &types.AttributeValueMemberBOOL{Value: true}, "link refused, nothing written: ADJL#changes#studentCount of CRS#c1 holds true (a boolean, not a number), which cannot be added to; it is adjl's own record of the counter's changes: run `adjl counters repair enrollment` to set it again"},
	} {
		t.Run(c.attr, func(t *testing.T) {
			sc := school()
			rel := sc.Relations[0]
			st, raw := engineStore(t, sc, nil)
			must[Outcome](t)(first(st.Link(ctx, rel, "a1", "c1", nil)))
			setAttr(t, raw, "school", "CRS#c1", "CRS#c1", c.attr, c.value)
			_, _, err := st.Link(ctx, rel, "a2", "c1", nil)
			var nn *CounterNotNumberError
			var rejected *RejectedError
			if !errors.As(err, &nn) || !errors.As(err, &rejected) {
				t.Fatalf("link: %v, want a CounterNotNumberError that is a RejectedError", err)
			}
			eq(t, "message", err.Error(), c.want)
			if it := getItem(t, raw, "school", "STU#a2", "ENROLL#CRS#c1"); it != nil {
				t.Errorf("refused link wrote its edge: %v", itemString(it))
			}
			_, _, err = st.Unlink(ctx, rel, "a1", "c1")
			if !errors.As(err, &nn) || nn.Verb != "unlink" || nn.Attribute != c.attr {
				t.Fatalf("unlink: %v, want a CounterNotNumberError on %s", err, c.attr)
			}
			if it := getItem(t, raw, "school", "STU#a1", "ENROLL#CRS#c1"); it == nil {
				t.Error("refused unlink removed its edge")
			}
			vr, err := st.VerifyCounters(ctx, VerifyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(vr.Wrong) != 1 || vr.Wrong[0].Key != "CRS#c1" || !strings.Contains(vr.Wrong[0].StoredProblem, "not a number") {
				t.Fatalf("verify: %+v, want CRS#c1 reported with what it holds", vr.Wrong)
			}
			if vr, err = st.VerifyCounters(ctx, VerifyOptions{Repair: true}); err != nil || len(vr.Wrong) != 1 || !vr.Wrong[0].Fixed {
				t.Fatalf("repair: %+v %v, want CRS#c1 fixed", vr.Wrong, err)
			}
			must[Outcome](t)(first(st.Link(ctx, rel, "a2", "c1", nil)))
			eq(t, "c1", counter(t, st, "CRS#c1", "studentCount"), "2")
			wantExactCounters(t, "after the repair", st)
		})
	}
}

// TestLinkRefusalNamesTheCounterItemThatIsNoNumber: a counter spread over
// shards is added to on one of its counter items, not the entity's item;
// the refusal names that item's sort key, so the attribute can be found
// and fixed by hand where repair does not (the changes attribute).
func TestLinkRefusalNamesTheCounterItemThatIsNoNumber(t *testing.T) {
	sc := socialCounterShards(1, 4)
	rel := sc.Relations[0]
	st, raw := engineStore(t, sc, nil)
	must[Outcome](t)(first(st.Link(ctx, rel, "ann", "bob", nil)))
	shard := schema.CounterSK("followerCount", rel.CounterShard(schema.ToEnd, "ACTOR#ann"))
	setAttr(t, raw, "social", "TARGET#bob", shard, schema.Changes("followerCount"), str("x"))
	_, _, err := st.Unlink(ctx, rel, "ann", "bob")
	var nn *CounterNotNumberError
	if !errors.As(err, &nn) {
		t.Fatalf("unlink: %v, want a CounterNotNumberError", err)
	}
	eq(t, "message", err.Error(), "unlink refused, nothing written: ADJL#changes#followerCount of TARGET#bob (its counter item, sort key "+shard+
		") holds x (a string, not a number), which cannot be added to; it is adjl's own record of the counter's changes: run `adjl counters repair follow` to set it again")
}

// TestRepairSetsAChangesAttributeThatIsNoNumber: a counter spread over
// shards is exact while one shard's changes attribute holds no number,
// yet every link that hashes to that shard is refused. verify reports the
// counter and repair sets that shard's attribute again, leaving the
// count as it is.
func TestRepairSetsAChangesAttributeThatIsNoNumber(t *testing.T) {
	sc := socialCounterShards(1, 4)
	rel := sc.Relations[0]
	st, api := engineStore(t, sc, nil)
	var bad string // a follower whose count is not on shard 0
	for i := range 8 {
		f := fmt.Sprint("f", i)
		must[Outcome](t)(first(st.Link(ctx, rel, f, "bob", nil)))
		if rel.CounterShard(schema.ToEnd, "ACTOR#"+f) != 0 {
			bad = f
		}
	}
	if bad == "" {
		t.Fatal("every follower counts on shard 0: the test needs one that does not")
	}
	shard := schema.CounterSK("followerCount", rel.CounterShard(schema.ToEnd, "ACTOR#"+bad))
	setAttr(t, api, "social", "TARGET#bob", shard, schema.Changes("followerCount"), str("x"))
	var nn *CounterNotNumberError
	if _, _, err := st.Unlink(ctx, rel, bad, "bob"); !errors.As(err, &nn) {
		t.Fatalf("unlink counted on the shard: %v, want a CounterNotNumberError", err)
	}
	vr, err := st.VerifyCounters(ctx, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vr.Wrong) != 1 || vr.Wrong[0].Key != "TARGET#bob" || vr.Wrong[0].Stored != vr.Wrong[0].Actual ||
		!strings.Contains(vr.Wrong[0].StoredProblem, "ADJL#changes#followerCount holds x") {
		t.Fatalf("verify: %+v, want TARGET#bob reported for its changes attribute", vr.Wrong)
	}
	if vr, err = st.VerifyCounters(ctx, VerifyOptions{Repair: true}); err != nil || len(vr.Wrong) != 1 || !vr.Wrong[0].Fixed {
		t.Fatalf("repair: %+v %v, want TARGET#bob fixed", vr.Wrong, err)
	}
	must[Outcome](t)(first(st.Unlink(ctx, rel, bad, "bob")))
	eq(t, "bob", counter(t, st, "TARGET#bob", "followerCount"), "7")
	wantExactCounters(t, "after the repair", st)
}

// TestStoredNumberSaysWhatACounterPartHolds: a counter part that is no
// whole number is shown as its value and what kind of value that is, as
// verify and a refused link print it; a long one is cut.
func TestStoredNumberSaysWhatACounterPartHolds(t *testing.T) {
	long := strings.Repeat("y", 50)
	for _, c := range []struct {
		v     types.AttributeValue
		n     int64
		text  string
		probl string
	}{
		{num("12"), 12, "12", ""},
		{num("-3"), -3, "-3", ""},
		{num("2.5"), 0, "2.5", "not a whole number"},
		{num("99999999999999999999"), 0, "99999999999999999999", "out of range"},
		{str("x"), 0, "x", "a string, not a number"},
		{&types.AttributeValueMemberBOOL{Value: false}, 0, "false", "a boolean, not a number"},
		{&types.AttributeValueMemberSS{Value: []string{"a", "b"}}, 0, `["a","b"]`, "a string set, not a number"},
		{&types.AttributeValueMemberNS{Value: []string{"1"}}, 0, `[1]`, "a number set, not a number"},
		{&types.AttributeValueMemberBS{Value: [][]byte{[]byte("hi")}}, 0, `["aGk="]`, "a binary set, not a number"},
		{&types.AttributeValueMemberB{Value: []byte("hi")}, 0, `"aGk="`, "a binary value, not a number"},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{num("1"), str("a")}}, 0, `[1,"a"]`, "a list, not a number"},
		{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": str(long)}}, 0, `{"k":"` + long[:31] + "...", "a map, not a number"},
		{&types.AttributeValueMemberNULL{Value: true}, 0, "null", "a null value, not a number"},
	} {
		n, text, problem := storedNumber(c.v)
		if n != c.n || text != c.text || problem != c.probl {
			t.Errorf("storedNumber(%#v) = %d, %q, %q; want %d, %q, %q", c.v, n, text, problem, c.n, c.text, c.probl)
		}
	}
}

// TestStoredNumberShowsValuesWhole: a counter part's value is shown with its
// numbers as stored (not rounded to a float), its characters unescaped, and
// cut at a character, never inside one, to 40 characters.
func TestStoredNumberShowsValuesWhole(t *testing.T) {
	for _, c := range []struct {
		v    types.AttributeValue
		text string
	}{
		{&types.AttributeValueMemberNS{Value: []string{"12345678901234567891"}}, `[12345678901234567891]`},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{num("0.1"), num("1e3")}}, `[0.1,1e3]`},
		{&types.AttributeValueMemberSS{Value: []string{"a<b&c"}}, `["a<b&c"]`},
		{&types.AttributeValueMemberSS{Value: []string{strings.Repeat("é", 50)}}, `["` + strings.Repeat("é", 35) + "..."},
	} {
		_, text, _ := storedNumber(c.v)
		if text != c.text {
			t.Errorf("storedNumber(%#v) shows %q, want %q", c.v, text, c.text)
		}
	}
}
