// Package tabledef is the DynamoDB table a schema asks for, as the SDK's
// request inputs: the CreateTable input (keys, index, billing, tags,
// deletion protection) and the settings CreateTable cannot carry (TTL,
// point-in-time recovery). It is pure - no client, no I/O - so ops creates
// and compares tables from it, and `adjl schema export` renders the same
// definition as create-table JSON, CloudFormation or Terraform.
package tabledef

import (
	"slices"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// IndexName is the inverted index's name (GSI1 unless the schema says otherwise).
func IndexName(s *schema.Schema) string {
	if s.Table.Index.Name == "" {
		return schema.DefaultIndexName
	}
	return s.Table.Index.Name
}

// Projection is the inverted index's projection type (ALL unless the schema
// says otherwise).
func Projection(s *schema.Schema) string {
	if s.Table.Index.Projection == "" {
		return schema.ProjectionAll
	}
	return s.Table.Index.Projection
}

// TableKeySchema is the layout's table keys: PK (hash) and SK (range).
func TableKeySchema(s *schema.Schema) []types.KeySchemaElement {
	l := s.Layout()
	return []types.KeySchemaElement{
		{AttributeName: aws.String(l.PK), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(l.SK), KeyType: types.KeyTypeRange},
	}
}

// IndexKeySchema is the layout's index keys: GSI1PK (hash) and GSI1SK
// (range) in the generic layout, SK and PK in the inverted one.
func IndexKeySchema(s *schema.Schema) []types.KeySchemaElement {
	l := s.Layout()
	return []types.KeySchemaElement{
		{AttributeName: aws.String(l.IndexPK), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(l.IndexSK), KeyType: types.KeyTypeRange},
	}
}

// AttributeDefinitions define the layout's key attributes as strings: four
// in the generic layout, two in the inverted one (its index reuses them);
// then those of the ordered relations' indexes (ordered.go).
func AttributeDefinitions(s *schema.Schema) []types.AttributeDefinition {
	names := s.Layout().KeyNames()
	out := make([]types.AttributeDefinition, len(names))
	for i, a := range names {
		out[i] = types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS}
	}
	return orderedAttributeDefinitions(s, out)
}

// IndexAttributeDefinitions define the index's two key attributes, as
// UpdateTable's index Create needs them.
func IndexAttributeDefinitions(s *schema.Schema) []types.AttributeDefinition {
	l := s.Layout()
	out := make([]types.AttributeDefinition, 0, 2)
	for _, a := range []string{l.IndexPK, l.IndexSK} {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	return out
}

// Throughput is the schema's provisioned throughput, or nil on demand. The
// index gets the same units as the table.
func Throughput(s *schema.Schema) *types.ProvisionedThroughput {
	t := s.Table
	if t.Billing != schema.BillingProvisioned {
		return nil
	}
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(t.ReadUnits), WriteCapacityUnits: aws.Int64(t.WriteUnits)}
}

// BillingMode is the schema's billing mode as the SDK's enum.
func BillingMode(s *schema.Schema) types.BillingMode {
	if s.Table.Billing == schema.BillingProvisioned {
		return types.BillingModeProvisioned
	}
	return types.BillingModePayPerRequest
}

// Index is the inverted global index as CreateTable (and UpdateTable's index
// Create) takes it.
func Index(s *schema.Schema) types.GlobalSecondaryIndex {
	g := types.GlobalSecondaryIndex{
		IndexName:  aws.String(IndexName(s)),
		KeySchema:  IndexKeySchema(s),
		Projection: &types.Projection{ProjectionType: types.ProjectionType(Projection(s))},
	}
	if Projection(s) == schema.ProjectionInclude {
		g.Projection.NonKeyAttributes = slices.Clone(s.Table.Index.Include)
	}
	if pt := Throughput(s); pt != nil {
		g.ProvisionedThroughput = pt
	}
	return g
}

// CreateTableInput is the table the schema asks for: string keys named by
// its layout, the inverted index with the schema's projection, the billing mode, and
// the tags and deletion protection the schema manages.
func CreateTableInput(s *schema.Schema) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:              aws.String(s.Table.Name),
		AttributeDefinitions:   AttributeDefinitions(s),
		KeySchema:              TableKeySchema(s),
		GlobalSecondaryIndexes: append([]types.GlobalSecondaryIndex{Index(s)}, SortIndexes(s)...),
		LocalSecondaryIndexes:  ForwardIndex(s),
		BillingMode:            BillingMode(s),
		ProvisionedThroughput:  Throughput(s),
	}
	st := s.Table.Settings
	if len(st.Tags) > 0 {
		in.Tags = Tags(s)
	}
	if st.DeletionProtection != nil {
		in.DeletionProtectionEnabled = aws.Bool(*st.DeletionProtection)
	}
	return in
}

// Tags are the schema's tags in file order.
func Tags(s *schema.Schema) []types.Tag {
	var out []types.Tag
	for _, t := range s.Table.Settings.Tags {
		out = append(out, types.Tag{Key: aws.String(t.Key), Value: aws.String(t.Value)})
	}
	return out
}

// TimeToLive is the UpdateTimeToLive specification that enables the
// schema's TTL attribute, or nil when the schema turns TTL off or leaves it
// alone.
func TimeToLive(s *schema.Schema) *types.TimeToLiveSpecification {
	ttl := s.Table.Settings.TTL
	if ttl == nil || ttl.Attribute == "" {
		return nil
	}
	return &types.TimeToLiveSpecification{AttributeName: aws.String(ttl.Attribute), Enabled: aws.Bool(true)}
}

// PointInTimeRecovery is the UpdateContinuousBackups specification that
// enables point-in-time recovery, or nil when the schema turns it off or
// leaves it alone (a new table has it off).
func PointInTimeRecovery(s *schema.Schema) *types.PointInTimeRecoverySpecification {
	p := s.Table.Settings.PointInTimeRecovery
	if p == nil || !*p {
		return nil
	}
	return &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}
}

// LayoutOf recognises the key layout of a described table: its keys and
// those of the global index named index or, when it has none by that name,
// of its only global index. ok is false when the table has no sort key, no
// such index, or an index that is neither generic nor inverted (see
// schema.RecognizeLayout). indexName is the index it read.
func LayoutOf(desc *types.TableDescription, index string) (l schema.Layout, indexName string, ok bool) {
	if desc == nil {
		return l, "", false
	}
	var g *types.GlobalSecondaryIndexDescription
	for i := range desc.GlobalSecondaryIndexes {
		if aws.ToString(desc.GlobalSecondaryIndexes[i].IndexName) == index {
			g = &desc.GlobalSecondaryIndexes[i]
		}
	}
	if g == nil && len(desc.GlobalSecondaryIndexes) == 1 {
		g = &desc.GlobalSecondaryIndexes[0]
	}
	if g == nil {
		return l, "", false
	}
	pk, sk := KeyNames(desc.KeySchema)
	ipk, isk := KeyNames(g.KeySchema)
	l, ok = schema.RecognizeLayout(pk, sk, ipk, isk)
	return l, aws.ToString(g.IndexName), ok
}

// KeyNames are the partition and sort key attributes of a key schema.
func KeyNames(ks []types.KeySchemaElement) (partition, sort string) {
	for _, k := range ks {
		switch k.KeyType {
		case types.KeyTypeHash:
			partition = aws.ToString(k.AttributeName)
		case types.KeyTypeRange:
			sort = aws.ToString(k.AttributeName)
		}
	}
	return partition, sort
}
