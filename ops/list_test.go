package ops

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// seedEdge stores an edge and (for ALL-projection realism) its attributes directly.
func seedEdge(m *engineAPI, rel *schema.Relation, fromKey, toKey string) {
	k := schema.DefaultLayout.EdgeKeys(rel, fromKey, toKey)
	m.put(Item{"PK": str(k.PK), "SK": str(k.SK), "GSI1PK": str(k.IndexPK), "GSI1SK": str(k.IndexSK), "type": str(rel.Name)})
}

// seedCourses stores n enrollments of student, in CRS#0 to CRS#n-1.
func seedCourses(m *engineAPI, rel *schema.Relation, student string, n int) {
	for i := range n {
		seedEdge(m, rel, student, fmt.Sprintf("CRS#%d", i))
	}
}

// seedEntity stores an entity (or role) item typed as ops writes it: the
// entity's name, looked up from the key's prefix in the test schemas.
func seedEntity(m *engineAPI, key string) {
	typ := map[string]string{"STU": "student", "CRS": "course", "USER": "user", "ACTOR": "user", "TARGET": "user"}[strings.SplitN(key, "#", 2)[0]]
	m.put(Item{"PK": str(key), "SK": str(key), "GSI1PK": str(key), "GSI1SK": str(key), "type": str(typ)})
}

func TestForwardListQueryShape(t *testing.T) {
	st, m, rel := schoolStore(t)
	_, err := st.List(ctx, ListQuery{Relation: rel, Direction: Forward, Key: "a91", Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "ops", strings.Join(m.ops(), ","), "Query") // the list and nothing else
	q := m.calls[0].Input.(*dynamodb.QueryInput)
	eq(t, "key condition", render(q.KeyConditionExpression, q.ExpressionAttributeNames, q.ExpressionAttributeValues),
		`(PK = "STU#a91") AND (begins_with (SK, "ENROLL#CRS#"))`)
	eq(t, "index", aws.ToString(q.IndexName), "")
	eq(t, "consistent", aws.ToBool(q.ConsistentRead), true)
	eq(t, "limit", aws.ToInt32(q.Limit), DefaultLimit+1)
	if q.FilterExpression != nil {
		t.Errorf("unexpected filter %q", *q.FilterExpression)
	}
}

func TestReverseListQueryShapeAndConsistentRefused(t *testing.T) {
	st, m, rel := schoolStore(t)
	_, err := st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "CRS#math204", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "ops", strings.Join(m.ops(), ","), "Query")
	q := m.calls[0].Input.(*dynamodb.QueryInput)
	eq(t, "key condition", render(q.KeyConditionExpression, q.ExpressionAttributeNames, q.ExpressionAttributeValues),
		`(GSI1PK = "CRS#math204") AND (begins_with (GSI1SK, "STU#"))`)
	eq(t, "index", aws.ToString(q.IndexName), "GSI1")
	eq(t, "limit", aws.ToInt32(q.Limit), int32(11))

	m.reset()
	_, err = st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "math204", Consistent: true})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("consistent reverse: got %v", err)
	}
	eq(t, "message", ie.Msg, "--consistent is not available for `members`: it reads the global index GSI1, which only supports eventually consistent reads; drop --consistent, or check one pair consistently with `enrolled STU#<id> CRS#<id> --consistent`")
	_, err = st.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "STU#a91"})
	var ke *schema.KeyError
	if !errors.As(err, &ke) {
		t.Errorf("wrong prefix: got %v", err)
	}
	if len(m.calls) != 0 {
		t.Errorf("refused lists sent %v", m.ops())
	}
}

// pageThrough lists with page size n until the end, checking that each
// cursor is honoured, and returns the concatenated keys.
func pageThrough(t *testing.T, st *Store, q ListQuery, n int32, key string) []string {
	t.Helper()
	return listPages(t, st, q, key, func() int32 { return n }, func(p *Page) {
		if len(p.Items) == 0 {
			t.Fatal("empty page with a next cursor")
		}
	})
}

// listPages lists q page by page until the end and returns each item's key
// attribute, in order. limit gives each page's size, which no page may
// exceed; next, when not nil, runs after each page that has a next cursor.
func listPages(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, st *Store, q ListQuery, key string, limit func() int32, next func(*Page)) []string {
	t.Helper()
	var got []string
	for pages := 0; ; pages++ {
		q.Limit = limit()
		p, err := st.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if int32(len(p.Items)) > q.Limit {
			t.Fatalf("%d items on a page of %d", len(p.Items), q.Limit)
		}
		for _, it := range p.Items {
			got = append(got, sOf(it, key))
		}
		if p.Next == "" {
			return got
		}
		if next != nil {
			next(p)
		}
		if pages > 10000 {
			t.Fatal("paging does not end")
		}
		q.Cursor = p.Next
	}
}

