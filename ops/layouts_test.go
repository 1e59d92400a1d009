package ops

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/adjl/adjl/rowfile"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// lowerGeneric and inverted are the layouts an existing single-table
// design typically has: adjl's generic layout under lower-case names, and
// AWS's adjacency list (index on sk, pk).
var (
	lowerGeneric = schema.GenericLayout("pk", "sk", "gsi1pk", "gsi1sk")
	inverted     = schema.InvertedLayout("pk", "sk")
)

func withLayout(sc *schema.Schema, l schema.Layout, index string) *schema.Schema {
	sc.Table.Layout, sc.Table.Index.Name = l, index
	return sc
}

// raw reads an item straight from the table, under the layout's key names.
func raw(t *testing.T, st *Store, pk, sk string) string {
	t.Helper()
	out, err := st.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(st.schema.Table.Name), Key: st.keyOf(pk, sk), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	return itemString(out.Item)
}

// listAll pages through a list with page size limit and returns the other
// side's keys, and the entity's key if one came back.
func listAll(t *testing.T, st *Store, q ListQuery, limit int32) (keys []string, entity string) {
	t.Helper()
	q.Limit = limit
	for {
		page, err := st.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if page.Entity != nil {
			entity = sOf(page.Entity, st.layout.PK)
		}
		for _, it := range page.Items {
			if q.Direction == Forward {
				keys = append(keys, sOf(it, st.layout.SK))
			} else {
				keys = append(keys, sOf(it, st.layout.PK))
			}
		}
		if page.Next == "" {
			return keys, entity
		}
		q.Cursor = page.Next
	}
}

