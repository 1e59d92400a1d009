package ops

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// beforeHooks runs a function just before the first request of an
// operation is sent (once: it is forgotten as it runs), so a test can put
// another writer's request at an exact point of an import or a repair.
type beforeHooks struct {
	mu     sync.Mutex
	before map[string]func()
}

// wrapBefore is an engineStore wrap: a copy of the engine's client whose
// every request runs the hooks of the beforeHooks it keeps in *b first (an
// Initialize middleware, as opRecorder notes operations).
func wrapBefore(b **beforeHooks) func(API) API {
	return func(api API) API {
		h := &beforeHooks{before: map[string]func(){}}
		*b = h
		run := func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			h.run(middleware.GetOperationName(ctx))
			return next.HandleInitialize(ctx, in)
		}
		return dynamodb.New(api.(*dynamodb.Client).Options(), func(o *dynamodb.Options) {
			o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
				return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("runBefore", run), middleware.Before)
			})
		})
	}
}

// on sets what runs before the next request of op.
func (b *beforeHooks) on(op string, f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.before[op] = f
}

func (b *beforeHooks) run(op string) {
	b.mu.Lock()
	f := b.before[op]
	delete(b.before, op)
	b.mu.Unlock()
	if f != nil {
		f()
	}
}

// hookedStores are two stores on one new table of sc: st, and other,
// another writer. Both send their requests through raw, the engine's
// client with b's hooks.
func hookedStores(t *testing.T, sc *schema.Schema) (st, other *Store, raw API, b *beforeHooks) {
	t.Helper()
	st, raw = engineStore(t, sc, wrapBefore(&b))
	return st, New(raw, sc, Options{}), raw, b
}

// wantExactCounters fails t unless every counter equals its edges.
func wantExactCounters(t testing.TB, label string, st *Store) {
	t.Helper()
	vr, err := st.VerifyCounters(ctx, VerifyOptions{})
	if err != nil {
		t.Fatalf("%s: verify: %v", label, err)
	}
	for _, w := range vr.Wrong {
		t.Errorf("%s: %s %s holds %d, its edges are %d", label, w.Key, w.Counter, w.Stored, w.Actual)
	}
}

// TestImportIntoFreshRelationRecountsACounterOthersChanged: into a relation
// that had no edge, a counter is written from the file without a Query only
// if no link or unlink has changed it. One that another writer linked
// before the import wrote the same edge, and unlinked after, reads 0 again
// but its entity has one edge fewer than the file gives it.
func TestImportIntoFreshRelationRecountsACounterOthersChanged(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	st, other, _, b := hookedStores(t, sc)
	b.on("BatchWriteItem", func() { must[Outcome](t)(first(other.Link(ctx, rel, "a1", "c1", nil))) })
	b.on("BatchGetItem", func() { must[Outcome](t)(first(other.Unlink(ctx, rel, "a1", "c1"))) })
	var fresh []bool
	_, err := st.Import(ctx, rel, nil, rows(
		edgeRow("STU#a1", "CRS#c1", nil),
		edgeRow("STU#a1", "CRS#c2", nil),
		edgeRow("STU#a2", "CRS#c2", nil),
	), ImportOptions{FreshChecked: func(f bool) { fresh = append(fresh, f) }})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "fresh", fmt.Sprint(fresh), "[true]")
	wantSchoolCounters(t, "", st, map[string]string{"STU#a1": "1", "STU#a2": "1", "CRS#c1": "0", "CRS#c2": "2"})
	wantExactCounters(t, "after the import", st)
}

// putAround writes the edge from -> to as an item of its own, without the
// counters a link would change: an edge written around adjl.
func putAround(t *testing.T, st *Store, api API, rel *schema.Relation, from, to string) {
	t.Helper()
	it := st.keyItem(st.layout.EdgeKeys(rel, from, to))
	if st.layout.Type != "" {
		it[st.layout.Type] = str(rel.Name)
	}
	if rel.Shards > 1 {
		it[rel.ShardStamp()] = num(fmt.Sprint(rel.Shards))
	}
	if _, err := api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(st.schema.Table.Name), Item: it}); err != nil {
		t.Fatal(err)
	}
}

// c1OneShort is a school table whose course c1 has 3 edges linked by
// another writer (other) and a fourth written around adjl, so its counter
// is one short; the student of that edge has its counter set by hand, so
// c1's is the only wrong one. Both stores send their requests through b's
// hooks.
func c1OneShort(t *testing.T) (st, other *Store, rel *schema.Relation, b *beforeHooks) {
	t.Helper()
	sc := school()
	rel = sc.Relations[0]
	st, other, raw, b := hookedStores(t, sc)
	for _, s := range []string{"a1", "a2", "a3"} {
		must[Outcome](t)(first(other.Link(ctx, rel, s, "c1", nil)))
	}
	putAround(t, st, raw, rel, "STU#a4", "CRS#c1")
	setAttr(t, raw, "school", "STU#a4", "STU#a4", "courseCount", num("1"))
	return st, other, rel, b
}

