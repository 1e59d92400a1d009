package local

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/adjl/adjl/local/internal/kv"
)

func TestCreateDescribeDeleteTable(t *testing.T) {
	c := memGraphClient(t)
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("school")})
	if err != nil {
		t.Fatal(err)
	}
	d := out.Table
	if d.TableStatus != types.TableStatusActive || *d.TableName != "school" || *d.ItemCount != 0 {
		t.Fatalf("describe: %+v", d)
	}
	if len(d.GlobalSecondaryIndexes) != 1 || d.GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusActive ||
		*d.GlobalSecondaryIndexes[0].IndexName != "GSI1" {
		t.Fatalf("gsi: %+v", d.GlobalSecondaryIndexes)
	}
	if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		t.Fatalf("billing: %+v", d.BillingModeSummary)
	}
	if *d.TableArn != "arn:aws:dynamodb:us-east-1:000000000000:table/school" || d.CreationDateTime == nil {
		t.Fatalf("arn/creation: %v %v", *d.TableArn, d.CreationDateTime)
	}

	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("school"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
	})
	var inUse *types.ResourceInUseException
	if !errors.As(err, &inUse) || apiMessage(err) != "Table already exists: school" {
		t.Fatalf("duplicate create: %v", err)
	}

	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("school")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("school")})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Fatalf("describe deleted: %v", err)
	}
}

func TestCreateTableValidation(t *testing.T) {
	c := clientFor(openMem(t))
	cases := []struct {
		name string
		in   dynamodb.CreateTableInput
		msg  string
	}{
		{"undefined key", dynamodb.CreateTableInput{
			TableName: aws.String("tbl1"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("A"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		}, "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [PK], AttributeDefinitions: [A]"},
		{"no throughput", dynamodb.CreateTableInput{
			TableName:            aws.String("tbl1"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		}, "No provisioned throughput specified for the table"},
		{"extra definition", dynamodb.CreateTableInput{
			TableName: aws.String("tbl1"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("X"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		}, "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"},
		{"range first", dynamodb.CreateTableInput{
			TableName: aws.String("tbl1"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeRange}},
		}, "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
	}
	for _, tc := range cases {
		_, err := c.CreateTable(ctx, &tc.in)
		if apiCode(err) != "ValidationException" || apiMessage(err) != tc.msg {
			t.Errorf("%s: got %v", tc.name, err)
		}
	}
}

func TestListTablesPaging(t *testing.T) {
	c := clientFor(openMem(t))
	for _, name := range []string{"ccc", "aaa", "bbb"} {
		createGraphTable(t, c, name)
	}
	out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.TableNames) != 2 || out.TableNames[0] != "aaa" || out.TableNames[1] != "bbb" || aws.ToString(out.LastEvaluatedTableName) != "bbb" {
		t.Fatalf("page 1: %v %v", out.TableNames, aws.ToString(out.LastEvaluatedTableName))
	}
	out, err = c.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(2), ExclusiveStartTableName: out.LastEvaluatedTableName})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.TableNames) != 1 || out.TableNames[0] != "ccc" || out.LastEvaluatedTableName != nil {
		t.Fatalf("page 2: %v %v", out.TableNames, out.LastEvaluatedTableName)
	}
}

// A table named "version" (a valid DynamoDB name) lives in buckets
// "d/version" and "x/version/GSI1", so it never meets the format record's
// bucket "version": its items, its index and the record all survive, on both
// stores and across a reopen.
func TestTableNamedVersion(t *testing.T) {
	check := func(t *testing.T, e *Engine) {
		t.Helper()
		c := clientFor(e)
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("version"), IndexName: aws.String("GSI1"),
			KeyConditionExpression:    aws.String("GSI1PK = :p"),
			ExpressionAttributeValues: map[string]av{":p": s("all")}})
		if err != nil || len(out.Items) != 3 {
			t.Fatalf("index query on table version: %v, %d items", err, len(out.Items))
		}
		var f int
		e.db.View(func(tx kv.Tx) error { f = kv.ReadFormat(tx); return nil })
		if f != kv.Format {
			t.Fatalf("format record is %d beside a table named version, want %d", f, kv.Format)
		}
	}
	fill := func(t *testing.T, e *Engine) {
		c := clientFor(e)
		createGraphTable(t, c, "version")
		for i := range 3 {
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("version"),
				Item: map[string]av{"PK": s(fmt.Sprint(i)), "SK": s("x"), "GSI1PK": s("all"), "GSI1SK": s(fmt.Sprint(i))}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	eachStore(t, func(t *testing.T, e *Engine, _ bool) {
		fill(t, e)
		check(t, e)
	})
	path := filepath.Join(t.TempDir(), "data.db")
	e, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fill(t, e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if f, err := kv.FileFormat(path); err != nil || f != kv.Format {
		t.Fatalf("the bbolt file records format %d (%v) after a checkpoint, want %d", f, err, kv.Format)
	}
	e, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	check(t, e)
}
