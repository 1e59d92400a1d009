package tabledef

import (
	"slices"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SortIndexes are the multi-attribute indexes of the schema's ordered
// relations, one per sort attribute (schema.SortIndexName): partition key
// [GSI1PK, type], sort key [the attribute, GSI1SK], with the inverted
// index's projection and throughput.
func SortIndexes(s *schema.Schema) []types.GlobalSecondaryIndex {
	var out []types.GlobalSecondaryIndex
	for _, a := range s.SortAttributes() {
		g := Index(s)
		g.IndexName = aws.String(schema.SortIndexName(IndexName(s), a.Name))
		g.KeySchema = SortIndexKeySchema(s, a.Name)
		out = append(out, g)
	}
	return out
}

// SortIndexKeySchema is a multi-attribute index's key schema: two HASH
// elements, then two RANGE elements, in that order (DynamoDB reads the
// elements of each kind in order: the sort attributes left to right).
func SortIndexKeySchema(s *schema.Schema, attr string) []types.KeySchemaElement {
	l := s.Layout()
	return []types.KeySchemaElement{
		{AttributeName: aws.String(l.IndexPK), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(l.Type), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(attr), KeyType: types.KeyTypeRange},
		{AttributeName: aws.String(l.IndexSK), KeyType: types.KeyTypeRange},
	}
}

// SortIndexAttributeDefinitions define a multi-attribute index's key
// attributes, as UpdateTable's index Create needs them: the sort
// attribute as S or N by its kind, the others as strings.
func SortIndexAttributeDefinitions(s *schema.Schema, a schema.Attribute) []types.AttributeDefinition {
	l := s.Layout()
	st := &schema.Sort{Kind: a.Kind}
	return []types.AttributeDefinition{
		{AttributeName: aws.String(l.IndexPK), AttributeType: types.ScalarAttributeTypeS},
		{AttributeName: aws.String(l.Type), AttributeType: types.ScalarAttributeTypeS},
		{AttributeName: aws.String(a.Name), AttributeType: types.ScalarAttributeType(st.KeyType())},
		{AttributeName: aws.String(l.IndexSK), AttributeType: types.ScalarAttributeTypeS},
	}
}

// ForwardIndex is the local secondary index of ordered forward lists:
// the table's partition key and LSI1SK, every attribute projected (a
// forward list shows whole edges, as the base table gives them). nil when
// no relation orders its forward lists.
func ForwardIndex(s *schema.Schema) []types.LocalSecondaryIndex {
	if !s.NeedsForwardIndex() {
		return nil
	}
	return []types.LocalSecondaryIndex{{
		IndexName: aws.String(schema.ForwardIndexName),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(s.Layout().PK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(schema.ForwardSK), KeyType: types.KeyTypeRange},
		},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
	}}
}

// orderedAttributeDefinitions adds to defs the key attributes of the
// ordered relations' indexes that defs lacks.
func orderedAttributeDefinitions(s *schema.Schema, defs []types.AttributeDefinition) []types.AttributeDefinition {
	add := func(name string, t types.ScalarAttributeType) {
		if !slices.ContainsFunc(defs, func(d types.AttributeDefinition) bool { return aws.ToString(d.AttributeName) == name }) {
			defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: t})
		}
	}
	for _, a := range s.SortAttributes() {
		for _, d := range SortIndexAttributeDefinitions(s, a) {
			add(aws.ToString(d.AttributeName), d.AttributeType)
		}
	}
	if s.NeedsForwardIndex() {
		add(schema.ForwardSK, types.ScalarAttributeTypeS)
	}
	return defs
}
