package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adjl/adjl/internal/backendtest"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// adminClient is a real client that records the control-plane writes plan
// and apply send, so a test can tell "changed nothing" from "changed it back".
type adminClient struct {
	*dynamodb.Client
	*opRecorder
}

// controlPlaneWrites are the requests adminClient records.
var controlPlaneWrites = []string{"UpdateTable", "UpdateTimeToLive", "TagResource", "UntagResource", "UpdateContinuousBackups"}

func newAdminClient(c *dynamodb.Client) *adminClient {
	r := &opRecorder{keep: func(op string) bool { return slices.Contains(controlPlaneWrites, op) }}
	return &adminClient{Client: r.client(c), opRecorder: r}
}

// eachPlanBackend runs fn on every backend with a unique table name.
func eachPlanBackend(t *testing.T, fn func(t *testing.T, c *adminClient, table string)) {
	for _, b := range backendtest.All(t) {
		t.Run(b.Name, func(t *testing.T) {
			c := newAdminClient(b.Client)
			table := fmt.Sprintf("plan_%d", time.Now().UnixNano())
			t.Cleanup(func() {
				c.Client.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(table), DeletionProtectionEnabled: aws.Bool(false)})
				c.Client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
			})
			fn(t, c, table)
		})
	}
}

func storeOn(c *adminClient, sc *schema.Schema, table string) *Store {
	sc.Table.Name = table
	return New(c, sc, Options{})
}

func planOf(t *testing.T, st *Store) *TablePlan {
	t.Helper()
	p, err := st.PlanTable(ctx)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return p
}

func changeLines(p *TablePlan) string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, string(c.Kind)+" "+c.String())
	}
	return strings.Join(out, "\n")
}

