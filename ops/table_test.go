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
	sc := social(4)
	m := newEngine(t)
	sc.Table.Billing, sc.Table.ReadUnits, sc.Table.WriteUnits = schema.BillingProvisioned, 5, 7
	st := New(m, sc, Options{})
	st.sleep = instant
	m.comeUpSlowly()
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

// createdStore is a Store of sc on m, waiting no real time, that has
// created sc's table.
func createdStore(t *testing.T, m *engineAPI, sc *schema.Schema) *Store {
	t.Helper()
	st := New(m, sc, Options{})
	st.sleep = instant
	must[bool](t)(st.CreateTable(ctx, true))
	return st
}

func TestCreateTableMismatch(t *testing.T) {
	m := newEngine(t)
	createdStore(t, m, school())
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
	st := New(newEngine(t), school(), Options{})
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

func TestShardMismatchCaughtByTheRequestsOwnItems(t *testing.T) {
	m := newEngine(t)
	st := createdStore(t, m, social(4))
	rel4 := st.schema.Relations[0]
	for _, from := range []string{"a", "b", "c", "d", "e"} {
		must[Outcome](t)(first(st.Link(ctx, rel4, from, "bob", nil)))
	}
	sc := social(8)
	st8 := New(m, sc, Options{})
	rel := sc.Relations[0]
	want := "the table's follow relation has 4 shards; the schema says 8"
	hint := "run `adjl reshard follow --to 8 --yes` to move the edges to the schema's count (without --yes it is a dry run), or put shards: 4 back in the schema"
	m.reset()
	refused := map[string]error{}
	// A link from a side linked before: its counter item records 4.
	_, _, refused["link from a known side"] = st8.Link(ctx, rel, "a", "carol", nil)
	// A link to a side linked before, from a new one.
	_, _, refused["link to a known side"] = st8.Link(ctx, rel, "zed", "bob", nil)
	// A reverse read meets edges stamped with 4.
	_, refused["list"] = st8.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob"})
	_, refused["all"] = st8.ListAll(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "bob"}, func(Item) error { return nil })
	_, refused["create"] = st8.CreateTable(ctx, false)
	for what, err := range refused {
		var tm *TableMismatchError
		if !errors.As(err, &tm) || len(tm.Differences) != 1 || tm.Differences[0] != want || tm.Hint != hint {
			t.Errorf("%s: got %v", what, err)
		}
	}
	for _, key := range [][2]string{{"ACTOR#a", "TARGET#carol"}, {"ACTOR#zed", "TARGET#bob"}} {
		if m.get(key[0], key[1]) != nil {
			t.Errorf("refused link wrote the edge %v", key)
		}
	}
	// The metadata item is read only on the way to an error (and by table create).
	if n := strings.Count(strings.Join(m.ops(), ","), "GetItem"); n > 10 {
		t.Errorf("metadata and refused items read %d times", n)
	}
	// What needs no layout goes through: unlink (the edge's key does not
	// depend on the shard count), forward lists and checks.
	m.reset()
	eq(t, "unlink", must[Outcome](t)(first(st8.Unlink(ctx, rel, "e", "bob"))), Deleted)
	eq(t, "unlink ops", strings.Join(m.ops(), ","), "TransactWriteItems")
	must[*Page](t)(st8.List(ctx, ListQuery{Relation: rel, Key: "a"}))
	_, linked, err := st8.Check(ctx, rel, "a", "bob", false)
	if err != nil || !linked {
		t.Errorf("check: %v %v", linked, err)
	}
	// What the stamps cannot see: a link between two sides never linked.
	eq(t, "link between new sides", must[Outcome](t)(first(st8.Link(ctx, rel, "new1", "new2", nil))), Created)
}

func TestCreateTableRecordsNewRelations(t *testing.T) {
	sc := school()
	m := newEngine(t)
	createdStore(t, m, sc)
	// A relation added to the schema later is added to the existing item
	// by the next table create.
	rel2 := &schema.Relation{Name: "wait", From: sc.Relations[0].From, To: sc.Relations[0].To, Edge: "WAIT#", Shards: 3}
	sc.Relations = append(sc.Relations, rel2)
	st2 := New(m, sc, Options{})
	st2.sleep = instant
	must[Outcome](t)(first(st2.Link(ctx, rel2, "a", "b", nil)))
	if _, ok := m.get(MetaKey, MetaKey)["shards"].(*types.AttributeValueMemberM).Value["wait"]; ok {
		t.Error("a link wrote the metadata item")
	}
	eq(t, "created", must[bool](t)(st2.CreateTable(ctx, false)), false)
	shards := m.get(MetaKey, MetaKey)["shards"].(*types.AttributeValueMemberM).Value
	eq(t, "enrollment", avString(shards["enrollment"]), "1")
	eq(t, "wait", avString(shards["wait"]), "3")
}

func TestDeleteTableWaitsUntilGone(t *testing.T) {
	m := newEngine(t)
	st := New(m, school(), Options{})
	st.sleep = instant
	m.comeUpSlowly()
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