// TestRecountLeavesNoCounterThatChangedWhileCounted: a recount that finds
// the count equal to the counter it read writes nothing, so nothing
// checks that the counter still held that value. One a link short (an
// edge written around adjl) whose entity loses another edge between the
// read and the count reads as exact, and stays one short. Import and
// repair must count it again instead.
func TestRecountLeavesNoCounterThatChangedWhileCounted(t *testing.T) {
	for _, run := range []string{"import", "repair"} {
		t.Run(run, func(t *testing.T) {
			st, other, rel, b := c1OneShort(t)
			// Both runs read c1's counter before their first count.
			b.on("Query", func() { must[Outcome](t)(first(other.Unlink(ctx, rel, "a1", "c1"))) })
			var err error
			if run == "import" {
				_, err = st.Import(ctx, rel, nil, rows(edgeRow("STU#a2", "CRS#c1", nil), edgeRow("STU#a4", "CRS#c1", nil)), ImportOptions{})
			} else {
				_, err = st.VerifyCounters(ctx, VerifyOptions{Repair: true})
			}
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "c1", counter(t, other, "CRS#c1", "studentCount"), "3")
			wantExactCounters(t, "after the "+run, other)
		})
	}
}

// TestVerifyReportsNoCounterThatChangedWhileCounted: verify recounts the
// counters its Scan found wrong before it reports them, but a count taken
// after a link that came after the counter was read is one more than the
// counter read, though the counter is exact: a recount's pair of counter
// and count must be checked, and taken again when the counter moved.
func TestVerifyReportsNoCounterThatChangedWhileCounted(t *testing.T) {
	sc := school()
	rel := sc.Relations[0]
	st, other, raw, b := hookedStores(t, sc)
	for _, s := range []string{"a1", "a2", "a3"} {
		must[Outcome](t)(first(other.Link(ctx, rel, s, "c1", nil)))
	}
	setAttr(t, raw, "school", "CRS#c1", "CRS#c1", "studentCount", num("30"))
	// Once the Scan saw c1 wrong, someone repairs it, and links a4 after
	// the recount read it.
	b.on("BatchGetItem", func() { setAttr(t, raw, "school", "CRS#c1", "CRS#c1", "studentCount", num("3")) })
	b.on("Query", func() { must[Outcome](t)(first(other.Link(ctx, rel, "a4", "c1", nil))) })
	vr, err := st.VerifyCounters(ctx, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range vr.Wrong {
		t.Errorf("reported wrong: %+v", w)
	}
	wantExactCounters(t, "after the link", other)
}

// TestRecountSeesLinksAndUnlinksThatCancelOnTheCounter: another writer
// links an edge after a recount read the counter, and unlinks a different
// one after it counted the edges. The counter then holds what was read
// again, but the count includes both edges: one more than the entity has.
// The changes attribute both writes moved tells the recount to count again.
func TestRecountSeesLinksAndUnlinksThatCancelOnTheCounter(t *testing.T) {
	for _, run := range []string{"import", "repair", "verify"} {
		t.Run(run, func(t *testing.T) {
			st, other, rel, b := c1OneShort(t)
			b.on("Query", func() {
				must[Outcome](t)(first(other.Link(ctx, rel, "a5", "c1", nil)))
				// Before the recount's next request after its count, whichever
				// it is (the unlink's own request runs these hooks too).
				var done atomic.Bool
				unlink := func() {
					if done.CompareAndSwap(false, true) {
						must[Outcome](t)(first(other.Unlink(ctx, rel, "a1", "c1")))
					}
				}
				for _, op := range []string{"BatchGetItem", "UpdateItem", "TransactWriteItems"} {
					b.on(op, unlink)
				}
			})
			var err error
			switch run {
			case "import":
				_, err = st.Import(ctx, rel, nil, rows(edgeRow("STU#a2", "CRS#c1", nil)), ImportOptions{})
			case "repair":
				_, err = st.VerifyCounters(ctx, VerifyOptions{Repair: true})
			case "verify":
				var vr *VerifyReport
				vr, err = st.VerifyCounters(ctx, VerifyOptions{})
				if err == nil && (len(vr.Wrong) != 1 || vr.Wrong[0].Key != "CRS#c1" || vr.Wrong[0].Stored != 3 || vr.Wrong[0].Actual != 4) {
					t.Errorf("verify reported %+v, want CRS#c1 stored 3, actual 4", vr.Wrong)
				}
				setAttr(t, other.api, "school", "CRS#c1", "CRS#c1", "studentCount", num("4"))
			}
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "c1", counter(t, other, "CRS#c1", "studentCount"), "4")
			wantExactCounters(t, "after the "+run, other)
		})
	}
}