func TestPlanMissingTableThenApplyCreates(t *testing.T) {
	eachPlanBackend(t, func(t *testing.T, c *adminClient, table string) {
		st := storeOn(c, school(), table)
		p := planOf(t, st)
		if p.Exists || len(p.Changes) != 1 || p.Changes[0].Kind != ChangeCreate {
			t.Fatalf("plan of a missing table:\n%s", changeLines(p))
		}
		if err := st.ApplyTable(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
		if p := planOf(t, st); len(p.Changes) != 0 || !p.Exists {
			t.Errorf("after apply:\n%s", changeLines(p))
		}
	})
}

func TestPlanMatchingTableHasNoChanges(t *testing.T) {
	eachPlanBackend(t, func(t *testing.T, c *adminClient, table string) {
		st := storeOn(c, social(4), table)
		must[bool](t)(st.CreateTable(ctx, true))
		p := planOf(t, st)
		if len(p.Changes) != 0 || len(p.Steps()) != 0 || p.Status != "ACTIVE" {
			t.Errorf("plan of a matching table (%s):\n%s\nsteps %v", p.Status, changeLines(p), p.Steps())
		}
		if err := st.ApplyTable(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
		if w := c.take(); len(w) != 0 {
			t.Errorf("apply of an empty plan sent %v", w)
		}
	})
}

// TestApplyBillingAndProjectionOnPopulatedTable: the index is replaced
// (deleted, then created and backfilled) and billing switched; every edge
// is still read both ways right after apply returns.
func TestApplyBillingAndProjectionOnPopulatedTable(t *testing.T) {
	eachPlanBackend(t, func(t *testing.T, c *adminClient, table string) {
		sc := school()
		st := storeOn(c, sc, table)
		must[bool](t)(st.CreateTable(ctx, true))
		rel := sc.Relations[0]
		for i := range 6 {
			must[Outcome](t)(first(st.Link(ctx, rel, fmt.Sprintf("s%d", i), "math", map[string]any{"grade": "A"})))
		}
		changed := school()
		changed.Table.Billing, changed.Table.ReadUnits, changed.Table.WriteUnits = schema.BillingProvisioned, 5, 4
		changed.Table.Index.Projection = schema.ProjectionKeysOnly
		st2 := storeOn(c, changed, table)
		p := planOf(t, st2)
		eq(t, "plan", changeLines(p), "in-place billing mode: table has PAY_PER_REQUEST, schema wants PROVISIONED\n"+
			"in-place index GSI1 projection: table has ALL, schema wants KEYS_ONLY")
		eq(t, "steps", strings.Join(p.Steps(), "; "), "switch billing mode to PROVISIONED; delete index GSI1 and wait until it is gone; create index GSI1 and wait for its backfill")
		var seen []string
		if err := st2.ApplyTable(ctx, p, func(s string) { seen = append(seen, s) }); err != nil {
			t.Fatal(err)
		}
		eq(t, "progress", len(seen), 3)
		eq(t, "writes", strings.Join(c.take(), ","), "UpdateTable,UpdateTable,UpdateTable")
		d := must[*types.TableDescription](t)(st2.DescribeTable(ctx))
		eq(t, "billing", billingOf(d), "PROVISIONED")
		eq(t, "projection", d.GlobalSecondaryIndexes[0].Projection.ProjectionType, types.ProjectionTypeKeysOnly)
		page := must[*Page](t)(st2.List(ctx, ListQuery{Relation: rel, Direction: Reverse, Key: "math", Limit: 100}))
		eq(t, "members after apply", len(page.Items), 6)
		page = must[*Page](t)(st2.List(ctx, ListQuery{Relation: rel, Key: "s3"}))
		eq(t, "courses after apply", len(page.Items), 1)
		eq(t, "edge attribute", avString(page.Items[0]["grade"]), `"A"`)
		if p := planOf(t, st2); len(p.Changes) != 0 {
			t.Errorf("after apply:\n%s", changeLines(p))
		}
	})
}

func TestApplyThroughputAndIndexRename(t *testing.T) {
	eachPlanBackend(t, func(t *testing.T, c *adminClient, table string) {
		sc := school()
		sc.Table.Billing, sc.Table.ReadUnits, sc.Table.WriteUnits = schema.BillingProvisioned, 5, 5
		st := storeOn(c, sc, table)
		must[bool](t)(st.CreateTable(ctx, true))
		must[Outcome](t)(first(st.Link(ctx, sc.Relations[0], "a", "b", nil)))
		changed := school()
		changed.Table.Billing, changed.Table.ReadUnits, changed.Table.WriteUnits = schema.BillingProvisioned, 7, 5
		changed.Table.Index.Name = "ByTarget"
		st2 := storeOn(c, changed, table)
		p := planOf(t, st2)
		eq(t, "plan", changeLines(p), "in-place throughput: table has read 5, write 5, schema wants read 7, write 5\n"+
			"in-place index ByTarget: table has indexes GSI1, schema wants ByTarget")
		if err := st2.ApplyTable(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
		d := must[*types.TableDescription](t)(st2.DescribeTable(ctx))
		if len(d.GlobalSecondaryIndexes) != 1 || aws.ToString(d.GlobalSecondaryIndexes[0].IndexName) != "ByTarget" {
			t.Errorf("indexes after rename: %+v", d.GlobalSecondaryIndexes)
		}
		page := must[*Page](t)(st2.List(ctx, ListQuery{Relation: changed.Relations[0], Direction: Reverse, Key: "b"}))
		eq(t, "reverse through the new index", len(page.Items), 1)
	})
}

func TestApplySettings(t *testing.T) {
	eachPlanBackend(t, func(t *testing.T, c *adminClient, table string) {
		st := storeOn(c, school(), table)
		must[bool](t)(st.CreateTable(ctx, true))
		sc := school()
		on, off := true, false
		sc.Table.Settings = schema.Settings{TTL: &schema.TTL{Attribute: "expiresAt"}, ManageTags: true,
			Tags: []schema.Tag{{Key: "team", Value: "data"}, {Key: "env", Value: "prod"}}, DeletionProtection: &on, PointInTimeRecovery: &on}
		st2 := storeOn(c, sc, table)
		p := planOf(t, st2)
		eq(t, "plan", changeLines(p), strings.Join([]string{
			"in-place deletion protection: table has off, schema wants on",
			"in-place ttl: table has off, schema wants on expiresAt",
			`in-place tag team: table has no such tag, schema wants "data"`,
			`in-place tag env: table has no such tag, schema wants "prod"`,
			"in-place point-in-time recovery: table has off, schema wants on",
		}, "\n"))
		// table create on the table reports the same differences, with apply as the remedy.
		_, err := st2.CreateTable(ctx, false)
		var tm *TableMismatchError
		if !errors.As(err, &tm) || len(tm.Differences) != 5 || tm.Hint != applyHint {
			t.Errorf("create on a table whose settings differ: %v", err)
		}
		if err := st2.ApplyTable(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
		eq(t, "writes", strings.Join(c.take(), ","), "UpdateTable,UpdateTimeToLive,TagResource,UpdateContinuousBackups")
		if _, err := st2.CreateTable(ctx, false); err != nil {
			t.Errorf("create after apply: %v", err)
		}
		// Now turn things off and change one tag, drop the other.
		sc3 := school()
		sc3.Table.Settings = schema.Settings{TTL: &schema.TTL{}, ManageTags: true, Tags: []schema.Tag{{Key: "team", Value: "core"}},
			DeletionProtection: &off, PointInTimeRecovery: &off}
		st3 := storeOn(c, sc3, table)
		p = planOf(t, st3)
		eq(t, "plan off", changeLines(p), strings.Join([]string{
			"in-place deletion protection: table has on, schema wants off",
			"in-place ttl: table has on expiresAt, schema wants off",
			`in-place tag team: table has "data", schema wants "core"`,
			`in-place tag env: table has "prod", schema wants no such tag`,
			"in-place point-in-time recovery: table has on, schema wants off",
		}, "\n"))
		if err := st3.ApplyTable(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
		if p := planOf(t, st3); len(p.Changes) != 0 {
			t.Errorf("after apply:\n%s", changeLines(p))
		}
		// A schema that leaves the settings out leaves them alone.
		if p := planOf(t, storeOn(c, school(), table)); len(p.Changes) != 0 {
			t.Errorf("unmanaged settings compared:\n%s", changeLines(p))
		}
	})
}

func TestCreateTableAppliesSettings(t *testing.T) {
	eachPlanBackend(t, func(t *testing.T, c *adminClient, table string) {
		sc := school()
		on := true
		sc.Table.Settings = schema.Settings{TTL: &schema.TTL{Attribute: "expiresAt"}, ManageTags: true,
			Tags: []schema.Tag{{Key: "team", Value: "data"}}, DeletionProtection: &on, PointInTimeRecovery: &on}
		st := storeOn(c, sc, table)
		if created, err := st.CreateTable(ctx, false); err != nil || !created {
			t.Fatalf("create: %v %v", created, err)
		}
		eq(t, "writes after CreateTable", strings.Join(c.take(), ","), "UpdateTimeToLive,UpdateContinuousBackups")
		if p := planOf(t, st); len(p.Changes) != 0 {
			t.Errorf("a table created with settings differs:\n%s", changeLines(p))
		}
		var protected *TableProtectedError
		if err := st.DeleteTable(ctx, false); !errors.As(err, &protected) || protected.Table != table {
			t.Errorf("delete of a protected table: %v, want TableProtectedError", err)
		}
	})
}

func TestApplyRefusesKeySchemaChange(t *testing.T) {
	eachPlanBackend(t, func(t *testing.T, c *adminClient, table string) {
		_, err := c.Client.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(table),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
		})
		if err != nil {
			t.Fatal(err)
		}
		sc := school()
		sc.Table.Billing, sc.Table.ReadUnits, sc.Table.WriteUnits = schema.BillingProvisioned, 1, 1
		st := storeOn(c, sc, table)
		p := planOf(t, st)
		if len(p.Blocking()) != 1 || p.Blocking()[0].Field != "key schema" || !strings.Contains(p.Blocking()[0].Action, "adjl export") {
			t.Fatalf("plan:\n%s", changeLines(p))
		}
		err = st.ApplyTable(ctx, p, nil)
		var tm *TableMismatchError
		if !errors.As(err, &tm) || !strings.Contains(tm.Differences[0], "key schema: table has id HASH, schema wants PK HASH, SK RANGE (DynamoDB cannot change this in place") ||
			!strings.Contains(tm.Hint, "apply changed nothing") {
			t.Fatalf("apply: %v", err)
		}
		if w := c.take(); len(w) != 0 {
			t.Errorf("a refused apply sent %v", w)
		}
	})
}

func TestPlanShardDifferencePointsToReshard(t *testing.T) {
	eachPlanBackend(t, func(t *testing.T, c *adminClient, table string) {
		must[bool](t)(storeOn(c, social(4), table).CreateTable(ctx, true))
		st := storeOn(c, social(8), table)
		p := planOf(t, st)
		eq(t, "plan", changeLines(p), "reshard the table's follow relation has 4 shards; the schema says 8")
		eq(t, "has", p.Changes[0].Has+"->"+p.Changes[0].Wants, "4->8")
		err := st.ApplyTable(ctx, p, nil)
		var tm *TableMismatchError
		if !errors.As(err, &tm) || !strings.Contains(tm.Hint, "reshard") {
			t.Fatalf("apply: %v", err)
		}
	})
}

// unsupportedAdmin is a backend without the TTL and continuous-backup
// operations, answering as the embedded engine does for an unknown one.
type unsupportedAdmin struct{ *adminClient }

func unknownOperation() error {
	return &smithy.GenericAPIError{Code: "UnknownOperationException", Message: "An unknown operation was requested"}
}

func (unsupportedAdmin) UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return nil, unknownOperation()
}

func (unsupportedAdmin) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return nil, unknownOperation()
}

func (unsupportedAdmin) UpdateContinuousBackups(context.Context, *dynamodb.UpdateContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return nil, unknownOperation()
}

func (unsupportedAdmin) DescribeContinuousBackups(context.Context, *dynamodb.DescribeContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return nil, unknownOperation()
}

func TestSettingsOnBackendWithoutThem(t *testing.T) {
	b := backendtest.All(t)[0]
	c := unsupportedAdmin{newAdminClient(b.Client)}
	sc := school()
	on := true
	sc.Table.Name = "unsupported"
	sc.Table.Settings = schema.Settings{TTL: &schema.TTL{Attribute: "expiresAt"}, PointInTimeRecovery: &on}
	st := New(c, sc, Options{})
	created, err := st.CreateTable(ctx, false)
	var su *SettingsUnsupportedError
	if !created || !errors.As(err, &su) || len(su.Settings) != 2 {
		t.Fatalf("create: %v %v", created, err)
	}
	eq(t, "message", err.Error(), "table unsupported was created without TTL (UpdateTimeToLive) and point-in-time recovery (UpdateContinuousBackups): the backend does not support them")
	p := planOf(t, st)
	var kinds []string
	for _, ch := range p.Changes {
		kinds = append(kinds, string(ch.Kind)+" "+ch.Field+": "+ch.Action)
	}
	eq(t, "plan", strings.Join(kinds, "\n"), "unsupported ttl: the backend has no DescribeTimeToLive (UnknownOperationException)\n"+
		"unsupported point-in-time recovery: the backend has no DescribeContinuousBackups (UnknownOperationException)")
	if err := st.ApplyTable(ctx, p, nil); err != nil {
		t.Errorf("apply with only unsupported settings: %v", err)
	}
	// table create does not fail on what the backend cannot do.
	if _, err := st.CreateTable(ctx, false); err != nil {
		t.Errorf("create again: %v", err)
	}
	if slices.Contains(c.take(), "UpdateTable") {
		t.Error("apply sent UpdateTable")
	}
}

func TestExplainCreateShowsSettingsRequests(t *testing.T) {
	sc := school()
	on := true
	sc.Table.Settings = schema.Settings{TTL: &schema.TTL{Attribute: "expiresAt"}, PointInTimeRecovery: &on}
	var ops []string
	st := New(nil, sc, Options{Explain: func(r Request) { ops = append(ops, r.Operation) }})
	if _, err := st.CreateTable(ctx, true); err != nil {
		t.Fatal(err)
	}
	eq(t, "explained", strings.Join(ops, ","), "DescribeTable,CreateTable,DescribeTable,PutItem,GetItem,UpdateTimeToLive,UpdateContinuousBackups")
}

// Explain sends nothing, so a Store that only explains needs no backend:
// the item requests are explained without touching the API.
func TestExplainItemRequestsNeedNoBackend(t *testing.T) {
	var ops []string
	st := New(nil, school(), Options{Explain: func(r Request) { ops = append(ops, r.Operation) }})
	if _, err := st.GetEntity(ctx, "STU#a", false); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DeleteEntity(ctx, "STU#a", false); err != nil {
		t.Fatal(err)
	}
	if len(ops) == 0 || ops[0] != "GetItem" {
		t.Errorf("explained %v, want GetItem first", ops)
	}
}
