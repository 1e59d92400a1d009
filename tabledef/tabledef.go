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

// KeyAttributes are the four string key attributes every adjl table defines:
// the table's PK/SK and the inverted index's GSI1PK/GSI1SK.
var KeyAttributes = []string{schema.AttrPK, schema.AttrSK, schema.AttrGSI1PK, schema.AttrGSI1SK}

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

// TableKeySchema is PK (hash) and SK (range).
func TableKeySchema() []types.KeySchemaElement {
	return []types.KeySchemaElement{
		{AttributeName: aws.String(schema.AttrPK), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(schema.AttrSK), KeyType: types.KeyTypeRange},
	}
}

// IndexKeySchema is GSI1PK (hash) and GSI1SK (range).
func IndexKeySchema() []types.KeySchemaElement {
	return []types.KeySchemaElement{
		{AttributeName: aws.String(schema.AttrGSI1PK), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(schema.AttrGSI1SK), KeyType: types.KeyTypeRange},
	}
}

// AttributeDefinitions define the four key attributes as strings.
func AttributeDefinitions() []types.AttributeDefinition {
	out := make([]types.AttributeDefinition, len(KeyAttributes))
	for i, a := range KeyAttributes {
		out[i] = types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS}
	}
	return out
}

// IndexAttributeDefinitions define the index's two key attributes, as
// UpdateTable's index Create needs them.
func IndexAttributeDefinitions() []types.AttributeDefinition {
	return AttributeDefinitions()[2:]
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
		KeySchema:  IndexKeySchema(),
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

// CreateTableInput is the table the schema asks for: generic string keys,
// the inverted index with the schema's projection, the billing mode, and
// the tags and deletion protection the schema manages.
func CreateTableInput(s *schema.Schema) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:              aws.String(s.Table.Name),
		AttributeDefinitions:   AttributeDefinitions(),
		KeySchema:              TableKeySchema(),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{Index(s)},
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