func TestPagingForwardAndReverseWithOtherItemsInThePartition(t *testing.T) {
	sc := school()
	m := newEngine(t, sc)
	rel := sc.Relations[0]
	other := &schema.Relation{Name: "wait", From: rel.From, To: rel.To, Edge: "WAIT#", Shards: 1}
	sc.Relations = append(sc.Relations, other)
	st := New(m, sc, Options{})
	var want []string
	seedEntity(m, "STU#a")
	seedEntity(m, "CRS#c")
	for i := range 23 {
		seedEdge(m, rel, "STU#a", fmt.Sprintf("CRS#%03d", i))
		seedEdge(m, rel, fmt.Sprintf("STU#%03d", i), "CRS#c")
		seedEdge(m, other, "STU#a", fmt.Sprintf("CRS#%03d", i)) // same partition, other relation
		seedEdge(m, other, fmt.Sprintf("STU#%03d", i), "CRS#c")
		want = append(want, fmt.Sprintf("%03d", i))
	}
	for _, n := range []int32{1, 2, 5, 22, 23, 24, 100} {
		for _, we := range []bool{false, true} {
			got := pageThrough(t, st, ListQuery{Relation: rel, Direction: Forward, Key: "a", WithEntity: we}, n, "SK")
			eq(t, fmt.Sprintf("forward n=%d entity=%v", n, we), strings.Join(got, ","), strings.Join(prefixed("ENROLL#CRS#", want), ","))
			got = pageThrough(t, st, ListQuery{Relation: rel, Direction: Reverse, Key: "c", WithEntity: we}, n, "PK")
			eq(t, fmt.Sprintf("reverse n=%d entity=%v", n, we), strings.Join(got, ","), strings.Join(prefixed("STU#", want), ","))
		}
	}
}

func prefixed(p string, ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = p + id
	}
	return out
}

// TestWithEntityFirstPageOnly: STU#a sorts after the ENROLL# edges, so an
// ascending list with the entity is the plain list Query plus one GetItem,
// whatever the page size; descending, the item is read first and the one
// filtered Query brings it and a full page. Later pages carry no entity.
func TestWithEntityFirstPageOnly(t *testing.T) {
	st, m, rel := schoolStore(t)
	seedEntity(m, "STU#a")
	seedCourses(m, rel, "STU#a", 5)
	for _, limit := range []int32{2, 0} {
		m.reset()
		p := must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Key: "a", Limit: limit, WithEntity: true}))
		eq(t, "entity", sOf(p.Entity, "PK"), "STU#a")
		eq(t, "ops", strings.Join(m.ops(), ","), "Query,GetItem")
		q := m.calls[0].Input.(*dynamodb.QueryInput)
		eq(t, "key condition", render(q.KeyConditionExpression, q.ExpressionAttributeNames, q.ExpressionAttributeValues),
			`(PK = "STU#a") AND (begins_with (SK, "ENROLL#CRS#"))`)
		eq(t, "filter", q.FilterExpression == nil, true)
		if limit == 2 {
			m.reset()
			p2 := must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Key: "a", Limit: 2, WithEntity: true, Cursor: p.Next}))
			if p2.Entity != nil {
				t.Error("entity repeated on page 2")
			}
			eq(t, "page 2 ops", strings.Join(m.ops(), ","), "Query")
		}
	}
	for _, limit := range []int32{1, 2, 0} {
		m.reset()
		p := must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Key: "a", Limit: limit, WithEntity: true, Descending: true}))
		eq(t, "desc entity", sOf(p.Entity, "PK"), "STU#a")
		eq(t, "desc ops", strings.Join(m.ops(), ","), "Query")
		q := m.calls[0].Input.(*dynamodb.QueryInput)
		eq(t, "desc key condition", render(q.KeyConditionExpression, q.ExpressionAttributeNames, q.ExpressionAttributeValues), `PK = "STU#a"`)
		eq(t, "desc filter", render(q.FilterExpression, q.ExpressionAttributeNames, q.ExpressionAttributeValues),
			`type IN ("enrollment", "student")`)
		eq(t, "desc items", len(p.Items), int(cmp.Or(limit, 5)))
		eq(t, "desc next", p.Next != "", limit != 0)
	}
}