// TestSchoolInLayouts runs the school workflow in the generic layout under
// lower-case names and in the inverted layout: every operation works the
// same, and the items carry exactly the attributes the layout names.
func TestSchoolInLayouts(t *testing.T) {
	cases := []struct {
		name   string
		layout schema.Layout
		index  string
		// raw items: the edge, the student after the links, the course
		// created by a link, the metadata item
		edge, student, course, meta string
	}{
		{"generic-lower", lowerGeneric, "gsi1",
			`grade="A" gsi1pk="CRS#math204" gsi1sk="STU#a91" pk="STU#a91" sk="ENROLL#CRS#math204" type="enrollment"`,
			`ADJL#changes#courseCount=1 ADJL#shards#enrollment=1 courseCount=1 gsi1pk="STU#a91" gsi1sk="STU#a91" name="Ana" pk="STU#a91" sk="STU#a91" type="student"`,
			`ADJL#changes#studentCount=2 ADJL#shards#enrollment=1 gsi1pk="CRS#math204" gsi1sk="CRS#math204" pk="CRS#math204" sk="CRS#math204" studentCount=2 type="course"`,
			`pk="ADJL#META" shards=*types.AttributeValueMemberM sk="ADJL#META" type="adjl-meta"`},
		{"inverted", inverted, "inverted",
			`grade="A" pk="STU#a91" sk="ENROLL#CRS#math204"`,
			`courseCount=1 name="Ana" pk="STU#a91" sk="STU#a91"`,
			`pk="CRS#math204" sk="CRS#math204" studentCount=2`,
			`pk="ADJL#META" shards=*types.AttributeValueMemberM sk="ADJL#META"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eachStore(t, func() *schema.Schema { return withLayout(school(), c.layout, c.index) }, func(t *testing.T, st *Store) {
				rel := st.schema.Relations[0]
				desc, err := st.DescribeTable(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if d := st.Diff(desc); len(d) > 0 {
					t.Errorf("a table just created differs: %v", d)
				}
				if h := st.AdoptHint(desc); h != "" {
					t.Errorf("a table just created needs adopting: %s", h)
				}
				if created, err := st.CreateTable(ctx, false); created || err != nil {
					t.Errorf("create again: %v %v", created, err)
				}
				eq(t, "put", must[Outcome](t)(st.PutEntity(ctx, st.schema.Entity("student"), "a91", map[string]any{"name": "Ana"})), Created)
				eq(t, "put again", must[Outcome](t)(st.PutEntity(ctx, st.schema.Entity("student"), "a91", map[string]any{"name": "Ana"})), Unchanged)
				eq(t, "link", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "A"}))), Created)
				eq(t, "link again", must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "A"}))), Unchanged)
				must[Outcome](t)(first(st.Link(ctx, rel, "b02", "math204", nil)))
				must[Outcome](t)(first(st.Link(ctx, rel, "b02", "phys101", nil)))

				eq(t, "edge", raw(t, st, "STU#a91", "ENROLL#CRS#math204"), c.edge)
				eq(t, "student", raw(t, st, "STU#a91", "STU#a91"), c.student)
				eq(t, "course", raw(t, st, "CRS#math204", "CRS#math204"), c.course)
				eq(t, "meta", raw(t, st, MetaKey, MetaKey), c.meta)
				meta, _ := st.api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(st.schema.Table.Name), Key: st.keyOf(MetaKey, MetaKey)})
				eq(t, "meta shards", nOf(meta.Item[metaShardsAttr].(*types.AttributeValueMemberM).Value, "enrollment"), "1")

				if _, ok, err := st.Check(ctx, rel, "a91", "math204", true); !ok || err != nil {
					t.Errorf("check: %v %v", ok, err)
				}
				for _, limit := range []int32{1, 25} {
					fwd, _ := listAll(t, st, ListQuery{Relation: rel, Direction: Forward, Key: "b02"}, limit)
					eq(t, "forward", strings.Join(fwd, " "), "ENROLL#CRS#math204 ENROLL#CRS#phys101")
					rev, _ := listAll(t, st, ListQuery{Relation: rel, Direction: Reverse, Key: "math204"}, limit)
					eq(t, "reverse", strings.Join(rev, " "), "STU#a91 STU#b02")
					fwd, ent := listAll(t, st, ListQuery{Relation: rel, Direction: Forward, Key: "a91", WithEntity: true}, limit)
					eq(t, "forward with entity", strings.Join(fwd, " ")+" / "+ent, "ENROLL#CRS#math204 / STU#a91")
					rev, ent = listAll(t, st, ListQuery{Relation: rel, Direction: Reverse, Key: "math204", WithEntity: true}, limit)
					eq(t, "reverse with entity", strings.Join(rev, " ")+" / "+ent, "STU#a91 STU#b02 / CRS#math204")
				}
				eq(t, "student count", nOf(must[Item](t)(st.GetEntity(ctx, "CRS#math204", true)), "studentCount"), "2")

				eq(t, "unlink", must[Outcome](t)(first(st.Unlink(ctx, rel, "b02", "math204"))), Deleted)
				eq(t, "course count", nOf(must[Item](t)(st.GetEntity(ctx, "CRS#math204", true)), "studentCount"), "1")
				rep, err := st.DeleteEntity(ctx, "CRS#math204", true)
				if err != nil || rep.EdgesRemoved != 1 {
					t.Fatalf("cascade: %+v %v", rep, err)
				}
				eq(t, "a91 after cascade", nOf(must[Item](t)(st.GetEntity(ctx, "STU#a91", true)), "courseCount"), "0")
				if _, ok, _ := st.Check(ctx, rel, "a91", "math204", true); ok {
					t.Error("cascade left the edge")
				}
			})
		})
	}
}

// TestInvertedSocialWithEntity: with no edge prefix, the inverted index's
// partition of TARGET#bob holds bob's target item as well as his followers;
// with no type attribute to keep the list's items by (and an adopted table's
// other items possibly beside them), a list with the entity is always the
// list Query plus a GetItem, in either direction and order; the entity item
// (which holds the counter) carries no attribute the layout does not name.
func TestInvertedSocialWithEntity(t *testing.T) {
	eachStore(t, func() *schema.Schema {
		sc := withLayout(social(1), inverted, "inverted")
		sc.Table.Index.Projection = schema.ProjectionAll
		return sc
	}, func(t *testing.T, st *Store) {
		rel := st.schema.Relations[0]
		for _, f := range []string{"alice", "carol", "dave"} {
			must[Outcome](t)(first(st.Link(ctx, rel, f, "bob", nil)))
		}
		eq(t, "edge", raw(t, st, "ACTOR#alice", "TARGET#bob"), `pk="ACTOR#alice" sk="TARGET#bob"`)
		eq(t, "target", raw(t, st, "TARGET#bob", "TARGET#bob"), `followerCount=3 pk="TARGET#bob" sk="TARGET#bob"`)
		rec := &opRecorder{}
		rs := New(rec.client(clientOf(st)), st.schema, Options{})
		page, err := rs.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", WithEntity: true})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "requests", strings.Join(rec.take(), ","), "Query,GetItem")
		eq(t, "entity", sOf(page.Entity, "pk")+" "+nOf(page.Entity, "followerCount"), "TARGET#bob 3")
		desc, err := rs.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob", WithEntity: true, Descending: true, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "desc requests", strings.Join(rec.take(), ","), "Query,GetItem")
		eq(t, "desc entity", sOf(desc.Entity, "pk"), "TARGET#bob")
		eq(t, "desc page", len(desc.Items), 2)
		var got []string
		for _, it := range page.Items {
			got = append(got, sOf(it, "pk"))
		}
		eq(t, "followers", strings.Join(got, " "), "ACTOR#alice ACTOR#carol ACTOR#dave")
		page, err = rs.List(ctx, ListQuery{Relation: rel, Direction: Forward, Key: "alice", WithEntity: true})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "forward requests", strings.Join(rec.take(), ","), "Query,GetItem")
		eq(t, "forward", len(page.Items), 1)
		// An entity item put with no attributes is the bare key.
		eq(t, "put", must[Outcome](t)(rs.PutEntity(ctx, st.schema.Entity("user"), "erin", nil)), Created)
		eq(t, "put requests", strings.Join(rec.take(), ","), "PutItem")
		eq(t, "bare item", raw(t, st, "USER#erin", "USER#erin"), `pk="USER#erin" sk="USER#erin"`)
		eq(t, "put again", must[Outcome](t)(rs.PutEntity(ctx, st.schema.Entity("user"), "erin", nil)), Unchanged)
		rec.take()
		// Inverted tables have no shards: reshard refuses before any request.
		_, err = rs.Reshard(ctx, rel, ReshardOptions{To: 2})
		var in *InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), "inverted") {
			t.Errorf("reshard: %v", err)
		}
		eq(t, "reshard requests", strings.Join(rec.take(), ","), "")
	})
}

// TestLayoutExplain: --explain of a link in the inverted layout shows an
// edge carrying only the table keys, and counter updates that only ADD.
func TestLayoutExplain(t *testing.T) {
	var reqs []Request
	st := New(newEngine(t), withLayout(school(), inverted, "inverted"), Options{Explain: func(r Request) { reqs = append(reqs, r) }})
	if _, _, err := st.Link(ctx, st.schema.Relations[0], "a91", "math204", nil); err != nil {
		t.Fatal(err)
	}
	in := reqs[0].Input.(*dynamodb.TransactWriteItemsInput)
	eq(t, "edge", itemString(in.TransactItems[0].Put.Item), `pk="STU#a91" sk="ENROLL#CRS#math204"`)
	eq(t, "condition", render(in.TransactItems[0].Put.ConditionExpression, in.TransactItems[0].Put.ExpressionAttributeNames, nil), "attribute_not_exists (pk)")
	for _, it := range in.TransactItems[1:] {
		u := it.Update
		eq(t, "counter update", render(u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues)[:4], "ADD ")
		if strings.Contains(aws.ToString(u.UpdateExpression), "SET") || u.ConditionExpression != nil {
			t.Errorf("counter update writes more than its counter: %s", render(u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues))
		}
	}
	reqs = nil
	if _, err := st.List(ctx, ListQuery{Relation: st.schema.Relations[0], Direction: Reverse, Key: "math204"}); err != nil {
		t.Fatal(err)
	}
	q := reqs[0].Input.(*dynamodb.QueryInput)
	eq(t, "index", aws.ToString(q.IndexName), "inverted")
	eq(t, "reverse key", render(q.KeyConditionExpression, q.ExpressionAttributeNames, q.ExpressionAttributeValues),
		`(sk = "ENROLL#CRS#math204") AND (begins_with (pk, "STU#"))`)
	if !slices.Contains(schema.InvertedLayout("pk", "sk").CursorKeys(true), "pk") {
		t.Error("cursor keys lack pk")
	}
}

// TestAdoptHint: a table in a layout adjl serves, described under a schema
// naming another, gets the schema fragment that names it; the matching
// schema gets none.
func TestAdoptHint(t *testing.T) {
	st, _ := engineStore(t, withLayout(school(), lowerGeneric, "gsi1"), nil)
	desc, err := st.DescribeTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h := st.AdoptHint(desc); h != "" {
		t.Errorf("matching schema: hint %q", h)
	}
	def := New(st.api, school(), Options{})
	eq(t, "hint", def.AdoptHint(desc),
		"to use the table as it is, name its layout in the schema: table: {keys: {pk: pk, sk: sk}, index: {name: gsi1, keys: {pk: gsi1pk, sk: gsi1sk}}} (adjl schema infer proposes a whole schema from its items)")
	_, err = def.CreateTable(ctx, false)
	var mm *TableMismatchError
	if !errors.As(err, &mm) || !strings.HasPrefix(mm.Hint, "to use the table as it is") {
		t.Errorf("create under the default names: %v", err)
	}
	// Another layout under the same table keys: the index keys differ.
	inv := New(st.api, withLayout(school(), inverted, "gsi1"), Options{})
	diffs := strings.Join(inv.Diff(desc), "\n")
	if !strings.Contains(diffs, "index gsi1 keys: table has gsi1pk HASH, gsi1sk RANGE (the generic layout), schema wants sk HASH, pk RANGE (the inverted layout)") {
		t.Errorf("diff: %s", diffs)
	}
}

// TestBulkInLayouts: import, export, --count and counters verify and repair
// work the same in each layout, and an import writes the items a link
// writes: in the inverted layout, only the keys and the row's attributes.
func TestBulkInLayouts(t *testing.T) {
	for _, c := range []struct {
		name   string
		layout schema.Layout
		index  string
		edge   string
	}{
		{"generic-lower", lowerGeneric, "gsi1", `grade="A" gsi1pk="CRS#math204" gsi1sk="STU#a91" pk="STU#a91" sk="ENROLL#CRS#math204" type="enrollment"`},
		{"inverted", inverted, "inverted", `grade="A" pk="STU#a91" sk="ENROLL#CRS#math204"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			eachStore(t, func() *schema.Schema { return withLayout(school(), c.layout, c.index) }, func(t *testing.T, st *Store) {
				rel := st.schema.Relations[0]
				rep := must[*ImportReport](t)(st.Import(ctx, rel, nil, rows(
					edgeRow("STU#a91", "CRS#math204", map[string]any{"grade": "A"}),
					edgeRow("STU#b02", "CRS#math204", nil),
					edgeRow("STU#a91", "CRS#phys101", nil),
				), ImportOptions{}))
				eq(t, "created", rep.Created, 3)
				eq(t, "edge as imported", raw(t, st, "STU#a91", "ENROLL#CRS#math204"), c.edge)
				// The same as a link writes it.
				must[Outcome](t)(first(st.Unlink(ctx, rel, "a91", "math204")))
				must[Outcome](t)(first(st.Link(ctx, rel, "a91", "math204", map[string]any{"grade": "A"})))
				eq(t, "edge as linked", raw(t, st, "STU#a91", "ENROLL#CRS#math204"), c.edge)
				eq(t, "count", must[int64](t)(st.Count(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "math204"})), int64(2))
				eq(t, "studentCount", nOf(must[Item](t)(st.GetEntity(ctx, "CRS#math204", true)), "studentCount"), "2")
				// A counter drifted behind adjl's back is found and repaired.
				_, err := st.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String(st.schema.Table.Name), Key: st.keyOf("CRS#math204", "CRS#math204"),
					UpdateExpression:          aws.String("SET studentCount = :n"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "7"}},
				})
				if err != nil {
					t.Fatal(err)
				}
				vr := must[*VerifyReport](t)(st.VerifyCounters(ctx, VerifyOptions{}))
				eq(t, "edges seen", vr.Edges, int64(3))
				if len(vr.Wrong) != 1 || vr.Wrong[0].Key != "CRS#math204" || vr.Wrong[0].Stored != 7 || vr.Wrong[0].Actual != 2 {
					t.Fatalf("verify: %+v", vr.Wrong)
				}
				must[*VerifyReport](t)(st.VerifyCounters(ctx, VerifyOptions{Repair: true}))
				if vr := must[*VerifyReport](t)(st.VerifyCounters(ctx, VerifyOptions{})); len(vr.Wrong) != 0 {
					t.Errorf("after repair: %+v", vr.Wrong)
				}
				// Export gives back exactly the edges.
				var got []string
				must[*ExportReport](t)(st.Export(ctx, rowfile.Target{Relation: rel}, ExportOptions{}, func(r rowfile.Row) error {
					got = append(got, r.From+">"+r.To)
					return nil
				}))
				slices.Sort(got)
				eq(t, "exported", strings.Join(got, " "), "STU#a91>CRS#math204 STU#a91>CRS#phys101 STU#b02>CRS#math204")
				var students []string
				must[*ExportReport](t)(st.Export(ctx, rowfile.Target{Entity: st.schema.Entity("student")}, ExportOptions{}, func(r rowfile.Row) error {
					students = append(students, r.ID)
					return nil
				}))
				slices.Sort(students)
				eq(t, "students", strings.Join(students, " "), "STU#a91 STU#b02")
			})
		})
	}
}