// TestDeleteIsCancelledByALinkAfterItsLookForEdges: a delete looks for the
// entity's edges and then deletes its items. A link of that entity in
// between moves its counter's changes attribute, so the delete, conditioned
// on it, is cancelled and deletes nothing (exit 5), where it used to leave
// an edge whose entity and counter were gone. Run again, it is refused for
// the edge.
func TestDeleteIsCancelledByALinkAfterItsLookForEdges(t *testing.T) {
	for _, c := range []struct {
		name string
		sc   *schema.Schema
		key  string // the entity deleted
		link func(st *Store, rel *schema.Relation) error
	}{
		{"unsharded", school(), "CRS#c1", func(st *Store, rel *schema.Relation) error {
			_, _, err := st.Link(ctx, rel, "a1", "c1", nil)
			return err
		}},
		{"sharded", socialCounterShards(4, 8), "USER#bob", func(st *Store, rel *schema.Relation) error {
			_, _, err := st.Link(ctx, rel, "ann", "bob", nil)
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rel := c.sc.Relations[0]
			st, other, _, b := hookedStores(t, c.sc)
			ent, _, err := c.sc.ResolveKey(c.key)
			if err != nil {
				t.Fatal(err)
			}
			must[Outcome](t)(other.PutEntity(ctx, ent, c.key[len(ent.Prefix):], nil))
			// The transaction is the delete, after the look for edges.
			b.on("TransactWriteItems", func() {
				if err := c.link(other, rel); err != nil {
					t.Error(err)
				}
			})
			_, err = st.DeleteEntity(ctx, c.key, false)
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("delete: %v, want a ConflictError", err)
			}
			if _, err := st.GetEntity(ctx, c.key, true); err != nil {
				t.Errorf("the cancelled delete deleted the entity: %v", err)
			}
			wantExactCounters(t, "after the cancelled delete", st)
			var he *HasEdgesError
			if _, err := st.DeleteEntity(ctx, c.key, false); !errors.As(err, &he) {
				t.Errorf("delete again: %v, want a HasEdgesError", err)
			}
		})
	}
}

// TestDeleteCascadeRemovesAnEdgeLinkedWhileItRan: an edge linked after a
// cascading delete removed the edges it found is found by the look that
// follows, and removed in turn; the entity then goes, every other counter
// exact. A self-edge's removal changes the entity's own counter, which the
// guard read after the removals does not mistake for another writer.
func TestDeleteCascadeRemovesAnEdgeLinkedWhileItRan(t *testing.T) {
	sc := selfFollow(1)
	rel := sc.Relations[0]
	st, other, raw, b := hookedStores(t, sc)
	for _, f := range []string{"ann", "bob"} {
		must[Outcome](t)(first(other.Link(ctx, rel, f, "bob", nil)))
	}
	must[Outcome](t)(first(other.Link(ctx, rel, "bob", "cid", nil)))
	// The guard is read once the edges found were removed.
	b.on("BatchGetItem", func() { must[Outcome](t)(first(other.Link(ctx, rel, "dee", "bob", nil))) })
	rep, err := st.DeleteEntity(ctx, "USER#bob", true)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "removed", rep.EdgesRemoved, 4)
	if it, err := st.GetEntity(ctx, "USER#bob", true); !errors.Is(err, ErrItemNotFound) {
		t.Errorf("bob is still there: %v %v", it, err)
	}
	wantExactCounters(t, "after the delete", st)
	for _, k := range []string{"USER#ann", "USER#cid", "USER#dee"} {
		if it := getItem(t, raw, st.schema.Table.Name, k, k); it == nil {
			t.Errorf("%s's item is gone", k)
		}
	}
}

