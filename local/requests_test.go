package local

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Engine.requests counts the requests being served, which makes group
// commit wait for company (kv.Group, Busy).

// A panic (a bug) in a request's write reaches ServeHTTP's caller, which
// survives it: net/http recovers it per connection, so `adjl local serve`
// goes on. The request is no longer being served and leaves
// Engine.requests (Engine.serve decrements it on the way out, panic or
// not), so a later lone writer does not yield as if it had company.
func TestRequestCountSurvivesPanic(t *testing.T) {
	eachStore(t, func(t *testing.T, e *Engine, _ bool) {
		createGraphTable(t, clientFor(e), "school")
		// TransactWriteItems reads the clock inside its group-commit write
		// when it has a ClientRequestToken: a panicking clock is a bug there.
		// (The sweeper reads it every 30 s only; the test is long over by then.)
		e.now = func() time.Time { panic("clock bug") }
		body := `{"ClientRequestToken":"tok","TransactItems":[{"Put":{"TableName":"school","Item":{"PK":{"S":"a"},"SK":{"S":"b"}}}}]}`
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", targetPrefix+"TransactWriteItems")
		func() {
			defer func() {
				if p := recover(); p != "clock bug" {
					t.Fatalf("recovered %v, want the write's panic", p)
				}
			}()
			e.ServeHTTP(httptest.NewRecorder(), req) // as net/http's conn.serve does
		}()
		if n := e.requests.Load(); n != 0 {
			t.Errorf("no request is being served, but Engine.requests is %d: lone writers now yield for company that is not there", n)
		}
	})
}

// Engine.requests goes back to zero after many connections' requests, those
// that fail in the operation (conditional checks, validation, unknown
// tables) and those refused before it, on both stores.
func TestRequestCountBalanced(t *testing.T) {
	eachStore(t, func(t *testing.T, e *Engine, _ bool) {
		clients := []*dynamodb.Client{clientFor(e), serverClient(t, e)}
		createGraphTable(t, clients[0], "school")
		var wg sync.WaitGroup
		for g := range 8 {
			c := clients[g%2]
			wg.Go(func() {
				for i := range 10 {
					key := map[string]av{"PK": s(fmt.Sprint(g)), "SK": s(fmt.Sprint(i))}
					if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"), Item: key}); err != nil {
						t.Error(err)
						return
					}
					_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"), Item: key,
						ConditionExpression: aws.String("attribute_not_exists(PK)")})
					if apiCode(err) != "ConditionalCheckFailedException" {
						t.Errorf("conditional put over an item: %v", err)
					}
					_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("nosuch"), Key: key})
					if apiCode(err) != "ResourceNotFoundException" {
						t.Errorf("get from a missing table: %v", err)
					}
					_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("school"), KeyConditionExpression: aws.String("bogus")})
					if apiCode(err) != "ValidationException" {
						t.Errorf("bad key condition: %v", err)
					}
				}
			})
		}
		wg.Wait()
		for _, h := range []string{"", "DynamoDB_20120810.NoSuchOp"} { // refused before the operation
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
			req.Header.Set("X-Amz-Target", h)
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != http.StatusBadRequest {
				t.Errorf("target %q: status %d", h, rec.Code)
			}
		}
		if n := e.requests.Load(); n != 0 || e.othersServed() {
			t.Errorf("after every request returned, Engine.requests is %d", n)
		}
		out, err := clients[0].Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("school"), Select: types.SelectCount})
		if err != nil || out.Count != 80 {
			t.Fatalf("scan: %v, %v items, want 80", err, out)
		}
	})
}
