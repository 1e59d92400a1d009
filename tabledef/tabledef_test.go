package tabledef

import (
	"fmt"
	"testing"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func parse(t *testing.T, table string) *schema.Schema {
	t.Helper()
	s, err := schema.Parse("t.yaml", []byte("version: 1\ntable: "+table+`
entities:
  student: {prefix: "STU#", attributes: {grade: string}}
`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCreateTableInputOnDemand(t *testing.T) {
	in := CreateTableInput(parse(t, "{name: school}"))
	if aws.ToString(in.TableName) != "school" || in.BillingMode != types.BillingModePayPerRequest || in.ProvisionedThroughput != nil {
		t.Errorf("table = %s %s %+v", aws.ToString(in.TableName), in.BillingMode, in.ProvisionedThroughput)
	}
	if len(in.AttributeDefinitions) != 4 || len(in.KeySchema) != 2 || aws.ToString(in.KeySchema[0].AttributeName) != "PK" || in.KeySchema[1].KeyType != types.KeyTypeRange {
		t.Errorf("keys = %+v / %+v", in.AttributeDefinitions, in.KeySchema)
	}
	g := in.GlobalSecondaryIndexes
	if len(g) != 1 || aws.ToString(g[0].IndexName) != "GSI1" || g[0].Projection.ProjectionType != types.ProjectionTypeAll || g[0].ProvisionedThroughput != nil {
		t.Errorf("index = %+v", g)
	}
	if in.Tags != nil || in.DeletionProtectionEnabled != nil {
		t.Errorf("unmanaged settings sent: tags %v, deletion protection %v", in.Tags, in.DeletionProtectionEnabled)
	}
}

func TestCreateTableInputProvisionedInclude(t *testing.T) {
	s := parse(t, "{name: school, billing: PROVISIONED, capacity: {read: 7, write: 3}, index: {name: ByTarget, projection: INCLUDE, include: [grade]}}")
	in := CreateTableInput(s)
	pt := in.ProvisionedThroughput
	if in.BillingMode != types.BillingModeProvisioned || pt == nil || aws.ToInt64(pt.ReadCapacityUnits) != 7 || aws.ToInt64(pt.WriteCapacityUnits) != 3 {
		t.Errorf("billing %s, throughput %+v", in.BillingMode, pt)
	}
	g := in.GlobalSecondaryIndexes[0]
	if aws.ToString(g.IndexName) != "ByTarget" || g.Projection.ProjectionType != types.ProjectionTypeInclude ||
		len(g.Projection.NonKeyAttributes) != 1 || g.Projection.NonKeyAttributes[0] != "grade" {
		t.Errorf("index = %+v %+v", g, g.Projection)
	}
	if g.ProvisionedThroughput == nil || aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits) != 7 {
		t.Errorf("index throughput = %+v, want the table's", g.ProvisionedThroughput)
	}
	// The index's throughput is its own value: changing one must not change the other.
	g.ProvisionedThroughput.ReadCapacityUnits = aws.Int64(1)
	if aws.ToInt64(pt.ReadCapacityUnits) != 7 {
		t.Error("table and index share one ProvisionedThroughput")
	}
}

func TestSettings(t *testing.T) {
	s := parse(t, "{name: school, ttl: expiresAt, tags: {team: data, env: prod}, deletionProtection: true, pointInTimeRecovery: true}")
	in := CreateTableInput(s)
	if len(in.Tags) != 2 || aws.ToString(in.Tags[0].Key) != "team" || aws.ToString(in.Tags[1].Value) != "prod" {
		t.Errorf("tags = %+v, want team=data env=prod in file order", in.Tags)
	}
	if !aws.ToBool(in.DeletionProtectionEnabled) {
		t.Error("deletion protection not enabled")
	}
	if ttl := TimeToLive(s); ttl == nil || aws.ToString(ttl.AttributeName) != "expiresAt" || !aws.ToBool(ttl.Enabled) {
		t.Errorf("TTL = %+v", ttl)
	}
	if p := PointInTimeRecovery(s); p == nil || !aws.ToBool(p.PointInTimeRecoveryEnabled) {
		t.Errorf("PITR = %+v", p)
	}
	off := parse(t, "{name: school, ttl: false, tags: {}, deletionProtection: false, pointInTimeRecovery: false}")
	in = CreateTableInput(off)
	if in.Tags != nil || in.DeletionProtectionEnabled == nil || aws.ToBool(in.DeletionProtectionEnabled) {
		t.Errorf("off: tags %v, deletion protection %v; want no tags and an explicit false", in.Tags, in.DeletionProtectionEnabled)
	}
	if TimeToLive(off) != nil || PointInTimeRecovery(off) != nil {
		t.Error("off: TTL or PITR specification returned")
	}
}

// keyString renders a key schema as "name HASH, name RANGE".
func keyString(ks []types.KeySchemaElement) string {
	out := ""
	for i, k := range ks {
		if i > 0 {
			out += ", "
		}
		out += aws.ToString(k.AttributeName) + " " + string(k.KeyType)
	}
	return out
}

func defNames(defs []types.AttributeDefinition) []string {
	var out []string
	for _, d := range defs {
		out = append(out, aws.ToString(d.AttributeName)+":"+string(d.AttributeType))
	}
	return out
}

// TestCreateTableInputLayouts: the table and index keys follow the
// schema's names; the inverted index is keyed on the table's keys swapped
// and defines no attributes of its own.
func TestCreateTableInputLayouts(t *testing.T) {
	cases := []struct {
		table, keys, index, defs string
	}{
		{"{name: legacy, keys: {pk: pk, sk: sk}, index: {name: gsi1, keys: {pk: gsi1pk, sk: gsi1sk}}}",
			"pk HASH, sk RANGE", "gsi1pk HASH, gsi1sk RANGE", "[pk:S sk:S gsi1pk:S gsi1sk:S]"},
		{"{name: legacy, keys: {pk: pk, sk: sk}, index: {name: inverted, layout: inverted}}",
			"pk HASH, sk RANGE", "sk HASH, pk RANGE", "[pk:S sk:S]"},
		{"{name: legacy, index: {layout: inverted}}",
			"PK HASH, SK RANGE", "SK HASH, PK RANGE", "[PK:S SK:S]"},
	}
	for _, c := range cases {
		s := parse(t, c.table)
		in := CreateTableInput(s)
		if got := keyString(in.KeySchema); got != c.keys {
			t.Errorf("%s: table keys %s, want %s", c.table, got, c.keys)
		}
		if got := keyString(in.GlobalSecondaryIndexes[0].KeySchema); got != c.index {
			t.Errorf("%s: index keys %s, want %s", c.table, got, c.index)
		}
		if got := fmt.Sprint(defNames(in.AttributeDefinitions)); got != c.defs {
			t.Errorf("%s: attribute definitions %s, want %s", c.table, got, c.defs)
		}
		ix := defNames(IndexAttributeDefinitions(s))
		want := []string{aws.ToString(in.GlobalSecondaryIndexes[0].KeySchema[0].AttributeName) + ":S", aws.ToString(in.GlobalSecondaryIndexes[0].KeySchema[1].AttributeName) + ":S"}
		if fmt.Sprint(ix) != fmt.Sprint(want) {
			t.Errorf("%s: index attribute definitions %v, want %v", c.table, ix, want)
		}
	}
}
