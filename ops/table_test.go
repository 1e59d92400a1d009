package ops

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func instant(time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	c <- time.Time{}
	return c
}

func TestCreateTableWaitsAndIsIdempotent(t *testing.T) {
	m := newMem()
	sc := social(4)
	sc.Table.Billing, sc.Table.ReadUnits, sc.Table.WriteUnits = schema.BillingProvisioned, 5, 7
	st := New(m, sc, Options{})
	st.sleep = instant
	created, err := st.CreateTable(ctx, true)
	if err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	in := m.calls[1].Input.(*dynamodb.CreateTableInput)
	eq(t, "keys", keySchemaString(in.KeySchema), "PK HASH, SK RANGE")
	eq(t, "index keys", keySchemaString(in.GlobalSecondaryIndexes[0].KeySchema), "GSI1PK HASH, GSI1SK RANGE")
	eq(t, "projection", in.GlobalSecondaryIndexes[0].Projection.ProjectionType, types.ProjectionTypeKeysOnly)
	eq(t, "billing", in.BillingMode, types.BillingModeProvisioned)
	eq(t, "units", aws.ToInt64(in.GlobalSecondaryIndexes[0].ProvisionedThroughput.WriteCapacityUnits), int64(7))
	eq(t, "attribute definitions", len(in.AttributeDefinitions), 4)
	// Polled until the table and then the index were ACTIVE, then the metadata.
	eq(t, "ops", strings.Join(m.ops(), ","), "DescribeTable,CreateTable,DescribeTable,DescribeTable,DescribeTable,PutItem")
	meta := m.get(MetaKey, MetaKey)
	eq(t, "recorded shards", avString(meta["shards"].(*types.AttributeValueMemberM).Value["follow"]), "4")

	created, err = New(m, sc, Options{}).CreateTable(ctx, false)
	if err != nil || created {
		t.Fatalf("second create: %v %v", created, err)
	}
}

func TestCreateTableMismatch(t *testing.T) {
	m := newMem()
	sc := school()
	st := New(m, sc, Options{})
	st.sleep = instant
	must[bool](t)(st.CreateTable(ctx, true))
	other := school()
	other.Table.Index.Projection = schema.ProjectionKeysOnly
	other.Table.Billing = schema.BillingProvisioned
	_, err := New(m, other, Options{}).CreateTable(ctx, false)
	var tm *TableMismatchError
	if !errors.As(err, &tm) {
		t.Fatalf("got %v", err)
	}
	eq(t, "differences", strings.Join(tm.Differences, "\n"),
		"billing mode: table has PAY_PER_REQUEST, schema wants PROVISIONED\nindex GSI1 projection: table has ALL, schema wants KEYS_ONLY")
}

func TestDiff(t *testing.T) {
	st := New(newMem(), school(), Options{})
	st.schema.Table.Index = schema.Index{Name: "GSI1", Projection: schema.ProjectionInclude, Include: []string{"grade", "name"}}
	desc := &types.TableDescription{
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("GSI1PK"), AttributeType: types.ScalarAttributeTypeN}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{{
			IndexName:  aws.String("GSI1"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("GSI1PK"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"grade"}},
		}},
		BillingModeSummary: &types.BillingModeSummary{BillingMode: types.BillingModePayPerRequest},
	}
	eq(t, "diff", strings.Join(st.Diff(desc), "\n"), strings.Join([]string{
		"key schema: table has id HASH, schema wants PK HASH, SK RANGE",
		"attribute GSI1PK type: table has N, schema wants S",
		"index GSI1 keys: table has GSI1PK HASH, schema wants GSI1PK HASH, GSI1SK RANGE",
		"index GSI1 non-key attributes: table has [grade], schema wants [grade name]",
	}, "\n"))
	desc.GlobalSecondaryIndexes = nil
	eq(t, "no index", st.Diff(desc)[2], "index GSI1: table has no global index, schema wants GSI1")
	if d := st.Diff(st.describeWanted()); len(d) != 0 {
		t.Errorf("wanted table differs from itself: %v", d)
	}
}

// describeWanted is the description of the table CreateTable would create.
func (s *Store) describeWanted() *types.TableDescription {
	in := s.createTableInput()
	g := in.GlobalSecondaryIndexes[0]
	return &types.TableDescription{KeySchema: in.KeySchema, AttributeDefinitions: in.AttributeDefinitions,
		BillingModeSummary:     &types.BillingModeSummary{BillingMode: in.BillingMode},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{{IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection}}}
}

func TestShardMismatchRefusesRelationUse(t *testing.T) {
	m := newMem()
	st := New(m, social(4), Options{})
	st.sleep = instant
	must[bool](t)(st.CreateTable(ctx, true))
	sc := social(8)
	st8 := New(m, sc, Options{})
	rel := sc.Relations[0]
	want := "relation follow has shards: 8 but table social was created with 4; run `adjl reshard follow --to 8`"
	checks := map[string]error{}
	_, _, checks["link"] = st8.Link(ctx, rel, "a", "b", nil)
	_, _, checks["unlink"] = st8.Unlink(ctx, rel, "a", "b")
	_, checks["list"] = st8.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "b"})
	_, checks["all"] = st8.ListAll(ctx, ListQuery{Relation: rel, Key: "a"}, func(Item) error { return nil })
	_, checks["create"] = st8.CreateTable(ctx, false)
	for what, err := range checks {
		var tm *TableMismatchError
		if !errors.As(err, &tm) || len(tm.Differences) != 1 || tm.Differences[0] != want {
			t.Errorf("%s: got %v", what, err)
		}
	}
	if n := strings.Count(strings.Join(m.ops(), ","), "GetItem"); n != 2 { // one per Store (+1 for CreateTable's re-read)
		t.Errorf("metadata read %d times", n)
	}
	if m.get("ACTOR#a", "TARGET#b") != nil {
		t.Error("refused link wrote the edge")
	}
}

func TestMetadataRecordedLazilyForNewRelation(t *testing.T) {
	m := newMem()
	sc := school()
	st := New(m, sc, Options{})
	must[Outcome](t)(first(st.Link(ctx, sc.Relations[0], "a", "b", nil)))
	// A relation added to the schema later is added to the existing item.
	rel2 := &schema.Relation{Name: "wait", From: sc.Relations[0].From, To: sc.Relations[0].To, Edge: "WAIT#", Shards: 3}
	sc.Relations = append(sc.Relations, rel2)
	st2 := New(m, sc, Options{})
	must[Outcome](t)(first(st2.Link(ctx, rel2, "a", "b", nil)))
	shards := m.get(MetaKey, MetaKey)["shards"].(*types.AttributeValueMemberM).Value
	eq(t, "enrollment", avString(shards["enrollment"]), "1")
	eq(t, "wait", avString(shards["wait"]), "3")
}

func TestDeleteTableWaitsUntilGone(t *testing.T) {
	m := newMem()
	st := New(m, school(), Options{})
	st.sleep = instant
	must[bool](t)(st.CreateTable(ctx, true))
	m.reset()
	if err := st.DeleteTable(ctx, true); err != nil {
		t.Fatal(err)
	}
	eq(t, "ops", strings.Join(m.ops(), ","), "DeleteTable,DescribeTable,DescribeTable")
	_, err := st.DescribeTable(ctx)
	var nf *TableNotFoundError
	if !errors.As(err, &nf) || nf.Error() != "table school not found — run `adjl table create`" {
		t.Errorf("describe after delete: %v", err)
	}
	if err := st.DeleteTable(ctx, false); !errors.As(err, &nf) {
		t.Errorf("delete missing: %v", err)
	}
}
