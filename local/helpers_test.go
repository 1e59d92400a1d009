package local

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/adjl/adjl/local/internal/kv"
)

var ctx = context.Background()

type av = types.AttributeValue

func s(v string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: v} }
func n(v string) *types.AttributeValueMemberN { return &types.AttributeValueMemberN{Value: v} }

// openMem opens an in-memory engine closed at the end of the test.
func openMem(t testing.TB) *Engine {
	t.Helper()
	e, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// memGraphClient returns a client of a new in-memory engine, closed at the
// end of the test, that holds the graph table "school".
func memGraphClient(t testing.TB) *dynamodb.Client {
	t.Helper()
	c := clientFor(openMem(t))
	createGraphTable(t, c, "school")
	return c
}

// clientFor returns an SDK client talking to e in process.
func clientFor(e *Engine) *dynamodb.Client {
	return dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("a", "b", ""),
		HTTPClient:  e.HTTPClient(),
	}, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String("http://local.adjl") })
}

// serverClient serves e on a loopback socket and returns a client for it.
func serverClient(t testing.TB, e *Engine) *dynamodb.Client {
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("a", "b", ""),
	}, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
}

// createGraphTable creates the adjacency-list table shape adjl uses: PK/SK
// with a GSI1 over GSI1PK/GSI1SK projecting ALL.
func createGraphTable(t testing.TB, c *dynamodb.Client, name string) {
	t.Helper()
	if _, err := c.CreateTable(ctx, graphTableInput(name)); err != nil {
		t.Fatalf("create table: %v", err)
	}
}

// fileStore is e's file store (e must be a data-file engine).
func fileStore(e *Engine) *kv.File { return e.db.(*kv.File) }

// crashEngine stops e's sweeper and closes its files without a checkpoint,
// as kill -9 would leave them once every fsync has returned.
func crashEngine(e *Engine) {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	e.closed = true
	close(e.stop)
	e.sweeping.Wait()
	fileStore(e).Crash()
}

// openGraphFile opens a data-file engine in a temporary directory, closed
// when the test ends, with the graph table "school" created.
func openGraphFile(tb testing.TB) (*Engine, *dynamodb.Client) {
	tb.Helper()
	e, err := Open(filepath.Join(tb.TempDir(), "data.db"), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	c := clientFor(e)
	createGraphTable(tb, c, "school")
	return e, c
}

func graphTableInput(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			attrDef("PK", types.ScalarAttributeTypeS), attrDef("SK", types.ScalarAttributeTypeS),
			attrDef("GSI1PK", types.ScalarAttributeTypeS), attrDef("GSI1SK", types.ScalarAttributeTypeS),
		},
		KeySchema: keySchema("PK", "SK"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("GSI1"),
			KeySchema:  keySchema("GSI1PK", "GSI1SK"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	}
}

// keySchema is the key schema of a hash key and, unless rng is "", a range
// key.
func keySchema(hash, rng string) []types.KeySchemaElement {
	out := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if rng != "" {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange})
	}
	return out
}

// attrDef defines attribute name with type k.
func attrDef(name string, k types.ScalarAttributeType) types.AttributeDefinition {
	return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: k}
}

// apiCode returns the error code of an SDK error ("" for nil).
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if err != nil {
		return "not an API error: " + err.Error()
	}
	return ""
}

func apiMessage(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	return ""
}

func str(it map[string]av, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func num(it map[string]av, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberN); ok {
		return v.Value
	}
	return ""
}

// eachStore runs fn as a subtest on a fresh engine of each store: in memory
// and on a data file (closed after fn).
func eachStore(t *testing.T, fn func(t *testing.T, e *Engine, inMemory bool)) {
	for _, inMemory := range []bool{true, false} {
		t.Run(fmt.Sprint("inMemory=", inMemory), func(t *testing.T) {
			e, err := Open(filepath.Join(t.TempDir(), "data.db"), Options{InMemory: inMemory})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			fn(t, e, inMemory)
		})
	}
}

// openEngine opens an engine on path (or in memory) that the test closes
// (or crashes) itself.
func openEngine(t *testing.T, path string, inMemory bool) *Engine {
	t.Helper()
	e, err := Open(path, Options{InMemory: inMemory})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
