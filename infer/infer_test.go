package infer

import (
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjl/adjl/internal/goldenfile"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var update = flag.Bool("update", false, "rewrite testdata/*.yaml from what Propose gives")

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// keySchema is "pk HASH, sk RANGE" as the SDK describes it.
func keySchema(hash, rng string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if rng != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange})
	}
	return ks
}

func defs(names ...string) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for _, a := range names {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	return out
}

func gsi(name, hash, rng string, proj types.ProjectionType) types.GlobalSecondaryIndexDescription {
	return types.GlobalSecondaryIndexDescription{IndexName: aws.String(name), KeySchema: keySchema(hash, rng),
		Projection: &types.Projection{ProjectionType: proj}}
}

func onDemand() *types.BillingModeSummary {
	return &types.BillingModeSummary{BillingMode: types.BillingModePayPerRequest}
}

// legacySchool is a classic adjacency list (AWS's guide): keys pk/sk, an
// index on sk/pk, edges sk = the course's key, nothing else on the items
// but their own attributes; one item that is no adjacency-list item.
func legacySchool() (*types.TableDescription, []Item) {
	desc := &types.TableDescription{TableName: aws.String("legacy"), KeySchema: keySchema("pk", "sk"),
		AttributeDefinitions:   defs("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{gsi("inverted", "sk", "pk", types.ProjectionTypeAll)},
		BillingModeSummary:     onDemand()}
	items := []Item{
		{"pk": s("STU#a91"), "sk": s("STU#a91"), "name": s("Ana"), "email": s("ana@example.com"), "courseCount": n("2")},
		{"pk": s("STU#b02"), "sk": s("STU#b02"), "name": s("Bo"), "courseCount": n("1")},
		{"pk": s("CRS#math204"), "sk": s("CRS#math204"), "title": s("Algebra"), "credits": n("5"), "studentCount": n("2")},
		{"pk": s("CRS#phys101"), "sk": s("CRS#phys101"), "title": s("Physics"), "studentCount": n("1")},
		{"pk": s("STU#a91"), "sk": s("CRS#math204"), "grade": s("A"), "enrolledOn": s("2026-09-01")},
		{"pk": s("STU#a91"), "sk": s("CRS#phys101")},
		{"pk": s("STU#b02"), "sk": s("CRS#math204"), "grade": s("B"), "tags": &types.AttributeValueMemberM{}},
		{"pk": s("config"), "sk": s("v1")},
	}
	return desc, items
}

// adjlSocial is a table adjl wrote for examples/social.yaml in the generic
// layout: type attributes, shard stamps, counter items, the metadata item.
func adjlSocial() (*types.TableDescription, []Item) {
	desc := &types.TableDescription{TableName: aws.String("social"), KeySchema: keySchema("PK", "SK"),
		AttributeDefinitions:   defs("PK", "SK", "GSI1PK", "GSI1SK"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{gsi("GSI1", "GSI1PK", "GSI1SK", types.ProjectionTypeKeysOnly)},
		BillingModeSummary:     onDemand()}
	item := func(pk, sk, gpk, typ string, more ...any) Item {
		it := Item{"PK": s(pk), "SK": s(sk), "GSI1PK": s(gpk), "GSI1SK": s(pk), "type": s(typ)}
		for i := 0; i < len(more); i += 2 {
			it[more[i].(string)] = more[i+1].(types.AttributeValue)
		}
		return it
	}
	items := []Item{
		item("USER#alice", "USER#alice", "USER#alice", "user", "name", s("Alice"), "joined", s("2025-01-31")),
		item("USER#bob", "USER#bob", "USER#bob", "user", "name", s("Bob")),
		item("ACTOR#alice", "ACTOR#alice", "ACTOR#alice", "user", "followingCount", n("2"), "ADJL#shards#follow", n("4")),
		item("ACTOR#alice", "TARGET#bob", "TARGET#bob#1", "follow", "since", s("2026-01-02"), "ADJL#shards#follow", n("4")),
		item("ACTOR#alice", "TARGET#carol", "TARGET#carol#1", "follow", "ADJL#shards#follow", n("4")),
		{"PK": s("TARGET#bob"), "SK": s("ADJL#COUNT#followerCount#5"), "followerCount": n("1")},
		{"PK": s("TARGET#carol"), "SK": s("ADJL#COUNT#followerCount#7"), "followerCount": n("1")},
		{"PK": s("ADJL#META"), "SK": s("ADJL#META"), "type": s("adjl-meta"),
			"shards": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"follow": n("4")}}},
	}
	return desc, items
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update, "./infer")
}

// valid parses a proposal as adjl would load it.
func valid(t *testing.T, p *Proposal) *schema.Schema {
	t.Helper()
	sc, err := schema.Parse("proposal.yaml", p.YAML())
	if err != nil {
		t.Fatalf("the proposal does not validate: %v\n%s", err, p.YAML())
	}
	return sc
}

func TestProposeLegacyInverted(t *testing.T) {
	p, err := Propose(legacySchool())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "legacy.yaml", p.YAML())
	sc := valid(t, p)
	if l := sc.Layout(); !l.Inverted() || l.PK != "pk" || l.SK != "sk" || sc.Table.Index.Name != "inverted" {
		t.Errorf("layout %+v index %s", l, sc.Table.Index.Name)
	}
	r := sc.Relations[0]
	if r.Name != "stu-crs" || r.From.Prefix != "STU#" || r.To.Prefix != "CRS#" || r.Edge != "" ||
		r.Counters.From != "courseCount" || r.Counters.To != "studentCount" {
		t.Errorf("relation %+v", r)
	}
	for _, want := range []string{
		"1 of the 8 items sampled have keys that do not start with an upper-case word",
		"attribute tags was left out: it holds map values",
	} {
		if !strings.Contains(strings.Join(p.Notes, "\n"), want) {
			t.Errorf("notes %q lack %q", p.Notes, want)
		}
	}
}

func TestProposeAdjlGeneric(t *testing.T) {
	p, err := Propose(adjlSocial())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "social.yaml", p.YAML())
	sc := valid(t, p)
	r := sc.Relation("follow")
	if r == nil || r.Shards != 4 || r.From.Prefix != "ACTOR#" || r.From.Entity.Name != "user" ||
		r.Counters.From != "followingCount" || r.Counters.To != "followerCount" || r.Counters.ToShards != 8 {
		t.Fatalf("relation %+v", r)
	}
	if sc.Layout() != schema.DefaultLayout || sc.Table.Index.Projection != schema.ProjectionKeysOnly {
		t.Errorf("layout %+v projection %s", sc.Layout(), sc.Table.Index.Projection)
	}
}

// TestProposeNoIndex: a table without an index adjl can read gets an
// inverted one, which apply creates from the items as they are.
func TestProposeNoIndex(t *testing.T) {
	desc, items := legacySchool()
	desc.GlobalSecondaryIndexes = []types.GlobalSecondaryIndexDescription{gsi("byEmail", "email", "", types.ProjectionTypeAll)}
	desc.BillingModeSummary = nil
	desc.ProvisionedThroughput = &types.ProvisionedThroughputDescription{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(3)}
	p, err := Propose(desc, items)
	if err != nil {
		t.Fatal(err)
	}
	sc := valid(t, p)
	if !p.NewIndex || !sc.Layout().Inverted() || sc.Table.Index.Name != "inverted" {
		t.Errorf("new index %v, layout %+v", p.NewIndex, sc.Layout())
	}
	if sc.Table.Billing != schema.BillingProvisioned || sc.Table.ReadUnits != 5 || sc.Table.WriteUnits != 3 {
		t.Errorf("billing %s %d/%d", sc.Table.Billing, sc.Table.ReadUnits, sc.Table.WriteUnits)
	}
	if !strings.Contains(string(p.YAML()), "adjl table apply creates it") {
		t.Errorf("the proposal does not say the index is new:\n%s", p.YAML())
	}
}

func TestProposeRefusesHashOnly(t *testing.T) {
	desc := &types.TableDescription{TableName: aws.String("kv"), KeySchema: keySchema("id", "")}
	if _, err := Propose(desc, nil); !errors.Is(err, ErrNoSortKey) {
		t.Errorf("hash-only table: %v", err)
	}
}

// TestProposeRolesByIDs: without a type attribute, a prefix whose items
// hold only numbers and whose ids are an entity's is a role of it; dates
// are recognised; an edge prefix names the relation.
func TestProposeRolesByIDs(t *testing.T) {
	desc, _ := legacySchool()
	items := []Item{
		{"pk": s("USER#alice"), "sk": s("USER#alice"), "name": s("Alice"), "joined": s("2025-01-31")},
		{"pk": s("USER#bob"), "sk": s("USER#bob"), "name": s("Bob"), "joined": s("2025-02-01")},
		{"pk": s("ACTOR#alice"), "sk": s("ACTOR#alice"), "followingCount": n("1")},
		{"pk": s("ACTOR#alice"), "sk": s("FOLLOW#TARGET#bob"), "since": s("2026-01-02T10:00:00Z")},
		{"pk": s("TARGET#bob"), "sk": s("TARGET#bob"), "followerCount": n("1")},
	}
	p, err := Propose(desc, items)
	if err != nil {
		t.Fatal(err)
	}
	sc := valid(t, p)
	r := sc.Relation("follow")
	if r == nil || r.From.Entity.Name != "user" || r.From.Prefix != "ACTOR#" || r.To.Entity.Name != "user" || r.To.Prefix != "TARGET#" || r.Edge != "FOLLOW#" {
		t.Fatalf("relation %+v\n%s", r, p.YAML())
	}
	if r.Counters.From != "followingCount" || r.Counters.To != "followerCount" {
		t.Errorf("counters %+v", r.Counters)
	}
	if a := sc.Entity("user").Attributes; len(a) != 2 || a[0].Name != "joined" || a[0].Kind != schema.KindDate {
		t.Errorf("user attributes %+v", a)
	}
	if a := r.Attributes; len(a) != 1 || a[0].Kind != schema.KindDatetime {
		t.Errorf("edge attributes %+v", a)
	}
}

// TestProposeSkipsForeignIndex: a generic-looking index whose keys the
// items use for something else is not adjl's to write; the proposal names
// a new inverted index instead and says why.
func TestProposeSkipsForeignIndex(t *testing.T) {
	desc, items := legacySchool()
	desc.AttributeDefinitions = defs("pk", "sk", "gsi1pk", "gsi1sk")
	desc.GlobalSecondaryIndexes = []types.GlobalSecondaryIndexDescription{gsi("gsi1", "gsi1pk", "gsi1sk", types.ProjectionTypeAll)}
	items = append(items, Item{"pk": s("STU#c03"), "sk": s("STU#c03"), "gsi1pk": s("EMAIL#c@example.com"), "gsi1sk": s("2026")})
	p, err := Propose(desc, items)
	if err != nil {
		t.Fatal(err)
	}
	if !p.NewIndex || !p.Layout.Inverted() {
		t.Errorf("layout %+v, new index %v", p.Layout, p.NewIndex)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), "index gsi1 is keyed gsi1pk, gsi1sk, but 1 of the 1 sampled items holding them hold other values") {
		t.Errorf("notes %q", p.Notes)
	}
	// The same index holding adjl's values is used.
	items[len(items)-1] = Item{"pk": s("STU#c03"), "sk": s("STU#c03"), "gsi1pk": s("STU#c03"), "gsi1sk": s("STU#c03")}
	if p, err = Propose(desc, items); err != nil || p.NewIndex || p.Layout.IndexPK != "gsi1pk" {
		t.Errorf("adjl-shaped index: %+v %v", p.Layout, err)
	}
}
