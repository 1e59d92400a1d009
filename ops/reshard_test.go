package ops

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"pgregory.net/rapid"
)

// stamped is social(shards) with an index that projects every attribute,
// so that a reverse read sees each edge's shard stamp: through a KEYS_ONLY
// index a read under a count that divides the table's cannot tell the
// difference (see layout.go), and these tests read under such counts.
func stamped(shards int) *schema.Schema {
	sc := social(shards)
	sc.Table.Index.Projection = schema.ProjectionAll
	return sc
}

// seedFollowers creates the table with the given shard count (so the
// metadata item records it) and links n followers (f000..) to each target.
func seedFollowers(t *testing.T, m *engineAPI, shards int, targets map[string]int) {
	t.Helper()
	sc := stamped(shards)
	st := createdStore(t, m, sc)
	for target, n := range targets {
		for i := range n {
			if _, _, err := st.Link(ctx, sc.Relations[0], fmt.Sprintf("f%03d", i), target, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// followers lists target's followers through a Store with the given shards.
func followers(t *testing.T, m *engineAPI, shards int, target string) ([]string, error) {
	t.Helper()
	sc := stamped(shards)
	var got []string
	_, err := New(m, sc, Options{}).ListAll(ctx, ListQuery{Relation: sc.Relations[0], Direction: Reverse, Key: target, Limit: 7},
		func(it Item) error { got = append(got, sOf(it, "GSI1SK")); return nil })
	return got, err
}

// edgesOutOfPlace lists the edges whose GSI1PK is not the one shards gives.
func edgesOutOfPlace(m *engineAPI, shards int) []string {
	rel := stamped(shards).Relations[0]
	var bad []string
	for _, it := range m.items() {
		if sOf(it, "type") != "follow" {
			continue
		}
		if want := schema.DefaultLayout.EdgeKeys(rel, sOf(it, "PK"), sOf(it, "SK")[len(rel.Edge):]).IndexPK; sOf(it, "GSI1PK") != want {
			bad = append(bad, sOf(it, "PK")+"->"+sOf(it, "SK"))
		}
	}
	return bad
}

// interruptedReshard starts a reshard to 8 shards (Scan pages of 10) that
// loses its connection at the first request fails picks, and returns the
// relation.
func interruptedReshard(t *testing.T, m *engineAPI, fails func(op string, in any) bool) *schema.Relation {
	t.Helper()
	m.inject = func(op string, in any) error {
		if fails(op, in) {
			return errors.New("connection reset")
		}
		return nil
	}
	rel := stamped(8).Relations[0]
	_, err := New(m, stamped(8), Options{}).Reshard(ctx, rel, ReshardOptions{To: 8, PageSize: 10})
	if err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("interrupted reshard: %v", err)
	}
	m.inject = nil
	return rel
}

func wantFollowers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("ACTOR#f%03d", i)
	}
	return out
}

func TestReshardMovesVerifiesAndRecords(t *testing.T) {
	for _, tc := range []struct{ from, to int }{{4, 8}, {1, 4}, {8, 1}, {3, 3}} {
		t.Run(fmt.Sprintf("%d to %d", tc.from, tc.to), func(t *testing.T) {
			m := newEngine(t)
			seedFollowers(t, m, tc.from, map[string]int{"bob": 120, "carol": 7})
			seedEntity(m, "USER#bob")
			st := New(m, stamped(tc.to), Options{})
			var phases []string
			rep, err := st.Reshard(ctx, st.schema.Relations[0], ReshardOptions{To: tc.to, PageSize: 16, Progress: func(p ReshardProgress) {
				if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
					phases = append(phases, p.Phase)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "phases", strings.Join(phases, ","), "count,move")
			eq(t, "from", rep.From, tc.from)
			eq(t, "edges", rep.Edges, 127)
			eq(t, "moved", rep.Moved, rep.ToMove)
			eq(t, "before", rep.Before, 127)
			eq(t, "after", rep.After, 127)
			eq(t, "keys", fmt.Sprint(rep.Keys), "[{TARGET#bob 120 120} {TARGET#carol 7 7}]")
			if tc.from != tc.to && rep.Moved == 0 {
				t.Error("nothing moved")
			}
			if bad := edgesOutOfPlace(m, tc.to); len(bad) > 0 {
				t.Fatalf("edges not in the %d-shard layout: %v", tc.to, bad)
			}
			meta := m.get(MetaKey, MetaKey)
			eq(t, "recorded shards", nOf(meta["shards"].(*types.AttributeValueMemberM).Value, "follow"), fmt.Sprint(tc.to))
			if _, ok := meta["reshard-follow"]; ok {
				t.Error("progress left in the metadata item")
			}
			got, err := followers(t, m, tc.to, "bob")
			if err != nil || !slices.Equal(got, wantFollowers(120)) {
				t.Errorf("followers after reshard: %v %v", len(got), err)
			}
			if tc.from != tc.to {
				// A reverse read under the old count sees the new stamps when
				// both layouts are sharded; an unsharded read of a sharded
				// table (or the reverse) finds no edge at all. table create
				// compares the metadata item in every case.
				_, err = followers(t, m, tc.from, "bob")
				var mm *TableMismatchError
				if tc.from > 1 && tc.to > 1 {
					if !errors.As(err, &mm) || !strings.Contains(err.Error(), fmt.Sprintf("the table's follow relation has %d shards; the schema says %d", tc.to, tc.from)) ||
						!strings.Contains(mm.Hint, fmt.Sprintf("adjl reshard follow --to %d --yes", tc.from)) {
						t.Errorf("old schema not refused: %v", err)
					}
				}
				_, err = New(m, stamped(tc.from), Options{}).CreateTable(ctx, false)
				if !errors.As(err, &mm) || !strings.Contains(err.Error(), fmt.Sprintf("the table's follow relation has %d shard", tc.to)) {
					t.Errorf("table create with the old schema: %v", err)
				}
			}
			// Running it again is harmless.
			m.reset()
			rep, err = New(m, stamped(tc.to), Options{}).Reshard(ctx, st.schema.Relations[0], ReshardOptions{To: tc.to})
			if err != nil || rep.Moved != 0 || rep.ToMove != 0 || rep.Before != 127 || rep.After != 127 {
				t.Errorf("re-run: %+v %v", rep, err)
			}
			for _, in := range findUpdates(m) {
				if sOf(in.Key, "PK") != MetaKey {
					t.Errorf("re-run rewrote an edge: %s", itemString(in.Key))
				}
			}
		})
	}
}

func findUpdates(m *engineAPI) []*dynamodb.UpdateItemInput {
	var out []*dynamodb.UpdateItemInput
	for _, c := range m.calls {
		if in, ok := c.Input.(*dynamodb.UpdateItemInput); ok {
			out = append(out, in)
		}
	}
	return out
}

func TestReshardEdgeUpdateIsConditional(t *testing.T) {
	m := newEngine(t)
	seedFollowers(t, m, 1, map[string]int{"bob": 3})
	st := New(m, stamped(4), Options{})
	if _, err := st.Reshard(ctx, st.schema.Relations[0], ReshardOptions{To: 4}); err != nil {
		t.Fatal(err)
	}
	edges, stamps := 0, 0
	for _, in := range findUpdates(m) {
		pk, sk := sOf(in.Key, "PK"), sOf(in.Key, "SK")
		cond := render(in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		upd := render(in.UpdateExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		switch {
		case pk == MetaKey:
		case pk == sk || strings.HasPrefix(sk, schema.CounterSKPrefix):
			// A counter item a link stamped gets the new count.
			stamps++
			eq(t, "stamp condition", cond, `attribute_exists (PK)`)
			eq(t, "stamp update", upd, `SET ADJL#shards#follow = 4`)
		default:
			edges++
			eq(t, "condition", cond, `(attribute_exists (PK)) AND (GSI1PK = "TARGET#bob")`)
			if !strings.HasPrefix(upd, `SET GSI1PK = "TARGET#bob#`) || !strings.HasSuffix(upd, `, ADJL#shards#follow = 4`) {
				t.Errorf("update %s", upd)
			}
		}
	}
	eq(t, "edge updates", edges, 3)
	eq(t, "counter items restamped", stamps, 4) // three followers' actor items and bob's one counter item
}

func TestReshardResumesAfterInterruption(t *testing.T) {
	m := newEngine(t)
	seedFollowers(t, m, 2, map[string]int{"bob": 90})
	var edgeUpdates atomic.Int32
	rel := interruptedReshard(t, m, func(op string, in any) bool {
		u, ok := in.(*dynamodb.UpdateItemInput)
		return ok && sOf(u.Key, "PK") != sOf(u.Key, "SK") && sOf(u.Key, "PK") != MetaKey &&
			!strings.HasPrefix(sOf(u.Key, "SK"), schema.CounterSKPrefix) && edgeUpdates.Add(1) == 40
	})
	state := m.get(MetaKey, MetaKey)["reshard-follow"].(*types.AttributeValueMemberM).Value
	if sOf(state, "lastPK") == "" || nOf(state, "to") != "8" || nOf(state, "from") != "2" {
		t.Fatalf("progress not recorded: %v", itemString(state))
	}
	// Meanwhile reverse reads meet edges of both layouts and name the
	// reshard, whatever the schema says. The counting Scan has stamped bob's
	// counter item with the new count: a link under the old schema is
	// refused, one under the new schema writes its edge where the reshard
	// is taking the others.
	for _, shards := range []int{2, 8} {
		_, err := followers(t, m, shards, "bob")
		if err == nil || !strings.Contains(err.Error(), "is being resharded from 2 to 8") {
			t.Errorf("shards %d during reshard: %v", shards, err)
		}
	}
	old := stamped(2)
	if _, _, err := New(m, old, Options{}).Link(ctx, old.Relations[0], "new", "bob", nil); err == nil || !strings.Contains(err.Error(), "is being resharded from 2 to 8") {
		t.Errorf("link with the old schema during reshard: %v", err)
	}
	if _, _, err := New(m, stamped(8), Options{}).Link(ctx, rel, "new", "bob", nil); err != nil {
		t.Errorf("link with the new schema during reshard: %v", err)
	}
	// Another target is refused until this one is finished.
	if _, err := New(m, stamped(4), Options{}).Reshard(ctx, rel, ReshardOptions{To: 4}); err == nil || !strings.Contains(err.Error(), "--to 8") {
		t.Errorf("other target: %v", err)
	}
	m.reset()
	rep, err := New(m, stamped(8), Options{}).Reshard(ctx, rel, ReshardOptions{To: 8, PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Resumed || rep.Before != 91 || rep.After != 91 {
		t.Errorf("resumed run: %+v", rep)
	}
	// The second Scan starts where the first stopped.
	var starts []string
	for _, c := range m.calls {
		if in, ok := c.Input.(*dynamodb.ScanInput); ok {
			starts = append(starts, sOf(in.ExclusiveStartKey, "PK"))
		}
	}
	if starts[0] != "" || !slices.Contains(starts[1:], sOf(state, "lastPK")) {
		t.Errorf("scan starts %v, want a full count scan and a move scan from %s", starts, sOf(state, "lastPK"))
	}
	if bad := edgesOutOfPlace(m, 8); len(bad) > 0 {
		t.Fatalf("edges not moved: %v", bad)
	}
	got, err := followers(t, m, 8, "bob")
	if err != nil || !slices.Equal(got, append(wantFollowers(90), "ACTOR#new")) {
		t.Errorf("followers: %d %v", len(got), err)
	}
}

func TestReshardEdgeUnlinkedMeanwhile(t *testing.T) {
	m := newEngine(t)
	seedFollowers(t, m, 1, map[string]int{"bob": 5})
	m.inject = func(op string, in any) error {
		if u, ok := in.(*dynamodb.UpdateItemInput); ok && sOf(u.Key, "PK") == "ACTOR#f002" && sOf(u.Key, "SK") == "TARGET#bob" {
			m.remove("ACTOR#f002", "TARGET#bob")
		}
		return nil
	}
	rep, err := New(m, stamped(4), Options{}).Reshard(ctx, stamped(4).Relations[0], ReshardOptions{To: 4})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Vanished != 1 || rep.Before != 5 || rep.After != 4 {
		t.Errorf("report %+v", rep)
	}
}

func TestReshardDetectsAMisplacedEdge(t *testing.T) {
	m := newEngine(t)
	seedFollowers(t, m, 4, map[string]int{"bob": 20})
	// Someone (an old process) rewrites an edge after it was moved: the
	// conditional update cannot see it, the verification does.
	// Each change is made while no other count is sent (counts run in
	// parallel): the counts after it see it, whatever their order.
	var moved atomic.Bool
	var mu sync.Mutex
	m.inject = func(op string, in any) error {
		if q, ok := in.(*dynamodb.QueryInput); ok && q.Select == types.SelectCount {
			mu.Lock()
			defer mu.Unlock()
		}
		if q, ok := in.(*dynamodb.QueryInput); ok && q.Select == types.SelectCount && moved.CompareAndSwap(false, true) {
			for _, it := range m.items() {
				if sOf(it, "type") == "follow" && !strings.HasSuffix(sOf(it, "GSI1PK"), "#0") {
					it["GSI1PK"] = str("TARGET#bob#0")
					m.put(it)
					break
				}
			}
		}
		return nil
	}
	st := New(m, stamped(8), Options{})
	st.sleep = instant
	// The first count sees the change before the move: the move fixes it.
	if _, err := st.Reshard(ctx, st.schema.Relations[0], ReshardOptions{To: 8}); err != nil {
		t.Fatalf("reshard: %v", err)
	}
	// Now break one after the move, during verification.
	m2 := newEngine(t)
	seedFollowers(t, m2, 4, map[string]int{"bob": 20})
	var counts atomic.Int32
	m2.inject = func(op string, in any) error {
		if q, ok := in.(*dynamodb.QueryInput); ok && q.Select == types.SelectCount {
			mu.Lock()
			defer mu.Unlock()
			if counts.Add(1) == 9 { // the first Query of the verification (8 before)
				for _, it := range m2.items() {
					if sOf(it, "type") == "follow" && sOf(it, "GSI1PK") != "TARGET#bob#5" {
						it["GSI1PK"] = str("TARGET#bob#5")
						m2.put(it)
						break
					}
				}
			}
		}
		return nil
	}
	st = New(m2, stamped(8), Options{})
	st.sleep = instant
	_, err := st.Reshard(ctx, st.schema.Relations[0], ReshardOptions{To: 8})
	var ce *ConflictError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "not verified") {
		t.Fatalf("misplaced edge not detected: %v", err)
	}
	if _, ok := m2.get(MetaKey, MetaKey)["reshard-follow"]; !ok {
		t.Error("an unverified reshard must stay recorded as unfinished")
	}
}

func TestReshardDryRunWritesNothing(t *testing.T) {
	m := newEngine(t)
	seedFollowers(t, m, 1, map[string]int{"bob": 10})
	m.reset()
	rep, err := New(m, stamped(4), Options{}).Reshard(ctx, stamped(4).Relations[0], ReshardOptions{To: 4, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Edges != 10 || rep.ToMove == 0 || rep.Moved != 0 || rep.Before != 10 {
		t.Errorf("dry run report %+v", rep)
	}
	for _, op := range m.ops() {
		if op != "GetItem" && op != "Scan" && op != "Query" {
			t.Errorf("dry run sent %s", op)
		}
	}
}

func TestReshardExplainSendsNothing(t *testing.T) {
	m := newEngine(t)
	var ops []string
	st := New(m, stamped(8), Options{Explain: func(r Request) { ops = append(ops, r.Operation) }})
	if _, err := st.Reshard(ctx, st.schema.Relations[0], ReshardOptions{To: 8}); err != nil {
		t.Fatal(err)
	}
	if len(m.calls) != 0 {
		t.Errorf("explain sent %v", m.ops())
	}
	if !slices.Contains(ops, "Scan") {
		t.Errorf("explained %v, want the Scan", ops)
	}
}

func TestReshardRefusesBadTargets(t *testing.T) {
	st := New(newEngine(t), stamped(4), Options{})
	for _, to := range []int{0, -1, schema.MaxShards + 1} {
		var ie *InputError
		if _, err := st.Reshard(ctx, st.schema.Relations[0], ReshardOptions{To: to}); !errors.As(err, &ie) {
			t.Errorf("--to %d: %v", to, err)
		}
	}
}

// TestOnlyReshardScans runs every other operation of the Store on the
// engine, whose client can Scan, and asserts that none of them does.
func TestOnlyReshardScans(t *testing.T) {
	m := newEngine(t)
	for _, sc := range []*schema.Schema{social(4), school()} {
		st := New(m, sc, Options{})
		st.sleep = instant
		rel := sc.Relations[0]
		from, to := rel.From.Prefix+"a", rel.To.Prefix+"b"
		steps := []func() error{
			func() error { _, err := st.CreateTable(ctx, true); return err },
			func() error { _, err := st.PutEntity(ctx, rel.From.Entity, "a", nil); return err },
			func() error { _, _, err := st.Link(ctx, rel, from, to, nil); return err },
			func() error { _, _, err := st.Check(ctx, rel, from, to, true); return err },
			func() error { _, err := st.GetEntity(ctx, to, false); return err },
			func() error {
				_, err := st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: to, WithEntity: true})
				return err
			},
			func() error {
				_, err := st.ListAll(ctx, ListQuery{Relation: rel, Direction: Forward, Key: from, WithEntity: true}, func(Item) error { return nil })
				return err
			},
			func() error { _, _, err := st.Unlink(ctx, rel, from, to); return err },
			func() error { _, _, err := st.Link(ctx, rel, from, to, nil); return err },
			func() error { _, err := st.DeleteEntity(ctx, rel.From.Entity.Prefix+"a", true); return err },
		}
		for i, step := range steps {
			if err := step(); err != nil {
				t.Fatalf("%s step %d: %v", sc.Table.Name, i, err)
			}
		}
		if slices.Contains(m.ops(), "Scan") {
			t.Fatalf("%s: a Scan was sent: %v", sc.Table.Name, m.ops())
		}
		m.reset()
	}
}

// TestReshardProperty: random edges over random targets, random old and new
// shard counts and Scan page sizes — after the reshard every target's
// reverse list under the new count is exactly its followers, in order.
func TestReshardProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		from, to := rapid.IntRange(1, 9).Draw(t, "from"), rapid.IntRange(1, 9).Draw(t, "to")
		sc := social(from)
		st, m := recordedStore(t, sc, Options{})
		want := map[string][]string{}
		for _, e := range rapid.SliceOfDistinct(rapid.StringMatching(`[a-e][0-9]{1,2}`), func(s string) string { return s }).Draw(t, "edges") {
			target, actor := "t"+e[:1], "a"+e[1:]
			if _, _, err := st.Link(ctx, sc.Relations[0], actor, target, nil); err != nil {
				t.Fatal(err)
			}
			want[target] = append(want[target], "ACTOR#"+actor)
		}
		nsc := social(to)
		ns := New(m, nsc, Options{Parallel: rapid.IntRange(1, 4).Draw(t, "parallel")})
		rep, err := ns.Reshard(ctx, nsc.Relations[0], ReshardOptions{To: to, PageSize: int32(rapid.IntRange(1, 20).Draw(t, "page"))})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Before != rep.Edges || rep.After != rep.Edges {
			t.Fatalf("report %+v", rep)
		}
		for target, actors := range want {
			sort.Strings(actors)
			var got []string
			_, err := New(m, nsc, Options{}).ListAll(ctx, ListQuery{Relation: nsc.Relations[0], Direction: Reverse, Key: target},
				func(it Item) error { got = append(got, sOf(it, "GSI1SK")); return nil })
			if err != nil || !slices.Equal(got, actors) {
				t.Fatalf("%s: %v %v, want %v", target, got, err, actors)
			}
		}
	})
}

// TestReshardInterruptedWhileCountingLeavesTrueMessages checks a reshard
// stopped during its counting Scan: every counter item it has restamped
// with the new count is covered by a recorded reshard, so a link under the
// table's actual count is either let through or told that a reshard is
// unfinished, never that the table already has the new count.
func TestReshardInterruptedWhileCountingLeavesTrueMessages(t *testing.T) {
	m := newEngine(t)
	seedFollowers(t, m, 4, map[string]int{"bob": 30})
	var scans atomic.Int32
	interruptedReshard(t, m, func(op string, _ any) bool { return op == "Scan" && scans.Add(1) == 3 })
	old := stamped(4)
	refused := 0
	for i := range 30 {
		_, _, err := New(m, old, Options{}).Link(ctx, old.Relations[0], fmt.Sprintf("f%03d", i), "carol", nil)
		switch {
		case err == nil:
		case strings.Contains(err.Error(), "is being resharded from 4 to 8"):
			refused++
		default:
			t.Errorf("link from f%03d under the table's count: %v", i, err)
		}
	}
	if refused == 0 {
		t.Error("no counter item was restamped before the interruption: the test shows nothing")
	}
}
