package dyntest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// keyAttr is one key attribute: name and scalar type (S, N or B).
type keyAttr struct {
	Name string
	Type types.ScalarAttributeType
}

// indexSpec describes a secondary index of a fixture table.
type indexSpec struct {
	Name       string
	Hash       keyAttr
	Range      *keyAttr
	Projection types.ProjectionType
	Include    []string
}

// tableSpec describes a fixture table. Billing is on demand.
type tableSpec struct {
	Hash  keyAttr
	Range *keyAttr
	GSIs  []indexSpec
	LSIs  []indexSpec
	Tags  []types.Tag
}

// hashOnly is a table keyed by pk (S).
var hashOnly = tableSpec{Hash: keyAttr{"pk", types.ScalarAttributeTypeS}}

// composite is a table keyed by pk (S) and sk (S).
var composite = tableSpec{
	Hash:  keyAttr{"pk", types.ScalarAttributeTypeS},
	Range: &keyAttr{"sk", types.ScalarAttributeTypeS},
}

// withGSI is composite plus gsi1 on gpk/gsk (S/S) projecting ALL, the shape of
// adjl's adjacency-list table.
var withGSI = tableSpec{
	Hash:  keyAttr{"pk", types.ScalarAttributeTypeS},
	Range: &keyAttr{"sk", types.ScalarAttributeTypeS},
	GSIs: []indexSpec{{
		Name: "gsi1", Hash: keyAttr{"gpk", types.ScalarAttributeTypeS},
		Range: &keyAttr{"gsk", types.ScalarAttributeTypeS}, Projection: types.ProjectionTypeAll,
	}},
}

func keySchema(h keyAttr, r *keyAttr) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(h.Name), KeyType: types.KeyTypeHash}}
	if r != nil {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(r.Name), KeyType: types.KeyTypeRange})
	}
	return ks
}

func projection(ix indexSpec) *types.Projection {
	p := &types.Projection{ProjectionType: ix.Projection}
	if p.ProjectionType == "" {
		p.ProjectionType = types.ProjectionTypeAll
	}
	if len(ix.Include) > 0 {
		p.NonKeyAttributes = ix.Include
	}
	return p
}

// createInput builds the CreateTable request for spec.
func createInput(name string, spec tableSpec) *dynamodb.CreateTableInput {
	defs := map[string]types.ScalarAttributeType{}
	add := func(k *keyAttr) {
		if k != nil {
			defs[k.Name] = k.Type
		}
	}
	add(&spec.Hash)
	add(spec.Range)
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		KeySchema:   keySchema(spec.Hash, spec.Range),
		BillingMode: types.BillingModePayPerRequest,
		Tags:        spec.Tags,
	}
	for _, g := range spec.GSIs {
		add(&g.Hash)
		add(g.Range)
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(g.Name), KeySchema: keySchema(g.Hash, g.Range), Projection: projection(g),
		})
	}
	for _, l := range spec.LSIs {
		add(&l.Hash)
		add(l.Range)
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
			IndexName: aws.String(l.Name), KeySchema: keySchema(l.Hash, l.Range), Projection: projection(l),
		})
	}
	for n, ty := range defs {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(n), AttributeType: ty,
		})
	}
	return in
}

// table creates a fresh table for this subtest, waits until it is ACTIVE and
// deletes it when the subtest ends.
func (s *suite) table(t *testing.T, spec tableSpec) string {
	t.Helper()
	name := s.tableName(t)
	_, err := s.c.CreateTable(s.ctx(t), createInput(name, spec))
	must(t, err, "CreateTable "+name)
	s.dropLater(t, name)
	s.waitActive(t, name)
	return name
}

// dropLater deletes the table at the end of the subtest, ignoring a table
// the subtest already deleted.
func (s *suite) dropLater(t *testing.T, name string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := s.c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		var nf *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &nf) {
			t.Logf("cleanup: delete table %s: %v", name, err)
		}
	})
}

// waitActive polls DescribeTable until the table and all its GSIs are ACTIVE
// (a real DynamoDB table starts CREATING; backfilling GSIs start CREATING).
func (s *suite) waitActive(t *testing.T, name string) *types.TableDescription {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := s.c.DescribeTable(s.ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		must(t, err, "DescribeTable "+name)
		d := out.Table
		ready := d.TableStatus == types.TableStatusActive
		for _, g := range d.GlobalSecondaryIndexes {
			if g.IndexStatus != types.IndexStatusActive {
				ready = false
			}
		}
		if ready {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("table %s not ACTIVE after 60s: %s", name, d.TableStatus)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// put writes items unconditionally.
func (s *suite) put(t *testing.T, table string, items ...item) {
	t.Helper()
	for _, it := range items {
		_, err := s.c.PutItem(s.ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it})
		must(t, err, "PutItem "+brief(showItem(it)))
	}
}

// get reads one item with a strongly consistent read; nil when missing.
func (s *suite) get(t *testing.T, table string, key item) item {
	t.Helper()
	out, err := s.c.GetItem(s.ctx(t), &dynamodb.GetItemInput{
		TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true),
	})
	must(t, err, "GetItem "+showItem(key))
	return out.Item
}

// queryAll pages through a query with the given page size and returns the
// items and the pages' LastEvaluatedKeys.
func (s *suite) queryAll(t *testing.T, in dynamodb.QueryInput) (items []item, leks []item) {
	t.Helper()
	return pageAll(t, "query", in.ExclusiveStartKey, func(start item) ([]item, item) {
		q := in
		q.ExclusiveStartKey = start
		out, err := s.c.Query(s.ctx(t), &q)
		must(t, err, "Query")
		return out.Items, out.LastEvaluatedKey
	})
}

// pageAll reads pages from start, each from the LastEvaluatedKey before,
// until a page has none, and returns the pages' items and LastEvaluatedKeys;
// what names the call in the failure of a read that does not end.
func pageAll(t *testing.T, what string, start item, page func(start item) (items []item, lek item)) (items []item, leks []item) {
	t.Helper()
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("%s did not terminate after 1000 pages", what)
		}
		got, lek := page(start)
		items = append(items, got...)
		if len(lek) == 0 {
			return items, leks
		}
		leks = append(leks, lek)
		start = lek
	}
}
