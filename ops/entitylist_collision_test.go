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

// TestWithEntityReverseBesideAShardPartitionIsQueryAndGet: the shard
// partition of another course (CRS#m1#0, shard 0 of wishlist's edges to m1)
// can be the index partition of course "m1#0". A single filtered Query would
// walk wishlist's edges Limit at a time before it reached the item, so the
// schema plans the plain list Query and a GetItem: two requests, whatever
// the shard holds.
func TestWithEntityReverseBesideAShardPartitionIsQueryAndGet(t *testing.T) {
	eachStore(t, shardNeighbour, func(t *testing.T, st *Store) {
		enroll, wish := st.schema.Relations[0], st.schema.Relations[1]
		if why := st.schema.EntityGetReason(enroll, true, false); !strings.Contains(why, "wishlist's shard partitions") {
			t.Fatalf("EntityGetReason = %q, want it to name wishlist's shard partitions", why)
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
		eq(t, "requests", strings.Join(rec.take(), ","), "Query,GetItem")
	})
}

// TestWithEntityBesideItemsTheSchemaDoesNotNameIsQueryAndGet: an adopted
// table (the inverted layout of AWS's guide) may keep items of its own in a
// student's partition (NOTE#...) that no relation of the schema names. With
// no type attribute to filter on, one Query of the whole partition would walk
// them Limit at a time, so the inverted layout always lists with the plain
// begins_with Query and reads the entity with a GetItem: two requests.
func TestWithEntityBesideItemsTheSchemaDoesNotNameIsQueryAndGet(t *testing.T) {
	eachStore(t, func() *schema.Schema { return withLayout(school(), inverted, "inverted") }, func(t *testing.T, st *Store) {
		enroll := st.schema.Relations[0]
		if why := st.schema.EntityGetReason(enroll, false, true); why == "" {
			t.Fatal("EntityGetReason plans one Query on the inverted layout")
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
		eq(t, "requests", strings.Join(rec.take(), ","), "Query,GetItem")
	})
}