// TestDeleteOfMoreItemsThanATransactionHoldsIsCancelledWhole: a user with
// both counters over 64 items has more items to delete than one
// TransactWriteItems holds (100). Follows linked before the last of its
// transactions cancel the delete with the user item kept: the earlier
// transactions delete counter items only, which hold no count of an entity
// without edges, and every counter still equals its edges.
func TestDeleteOfMoreItemsThanATransactionHoldsIsCancelledWhole(t *testing.T) {
	sc := selfFollow(64)
	rel := sc.Relations[0]
	rel.Counters.FromShards = 64
	st, other, raw, b := hookedStores(t, sc)
	must[Outcome](t)(other.PutEntity(ctx, sc.Entities[0], "bob", nil))
	// Between the transactions, bob is followed by one more user and
	// follows one more: both move counter items of every transaction.
	b.on("TransactWriteItems", func() {
		b.on("TransactWriteItems", func() {
			for i := range 64 {
				must[Outcome](t)(first(other.Link(ctx, rel, fmt.Sprintf("v%d", i), "bob", nil)))
				must[Outcome](t)(first(other.Link(ctx, rel, "bob", fmt.Sprintf("v%d", i), nil)))
			}
		})
	})
	_, err := st.DeleteEntity(ctx, "USER#bob", false)
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("delete: %v, want a ConflictError", err)
	}
	if getItem(t, raw, sc.Table.Name, "USER#bob", "USER#bob") == nil {
		t.Error("the cancelled delete deleted the user item")
	}
	wantExactCounters(t, "after the cancelled delete", st)
}

// TestDeleteRemovesAnEntityItemPutAfterItsRead: the entity item, absent
// when a delete read the items it guards, is put before the delete's
// transaction; the delete, which succeeds, deletes it too.
func TestDeleteRemovesAnEntityItemPutAfterItsRead(t *testing.T) {
	sc := social(1)
	rel := sc.Relations[0]
	st, other, raw, b := hookedStores(t, sc)
	must[Outcome](t)(first(other.Link(ctx, rel, "carol", "dan", nil)))
	must[Outcome](t)(first(other.Unlink(ctx, rel, "carol", "dan")))
	b.on("TransactWriteItems", func() { must[Outcome](t)(other.PutEntity(ctx, sc.Entities[0], "carol", nil)) })
	must[DeleteReport](t)(st.DeleteEntity(ctx, "USER#carol", false))
	for _, k := range []string{"USER#carol", "ACTOR#carol"} {
		if it := getItem(t, raw, sc.Table.Name, k, k); it != nil {
			t.Errorf("%s left: %v", k, it)
		}
	}
}

// TestDeleteCascadeGivesUpAfterItsAttempts: edges linked before every look
// of a cascading delete make it give up after fixAttempts looks, as its
// message says, with the entity kept.
func TestDeleteCascadeGivesUpAfterItsAttempts(t *testing.T) {
	sc := selfFollow(1)
	rel := sc.Relations[0]
	st, other, raw, b := hookedStores(t, sc)
	must[Outcome](t)(other.PutEntity(ctx, sc.Entities[0], "bob", nil))
	reads := 0
	var link func()
	link = func() {
		reads++
		must[Outcome](t)(first(other.Link(ctx, rel, fmt.Sprintf("u%d", reads), "bob", nil)))
		b.on("BatchGetItem", link)
	}
	b.on("BatchGetItem", link)
	_, err := st.DeleteEntity(ctx, "USER#bob", true)
	b.on("BatchGetItem", nil)
	var ce *ConflictError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), fmt.Sprintf("(%d attempts)", fixAttempts)) {
		t.Fatalf("delete: %v, want a ConflictError after %d attempts", err, fixAttempts)
	}
	eq(t, "looks", reads, fixAttempts)
	if getItem(t, raw, sc.Table.Name, "USER#bob", "USER#bob") == nil {
		t.Error("bob's item is gone")
	}
	wantExactCounters(t, "after giving up", st)
}

// TestDeleteFindingItsItemsGoneIsNoConflict: a delete's transaction whose
// conditions fail because its items are already gone (an earlier attempt
// of it applied and its answer was lost, on a backend without idempotency
// tokens; or another delete) has nothing left to do: it succeeds.
func TestDeleteFindingItsItemsGoneIsNoConflict(t *testing.T) {
	sc := school()
	st, _, raw, b := hookedStores(t, sc)
	ent := sc.Entity("course")
	must[Outcome](t)(st.PutEntity(ctx, ent, "c1", nil))
	must[Outcome](t)(first(st.Link(ctx, sc.Relations[0], "a1", "c1", nil)))
	must[Outcome](t)(first(st.Unlink(ctx, sc.Relations[0], "a1", "c1")))
	b.on("TransactWriteItems", func() {
		if _, err := raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("school"), Key: st.keyOf("CRS#c1", "CRS#c1")}); err != nil {
			t.Error(err)
		}
	})
	if _, err := st.DeleteEntity(ctx, "CRS#c1", false); err != nil {
		t.Fatalf("delete: %v, want success", err)
	}
	if it := getItem(t, raw, "school", "CRS#c1", "CRS#c1"); it != nil {
		t.Errorf("c1 is still there: %v", itemString(it))
	}
}