func TestCursorTamperedOrForeignIsRefused(t *testing.T) {
	st, m, rel := schoolStore(t)
	seedCourses(m, rel, "STU#a", 5)
	seedCourses(m, rel, "STU#b", 5)
	p := must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Key: "a", Limit: 2}))
	if p.Next == "" {
		t.Fatal("no cursor")
	}
	if strings.ContainsAny(p.Next, "+/=") {
		t.Errorf("cursor %q is not unpadded base64url", p.Next)
	}
	bad := []string{p.Next[:len(p.Next)-3], "x" + p.Next, "!!!", flip(p.Next, 5), flip(p.Next, len(p.Next)-2)}
	for _, c := range bad {
		_, err := st.List(ctx, ListQuery{Relation: rel, Key: "a", Limit: 2, Cursor: c})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(ie.Msg, "invalid cursor: it was altered or truncated") {
			t.Errorf("cursor %q: got %v", c, err)
		}
	}
	for _, q := range []ListQuery{
		{Relation: rel, Key: "b", Limit: 2},
		{Relation: rel, Key: "a", Limit: 2, WithEntity: true},
		{Relation: rel, Direction: Reverse, Key: "CRS#1", Limit: 2},
	} {
		q.Cursor = p.Next
		_, err := st.List(ctx, q)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(ie.Msg, "cursor belongs to a different query") {
			t.Errorf("foreign cursor on %+v: got %v", q, err)
		}
	}
	// Another page size is the same query.
	if _, err := st.List(ctx, ListQuery{Relation: rel, Key: "a", Limit: 3, Cursor: p.Next}); err != nil {
		t.Errorf("other page size: %v", err)
	}
}

func flip(s string, i int) string {
	b := []byte(s)
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func TestNextCursorComesFromLastReturnedItem(t *testing.T) {
	st, m, rel := schoolStore(t)
	seedCourses(m, rel, "STU#a", 3)
	p := must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Key: "a", Limit: 2}))
	c, err := decodeCursor(p.Next, must[*plan](t)(st.plan(ListQuery{Relation: rel, Key: "a"})).ident, 1)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "cursor keys", c.K["SK"], sOf(p.Items[1], "SK"))
	// Exactly Limit items left: no cursor on the last page.
	p = must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Key: "a", Limit: 3}))
	eq(t, "next", p.Next, "")
	p = must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Key: "nobody"}))
	eq(t, "empty list", len(p.Items), 0)
	if p.Items == nil {
		t.Error("empty page has nil Items (renders as null)")
	}
}

func TestListAllStreamsEveryEdge(t *testing.T) {
	sc := social(1)
	st, m := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	seedEntity(m, "TARGET#bob")
	for i := range 2500 {
		seedEdge(m, rel, fmt.Sprintf("ACTOR#%05d", i), "TARGET#bob")
	}
	n, prev := 0, ""
	ent, err := st.ListAll(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", WithEntity: true}, func(it Item) error {
		k := sOf(it, "GSI1SK")
		if k <= prev {
			t.Fatalf("out of order: %s after %s", k, prev)
		}
		prev = k
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "count", n, 2500)
	eq(t, "entity (KEYS_ONLY index: read with GetItem)", sOf(ent, "PK"), "TARGET#bob")
	stop := errors.New("stop")
	_, err = st.ListAll(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob"}, func(Item) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("emit error not returned: %v", err)
	}
}

func TestQueriesAreLimitedPerRequest(t *testing.T) {
	st, m, rel := schoolStore(t)
	for i := range 3000 {
		seedEdge(m, rel, "STU#a", fmt.Sprintf("CRS#%05d", i))
	}
	m.reset()
	n := 0
	_, err := st.ListAll(ctx, ListQuery{Relation: rel, Key: "a"}, func(Item) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "items", n, 3000)
	for _, c := range m.calls {
		if q, ok := c.Input.(*dynamodb.QueryInput); ok && aws.ToInt32(q.Limit) != listAllLimit {
			t.Errorf("ListAll query limit %d", aws.ToInt32(q.Limit))
		}
	}
	if len(m.calls) < 3 {
		t.Errorf("3000 items in %d requests: pages are not bounded", len(m.calls))
	}
}

