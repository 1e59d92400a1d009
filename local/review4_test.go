package local

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	bolt "go.etcd.io/bbolt"
)

// Tests from a cold review of Engine.requests (the commit yields) and of the
// data file's format record.

// crashEngine stops e's sweeper and closes its files without a checkpoint,
// as kill -9 would leave them once every fsync has returned.
func crashEngine(e *Engine) {
	e.closeMu.Lock()
	e.closed = true
	e.closeMu.Unlock()
	close(e.stop)
	e.sweeping.Wait()
	e.db.(*walKV).crash()
}

// rawFormat reads the format record straight from the bbolt file (-1: none).
func rawFormat(t *testing.T, path string) int {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f := -1
	db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(versionBucket); b != nil {
			if v := b.Get(formatKey); len(v) == 8 {
				f = int(binary.BigEndian.Uint64(v))
			}
		}
		return nil
	})
	return f
}

// openAsNewer opens path's bbolt file and logs as a newer adjl would: no
// format check of this adjl's.
func openAsNewer(t *testing.T, path string) *walKV {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		t.Fatal("the data file is still locked")
	} else if err != nil {
		t.Fatal(err)
	}
	kv, err := openWAL(db, path)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return kv
}

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
		e.db.View(func(tx kvTx) error { f = readFormat(tx); return nil })
		if f != dataFormat {
			t.Fatalf("format record is %d beside a table named version, want %d", f, dataFormat)
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
	if f := rawFormat(t, path); f != dataFormat {
		t.Fatalf("the bbolt file records format %d after a checkpoint, want %d", f, dataFormat)
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
	if f := rawFormat(t, path); f != dataFormat {
		t.Fatalf("format record in the bbolt file before replay: %d (-1: in the log only), want %d", f, dataFormat)
	}
	e, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var f int
	missing := false
	e.db.View(func(tx kvTx) error {
		f = readFormat(tx)
		for _, b := range [][]byte{metaBucket, statsBucket, tokensBucket} {
			missing = missing || tx.Bucket(b) == nil
		}
		return nil
	})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if f != dataFormat || missing {
		t.Fatalf("after a crash on creation: format %d, fixed buckets missing: %v", f, missing)
	}
	if f := rawFormat(t, path); f != dataFormat {
		t.Fatalf("after a clean close the bbolt file records format %d", f)
	}
}

// An engine that refuses a newer data file must refuse it before it touches
// anything. Today the check is in load(), after openFileKV has replayed the
// newer adjl's write-ahead logs with this adjl's decoder, written them into
// the bbolt file and retired them: if the newer format changed the log (a
// new op byte fails validPayload, so replay stops there; a new logMagic
// reads as a torn header, so openLog truncates the log) acknowledged writes
// are lost, and even when it did not, the refused file has been rewritten.
//
// Fix: check (and, for a new or older file, write) the record on the raw
// bbolt file in openFileKV, between bolt.Open and openWAL, closing the
// db and returning the error there; keep load's check for memKV. Writing it
// straight into bbolt also means the record is never only in a log.
func TestReview4RefusedFormatLeavesFilesUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	e, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// A newer adjl takes the file over: its record, then writes that a
	// crash leaves in its log only.
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(versionBucket).Put(formatKey, binary.BigEndian.AppendUint64(nil, dataFormat+1))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	kv := openAsNewer(t, path)
	if err := walPut(kv, "newer", "k", "v"); err != nil {
		t.Fatal(err)
	}
	kv.crash()
	snapshot := func() map[string][]byte {
		m := map[string][]byte{}
		for _, p := range []string{path, path + "-wal0", path + "-wal1"} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			m[p] = b
		}
		return m
	}
	before := snapshot()

	_, err = Open(path, Options{})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Format != dataFormat+1 {
		t.Fatalf("open of a newer file: %v", err)
	}
	for p, b := range snapshot() {
		if !bytes.Equal(b, before[p]) {
			t.Errorf("the refused open changed %s", filepath.Base(p))
		}
	}
	// The lock is released: the newer adjl can go on.
	kv2 := openAsNewer(t, path)
	defer kv2.Close()
	if got := walGet(t, kv2, "newer", "k"); got != "v" {
		t.Fatalf("the newer adjl's acknowledged write: %q", got)
	}
}
