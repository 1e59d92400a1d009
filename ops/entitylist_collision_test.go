package ops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// shardNeighbour is school with a sharded relation into course from club,
// whose prefix (AAA#) sorts before CRS#: wishlist's edges to course m1 are
// indexed in partitions CRS#m1#0 and CRS#m1#1. A course whose id is "m1#0"
// (a bare id with the delimiter, which keys accept) has its own index
// partition under the same string.
func shardNeighbour() *schema.Schema {
	sc := school()
	crs := sc.Entities[1]
	clb := &schema.Entity{Name: "club", Prefix: "AAA#"}
	sc.Table.Name = "shardneighbour"
	sc.Entities = append(sc.Entities, clb)
	sc.Relations = append(sc.Relations,
		&schema.Relation{Name: "wishlist", From: schema.Side{Entity: clb, Prefix: "AAA#"}, To: schema.Side{Entity: crs, Prefix: "CRS#"}, Edge: "WISH#", Shards: 2})
	return sc
}

// TestWithEntityReverseOneQueryBesideAShardPartition: schema show and
// --explain promise one Query for enrollment's reverse list with the entity
// (the index partition of CRS#<id> holds only the item and enrollment's
// edges, the item first). The shard partition of another course can be that
// same partition: the single filtered Query then walks wishlist's edges
// Limit at a time before it reaches the item, as the plain list Query and
// a GetItem would not.
func TestWithEntityReverseOneQueryBesideAShardPartition(t *testing.T) {
	eachStore(t, shardNeighbour, func(t *testing.T, st *Store) {
		enroll, wish := st.schema.Relations[0], st.schema.Relations[1]
		if why := st.schema.EntityGetReason(enroll, true, false); why != "" {
			t.Fatalf("the schema plans a GetItem (%s); this test is about the one-Query plan", why)
		}
		must[Outcome](t)(st.PutEntity(ctx, st.schema.Entities[1], "m1#0", nil))
		for i := range 3 {
			must[Outcome](t)(first(st.Link(ctx, enroll, fmt.Sprintf("s%d", i), "m1#0", nil)))
		}
		inShard0 := 0
		for i := range 40 {
			from := fmt.Sprintf("k%02d", i)
			must[Outcome](t)(first(st.Link(ctx, wish, from, "m1", nil)))
			if wish.Shard("AAA#"+from) == 0 {
				inShard0++
			}
		}
		t.Logf("%d wishlist edges share the index partition CRS#m1#0", inShard0)
		rec := &opRecorder{}
		rs := New(rec.client(clientOf(st)), st.schema, Options{})
		page, err := rs.List(ctx, ListQuery{Relation: enroll, Direction: Reverse, Key: "m1#0", WithEntity: true, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "entity", sOf(page.Entity, "PK"), "CRS#m1#0")
		eq(t, "items", len(page.Items), 1)
		eq(t, "requests", strings.Join(rec.take(), ","), "Query")
	})
}

// TestWithEntityOneQueryBesideItemsTheSchemaDoesNotName: an adopted table
// (the inverted layout of AWS's guide) may keep items of its own in a
// student's partition (NOTE#...) that no relation of the schema names. The
// descending forward list with the entity is planned as one Query of the
// whole partition (STU#a sorts after the ENROLL# edges, so it is read first)
// and, with no type to filter on, walks those items Limit at a time; the
// plain begins_with Query and a GetItem would read one page.
func TestWithEntityOneQueryBesideItemsTheSchemaDoesNotName(t *testing.T) {
	eachStore(t, func() *schema.Schema { return withLayout(school(), inverted, "inverted") }, func(t *testing.T, st *Store) {
		enroll := st.schema.Relations[0]
		if why := st.schema.EntityGetReason(enroll, false, true); why != "" {
			t.Fatalf("the schema plans a GetItem (%s); this test is about the one-Query plan", why)
		}
		must[Outcome](t)(st.PutEntity(ctx, st.schema.Entities[0], "a", nil))
		for i := range 3 {
			must[Outcome](t)(first(st.Link(ctx, enroll, "a", fmt.Sprintf("c%d", i), nil)))
		}
		api := clientOf(st)
		for i := range 30 {
			if _, err := api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(st.schema.Table.Name), Item: Item{
				"pk": str("STU#a"), "sk": str(fmt.Sprintf("NOTE#%02d", i)), "text": str("kept by the application")}}); err != nil {
				t.Fatal(err)
			}
		}
		rec := &opRecorder{}
		rs := New(rec.client(api), st.schema, Options{})
		page, err := rs.List(ctx, ListQuery{Relation: enroll, Key: "a", WithEntity: true, Descending: true, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "entity", sOf(page.Entity, "pk"), "STU#a")
		eq(t, "items", len(page.Items), 1)
		eq(t, "requests", strings.Join(rec.take(), ","), "Query")
	})
}