func TestCapacityReported(t *testing.T) {
	sc := school()
	m := newEngine(t, sc)
	rel := sc.Relations[0]
	var got []string
	st := New(m, sc, Options{Capacity: func(op string, cc []types.ConsumedCapacity) {
		got = append(got, fmt.Sprintf("%s:%d", op, len(cc)))
	}})
	must[Outcome](t)(first(st.Link(ctx, rel, "a", "b", nil)))
	must[*Page](t)(st.List(ctx, ListQuery{Relation: rel, Key: "a"}))
	eq(t, "reports", strings.Join(got, ","), "TransactWriteItems:1,Query:1")
	for _, c := range m.calls {
		var rcc types.ReturnConsumedCapacity
		switch in := c.Input.(type) {
		case *dynamodb.QueryInput:
			rcc = in.ReturnConsumedCapacity
		case *dynamodb.TransactWriteItemsInput:
			rcc = in.ReturnConsumedCapacity
		default:
			continue
		}
		eq(t, c.Op+" ReturnConsumedCapacity", rcc, types.ReturnConsumedCapacityTotal)
	}
}

// crowded is school with two more relations sharing its partitions:
// membership's edges (AA#CLB#) sort before enrollment's in STU# partitions,
// and wishlist's (keyed CLB# in the index) before enrollment's in the
// index's CRS# partitions.
func crowded() *schema.Schema {
	sc := school()
	stu, crs := sc.Entities[0], sc.Entities[1]
	clb := &schema.Entity{Name: "club", Prefix: "CLB#"}
	sc.Table.Name = "crowded"
	sc.Entities = append(sc.Entities, clb)
	sc.Relations = append(sc.Relations,
		&schema.Relation{Name: "membership", From: schema.Side{Entity: stu, Prefix: "STU#"}, To: schema.Side{Entity: clb, Prefix: "CLB#"}, Edge: "AA#", Shards: 1},
		&schema.Relation{Name: "wishlist", From: schema.Side{Entity: clb, Prefix: "CLB#"}, To: schema.Side{Entity: crs, Prefix: "CRS#"}, Edge: "WISH#", Shards: 1})
	return sc
}

// TestWithEntityRequestsBoundedBySharedPartition: another relation's edges
// in the partition do not make a list with the entity walk them: each page
// is the list Query plus, on the first, one GetItem, however many there are.
func TestWithEntityRequestsBoundedBySharedPartition(t *testing.T) {
	eachStore(t, crowded, func(t *testing.T, st *Store) {
		enroll, member, wish := st.schema.Relations[0], st.schema.Relations[1], st.schema.Relations[2]
		must[Outcome](t)(st.PutEntity(ctx, st.schema.Entities[0], "a", nil))
		must[Outcome](t)(st.PutEntity(ctx, st.schema.Entities[1], "m1", nil))
		for i := range 3 {
			must[Outcome](t)(first(st.Link(ctx, enroll, "a", fmt.Sprintf("c%d", i), nil)))
			must[Outcome](t)(first(st.Link(ctx, enroll, fmt.Sprintf("s%d", i), "m1", nil)))
		}
		for i := range 40 {
			must[Outcome](t)(first(st.Link(ctx, member, "a", fmt.Sprintf("k%02d", i), nil)))
			must[Outcome](t)(first(st.Link(ctx, wish, fmt.Sprintf("k%02d", i), "m1", nil)))
		}
		rec := &opRecorder{}
		rs := New(rec.client(clientOf(st)), st.schema, Options{})
		for _, c := range []struct {
			name string
			q    ListQuery
			key  string
		}{
			{"forward", ListQuery{Relation: enroll, Key: "a"}, "STU#a"},
			{"forward desc", ListQuery{Relation: enroll, Key: "a", Descending: true}, "STU#a"},
			{"reverse", ListQuery{Relation: enroll, Direction: Reverse, Key: "m1"}, "CRS#m1"},
			{"reverse desc", ListQuery{Relation: enroll, Direction: Reverse, Key: "m1", Descending: true}, "CRS#m1"},
			{"membership", ListQuery{Relation: member, Key: "a"}, "STU#a"},
		} {
			q := c.q
			q.WithEntity, q.Limit = true, 1
			page, err := rs.List(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			eq(t, c.name+" requests", strings.Join(rec.take(), ","), "Query,GetItem")
			eq(t, c.name+" entity", sOf(page.Entity, "PK"), c.key)
			eq(t, c.name+" items", len(page.Items), 1)
			for n := 2; page.Next != ""; n++ {
				q.Cursor = page.Next
				if page, err = rs.List(ctx, q); err != nil {
					t.Fatalf("%s page %d: %v", c.name, n, err)
				}
				eq(t, fmt.Sprintf("%s page %d requests", c.name, n), strings.Join(rec.take(), ","), "Query")
				if page.Entity != nil {
					t.Errorf("%s page %d carries the entity", c.name, n)
				}
			}
		}
	})
}
