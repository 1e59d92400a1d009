package local

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/adjl/adjl/local/internal/kv"
)

// Tests from a cold review of Engine.requests (the commit yields) and of the
// data file's format record.

// A panic (a bug) in a request's write reaches ServeHTTP's caller, which
// survives it: net/http recovers it per connection, so `adjl local serve`
// goes on. The request is no longer being served, so it must not stay in
// Engine.requests: otherwise every later lone writer would yield as if it
// had company, for the rest of the process. Fix: decrement with defer in
// ServeHTTP (e.g. `e.requests.Add(1); defer e.requests.Add(-1)` just before
// op, or a small method `serve(op, body)` that does both around op).
func TestReview4RequestCountSurvivesPanic(t *testing.T) {
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
func TestReview4RequestCountBalanced(t *testing.T) {
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

// The TTL sweeper writes through group commit without ServeHTTP (it is not
// counted in Engine.requests). Running it alongside 8 writers - with the
// leader's and the syncer's yields in play, and a write-ahead log - must
// delete exactly the expired items and lose no write.
func TestReview4SweepAmongWriters(t *testing.T) {
	e, c := openGraphFile(t)
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("school"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	past := fmt.Sprint(time.Now().Unix() - 100) // DynamoDB ignores values over five years old
	for i := range 60 {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("school"),
			Item: map[string]av{"PK": s("old"), "SK": s(fmt.Sprint(i)), "exp": n(past)}}); err != nil {
			t.Fatal(err)
		}
	}
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		e.sweep()
	}()
	_, jobs, _ := putConcurrently(t, e, c, "school")
	<-swept
	if jobs < 200 {
		t.Fatalf("%d jobs committed, want at least the 200 puts", jobs)
	}
	if n := e.requests.Load(); n != 0 {
		t.Errorf("Engine.requests is %d after every request returned", n)
	}
	e.sweep() // in case the first sweep ran before the puts' yields mattered
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("school"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range out.Items {
		if str(it, "PK") == "old" {
			t.Fatalf("an expired item survived two sweeps: %v", it)
		}
	}
	if len(out.Items) != 200 {
		t.Fatalf("%d items after the sweep, want the 200 unexpired ones", len(out.Items))
	}
}

// A table named "version" (a valid DynamoDB name) lives in buckets
// "d/version" and "x/version/GSI1", so it never meets the format record's
// bucket "version": its items, its index and the record all survive, on both
// stores and across a reopen.
func TestReview4TableNamedVersion(t *testing.T) {
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

// A new file's format record goes straight into the bbolt file, before any
// log is read or written; its buckets go through the log. A crash right
// after the first open leaves the record in place, and the next open has
// both.
func TestReview4FormatAfterCrashOnCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	e, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	crashEngine(e)
	if f, err := kv.FileFormat(path); err != nil || f != kv.Format {
		t.Fatalf("format record in the bbolt file before replay: %d, %v (0: in the log only), want %d", f, err, kv.Format)
	}
	e, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var f int
	missing := false
	e.db.View(func(tx kv.Tx) error {
		f = kv.ReadFormat(tx)
		for _, b := range [][]byte{metaBucket, statsBucket, tokensBucket} {
			missing = missing || tx.Bucket(b) == nil
		}
		return nil
	})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if f != kv.Format || missing {
		t.Fatalf("after a crash on creation: format %d, fixed buckets missing: %v", f, missing)
	}
	if f, err := kv.FileFormat(path); err != nil || f != kv.Format {
		t.Fatalf("after a clean close the bbolt file records format %d (%v)", f, err)
	}
}
